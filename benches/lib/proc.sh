# Shared by the shell benches (sourced, not run): the release binary, and a
# process's CPU time and resident memory read from /proc.

# Builds the release binary (in $CARGO_TARGET_DIR, default target/) and sets
# $bin to its absolute path. Run from the repository root. With $BIN set,
# uses that binary as it is (e.g. a copy of an earlier build, to compare).
release_bin() {
    if [[ -n ${BIN:-} ]]; then
        bin=$(realpath "$BIN")
        return
    fi
    local target=${CARGO_TARGET_DIR:-target}
    cargo build --release --quiet --bin mosk-console
    bin=$(realpath "$target/release/mosk-console")
}

# CPU time (utime + stime, in clock ticks) of process $1. The command name
# (field 2) may hold spaces: fields are counted after its closing parenthesis.
proc_cpu_ticks() {
    sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'
}

# Field $2 of /proc/$1/status in KiB (VmRSS, RssAnon, RssFile, ...), empty
# when the process is gone.
proc_status_kb() {
    awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/status" 2>/dev/null || true
}

# Resident set size of process $1 in KiB (VmRSS), empty when it is gone.
proc_rss_kb() {
    proc_status_kb "$1" VmRSS
}

# Clock ticks per second, for proc_cpu_ticks.
proc_hz() {
    getconf CLK_TCK
}
