#ifndef LITE_ORDERED_ADD_H
#define LITE_ORDERED_ADD_H

#include <immintrin.h>

/// Float sums whose first operand is the instruction's first source. x86 returns the first source's NaN (quieted)
/// when both operands are NaN, so a sum of two NaNs keeps the first one's payload, as the reference's `a + b` reads;
/// the compiler treats addition as commutative and would otherwise swap the operands where it pleases (a loaded
/// operand goes second, as the memory operand), so two kernels that compute the same sum could return different NaNs.
/// Include it after a level's LITE_TARGET_*_BEGIN (the AVX registers need the target).
static inline float lite_add_ordered1(float a, float b) {
    float sum;
    __asm__("vaddss %2, %1, %0" : "=x"(sum) : "x"(a), "xm"(b));
    return sum;
}

static inline __m256 lite_add_ordered8(__m256 a, __m256 b) {
    __m256 sum;
    __asm__("vaddps %2, %1, %0" : "=x"(sum) : "x"(a), "xm"(b));
    return sum;
}

#endif
