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

/// The output rescale and store of `lite_q8_vadd16`, the rescaled inputs' sum in hand: `t = ⌊(sum·m + 2^30) /
/// 2^31⌋ + K` in 64-bit lanes, one less where `t < K` (ties away from zero), `t >> r`, clamped and narrowed.
typedef struct {
    __m512i multiplier, nudge, offset_k, tie_adjust, lowest, highest;
    __m128i shift31, output_shift;
} lite_add_output16;

static inline __attribute__((always_inline)) __m128i lite_add_finish16(__m512i sum, const lite_add_output16 *o) {
    __m512i t = lite_add_rescale16(sum, o->multiplier, o->nudge, o->shift31);
    t = _mm512_mask_sub_epi32(t, _mm512_cmplt_epi32_mask(t, o->offset_k), t, o->tie_adjust);
    const __m512i v = _mm512_min_epi32(_mm512_max_epi32(_mm512_sra_epi32(t, o->output_shift), o->lowest), o->highest);
    return _mm512_cvtepi32_epi8(v);
}

/// One input's rescale in 32-bit lanes, `⌊(v·m + 2^10) / 2^S⌋` for v = x + offset and S = 11 + s (the 64-bit
/// form's `⌊(v·2^20·m + 2^30) / 2^(31+s)⌋` with 2^20 divided out): with m = mh·2^S + ml (0 ≤ ml < 2^S) it is
/// `v·mh + ⌊(v·ml + 2^10) / 2^S⌋`, since v·mh·2^S leaves the floor unchanged. |v| ≤ 255, so v·ml + 2^10 fits int32
/// for S ≤ 22, and v·mh < 2^28. Here x·mh and x·ml are taken on the raw byte, the offset's share folded into
/// `bias` (offset·ml + 2^10) and into the caller's constant (offset·mh).
static inline __attribute__((always_inline)) __m512i lite_add_input32(__m512i x, __m512i high, __m512i low, __m512i bias,
                                                                      __m128i shift) {
    return _mm512_add_epi32(_mm512_mullo_epi32(x, high), _mm512_sra_epi32(_mm512_add_epi32(_mm512_mullo_epi32(x, low), bias), shift));
}

/// 16 bytes of `p` (masked) as int32 lanes.
static inline __attribute__((always_inline)) __m512i lite_widen16(const uint8_t *p, __mmask16 mask, int is_unsigned) {
    const __m128i bytes = _mm_maskz_loadu_epi8(mask, p);
    return is_unsigned ? _mm512_cvtepu8_epi32(bytes) : _mm512_cvtepi8_epi32(bytes);
}

/// The arithmetic of lite_qs8_vadd__avx2 (see there) in 16 lanes: 64-bit lanes shift arithmetically here, so the
/// nudges need no bias; the last values are read and written with byte masks. When both input shifts are at most
/// 11 (input multipliers of at least 2^-12, every ADD of real models), the input rescales run in 32-bit lanes
/// (`lite_add_input32`), the same values with two 32-bit multiplies each instead of two 64-bit ones and their shifts.
static inline __attribute__((always_inline)) void lite_q8_vadd16(const void *a, const void *b, void *out, size_t count,
                                                                 const lite_q8_add_params *q, int is_unsigned) {
    const int32_t right = -q->output_shift;
    const int64_t k = (right > 0 ? INT64_C(1) << (right - 1) : 0) + (int64_t)((uint64_t)(int64_t)q->output_offset << right);
    lite_add_output16 o;
    o.multiplier = _mm512_set1_epi64((int64_t)q->output_multiplier);
    o.nudge = _mm512_set1_epi64((INT64_C(1) << 30) + (int64_t)((uint64_t)k << 31));
    o.shift31 = _mm_cvtsi64_si128(31);
    o.output_shift = _mm_cvtsi64_si128(right);
    o.offset_k = _mm512_set1_epi32((int32_t)k);
    o.tie_adjust = _mm512_set1_epi32(right > 0 ? 1 : 0);
    o.lowest = _mm512_set1_epi32(q->output_min);
    o.highest = _mm512_set1_epi32(q->output_max);
    const uint8_t *pa = (const uint8_t *)a, *pb = (const uint8_t *)b;
    uint8_t *po = (uint8_t *)out;
    const int32_t s1 = -q->input1_shift, s2 = -q->input2_shift;
    if (s1 <= 11 && s2 <= 11) {
        const int32_t total1 = 11 + s1, total2 = 11 + s2;
        const int32_t high1 = q->input1_multiplier >> total1, low1 = q->input1_multiplier & ((1 << total1) - 1);
        const int32_t high2 = q->input2_multiplier >> total2, low2 = q->input2_multiplier & ((1 << total2) - 1);
        const __m512i h1 = _mm512_set1_epi32(high1), l1 = _mm512_set1_epi32(low1), h2 = _mm512_set1_epi32(high2), l2 = _mm512_set1_epi32(low2);
        const __m512i bias1 = _mm512_set1_epi32(q->input1_offset * low1 + (1 << 10)), bias2 = _mm512_set1_epi32(q->input2_offset * low2 + (1 << 10));
        const __m512i constant = _mm512_set1_epi32(q->input1_offset * high1 + q->input2_offset * high2);
        const __m128i shift1 = _mm_cvtsi32_si128(total1), shift2 = _mm_cvtsi32_si128(total2);
        for (size_t i = 0; i < count; i += 16) {
            const __mmask16 mask = count - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (count - i)) - 1);
            const __m512i x = lite_widen16(pa + i, mask, is_unsigned), y = lite_widen16(pb + i, mask, is_unsigned);
            const __m512i sum = _mm512_add_epi32(_mm512_add_epi32(lite_add_input32(x, h1, l1, bias1, shift1), constant),
                                                 lite_add_input32(y, h2, l2, bias2, shift2));
            const __m128i bytes = lite_add_finish16(sum, &o);
            if (mask == 0xFFFF) {
                _mm_storeu_si128((__m128i *)(po + i), bytes);
            } else {
                _mm_mask_storeu_epi8(po + i, mask, bytes);
            }
        }
        return;
    }
    const __m512i offset1 = _mm512_set1_epi32(q->input1_offset), offset2 = _mm512_set1_epi32(q->input2_offset);
    const __m512i m1 = _mm512_set1_epi64((int64_t)q->input1_multiplier), m2 = _mm512_set1_epi64((int64_t)q->input2_multiplier);
    const __m512i nudge = _mm512_set1_epi64(INT64_C(1) << 30);
    const __m128i shift1 = _mm_cvtsi64_si128(31 + (int64_t)s1), shift2 = _mm_cvtsi64_si128(31 + (int64_t)s2);
    for (size_t i = 0; i < count; i += 16) {
        const __mmask16 mask = count - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (count - i)) - 1);
        const __m512i x = _mm512_slli_epi32(_mm512_add_epi32(lite_widen16(pa + i, mask, is_unsigned), offset1), 20);
        const __m512i y = _mm512_slli_epi32(_mm512_add_epi32(lite_widen16(pb + i, mask, is_unsigned), offset2), 20);
        const __m512i sum = _mm512_add_epi32(lite_add_rescale16(x, m1, nudge, shift1), lite_add_rescale16(y, m2, nudge, shift2));
        const __m128i bytes = lite_add_finish16(sum, &o);
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
