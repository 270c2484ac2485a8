// Dynamic-range quantization of float rows to int8 (the hybrid kernels' input), eight lanes at a time (AVX2).
#if defined(__x86_64__)
#include <immintrin.h>
#include <stdint.h>

#include "../isa_targets.h"
#include "../../include/lite_quantize.h"

LITE_TARGET_AVX2_BEGIN

size_t lite_f32_rminmax__avx2(const float *values, size_t count, float *low, float *high) {
    __m256 lows = _mm256_setzero_ps(), highs = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256 v = _mm256_loadu_ps(values + i);
        lows = _mm256_min_ps(v, lows);
        highs = _mm256_max_ps(v, highs);
    }
    // The lanes hold neither NaN nor −0, so the order of the reduction does not matter.
    float l[8], h[8];
    _mm256_storeu_ps(l, lows);
    _mm256_storeu_ps(h, highs);
    float smallest = l[0], largest = h[0];
    for (int j = 1; j < 8; j++) {
        smallest = l[j] < smallest ? l[j] : smallest;
        largest = h[j] > largest ? h[j] : largest;
    }
    *low = smallest;
    *high = largest;
    return i;
}

size_t lite_f32_qs8_quantize_offset__avx2(const float *values, size_t count, float inverse, float zero_point, float low,
                                          float *output) {
    const __m256 scale = _mm256_set1_ps(inverse), zero = _mm256_set1_ps(zero_point), lowest = _mm256_set1_ps(low);
    const __m256 highest = _mm256_set1_ps(127), limit = _mm256_set1_ps(512), negative_limit = _mm256_set1_ps(-512);
    const __m256 half = _mm256_set1_ps(0.5f), sign = _mm256_set1_ps(-0.0f);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        // LiteRT's eight-lane rounding: the product alone, p ± 1/2 truncated (−0 gets −1/2 here and +1/2 there; both
        // truncate to 0). Bounded first so that the truncation never sees a value beyond int32 (|p| ≤ 256 for any
        // finite input of the row; NaN becomes −512, then `low`), then the zero point added and the sum clamped.
        const __m256 p = _mm256_mul_ps(_mm256_loadu_ps(values + i), scale);
        const __m256 nudged = _mm256_add_ps(p, _mm256_or_ps(half, _mm256_and_ps(p, sign)));
        const __m256 bounded = _mm256_min_ps(limit, _mm256_max_ps(nudged, negative_limit));
        const __m256 r = _mm256_cvtepi32_ps(_mm256_cvttps_epi32(bounded));
        const __m256 q = _mm256_min_ps(highest, _mm256_max_ps(_mm256_add_ps(r, zero), lowest));
        _mm256_storeu_ps(output + i, _mm256_sub_ps(q, zero));
    }
    return i;
}

LITE_TARGET_END

#endif
