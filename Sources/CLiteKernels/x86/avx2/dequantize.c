// DEQUANTIZE of 8-bit tensors with one scale, eight lanes at a time (AVX2): LiteRT's vector arithmetic exactly.
#if defined(__x86_64__)
#include <immintrin.h>
#include <stdint.h>

#include "../isa_targets.h"
#include "../../include/lite_quantize.h"

LITE_TARGET_AVX2_BEGIN

/// Eight bytes at `p` as float lanes, sign- or zero-extended.
static inline __attribute__((always_inline)) __m256 lite_bytes_as_floats8(const uint8_t *p, int is_unsigned) {
    const __m128i bytes = _mm_loadl_epi64((const __m128i *)p);
    return _mm256_cvtepi32_ps(is_unsigned ? _mm256_cvtepu8_epi32(bytes) : _mm256_cvtepi8_epi32(bytes));
}

static inline __attribute__((always_inline)) void lite_q8_dequantize(const uint8_t *input, float *output, size_t count, float scale,
                                                                     float offset, int is_unsigned) {
    const __m256 s = _mm256_set1_ps(scale), o = _mm256_set1_ps(offset);
    size_t i = 0;
    // The multiply and the add are separate instructions (and this file is compiled with -ffp-contract=off), each
    // rounded, as LiteRT's loop computes them.
    for (; i + 32 <= count; i += 32) {
        const __m256 v0 = lite_bytes_as_floats8(input + i, is_unsigned), v1 = lite_bytes_as_floats8(input + i + 8, is_unsigned);
        const __m256 v2 = lite_bytes_as_floats8(input + i + 16, is_unsigned), v3 = lite_bytes_as_floats8(input + i + 24, is_unsigned);
        _mm256_storeu_ps(output + i, _mm256_add_ps(_mm256_mul_ps(v0, s), o));
        _mm256_storeu_ps(output + i + 8, _mm256_add_ps(_mm256_mul_ps(v1, s), o));
        _mm256_storeu_ps(output + i + 16, _mm256_add_ps(_mm256_mul_ps(v2, s), o));
        _mm256_storeu_ps(output + i + 24, _mm256_add_ps(_mm256_mul_ps(v3, s), o));
    }
    for (; i + 8 <= count; i += 8) {
        _mm256_storeu_ps(output + i, _mm256_add_ps(_mm256_mul_ps(lite_bytes_as_floats8(input + i, is_unsigned), s), o));
    }
}

void lite_s8_dequantize__avx2(const int8_t *input, float *output, size_t count, float scale, float offset) {
    lite_q8_dequantize((const uint8_t *)input, output, count, scale, offset, 0);
}

void lite_u8_dequantize__avx2(const uint8_t *input, float *output, size_t count, float scale, float offset) {
    lite_q8_dequantize(input, output, count, scale, offset, 1);
}

LITE_TARGET_END

#endif
