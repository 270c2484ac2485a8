#!/usr/bin/env bash
# Runs one libFuzzer target (tools/fuzz.sh) until the fuzzer process itself has used a given amount of CPU time, then
# stops it with SIGINT so that libFuzzer prints its final statistics, and prints one summary line. CPU time, not wall
# time, is what counts on a shared machine: the fuzzer runs at `nice -n 19` beside other work and still gets its hour.
#
# Usage: tools/fuzz_cpu_budget.sh TARGET [cpu-seconds, default 3600]
#   FUZZ_NO_BUILD=1 runs the binary already in .build-fuzz/ (build it once with `tools/fuzz.sh TARGET 1 -runs=1`).
#   FUZZ_TIMEOUT (seconds of wall time per input) defaults to 1500 here: a unit "times out" when the process was
#   descheduled or paused, not only when it is slow, and libFuzzer counts wall time.
# The log is .build-fuzz/TARGET.budget.log; the summary line goes to stdout and to .build-fuzz/budget-runs.txt.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${1:?usage: tools/fuzz_cpu_budget.sh TARGET [cpu-seconds]}"
budget="${2:-3600}"
log="$root/.build-fuzz/$target.budget.log"
mkdir -p "$root/.build-fuzz"
export FUZZ_TIMEOUT="${FUZZ_TIMEOUT:-1500}"

stamp="$(mktemp)"
# A wall-time limit far beyond the budget: the CPU-time watcher below is what ends the run.
setsid nice -n 19 "$root/tools/fuzz.sh" "$target" $(( budget * 20 )) > "$log" 2>&1 &
script_pid=$!
ticks=$(getconf CLK_TCK)

# The fuzzer is the binary .build-fuzz/TARGET started by fuzz.sh (after its build, if any).
fuzzer_pid=""
while kill -0 "$script_pid" 2>/dev/null && [ -z "$fuzzer_pid" ]; do
    fuzzer_pid="$(pgrep -f -x "$root/.build-fuzz/$target .*" | head -n 1 || true)"
    [ -n "$fuzzer_pid" ] || sleep 2
done

# setsid starts a session, which the kernel's autogroup scheduling gives a CPU share of its own, equal to any other
# session's whatever its processes' nice values: the session's own nice value is the one that makes it yield. Set
# through the fuzzer, which is in the new session for certain (setsid may not have run yet when this script goes on).
if [ -n "$fuzzer_pid" ] && [ "$(ps -o sid= -p "$fuzzer_pid" | tr -d ' ')" != "$(ps -o sid= -p $$ | tr -d ' ')" ]; then
    echo 19 > "/proc/$fuzzer_pid/autogroup" 2>/dev/null || true
fi

cpu_seconds() {
    # Fields 14 and 15 of /proc/PID/stat are utime and stime in clock ticks (the command name, field 2, has no spaces
    # here, so plain splitting is safe).
    local stat
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
    set -- $stat
    echo $(( (${14} + ${15}) / ticks ))
}

used=0
started=$(date +%s)
ended_by="the fuzzer exited by itself (a finding, or an error: see the log)"
if [ -n "$fuzzer_pid" ]; then
    # `used` keeps the last reading: the one after the fuzzer exits fails and must not blank it.
    while now="$(cpu_seconds "$fuzzer_pid")"; do
        used="$now"
        if [ "$used" -ge "$budget" ]; then
            kill -INT "$fuzzer_pid"
            ended_by="the CPU budget"
            break
        fi
        sleep 5
    done
fi
wait "$script_pid"
status=$?

stat() { grep -o "stat::$1: *[0-9]*" "$log" | tail -n 1 | grep -o '[0-9]*$'; }
last_status="$(grep -E '^#[0-9]+' "$log" | tail -n 1)"
summary="$(date -u +%Y-%m-%dT%H:%MZ) $target: ${used} s CPU in $(( $(date +%s) - started )) s wall, ended by ${ended_by} (exit ${status}; 72 is an interrupted libFuzzer); runs $(stat number_of_executed_units), exec/s $(stat average_exec_per_sec), peak RSS $(stat peak_rss_mb) MB, new units $(stat new_units_added); last status: ${last_status}"
echo "$summary" | tee -a "$root/.build-fuzz/budget-runs.txt"
found="$(find "$root/.build-fuzz/artifacts/$target" -newer "$stamp" -type f 2>/dev/null)"
rm -f "$stamp"
if [ -n "$found" ]; then
    echo "new artifacts:"
    echo "$found"
fi
