// Quantized ADD with TFLite's integer arithmetic, sixteen int32 lanes at a time (AVX-512 F/BW/DQ/VL).
#if defined(__x86_64__)
#include <immintrin.h>
#include <stdint.h>

#include "../isa_targets.h"
#include "../../include/lite_elementwise.h"

LITE_TARGET_AVX512_BEGIN

/// Sixteen int32 results of a computation done in 64-bit lanes on the even and the odd int32 lanes (as `vpmuldq`
/// multiplies them): lane 2i is the low half of `even`'s 64-bit lane i, lane 2i+1 the low half of `odd`'s.
static inline __m512i lite_join_even_odd_lanes16(__m512i even, __m512i odd) {
    return _mm512_permutex2var_epi32(even, _mm512_set_epi32(30, 14, 28, 12, 26, 10, 24, 8, 22, 6, 20, 4, 18, 2, 16, 0), odd);
}

/// `(x·m + nudge) >> shift` per lane (arithmetic shift), x in 32-bit lanes, m and nudge in 64-bit ones; each result
/// must fit int32.
static inline __m512i lite_add_rescale16(__m512i x, __m512i m, __m512i nudge, __m128i shift) {
    const __m512i even = _mm512_sra_epi64(_mm512_add_epi64(_mm512_mul_epi32(x, m), nudge), shift);
    const __m512i odd = _mm512_sra_epi64(_mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), m), nudge), shift);
    return lite_join_even_odd_lanes16(even, odd);
}

/// The arithmetic of lite_qs8_vadd__avx2 (see there) in 16 lanes: 64-bit lanes shift arithmetically here, so the
/// nudges need no bias; the last values are read and written with byte masks.
static inline __attribute__((always_inline)) void lite_q8_vadd16(const void *a, const void *b, void *out, size_t count,
                                                                 const lite_q8_add_params *q, int is_unsigned) {
    const int32_t right = -q->output_shift;
    const int64_t k = (right > 0 ? INT64_C(1) << (right - 1) : 0) + (int64_t)((uint64_t)(int64_t)q->output_offset << right);
    const __m512i offset1 = _mm512_set1_epi32(q->input1_offset), offset2 = _mm512_set1_epi32(q->input2_offset);
    const __m512i m1 = _mm512_set1_epi64((int64_t)q->input1_multiplier), m2 = _mm512_set1_epi64((int64_t)q->input2_multiplier);
    const __m512i mo = _mm512_set1_epi64((int64_t)q->output_multiplier);
    const __m512i nudge = _mm512_set1_epi64(INT64_C(1) << 30);
    const __m512i output_nudge = _mm512_set1_epi64((INT64_C(1) << 30) + (int64_t)((uint64_t)k << 31));
    const __m128i shift1 = _mm_cvtsi64_si128(31 - (int64_t)q->input1_shift), shift2 = _mm_cvtsi64_si128(31 - (int64_t)q->input2_shift);
    const __m128i shift31 = _mm_cvtsi64_si128(31), output_shift = _mm_cvtsi64_si128(right);
    const __m512i offset_k = _mm512_set1_epi32((int32_t)k), tie_adjust = _mm512_set1_epi32(right > 0 ? 1 : 0);
    const __m512i lowest = _mm512_set1_epi32(q->output_min), highest = _mm512_set1_epi32(q->output_max);
    const uint8_t *pa = (const uint8_t *)a, *pb = (const uint8_t *)b;
    uint8_t *po = (uint8_t *)out;
    for (size_t i = 0; i < count; i += 16) {
        const __mmask16 mask = count - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (count - i)) - 1);
        const __m128i bytes_a = _mm_maskz_loadu_epi8(mask, pa + i), bytes_b = _mm_maskz_loadu_epi8(mask, pb + i);
        const __m512i wide_a = is_unsigned ? _mm512_cvtepu8_epi32(bytes_a) : _mm512_cvtepi8_epi32(bytes_a);
        const __m512i wide_b = is_unsigned ? _mm512_cvtepu8_epi32(bytes_b) : _mm512_cvtepi8_epi32(bytes_b);
        const __m512i x = _mm512_slli_epi32(_mm512_add_epi32(wide_a, offset1), 20);
        const __m512i y = _mm512_slli_epi32(_mm512_add_epi32(wide_b, offset2), 20);
        const __m512i sum = _mm512_add_epi32(lite_add_rescale16(x, m1, nudge, shift1), lite_add_rescale16(y, m2, nudge, shift2));
        __m512i t = lite_add_rescale16(sum, mo, output_nudge, shift31);
        t = _mm512_mask_sub_epi32(t, _mm512_cmplt_epi32_mask(t, offset_k), t, tie_adjust);
        const __m512i v = _mm512_min_epi32(_mm512_max_epi32(_mm512_sra_epi32(t, output_shift), lowest), highest);
        const __m128i bytes = _mm512_cvtepi32_epi8(v);
        if (mask == 0xFFFF) {
            _mm_storeu_si128((__m128i *)(po + i), bytes);
        } else {
            _mm_mask_storeu_epi8(po + i, mask, bytes);
        }
    }
}

void lite_qs8_vadd__avx512(const int8_t *a, const int8_t *b, int8_t *out, size_t count, const lite_q8_add_params *params) {
    lite_q8_vadd16(a, b, out, count, params, 0);
}

void lite_qu8_vadd__avx512(const uint8_t *a, const uint8_t *b, uint8_t *out, size_t count, const lite_q8_add_params *params) {
    lite_q8_vadd16(a, b, out, count, params, 1);
}

LITE_TARGET_END

#endif
