#!/usr/bin/env bash
# The project's test command: installs what is missing, records LiteRT's outputs on the real models
# (tools/make_model_goldens.py) and MediaPipe's on the models that need its custom ops, runs every Swift test at the
# instruction-set level the CPU selects, then the engine's golden and consistency tests again at every lower level
# this CPU has (LITEVISION_ISA), so every kernel path that can run here is checked against LiteRT in every run, then
# builds the DocC documentation with warnings as errors and runs every libFuzzer target briefly. Ends with one
# "N passed, M failed" line.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
export PATH="$PWD/.venv/bin:$PATH"  # python3: the project's virtual environment, with LiteRT
python3 tools/make_model_goldens.py
# MediaPipe's own outputs on the wheel's models that need MediaPipe's custom ops (its own virtual environment).
tools/setup.sh --mediapipe
.venv-mediapipe/bin/python tools/make_mediapipe_op_goldens.py models
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
status=0
# Debug build: Package.swift optimizes the engine, reader and image code in debug builds too.
swift build --build-tests 2>&1 | tee "$logs/build.log" || exit 1
swift test --skip-build "$@" 2>&1 | tee "$logs/run-default.log" || status=$?
# The tests that compare kernels with LiteRT and with each other, at each level below the detected one.
per_level='LiteEngineTests.(OpGoldenTests|ModelGoldenTests|KernelConsistencyTests|FastRequantizationTests|InstructionSetTests)|LiteTasksTests.(ClassifierGoldenTests|DetectionGoldenTests)'
levels=$(.build/debug/vision-cli cpu --levels)
detected=$(echo "$levels" | tail -n 1)
for level in $levels; do
  [ "$level" = "$detected" ] && continue
  echo "== tests at LITEVISION_ISA=$level (this CPU: $detected)"
  LITEVISION_ISA=$level swift test --skip-build --filter "$per_level" 2>&1 | tee "$logs/run-$level.log" || status=$?
done
# The DocC catalogs of the library products, every DocC warning an error (tools/docs.sh).
echo "== documentation (tools/docs.sh)"
if ! tools/docs.sh > "$logs/docs.log" 2>&1; then
  tail -n 40 "$logs/docs.log"
  echo "documentation: tools/docs.sh failed (DocC warnings or a build error above)" >&2
  status=1
fi
# Coverage-guided fuzzing, short: every libFuzzer target a fixed number of runs from its seeds (tools/fuzz.sh,
# Docs/fuzzing.md), built with AddressSanitizer.
echo "== fuzzing (tools/fuzz.sh --ci)"
if ! tools/fuzz.sh --ci; then
  echo "fuzzing: a libFuzzer target crashed, leaked or timed out (tools/fuzz.sh --ci above)" >&2
  status=1
fi
passed=0 failed=0
for log in "$logs"/run-*.log; do
  summary=$(grep -E "^[[:space:]]*Executed [0-9]+ tests?, with [0-9]+ failures?" "$log" | tail -n 1 || true)
  if [ -z "$summary" ]; then
    echo "no test summary in $(basename "$log")" >&2
    status=1
    continue
  fi
  total=$(echo "$summary" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/')
  failures=$(echo "$summary" | sed -E 's/.*with ([0-9]+) failures?.*/\1/')
  passed=$((passed + total - failures))
  failed=$((failed + failures))
done
echo "$passed passed, $failed failed"
exit "$status"
