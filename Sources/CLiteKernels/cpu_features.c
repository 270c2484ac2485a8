// CPU feature detection for run-time kernel dispatch. Compiled for baseline x86-64: it must run on every CPU.
#include "lite_cpu.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <string.h>

/// XCR0, the register-state components the OS saves on a context switch. `xgetbv` is only valid once CPUID says
/// OSXSAVE; inline assembly so this file needs no `-mxsave`.
static uint64_t read_xcr0(void) {
    uint32_t eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((uint64_t)edx << 32) | eax;
}

uint32_t lite_cpu_features(void) {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    const int has_fma = (ecx >> 12) & 1, has_osxsave = (ecx >> 27) & 1, has_avx = (ecx >> 28) & 1;
    if (!has_osxsave || !has_avx) return 0;
    const uint64_t xcr0 = read_xcr0();
    // SSE (bit 1) and AVX (bit 2) state; opmask (5), upper halves of zmm0-15 (6) and zmm16-31 (7).
    const int ymm_saved = (xcr0 & 0x6) == 0x6;
    const int zmm_saved = ymm_saved && (xcr0 & 0xE0) == 0xE0;
    if (!ymm_saved) return 0;
    if (__get_cpuid_max(0, 0) < 7) return 0;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    uint32_t features = 0;
    if (((ebx >> 5) & 1) && has_fma) features |= LITE_CPU_X86_AVX2;
    if (zmm_saved) {
        if ((ebx >> 16) & 1) features |= LITE_CPU_X86_AVX512F;
        if ((ebx >> 17) & 1) features |= LITE_CPU_X86_AVX512DQ;
        if ((ebx >> 30) & 1) features |= LITE_CPU_X86_AVX512BW;
        if ((ebx >> 31) & 1) features |= LITE_CPU_X86_AVX512VL;
        if ((ecx >> 11) & 1) features |= LITE_CPU_X86_AVX512VNNI;
        if ((ecx >> 1) & 1) features |= LITE_CPU_X86_AVX512VBMI;
    }
    return features;
}

void lite_cpu_brand(char *buffer, int capacity) {
    if (capacity <= 0) return;
    buffer[0] = 0;
    unsigned regs[12];
    if (__get_cpuid_max(0x80000000, 0) < 0x80000004) return;
    for (unsigned leaf = 0; leaf < 3; leaf++) {
        __get_cpuid(0x80000002 + leaf, &regs[4 * leaf], &regs[4 * leaf + 1], &regs[4 * leaf + 2], &regs[4 * leaf + 3]);
    }
    char brand[49];
    memcpy(brand, regs, 48);
    brand[48] = 0;
    const char *start = brand;
    while (*start == ' ') start++;
    strncpy(buffer, start, (size_t)capacity - 1);
    buffer[capacity - 1] = 0;
}

#elif defined(__aarch64__)

uint32_t lite_cpu_features(void) { return LITE_CPU_ARM_NEON; }
void lite_cpu_brand(char *buffer, int capacity) { if (capacity > 0) buffer[0] = 0; }

#else

uint32_t lite_cpu_features(void) { return 0; }
void lite_cpu_brand(char *buffer, int capacity) { if (capacity > 0) buffer[0] = 0; }

#endif
