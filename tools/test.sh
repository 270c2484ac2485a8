#!/usr/bin/env bash
# The project's test command: installs what is missing, records LiteRT's outputs on the real models
# (tools/make_model_goldens.py) and MediaPipe's on the models that need its custom ops, runs every Swift test at the
# instruction-set level the CPU selects, then the engine's golden and consistency tests again at every lower level
# this CPU has (LITEVISION_ISA), so every kernel path that can run here is checked against LiteRT in every run, then
# builds the DocC documentation with warnings as errors, runs every libFuzzer target briefly, and runs a
# representative part of the tests under AddressSanitizer and the concurrency tests under ThreadSanitizer
# (tools/sanitize.sh). Ends with one "N passed, M failed" line, and the time each step took.
set -euo pipefail
cd "$(dirname "$0")/.."
# Notes how long each step took, for the summary at the end.
timings="" step_started=$(date +%s)
step() {
  timings+="$1: $(( $(date +%s) - step_started )) s; "
  step_started=$(date +%s)
}
tools/setup.sh
export PATH="$PWD/.venv/bin:$PATH"  # python3: the project's virtual environment, with LiteRT
python3 tools/make_model_goldens.py
# MediaPipe's own outputs on the wheel's models that need MediaPipe's custom ops (its own virtual environment).
tools/setup.sh --mediapipe
.venv-mediapipe/bin/python tools/make_mediapipe_op_goldens.py models
step "setup and reference outputs"
logs=$(mktemp -d)
# A background build left running by an early exit is stopped, with every process in its group.
trap '[ -n "${sanitize_build:-}" ] && kill -- -"$sanitize_build" 2>/dev/null; rm -rf "$logs"' EXIT
status=0
# Debug build: Package.swift optimizes the engine, reader and image code in debug builds too.
swift build --build-tests 2>&1 | tee "$logs/build.log" || exit 1
step "build"
# The sanitized packages (tools/sanitize.sh, the Swift libraries unoptimized: a cold build in about 5 minutes, against
# about 18 at -O) build at the lowest priority beside the test runs below, which keep one core busy and leave the other
# mostly idle; their tests run at the end. setsid: a process group of its own, which the trap can stop whole.
SANITIZE_OPTIMIZE=0 SANITIZE_BUILD_ONLY=1 setsid nice -n 19 bash -c 'tools/sanitize.sh thread && tools/sanitize.sh address' \
  > "$logs/sanitize-build.log" 2>&1 &
sanitize_build=$!
swift test --skip-build "$@" 2>&1 | tee "$logs/run-default.log" || status=$?
step "tests"
# The tests that compare kernels with LiteRT and with each other, at each level below the detected one.
per_level='LiteEngineTests.(OpGoldenTests|ModelGoldenTests|KernelConsistencyTests|StoreEpilogueConsistencyTests|FastRequantizationTests|InstructionSetTests)|LiteTasksTests.(ClassifierGoldenTests|DetectionGoldenTests)'
levels=$(.build/debug/vision-cli cpu --levels)
detected=$(echo "$levels" | tail -n 1)
for level in $levels; do
  [ "$level" = "$detected" ] && continue
  echo "== tests at LITEVISION_ISA=$level (this CPU: $detected)"
  LITEVISION_ISA=$level swift test --skip-build --filter "$per_level" 2>&1 | tee "$logs/run-$level.log" || status=$?
done
step "tests at the lower levels"
# The DocC catalogs of the library products, every DocC warning an error (tools/docs.sh), from the debug build above.
echo "== documentation (tools/docs.sh)"
if ! DOCS_SCRATCH_PATH=.build tools/docs.sh > "$logs/docs.log" 2>&1; then
  tail -n 40 "$logs/docs.log"
  echo "documentation: tools/docs.sh failed (DocC warnings or a build error above)" >&2
  status=1
fi
step "documentation"
# Coverage-guided fuzzing, short: every libFuzzer target a fixed number of runs from its seeds (tools/fuzz.sh,
# Docs/fuzzing.md), built with AddressSanitizer.
echo "== fuzzing (tools/fuzz.sh --ci)"
if ! tools/fuzz.sh --ci; then
  echo "fuzzing: a libFuzzer target crashed, leaked or timed out (tools/fuzz.sh --ci above)" >&2
  status=1
fi
step "fuzzing"
# The sanitizers (Docs/hardening.md): AddressSanitizer (and UndefinedBehaviorSanitizer in the C targets) on the
# representative part, ThreadSanitizer on the concurrency tests.
echo "== sanitizers (tools/sanitize.sh address|thread --representative)"
if wait "$sanitize_build"; then
  sanitize_build=""
  step "sanitized builds (the part not overlapped)"
  for sanitizer in address thread; do
    SANITIZE_OPTIMIZE=0 tools/sanitize.sh "$sanitizer" --representative 2>&1 | tee "$logs/run-$sanitizer.log" || status=$?
  done
  step "sanitized tests"
else
  sanitize_build=""
  tail -n 40 "$logs/sanitize-build.log"
  echo "sanitizers: building the sanitized packages failed (above); their tests did not run" >&2
  status=1
fi
passed=0 failed=0
for log in "$logs"/run-*.log; do
  # The run's own summary follows the outermost suite's line ('All tests', or 'Selected tests' with a filter); a test
  # process that crashed or was killed never prints it, only its inner suites' summaries.
  summary=$(grep -A1 -E "^Test Suite '(All tests|Selected tests)' (passed|failed)" "$log" \
    | grep -E "^[[:space:]]*Executed [0-9]+ tests?, with [0-9]+ failures?" | tail -n 1 || true)
  if [ -z "$summary" ]; then
    echo "no overall test summary in $(basename "$log"): the test process crashed or was stopped (counted as a failure)" >&2
    status=1
    failed=$((failed + 1))
    continue
  fi
  total=$(echo "$summary" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/')
  failures=$(echo "$summary" | sed -E 's/.*with ([0-9]+) failures?.*/\1/')
  passed=$((passed + total - failures))
  failed=$((failed + failures))
done
echo "${timings%; }"
echo "$passed passed, $failed failed"
exit "$status"
