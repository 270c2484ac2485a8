#ifndef LITE_CPU_H
#define LITE_CPU_H

#include <stdint.h>

/// CPU features the engine's microkernels are selected by, as bits of `lite_cpu_features()`.
/// A bit is set only when the CPU has the instructions *and* the operating system saves the registers they use
/// (XCR0), so a kernel chosen from these bits never executes an instruction the machine cannot run.
enum {
    LITE_CPU_X86_AVX2 = 1u << 0,        ///< AVX2 with FMA3 (Haswell, Zen).
    LITE_CPU_X86_AVX512F = 1u << 1,
    LITE_CPU_X86_AVX512BW = 1u << 2,
    LITE_CPU_X86_AVX512DQ = 1u << 3,
    LITE_CPU_X86_AVX512VL = 1u << 4,
    LITE_CPU_X86_AVX512VNNI = 1u << 5,
    LITE_CPU_X86_AVX512VBMI = 1u << 6,  ///< Byte permutes (Ice Lake, Zen 4); not part of any level.
    LITE_CPU_ARM_NEON = 1u << 16,       ///< Always set on arm64.
};

/// The features of the CPU this process runs on. Computed with `cpuid` and `xgetbv` on x86-64 (no code compiled for
/// any extension runs here); constant on other architectures. Cheap enough to call more than once.
uint32_t lite_cpu_features(void);

/// The CPU's brand string ("AMD EPYC 7B13 ..."), or "" where the architecture has none. Writes at most
/// `capacity` bytes including the terminating zero.
void lite_cpu_brand(char *buffer, int capacity);

/// A hint to the CPU, inside a spin-wait loop, that the thread is waiting (x86-64 `pause`, arm64 `yield`): the loop
/// then takes fewer of the core's resources from the thread that shares it (SMT) and leaves the loop without a
/// memory-order mis-speculation when the awaited store arrives.
static inline void lite_spin_pause(void) {
#if defined(__x86_64__)
    __asm__ __volatile__("pause");
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
