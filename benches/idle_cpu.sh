#!/usr/bin/env bash
# Idle CPU of the real console: runs `mosk-console demo` in a detached tmux
# session (its own tmux server socket), presses no keys for SECONDS seconds,
# and reports the CPU time the process used (utime + stime from
# /proc/<pid>/stat) and, after quitting with Ctrl-C, the frames and messages
# the runtime counted (RunStats, logged at exit to the trace log in
# $XDG_STATE_HOME/mosk-console/, here a temporary directory).
#
# The demo process holds the simulator (API servers + scenario driver), the
# kube-rs watchers and the console: the CPU time covers all three.
#
# Usage: benches/idle_cpu.sh [SECONDS] [SCENARIO] [-- DEMO ARGS...]
#   SECONDS   measured window after a 5 s warm-up (default 20)
#   SCENARIO  built-in scenario name or path (default quick)
#   DEMO ARGS passed to `mosk-console demo`, e.g. `-- --speed 0.001`
# Environment: CARGO_TARGET_DIR (default ./target), WARMUP (default 5),
#   COLS/ROWS terminal size (default 200x60), KEEP=1 keeps the temp directory.
set -euo pipefail

secs=${1:-20}
scenario=${2:-quick}
shift $(( $# > 2 ? 2 : $# ))
if [[ ${1:-} == "--" ]]; then shift; fi
extra=("$@")
warmup=${WARMUP:-5}
cols=${COLS:-200}
rows=${ROWS:-60}

cd "$(dirname "$0")/.."
# shellcheck source=benches/lib/proc.sh
source benches/lib/proc.sh
release_bin

command -v tmux >/dev/null || { echo "idle_cpu.sh: tmux is not installed" >&2; exit 1; }
state=$(mktemp -d)
sock="mosk-idle-cpu-$$"
cleanup() {
    tmux -L "$sock" kill-server 2>/dev/null || true
    if [[ ${KEEP:-0} != 1 ]]; then rm -rf "$state"; else echo "kept $state"; fi
}
trap cleanup EXIT

printf -v cmd '%q ' env "XDG_STATE_HOME=$state" "$bin" demo --scenario "$scenario" "${extra[@]}"
tmux -L "$sock" -f /dev/null new-session -d -x "$cols" -y "$rows" "exec $cmd"
pid=$(tmux -L "$sock" list-panes -F '#{pane_pid}')

# `exec` keeps the pid; wait until it is the console.
for _ in $(seq 100); do
    [[ $(cat "/proc/$pid/comm" 2>/dev/null) == mosk-console ]] && break
    sleep 0.1
done
[[ $(cat "/proc/$pid/comm" 2>/dev/null) == mosk-console ]] || {
    echo "idle_cpu.sh: the console did not start" >&2
    tmux -L "$sock" capture-pane -p >&2 || true
    exit 1
}

hz=$(proc_hz)
cpu_ticks() { proc_cpu_ticks "$pid"; }

start_ns=$(date +%s%N)
sleep "$warmup"
t0=$(cpu_ticks); w0=$(date +%s%N)
sleep "$secs"
t1=$(cpu_ticks); w1=$(date +%s%N)
rss_kb=$(proc_rss_kb "$pid")
screen=$(tmux -L "$sock" capture-pane -p | head -n 1)

tmux -L "$sock" send-keys C-c
for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
end_ns=$(date +%s%N)
if kill -0 "$pid" 2>/dev/null; then
    echo "idle_cpu.sh: the console did not quit on Ctrl-C" >&2
    exit 1
fi

log="$state/mosk-console/mosk-console.log"
stats=$(grep -h "console stopped" "$log" 2>/dev/null | tail -n 1 || true)
frames=$(sed -n 's/.*frames: \([0-9]*\).*/\1/p' <<<"$stats")
messages=$(sed -n 's/.*messages: \([0-9]*\).*/\1/p' <<<"$stats")

awk -v t0="$t0" -v t1="$t1" -v hz="$hz" -v w0="$w0" -v w1="$w1" \
    -v s0="$start_ns" -v e="$end_ns" -v f="${frames:-}" -v m="${messages:-}" \
    -v rss="$rss_kb" -v sc="$scenario" -v ex="${extra[*]:-}" -v top="$screen" \
    -v cols="$cols" -v rows="$rows" 'BEGIN {
    cpu = (t1 - t0) / hz; wall = (w1 - w0) / 1e9; run = (e - s0) / 1e9
    printf "scenario: %s %s (%sx%s terminal)\n", sc, ex, cols, rows
    printf "screen:   %s\n", top
    printf "window:   %.1f s wall after warm-up\n", wall
    printf "cpu:      %.2f s (%.1f%% of one core)\n", cpu, 100 * cpu / wall
    printf "rss:      %.1f MiB at the end of the window\n", rss / 1024
    if (f != "") printf "frames:   %d in %.1f s run (%.2f per second), %d messages\n", f, run, f / run, m
    else print "frames:   RunStats not found in the trace log"
}'
