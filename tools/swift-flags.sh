#!/usr/bin/env bash
# Prints the Swift compiler flags that let the engine's SIMD kernels use this CPU's vector units.
# Without them Swift emits baseline x86-64 (SSE2) code, and the depthwise and elementwise kernels run
# at about 60% of the speed (measured in Docs/benchmarks.md). On CPUs with AVX2 and FMA it enables their
# intrinsics (LITE_AVX2: fused multiply-adds, the int16 GEMM of quantized convolutions in
# Sources/LiteEngine/Quantization/QuantizedGEMMAVX2.swift). On CPUs with AVX-512 VNNI it also enables
# those instructions and compiles the 8-bit GEMM of quantized convolutions (LITE_AVX512_VNNI, see
# Sources/LiteEngine/Quantization/QuantizedGEMM.swift); the binary then needs such a CPU.
# Flags stay out of Package.swift on purpose: unsafeFlags would make the package unusable as a dependency.
has() { grep -qw "$1" /proc/cpuinfo 2>/dev/null; }
if has avx2 && has fma; then
  flags="-Xswiftc -target-cpu -Xswiftc haswell -Xcc -mavx2 -Xcc -mfma -Xswiftc -DLITE_AVX2"
  if has avx512f && has avx512bw && has avx512dq && has avx512vl && has avx512_vnni; then
    for feature in avx512f avx512bw avx512dq avx512vl avx512vnni; do
      flags="$flags -Xcc -m$feature"
    done
    flags="$flags -Xswiftc -DLITE_AVX512_VNNI"
  fi
  echo "$flags"
fi
