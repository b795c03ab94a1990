#!/usr/bin/env bash
# How soon the console's first full screen comes (every list in), with the
# console alone against the simulator: starts `mosk-console sim serve` once,
# lets it play SIM_WARMUP seconds, then starts the console RUNS times in a
# COLS x ROWS pseudo-terminal (benches/lib/pty_run.py), each for RUN_SECS
# seconds, and prints per run when the console drew its first full screen
# (its trace log's `first full screen drawn after=…`, on its own clock from
# its start) and the CPU time it had used by the end of the run.
# `benches/side_by_side.sh` prints the same line with two kubectl watches
# listing at the same time.
#
# Usage: benches/first_screen.sh [RUNS] [SCENARIO] [SPEED]
#   RUNS      how many times to start the console (default 5)
#   SCENARIO  built-in scenario name or path (default large)
#   SPEED     simulated seconds per real second (default 10, as `demo`)
# Environment: BIN (a binary to use instead of building one), SIM_WARMUP
#   (default 10), RUN_SECS (default 2), COLS/ROWS (default 200x50), KEEP=1
#   keeps the temp directory (the simulator's output, the kubeconfig, the
#   last run's trace log at debug level: one `listed` line per kind).
set -euo pipefail

runs=${1:-5}
scenario=${2:-large}
speed=${3:-10}
sim_warmup=${SIM_WARMUP:-10}
run_secs=${RUN_SECS:-2}
cols=${COLS:-200}
rows=${ROWS:-50}

cd "$(dirname "$0")/.."
# shellcheck source=benches/lib/proc.sh
source benches/lib/proc.sh
# shellcheck source=benches/lib/sim.sh
source benches/lib/sim.sh
command -v python3 >/dev/null || { echo "first_screen.sh: python3 is not installed" >&2; exit 1; }
release_bin

dir=$(mktemp -d)
sim_pid=
cleanup() {
    [[ -n $sim_pid ]] && kill "$sim_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    if [[ ${KEEP:-0} != 1 ]]; then rm -rf "$dir"; else echo "kept $dir"; fi
}
trap cleanup EXIT

start_simulator "$dir" "$scenario" "$speed"
sleep "$sim_warmup"

hz=$(proc_hz)
echo "scenario: $scenario at ${speed}x, console alone in a ${cols}x${rows} pty, $runs runs of ${run_secs}s"
for i in $(seq "$runs"); do
    rm -rf "$dir/state" "$dir/console.pid"
    mkdir -p "$dir/state"
    python3 benches/lib/pty_run.py "$cols" "$rows" "$dir/console.out" "$dir/console.pid" -- \
        env "XDG_STATE_HOME=$dir/state" MOSK_CONSOLE_LOG=mosk_console=debug "$bin" \
        --kubeconfig "$kc" --mgmt-context sim-mgmt --mosk-context sim-mosk -n "$namespace" &
    pty_pid=$!
    for _ in $(seq 100); do [[ -s $dir/console.pid ]] && break; sleep 0.05; done
    console_pid=$(cat "$dir/console.pid" 2>/dev/null || true)
    [[ -n $console_pid ]] || { echo "first_screen.sh: the console did not start" >&2; exit 1; }
    sleep "$run_secs"
    ticks=$(proc_cpu_ticks "$console_pid" 2>/dev/null || echo "?")
    kill "$console_pid" 2>/dev/null || true
    wait "$pty_pid" 2>/dev/null || true
    after=$(grep -ho "first full screen drawn after=[^ ]*" "$dir"/state/mosk-console/mosk-console.log 2>/dev/null \
        | sed 's/.*after=//' || true)
    cpu=$(awk -v t="$ticks" -v hz="$hz" 'BEGIN { if (t == "?") print "?"; else printf "%.2f s", t / hz }')
    echo "run $i: first full screen after ${after:-(not within ${run_secs}s)}; CPU in its first ${run_secs}s: $cpu"
done
