#!/usr/bin/env bash
# The project's test command: installs what is missing, records LiteRT's outputs on the real models
# (tools/make_model_goldens.py), then runs every Swift test and ends with one "N passed, M failed" line.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
python3 tools/make_model_goldens.py
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# The CPU flags of release builds (tools/swift-flags.sh), so the kernels tested are the ones benchmarked; on
# CPUs with AVX-512 VNNI that includes the int8 dot-product kernels (LITE_EXPECT_VNNI tells the tests), on
# other AVX2 CPUs the int16 GEMM (LITE_EXPECT_AVX2).
flags=$(tools/swift-flags.sh)
case "$flags" in *LITE_AVX512_VNNI*) export LITE_EXPECT_VNNI=1 ;; *) export LITE_EXPECT_VNNI=0 ;; esac
case "$flags" in *LITE_AVX2*) export LITE_EXPECT_AVX2=1 ;; *) export LITE_EXPECT_AVX2=0 ;; esac
# -O in the debug configuration (which keeps @testable imports and overflow checks): the SIMD kernels are
# intrinsics that unoptimized code calls one by one, and on an AVX2 machine the suite took 34 minutes that way,
# 1.7 with -O (2026-11-25).
# shellcheck disable=SC2086
swift test $flags -Xswiftc -O "$@" 2>&1 | tee "$log" || status=$?
summary=$(grep -E "^[[:space:]]*Executed [0-9]+ tests?, with [0-9]+ failures?" "$log" | tail -n 1 || true)
if [ -n "$summary" ]; then
  total=$(echo "$summary" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/')
  failed=$(echo "$summary" | sed -E 's/.*with ([0-9]+) failures?.*/\1/')
  echo "$((total - failed)) passed, $failed failed"
fi
exit "$status"
