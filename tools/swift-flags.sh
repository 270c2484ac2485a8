#!/usr/bin/env bash
# Prints the Swift compiler flags that let the engine's SIMD kernels use this CPU's vector units.
# Without them Swift emits baseline x86-64 (SSE2) code, and the depthwise and elementwise kernels run
# at about 60% of the speed (measured in Docs/benchmarks.md). Flags stay out of Package.swift on purpose:
# unsafeFlags would make the package unusable as a dependency.
if grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo 2>/dev/null; then
  echo "-Xswiftc -target-cpu -Xswiftc haswell"
fi
