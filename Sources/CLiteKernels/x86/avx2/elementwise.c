// Quantized ADD, MUL and SQUARED_DIFFERENCE with TFLite's integer arithmetic, eight int32 lanes at a time (AVX2).
#if defined(__x86_64__)
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "../isa_targets.h"
#include "../../include/lite_elementwise.h"

LITE_TARGET_AVX2_BEGIN

#include "byte_packing.h"
#include "rescale.h"

enum { LITE_KIND_S8, LITE_KIND_U8, LITE_KIND_S16 };

/// Eight int8, uint8 or int16 values as int32 lanes.
static inline __m256i lite_widen8(const void *pointer, int kind) {
    if (kind == LITE_KIND_S16) return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)pointer));
    const __m128i bytes = _mm_loadl_epi64((const __m128i *)pointer);
    return kind == LITE_KIND_U8 ? _mm256_cvtepu8_epi32(bytes) : _mm256_cvtepi8_epi32(bytes);
}

/// Eight int32 lanes already clamped to the element type's range, stored as eight int8, uint8 or int16 values.
static inline void lite_store8(__m256i value, void *pointer, int kind) {
    if (kind == LITE_KIND_S16) {
        // packs works within 128-bit halves: [v0-3 v0-3 | v4-7 v4-7] as words; 32-bit elements 0, 1, 4, 5 are v0-7.
        const __m256i words = _mm256_packs_epi32(value, value);
        const __m256i ordered = _mm256_permutevar8x32_epi32(words, _mm256_setr_epi32(0, 1, 4, 5, 0, 1, 4, 5));
        _mm_storeu_si128((__m128i *)pointer, _mm256_castsi256_si128(ordered));
    } else {
        _mm_storel_epi64((__m128i *)pointer, lite_pack_bytes8(value, kind == LITE_KIND_U8));
    }
}

/// Element `index` of an int8, uint8 or int16 array as int32.
static inline int32_t lite_load_element(const void *pointer, size_t index, int kind) {
    switch (kind) {
    case LITE_KIND_S16: return ((const int16_t *)pointer)[index];
    case LITE_KIND_U8: return ((const uint8_t *)pointer)[index];
    default: return ((const int8_t *)pointer)[index];
    }
}

// ---- ADD ----

/// `(x·m + nudge) >> shift` per lane as AVX2 can shift 64-bit lanes (logically): the nudge carries 2^63, whose
/// shifted value `bias` = 2^(63 - shift) is taken off after, so the shift acts as an arithmetic one.
typedef struct {
    __m256i nudge, bias;
    __m128i shift;
} lite_biased_shift;

static inline lite_biased_shift lite_biased(int64_t nudge, int64_t shift) {
    lite_biased_shift b;
    b.nudge = _mm256_set1_epi64x((int64_t)((uint64_t)nudge + (UINT64_C(1) << 63)));
    b.bias = _mm256_set1_epi64x((int64_t)(UINT64_C(1) << (63 - shift)));
    b.shift = _mm_cvtsi64_si128(shift);
    return b;
}

/// `(x·m + nudge) >> shift` per lane, x in 32-bit lanes, m and nudge in 64-bit ones; each result must fit int32.
static inline __m256i lite_add_rescale(__m256i x, __m256i m, const lite_biased_shift *s) {
    const __m256i even = _mm256_sub_epi64(_mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epi32(x, m), s->nudge), s->shift), s->bias);
    const __m256i odd = _mm256_sub_epi64(
        _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), m), s->nudge), s->shift), s->bias);
    return lite_join_even_odd_lanes8(even, odd);
}

/// Each input's rescale `SaturatingRoundingDoublingHighMul(x, m) >> s` is `⌊(x·m + 2^30) / 2^(31+s)⌋` (the high
/// multiply is `⌊(x·m + 2^30) / 2^31⌋` for either sign of the product, and floors nest), one 64-bit add and shift;
/// x = (value + offset)·2^20 is below 2^29 in magnitude, so the saturating case never arises. The output rescale
/// rounds ties away from zero: `t = ⌊(sum·m + 2^30) / 2^31⌋ + K` with `K = 2^(r-1) + zero·2^r`, one less where
/// `t < K` (a negative high product) and r > 0, then `t >> r`. Both input rescales halve at least, so |sum| < 2^30,
/// |t - K| < 2^30 and |K| < 2^30 for r ≤ 22: t fits int32.
static inline __attribute__((always_inline)) void lite_q8_vadd(const void *a, const void *b, void *out, size_t count,
                                                               const lite_q8_add_params *q, int is_unsigned) {
    const int32_t right = -q->output_shift;
    const int64_t k = (right > 0 ? INT64_C(1) << (right - 1) : 0) + (int64_t)((uint64_t)(int64_t)q->output_offset << right);
    const __m256i offset1 = _mm256_set1_epi32(q->input1_offset), offset2 = _mm256_set1_epi32(q->input2_offset);
    const __m256i m1 = _mm256_set1_epi64x((int64_t)q->input1_multiplier), m2 = _mm256_set1_epi64x((int64_t)q->input2_multiplier);
    const __m256i mo = _mm256_set1_epi64x((int64_t)q->output_multiplier);
    const lite_biased_shift input1 = lite_biased(INT64_C(1) << 30, 31 - (int64_t)q->input1_shift);
    const lite_biased_shift input2 = lite_biased(INT64_C(1) << 30, 31 - (int64_t)q->input2_shift);
    const lite_biased_shift output = lite_biased((INT64_C(1) << 30) + (int64_t)((uint64_t)k << 31), 31);
    const __m128i output_shift = _mm_cvtsi64_si128(right);
    const __m256i offset_k = _mm256_set1_epi32((int32_t)k), tie_adjust = _mm256_set1_epi32(right > 0 ? -1 : 0);
    const __m256i lowest = _mm256_set1_epi32(q->output_min), highest = _mm256_set1_epi32(q->output_max);

#define LITE_ADD_EIGHT(pa, pb, result)                                                                                  \
    do {                                                                                                                \
        const __m128i bytes_a = _mm_loadl_epi64((const __m128i *)(pa));                                                 \
        const __m128i bytes_b = _mm_loadl_epi64((const __m128i *)(pb));                                                 \
        const __m256i wide_a = is_unsigned ? _mm256_cvtepu8_epi32(bytes_a) : _mm256_cvtepi8_epi32(bytes_a);             \
        const __m256i wide_b = is_unsigned ? _mm256_cvtepu8_epi32(bytes_b) : _mm256_cvtepi8_epi32(bytes_b);             \
        const __m256i x = _mm256_slli_epi32(_mm256_add_epi32(wide_a, offset1), 20);                                     \
        const __m256i y = _mm256_slli_epi32(_mm256_add_epi32(wide_b, offset2), 20);                                     \
        const __m256i sum = _mm256_add_epi32(lite_add_rescale(x, m1, &input1), lite_add_rescale(y, m2, &input2));       \
        __m256i t = lite_add_rescale(sum, mo, &output);                                                                 \
        t = _mm256_add_epi32(t, _mm256_and_si256(_mm256_cmpgt_epi32(offset_k, t), tie_adjust));                        \
        const __m256i v = _mm256_min_epi32(_mm256_max_epi32(_mm256_sra_epi32(t, output_shift), lowest), highest);       \
        (result) = lite_pack_bytes8(v, is_unsigned);                                                                    \
    } while (0)

    const uint8_t *pa = (const uint8_t *)a, *pb = (const uint8_t *)b;
    uint8_t *po = (uint8_t *)out;
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m128i result;
        LITE_ADD_EIGHT(pa + i, pb + i, result);
        _mm_storel_epi64((__m128i *)(po + i), result);
    }
    if (i < count) {
        // The last values through 8-byte buffers, so that no load or store passes the arrays' ends.
        uint8_t tail[24] = {0};
        memcpy(tail, pa + i, count - i);
        memcpy(tail + 8, pb + i, count - i);
        __m128i result;
        LITE_ADD_EIGHT(tail, tail + 8, result);
        _mm_storel_epi64((__m128i *)(tail + 16), result);
        memcpy(po + i, tail + 16, count - i);
    }
#undef LITE_ADD_EIGHT
}

void lite_qs8_vadd__avx2(const int8_t *a, const int8_t *b, int8_t *out, size_t count, const lite_q8_add_params *params) {
    lite_q8_vadd(a, b, out, count, params, 0);
}

void lite_qu8_vadd__avx2(const uint8_t *a, const uint8_t *b, uint8_t *out, size_t count, const lite_q8_add_params *params) {
    lite_q8_vadd(a, b, out, count, params, 1);
}

// ---- MUL ----

static inline __attribute__((always_inline)) size_t lite_vmul(const void *x, size_t step_a, const void *y, size_t step_b,
                                                              void *out, size_t count, const lite_q_mul_params *q, int kind) {
    const size_t size = kind == LITE_KIND_S16 ? 2 : 1;
    const lite_rescale8 rescale = lite_rescale8_make(q->multiplier, q->shift);
    const __m256i offset1 = _mm256_set1_epi32(q->input1_offset), offset2 = _mm256_set1_epi32(q->input2_offset);
    const __m256i zero = _mm256_set1_epi32(q->output_offset);
    const __m256i low = _mm256_set1_epi32(q->output_min), high = _mm256_set1_epi32(q->output_max);
    const __m256i repeated_a = _mm256_set1_epi32((int32_t)((uint32_t)lite_load_element(x, 0, kind) + (uint32_t)q->input1_offset));
    const __m256i repeated_b = _mm256_set1_epi32((int32_t)((uint32_t)lite_load_element(y, 0, kind) + (uint32_t)q->input2_offset));
    const char *px = (const char *)x, *py = (const char *)y;
    char *po = (char *)out;
    size_t k = 0;
    for (; k + 8 <= count; k += 8) {
        const __m256i va = step_a == 0 ? repeated_a : _mm256_add_epi32(lite_widen8(px + k * size, kind), offset1);
        const __m256i vb = step_b == 0 ? repeated_b : _mm256_add_epi32(lite_widen8(py + k * size, kind), offset2);
        const __m256i value = _mm256_add_epi32(lite_rescale8_apply(&rescale, _mm256_mullo_epi32(va, vb)), zero);
        lite_store8(_mm256_min_epi32(_mm256_max_epi32(value, low), high), po + k * size, kind);
    }
    return k;
}

size_t lite_qs8_vmul__avx2(const int8_t *a, size_t a_step, const int8_t *b, size_t b_step, int8_t *out, size_t count,
                           const lite_q_mul_params *params) {
    return lite_vmul(a, a_step, b, b_step, out, count, params, LITE_KIND_S8);
}

size_t lite_qu8_vmul__avx2(const uint8_t *a, size_t a_step, const uint8_t *b, size_t b_step, uint8_t *out, size_t count,
                           const lite_q_mul_params *params) {
    return lite_vmul(a, a_step, b, b_step, out, count, params, LITE_KIND_U8);
}

size_t lite_qs16_vmul__avx2(const int16_t *a, size_t a_step, const int16_t *b, size_t b_step, int16_t *out, size_t count,
                            const lite_q_mul_params *params) {
    return lite_vmul(a, a_step, b, b_step, out, count, params, LITE_KIND_S16);
}

// ---- SQUARED_DIFFERENCE ----

static inline __m256i lite_squared_difference_scaled(__m256i v, __m256i offset, const lite_rescale8 *rescale) {
    return lite_rescale8_apply(rescale, _mm256_slli_epi32(_mm256_add_epi32(v, offset), 7));
}

size_t lite_qs8_vsquared_difference__avx2(const int8_t *x, size_t step_a, const int8_t *y, size_t step_b, int8_t *out,
                                          size_t count, const lite_qs8_squared_difference_params *q) {
    const lite_rescale8 r1 = lite_rescale8_make(q->input1_multiplier, q->input1_shift);
    const lite_rescale8 r2 = lite_rescale8_make(q->input2_multiplier, q->input2_shift);
    const lite_rescale8 ro = lite_rescale8_make(q->output_multiplier, q->output_shift);
    const __m256i offset1 = _mm256_set1_epi32(q->input1_offset), offset2 = _mm256_set1_epi32(q->input2_offset);
    const __m256i zero = _mm256_set1_epi32(q->output_offset);
    const __m256i low = _mm256_set1_epi32(-128), high = _mm256_set1_epi32(127);
    const __m256i repeated_a = lite_squared_difference_scaled(_mm256_set1_epi32(x[0]), offset1, &r1);
    const __m256i repeated_b = lite_squared_difference_scaled(_mm256_set1_epi32(y[0]), offset2, &r2);
    size_t k = 0;
    for (; k + 8 <= count; k += 8) {
        const __m256i sa = step_a == 0 ? repeated_a : lite_squared_difference_scaled(lite_widen8(x + k, LITE_KIND_S8), offset1, &r1);
        const __m256i sb = step_b == 0 ? repeated_b : lite_squared_difference_scaled(lite_widen8(y + k, LITE_KIND_S8), offset2, &r2);
        const __m256i difference = _mm256_sub_epi32(sa, sb);
        const __m256i value = _mm256_add_epi32(lite_rescale8_apply(&ro, _mm256_mullo_epi32(difference, difference)), zero);
        const __m256i clamped = _mm256_min_epi32(_mm256_max_epi32(value, low), high);
        _mm_storel_epi64((__m128i *)(out + k), lite_pack_bytes8(clamped, 0));
    }
    return k;
}

LITE_TARGET_END

#endif
