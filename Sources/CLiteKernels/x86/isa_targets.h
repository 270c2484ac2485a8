#ifndef LITE_ISA_TARGETS_H
#define LITE_ISA_TARGETS_H

// Per-file instruction-set targets. A microkernel file for one level opens with its BEGIN macro after its includes
// and closes with LITE_TARGET_END: every function in between, `static inline` helpers included, is compiled for
// exactly that level (clang's `target` attribute), while the rest of the program stays baseline x86-64. The
// feature lists must match the CPU checks in cpu_features.c and InstructionSetLevel.swift.
#define LITE_TARGET_AVX2_BEGIN \
    _Pragma("clang attribute push(__attribute__((target(\"avx2,fma\"))), apply_to = function)")
#define LITE_TARGET_AVX512_BEGIN \
    _Pragma("clang attribute push(__attribute__((target(\"avx2,fma,avx512f,avx512bw,avx512dq,avx512vl\"))), apply_to = function)")
#define LITE_TARGET_AVX512VNNI_BEGIN \
    _Pragma("clang attribute push(__attribute__((target(\"avx2,fma,avx512f,avx512bw,avx512dq,avx512vl,avx512vnni\"))), apply_to = function)")
/// Not a level of its own: the avx512 level's features and VBMI's byte permutes, for the kernels that levels from
/// avx512 up use when the CPU also has VBMI (``ElementwiseKernels``).
#define LITE_TARGET_AVX512VBMI_BEGIN \
    _Pragma("clang attribute push(__attribute__((target(\"avx2,fma,avx512f,avx512bw,avx512dq,avx512vl,avx512vbmi\"))), apply_to = function)")
#define LITE_TARGET_END _Pragma("clang attribute pop")

#endif
