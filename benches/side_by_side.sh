#!/usr/bin/env bash
# The console and `kubectl get -w` side by side on one simulated cluster:
# starts the simulator in its own process (`mosk-console sim serve`), then,
# against it and at the same time,
#   - the console in a pseudo-terminal of COLS x ROWS (benches/lib/pty_run.py
#     appends every byte it writes to the terminal to a file), on the
#     Overview, no keys pressed;
#   - `kubectl get -w` on LCMMachines (management cluster) and on
#     NodeWorkloadLocks (MOSK cluster), each writing to a file;
# waits WARMUP seconds (the initial lists and the first full screen), then
# measures for SECONDS and prints one table: per process, the resident memory
# (VmRSS from /proc/PID/status, sampled every second: last sample and max),
# the CPU time over the window as a share of one core (utime + stime from
# /proc/PID/stat) and the bytes written per second over the window (terminal
# bytes for the console, output bytes for kubectl). The simulator's own CPU
# and memory are shown below the table for reference.
# Last, the console's RunStats and when it drew its first full screen (every
# list in), on its own clock from its start.
#
# Usage: benches/side_by_side.sh [SECONDS] [SCENARIO] [SPEED]
#   SECONDS   measured window after the warm-up (default 60)
#   SCENARIO  built-in scenario name or path (default large)
#   SPEED     simulated seconds per real second (default 10, as `demo`)
# Environment: CARGO_TARGET_DIR (default ./target), BIN (a binary to use
#   instead of building one), SIM_WARMUP (seconds the simulator runs alone
#   first, default 10), WARMUP (default 15),
#   COLS/ROWS terminal size (default 200x50), KEEP=1 keeps the temp directory
#   (outputs, kubeconfig, the console's trace log), CONSOLE_ENV: extra
#   VAR=value words for the console's environment (e.g. MALLOC_ARENA_MAX=2),
#   SIM_ARGS: extra words for `sim serve` (e.g. `--log-rate 2000`: a busy
#   lcm-controller log, which fills the console's 20,000-line buffer).
#   KDASH: a kdash binary (`cargo install kdash --locked`) to run beside
#   them, in a pty of the same size on the MOSK context (its default
#   screen: nodes and pods, polled every 5 s). Without it, kdash is left out
#   and the output says so.
set -euo pipefail

secs=${1:-60}
scenario=${2:-large}
speed=${3:-10}
warmup=${WARMUP:-15}
sim_warmup=${SIM_WARMUP:-10}
cols=${COLS:-200}
rows=${ROWS:-50}
read -r -a console_env <<<"${CONSOLE_ENV:-}"
read -r -a sim_args <<<"${SIM_ARGS:-}"

cd "$(dirname "$0")/.."
# shellcheck source=benches/lib/proc.sh
source benches/lib/proc.sh
# shellcheck source=benches/lib/sim.sh
source benches/lib/sim.sh

kubectl=$(command -v kubectl || true)
if [[ -z $kubectl ]]; then
    echo "side_by_side.sh: kubectl is not installed (not on PATH); it is needed to compare with" >&2
    exit 1
fi
command -v python3 >/dev/null || { echo "side_by_side.sh: python3 is not installed" >&2; exit 1; }
release_bin

dir=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [[ ${KEEP:-0} != 1 ]]; then rm -rf "$dir"; else echo "kept $dir"; fi
}
trap cleanup EXIT

# 1. The simulator, in its own process; it is ready once it says how to stop it.
start_simulator "$dir" "$scenario" "$speed" "${sim_args[@]}"
pids+=("$sim_pid")
# The scenario's first simulated minute changes most objects at once: more
# changes than the simulator's watch window (1,000 events per resource), so a
# watch started right after its list gets 410 Gone, and `kubectl get -w`
# ends silently on that (exit status 0; the console lists again). Let that
# burst pass first.
sleep "$sim_warmup"

# 2. The console in a pseudo-terminal, and the two kubectl watches. kubectl
# lists in one page (--chunk-size=0): with the update playing, the
# simulator's continue tokens expire between kubectl's pages (410 "continue
# parameter is too old"), which kubectl does not retry.
mkdir -p "$dir/state"
python3 benches/lib/pty_run.py "$cols" "$rows" "$dir/console.out" "$dir/console.pid" -- \
    env "XDG_STATE_HOME=$dir/state" "${console_env[@]}" "$bin" \
    --kubeconfig "$kc" --mgmt-context sim-mgmt --mosk-context sim-mosk -n "$namespace" &
pty_pid=$!
pids+=("$pty_pid")
"$kubectl" --kubeconfig "$kc" --context sim-mgmt -n "$namespace" get lcmmachines -w --chunk-size=0 ${KUBECTL_V:+-v=$KUBECTL_V} \
    >"$dir/kubectl-lcmmachines.out" 2>"$dir/kubectl-lcmmachines.err" &
kl_pid=$!
pids+=("$kl_pid")
"$kubectl" --kubeconfig "$kc" --context sim-mosk get nodeworkloadlocks -w --chunk-size=0 ${KUBECTL_V:+-v=$KUBECTL_V} \
    >"$dir/kubectl-nodeworkloadlocks.out" 2>"$dir/kubectl-nodeworkloadlocks.err" &
kw_pid=$!
pids+=("$kw_pid")

for _ in $(seq 100); do [[ -s $dir/console.pid ]] && break; sleep 0.1; done
console_pid=$(cat "$dir/console.pid" 2>/dev/null || true)
[[ -n $console_pid ]] || { echo "side_by_side.sh: the console did not start" >&2; exit 1; }

names=(console "kubectl get -w lcmmachines" "kubectl get -w nodeworkloadlocks" simulator)
watched=("$console_pid" "$kl_pid" "$kw_pid" "$sim_pid")
outs=("$dir/console.out" "$dir/kubectl-lcmmachines.out" "$dir/kubectl-nodeworkloadlocks.out" "")
shown=(0 1 2)
if [[ -n ${KDASH:-} ]]; then
    [[ -x $KDASH ]] || { echo "side_by_side.sh: KDASH=$KDASH is not an executable file" >&2; exit 1; }
    # kdash reads the kubeconfig's current context unless told; it writes
    # its own files (none by default) in its working directory.
    (cd "$dir" && exec python3 "$OLDPWD/benches/lib/pty_run.py" "$cols" "$rows" "$dir/kdash.out" "$dir/kdash.pid" -- \
        env "KUBECONFIG=$kc" "$KDASH" --context sim-mosk) &
    kd_pty=$!
    pids+=("$kd_pty")
    for _ in $(seq 100); do [[ -s $dir/kdash.pid ]] && break; sleep 0.1; done
    kdash_pid=$(cat "$dir/kdash.pid" 2>/dev/null || true)
    [[ -n $kdash_pid ]] || { echo "side_by_side.sh: kdash did not start" >&2; exit 1; }
    names+=("kdash (MOSK context, default screen)")
    watched+=("$kdash_pid")
    outs+=("$dir/kdash.out")
    shown+=(4)
fi

sleep "$warmup"
for i in "${!watched[@]}"; do
    kill -0 "${watched[$i]}" 2>/dev/null || {
        if [[ $i == 0 || $i == 4 ]]; then
            # Not this shell's child (pty_run.py's): its last words are on its terminal.
            echo "side_by_side.sh: ${names[$i]} stopped during the warm-up; its screen ended with:" >&2
            tail -c 600 "${outs[$i]}" | tr -c '[:print:]\n' ' ' >&2
        else
            rc=0
            wait "${watched[$i]}" 2>/dev/null || rc=$?
            echo "side_by_side.sh: ${names[$i]} stopped during the warm-up (exit status $rc)" >&2
            tail -n 5 "$dir"/*.err >&2 2>/dev/null || true
        fi
        exit 1
    }
done

size() { [[ -n $1 ]] && stat -c %s "$1" || echo 0; }
declare -a t0 b0 rss_max rss_last
for i in "${!watched[@]}"; do
    t0[$i]=$(proc_cpu_ticks "${watched[$i]}")
    b0[$i]=$(size "${outs[$i]}")
    rss_max[$i]=0
done
w0=$(date +%s%N)
for _ in $(seq "$secs"); do
    sleep 1
    for i in "${!watched[@]}"; do
        r=$(proc_rss_kb "${watched[$i]}")
        [[ -n $r ]] || { echo "side_by_side.sh: ${names[$i]} stopped during the run" >&2; exit 1; }
        rss_last[$i]=$r
        (( r > rss_max[i] )) && rss_max[$i]=$r
    done
done
w1=$(date +%s%N)
anon=$(proc_status_kb "$console_pid" RssAnon)
file=$(proc_status_kb "$console_pid" RssFile)
threads=$(awk '$1 == "Threads:" {print $2}' "/proc/$console_pid/status")
declare -a t1 b1
for i in "${!watched[@]}"; do
    t1[$i]=$(proc_cpu_ticks "${watched[$i]}")
    b1[$i]=$(size "${outs[$i]}")
done

# 3. Quit the console (Ctrl-C through its terminal) and read its RunStats.
kill -TERM "$pty_pid" 2>/dev/null || true
wait "$pty_pid" 2>/dev/null || true
if [[ -n ${kd_pty:-} ]]; then
    # kdash quits on `q`, not Ctrl-C: pty_run.py kills it after 10 s.
    kill -TERM "$kd_pty" 2>/dev/null || true
fi
stats=$(grep -h "console stopped" "$dir/state/mosk-console/mosk-console.log" 2>/dev/null | tail -n 1 || true)
frames=$(sed -n 's/.*frames: \([0-9]*\).*/\1/p' <<<"$stats")

hz=$(proc_hz)
wall=$(awk -v a="$w0" -v b="$w1" 'BEGIN {printf "%.1f", (b - a) / 1e9}')
echo "scenario: $scenario at ${speed}x, simulator in its own process; console in a ${cols}x${rows} pty on the Overview, no keys"
echo "window:   ${wall} s after a ${warmup} s warm-up; RSS sampled every second"
printf '%-38s %10s %10s %12s %14s\n' process "RSS last" "RSS max" "CPU (1 core)" "bytes/s out"
for i in "${shown[@]}"; do
    awk -v n="${names[$i]}" -v l="${rss_last[$i]}" -v m="${rss_max[$i]}" -v c0="${t0[$i]}" -v c1="${t1[$i]}" \
        -v hz="$hz" -v a="$w0" -v b="$w1" -v o0="${b0[$i]}" -v o1="${b1[$i]}" 'BEGIN {
        w = (b - a) / 1e9
        printf "%-38s %6.1f MiB %6.1f MiB %11.2f%% %14.0f\n", n, l / 1024, m / 1024, 100 * (c1 - c0) / hz / w, (o1 - o0) / w
    }'
done
awk -v l="${rss_last[3]}" -v m="${rss_max[3]}" -v c0="${t0[3]}" -v c1="${t1[3]}" -v hz="$hz" -v a="$w0" -v b="$w1" 'BEGIN {
    w = (b - a) / 1e9
    printf "(simulator: %.1f MiB last, %.1f MiB max, %.2f%% of a core)\n", l / 1024, m / 1024, 100 * (c1 - c0) / hz / w
}'
awk -v a="$anon" -v f="$file" -v t="$threads" 'BEGIN {
    printf "(console RSS at the end: %.1f MiB anonymous (heap, stacks), %.1f MiB file-backed (the binary), %d threads)\n", a / 1024, f / 1024, t
}'
[[ -n ${KDASH:-} ]] || echo "(kdash not run: set KDASH to a kdash binary to compare with it)"
for i in "${shown[@]}"; do
    printf '%s: %s bytes in all (warm-up included)\n' "${names[$i]}" "$(size "${outs[$i]}")"
done
if [[ -n $frames ]]; then
    echo "console RunStats: $stats" | sed 's/.*console stopped/console RunStats: console stopped/'
fi
first=$(grep -h "first full screen drawn" "$dir/state/mosk-console/mosk-console.log" 2>/dev/null | head -n 1 || true)
if [[ -n $first ]]; then
    # The runtime's own clock, from its start (the terminal set up, the
    # watches started) to the first frame drawn with every list in.
    echo "console first full screen: ${first#*first full screen drawn }"
fi
