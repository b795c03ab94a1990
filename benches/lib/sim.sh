# Shared by the shell benches that run the simulator in its own process
# (sourced, not run). Needs $bin (benches/lib/proc.sh: release_bin).

# Starts `$bin sim serve --scenario $2 --speed $3 [extra args...]` in the
# background, its output in $1/sim.out and its kubeconfig in $1/kubeconfig,
# and waits until it says how to stop it. Sets $sim_pid, $kc (the
# kubeconfig) and $namespace (the management cluster's project namespace,
# from its printed example). Stops it and exits with its output when it
# does not start.
start_simulator() {
    local dir=$1 scenario=$2 speed=$3
    shift 3
    kc="$dir/kubeconfig"
    "$bin" sim serve --scenario "$scenario" --speed "$speed" --kubeconfig-out "$kc" "$@" \
        >"$dir/sim.out" 2>&1 &
    sim_pid=$!
    for _ in $(seq 300); do
        grep -q "Press Ctrl-C to stop" "$dir/sim.out" 2>/dev/null && break
        kill -0 "$sim_pid" 2>/dev/null || break
        sleep 0.1
    done
    grep -q "Press Ctrl-C to stop" "$dir/sim.out" 2>/dev/null || {
        echo "$(basename "$0"): the simulator did not start:" >&2
        cat "$dir/sim.out" >&2
        kill "$sim_pid" 2>/dev/null || true
        exit 1
    }
    namespace=$(awk '/get lcmmachines/ {for (i = 1; i <= NF; i++) if ($i == "-n") print $(i + 1)}' "$dir/sim.out")
    namespace=${namespace:-child-ns}
}
