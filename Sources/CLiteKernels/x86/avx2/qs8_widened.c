// AVX2 quantized convolution kernels without 8-bit dot products: the int16 `vpmaddwd` GEMM of CONV_2D and
// FULLY_CONNECTED, the int32 DEPTHWISE_CONV_2D, and TFLite's exact integer requantization on eight int32 lanes.
#if defined(__x86_64__)

#include <immintrin.h>
#include <string.h>

#include "../isa_targets.h"
#include "lite_qs8_widened.h"

LITE_TARGET_AVX2_BEGIN

#include "byte_packing.h"

#define LITE_INLINE static inline __attribute__((always_inline))

// MARK: - Widening

void lite_qs8_widen_s16__avx2(const uint8_t *source, size_t count, int32_t zero, bool is_signed, int16_t *destination) {
    size_t i = 0;
    const __m256i zeros = _mm256_set1_epi16((int16_t)zero);
    while (i + 16 <= count) {
        const __m128i bytes = _mm_loadu_si128((const __m128i *)(source + i));
        const __m256i wide = is_signed ? _mm256_cvtepi8_epi16(bytes) : _mm256_cvtepu8_epi16(bytes);
        _mm256_storeu_si256((__m256i *)(destination + i), _mm256_sub_epi16(wide, zeros));
        i += 16;
    }
    while (i < count) {
        const int32_t x = is_signed ? (int32_t)(int8_t)source[i] : (int32_t)source[i];
        destination[i] = (int16_t)(uint16_t)((uint32_t)x - (uint32_t)zero);
        i += 1;
    }
}

// MARK: - int16 GEMM

/// One row's activations at depth 2·step and 2·step + 1, in every 32-bit lane.
LITE_INLINE __m256i broadcast_pair(const int16_t *row, size_t step) {
    int32_t pair;
    memcpy(&pair, row + 2 * step, sizeof pair);
    return _mm256_set1_epi32(pair);
}

LITE_INLINE __m256i multiply_add(__m256i accumulator, __m256i activations, __m256i filter) {
    return _mm256_add_epi32(accumulator, _mm256_madd_epi16(activations, filter));
}

/// One row x 16 channels (a block pair) or 8 (a last block alone): the matrix-vector product of a fully connected
/// layer, a quarter of the multiplies the 4-row kernels would spend on it.
__attribute__((noinline))
static void gemm_s16_1x16c2(const int16_t *row, const int16_t *filter, size_t steps, bool pair, int32_t *out) {
    __m256i c0 = _mm256_setzero_si256(), c1 = c0;
    const uint8_t *w = (const uint8_t *)filter;
    if (pair) {
        for (size_t s = 0; s < steps; s++) {
            const __m256i x = broadcast_pair(row, s);
            c0 = multiply_add(c0, x, _mm256_loadu_si256((const __m256i *)w));
            c1 = multiply_add(c1, x, _mm256_loadu_si256((const __m256i *)(w + 32)));
            w += 64;
        }
    } else {
        for (size_t s = 0; s < steps; s++) {
            c0 = multiply_add(c0, broadcast_pair(row, s), _mm256_loadu_si256((const __m256i *)w));
            w += 32;
        }
    }
    _mm256_storeu_si256((__m256i *)out, c0);
    if (pair) _mm256_storeu_si256((__m256i *)(out + 8), c1);
}

/// 4 rows x 16 channels: 8 ymm accumulators, two filter loads and four broadcasts per step.
__attribute__((noinline))
static void gemm_s16_4x16c2(const int16_t *r0, const int16_t *r1, const int16_t *r2, const int16_t *r3,
                            const int16_t *filter, size_t steps, int32_t *out, size_t stride) {
    __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
    const uint8_t *w = (const uint8_t *)filter;
    for (size_t s = 0; s < steps; s++) {
        const __m256i w0 = _mm256_loadu_si256((const __m256i *)w);
        const __m256i w1 = _mm256_loadu_si256((const __m256i *)(w + 32));
        __m256i x = broadcast_pair(r0, s);
        c00 = multiply_add(c00, x, w0); c01 = multiply_add(c01, x, w1);
        x = broadcast_pair(r1, s);
        c10 = multiply_add(c10, x, w0); c11 = multiply_add(c11, x, w1);
        x = broadcast_pair(r2, s);
        c20 = multiply_add(c20, x, w0); c21 = multiply_add(c21, x, w1);
        x = broadcast_pair(r3, s);
        c30 = multiply_add(c30, x, w0); c31 = multiply_add(c31, x, w1);
        w += 64;
    }
    _mm256_storeu_si256((__m256i *)out, c00);
    _mm256_storeu_si256((__m256i *)(out + 8), c01);
    _mm256_storeu_si256((__m256i *)(out + stride), c10);
    _mm256_storeu_si256((__m256i *)(out + stride + 8), c11);
    _mm256_storeu_si256((__m256i *)(out + 2 * stride), c20);
    _mm256_storeu_si256((__m256i *)(out + 2 * stride + 8), c21);
    _mm256_storeu_si256((__m256i *)(out + 3 * stride), c30);
    _mm256_storeu_si256((__m256i *)(out + 3 * stride + 8), c31);
}

/// 4 rows x 8 channels, for a last block that has no pair.
__attribute__((noinline))
static void gemm_s16_4x8c2(const int16_t *r0, const int16_t *r1, const int16_t *r2, const int16_t *r3,
                           const int16_t *filter, size_t steps, int32_t *out, size_t stride) {
    __m256i c0 = _mm256_setzero_si256(), c1 = c0, c2 = c0, c3 = c0;
    const uint8_t *w = (const uint8_t *)filter;
    for (size_t s = 0; s < steps; s++) {
        const __m256i w0 = _mm256_loadu_si256((const __m256i *)w);
        c0 = multiply_add(c0, broadcast_pair(r0, s), w0);
        c1 = multiply_add(c1, broadcast_pair(r1, s), w0);
        c2 = multiply_add(c2, broadcast_pair(r2, s), w0);
        c3 = multiply_add(c3, broadcast_pair(r3, s), w0);
        w += 32;
    }
    _mm256_storeu_si256((__m256i *)out, c0);
    _mm256_storeu_si256((__m256i *)(out + stride), c1);
    _mm256_storeu_si256((__m256i *)(out + 2 * stride), c2);
    _mm256_storeu_si256((__m256i *)(out + 3 * stride), c3);
}

void lite_qs8_gemm_s16_block__avx2(const int16_t *rows, size_t row_count, size_t row_stride, const int16_t *weights,
                                   size_t padded_depth, size_t padded_channels, size_t first_block, size_t end_block,
                                   int32_t *accumulators) {
    const size_t steps = padded_depth / 2, lanes = 8;
    if (row_count == 1) {
        size_t block = first_block;
        while (block < end_block) {
            const int16_t *filter = weights + block * lanes * padded_depth;
            const bool pair = block + 2 <= end_block;
            gemm_s16_1x16c2(rows, filter, steps, pair, accumulators + block * lanes);
            block += pair ? 2 : 1;
        }
        return;
    }
    const size_t last = row_count - 1;
#define LITE_ROW(i) (rows + ((i) < last ? (i) : last) * row_stride)
    for (size_t tile = 0; tile < row_count; tile += 4) {
        const int16_t *r0 = LITE_ROW(tile), *r1 = LITE_ROW(tile + 1), *r2 = LITE_ROW(tile + 2), *r3 = LITE_ROW(tile + 3);
        int32_t *out = accumulators + tile * padded_channels;
        size_t block = first_block;
        while (block < end_block) {
            const int16_t *filter = weights + block * lanes * padded_depth;
            if (block + 2 <= end_block) {
                gemm_s16_4x16c2(r0, r1, r2, r3, filter, steps, out + block * lanes, padded_channels);
                block += 2;
            } else {
                gemm_s16_4x8c2(r0, r1, r2, r3, filter, steps, out + block * lanes, padded_channels);
                block += 1;
            }
        }
    }
#undef LITE_ROW
}

// MARK: - Requantization

/// Channels c...c+7's requantization data; 64-bit values per even and per odd channel. With `high_words` the
/// addends are the plain ones, `even_shifts` holds the eight int32 high-word shifts and the other shift fields are
/// unused.
typedef struct {
    __m256i left_shifts, multipliers, odd_multipliers;
    __m256i even_addends, odd_addends, even_shifts, odd_shifts, even_biases, odd_biases, even_corrections, odd_corrections;
} channel_data8;

/// The slot of channel c's 64-bit data: even channels of a 16-channel group first, then odd ones.
LITE_INLINE size_t slot(size_t c) {
    return (c & ~(size_t)15) + (c % 2 == 0 ? (c % 16) / 2 : 8 + (c % 16) / 2);
}

LITE_INLINE __m256i load8(const void *pointer) { return _mm256_loadu_si256((const __m256i *)pointer); }

LITE_INLINE channel_data8 load_channel_data8(const lite_qs8_requantization *q, size_t c, bool high_words) {
    const size_t even_slot = slot(c), odd_slot = slot(c + 1);
    channel_data8 d;
    d.left_shifts = load8(q->left_shifts + c);
    d.multipliers = load8(q->multipliers + c);
    d.odd_multipliers = load8(q->odd_multipliers + c);
    if (high_words) {
        const __m256i unused = _mm256_setzero_si256();
        d.even_addends = load8(q->addends + even_slot);
        d.odd_addends = load8(q->addends + odd_slot);
        d.even_shifts = load8(q->high_word_shifts + c);
        d.odd_shifts = unused;
        d.even_biases = unused;
        d.odd_biases = unused;
    } else {
        d.even_addends = load8(q->biased_addends + even_slot);
        d.odd_addends = load8(q->biased_addends + odd_slot);
        d.even_shifts = load8(q->total_shifts + even_slot);
        d.odd_shifts = load8(q->total_shifts + odd_slot);
        d.even_biases = load8(q->shift_biases + even_slot);
        d.odd_biases = load8(q->shift_biases + odd_slot);
    }
    d.even_corrections = load8(q->negative_corrections + even_slot);
    d.odd_corrections = load8(q->negative_corrections + odd_slot);
    return d;
}

/// The folded multiply-add-shift on eight int32 lanes `x` (accumulator plus constants), clamped to [low, high], in
/// 64-bit lanes, even and odd channels apart as `vpmuldq` multiplies them. AVX2 has no arithmetic 64-bit shift:
/// `t >> s` is the logical shift of `t + 2^63` (the biased addends) less `2^(63-s)` (the shift biases); ties away
/// from zero (`rounding_up` false) test the sign with `vpcmpgtq`.
///
/// With `high_words` (every total shift at least 32), `t >> s` is `(t >> 32) >> (s - 32)`, floors composing: the
/// high 32 bits of each 64-bit t, gathered into one register, shifted by `vpsravd` (whose shifts past 31 fill with
/// the sign, as a floor does); no bias on either side of the shift.
LITE_INLINE __m256i rescale8(__m256i x, const channel_data8 *d, const lite_qs8_requantization *q, bool has_left_shifts,
                             bool folds_zero_point, bool rounding_up, bool high_words) {
    // x·2^left wraps in int32 like TFLite's `x * (1 << left_shift)`.
    if (has_left_shifts) x = _mm256_sllv_epi32(x, d->left_shifts);
    const __m256i even_product = _mm256_mul_epi32(x, d->multipliers);
    const __m256i odd_product = _mm256_mul_epi32(_mm256_srli_epi64(x, 32), d->odd_multipliers);
    __m256i even_total = _mm256_add_epi64(even_product, d->even_addends);
    __m256i odd_total = _mm256_add_epi64(odd_product, d->odd_addends);
    if (!rounding_up) {
        const __m256i nudge = _mm256_set1_epi64x((int64_t)1 << 30), no_lanes = _mm256_setzero_si256();
        const __m256i even_negative = _mm256_cmpgt_epi64(no_lanes, _mm256_add_epi64(even_product, nudge));
        const __m256i odd_negative = _mm256_cmpgt_epi64(no_lanes, _mm256_add_epi64(odd_product, nudge));
        even_total = _mm256_sub_epi64(even_total, _mm256_and_si256(even_negative, d->even_corrections));
        odd_total = _mm256_sub_epi64(odd_total, _mm256_and_si256(odd_negative, d->odd_corrections));
    }
    __m256i v;
    if (high_words) {
        const __m256i high_halves = _mm256_set1_epi64x((int64_t)0xFFFFFFFF00000000ull);
        v = _mm256_srav_epi32(_mm256_or_si256(_mm256_srli_epi64(even_total, 32), _mm256_and_si256(odd_total, high_halves)),
                              d->even_shifts);
    } else {
        const __m256i even = _mm256_sub_epi64(_mm256_srlv_epi64(even_total, d->even_shifts), d->even_biases);
        const __m256i odd = _mm256_sub_epi64(_mm256_srlv_epi64(odd_total, d->odd_shifts), d->odd_biases);
        v = lite_join_even_odd_lanes8(even, odd);
    }
    if (!folds_zero_point) v = _mm256_add_epi32(v, _mm256_set1_epi32(q->output_zero_point));
    return _mm256_min_epi32(_mm256_max_epi32(v, _mm256_set1_epi32(q->low)), _mm256_set1_epi32(q->high));
}

/// Rows of eight channels at c: the flags are arguments of an always-inlined function so that each common case
/// is a loop of its own without tests in it.
LITE_INLINE void finish_rows8(const lite_qs8_requantization *q, const channel_data8 *data, __m256i constant,
                              const int32_t *accumulators, size_t accumulator_stride, size_t rows, size_t c,
                              size_t count, uint8_t *output, size_t output_stride, bool unsigned_output,
                              bool has_left_shifts, bool folds_zero_point, bool rounding_up, bool high_words) {
    for (size_t i = 0; i < rows; i++) {
        const __m256i accumulator = load8(accumulators + (i * accumulator_stride + c));
        const __m256i v = rescale8(_mm256_add_epi32(accumulator, constant), data, q, has_left_shifts, folds_zero_point,
                                   rounding_up, high_words);
        lite_store_bytes8(lite_pack_bytes8(v, unsigned_output), (int)count, output + (i * output_stride + c));
    }
}

/// Rows of sixteen channels at c in the common case (high words, no left shifts, zero point folded): both halves
/// packed together into one 16-byte store.
LITE_INLINE void finish_rows16(const lite_qs8_requantization *q, const channel_data8 *data0, const channel_data8 *data1,
                               __m256i constant0, __m256i constant1, const int32_t *accumulators,
                               size_t accumulator_stride, size_t rows, size_t c, uint8_t *output, size_t output_stride,
                               bool unsigned_output, bool rounding_up) {
    for (size_t i = 0; i < rows; i++) {
        const int32_t *row = accumulators + (i * accumulator_stride + c);
        const __m256i a0 = load8(row), a1 = load8(row + 8);
        const __m256i v0 = rescale8(_mm256_add_epi32(a0, constant0), data0, q, false, true, rounding_up, true);
        const __m256i v1 = rescale8(_mm256_add_epi32(a1, constant1), data1, q, false, true, rounding_up, true);
        _mm_storeu_si128((__m128i *)(output + (i * output_stride + c)), lite_pack_bytes16(v0, v1, unsigned_output));
    }
}

void lite_qs8_requantize_block8__avx2(const lite_qs8_requantization *q, const int32_t *accumulators,
                                      size_t accumulator_stride, size_t rows, const int32_t *constants,
                                      size_t first_channel, size_t end_channel, void *output_bytes,
                                      size_t output_stride, bool requested_rounding_up) {
    uint8_t *output = output_bytes;
    // Values clamped to [low, high]: above 127 only uint8 outputs, below 0 only int8 ones; either pack fits both.
    const bool unsigned_output = q->high > 127;
    const bool high_words = q->shifts_from_high_words;
    const bool has_left_shifts = q->has_left_shifts, folds_zero_point = q->folds_zero_point;
    const bool common = high_words && !has_left_shifts && folds_zero_point;
    size_t c = first_channel;
    while (c < end_channel) {
        const bool rounding_up = requested_rounding_up || !q->corrected_blocks[c >> 3];
        if (common && c + 16 <= end_channel
            && rounding_up == (requested_rounding_up || !q->corrected_blocks[(c >> 3) + 1])) {
            const channel_data8 data0 = load_channel_data8(q, c, true), data1 = load_channel_data8(q, c + 8, true);
            const __m256i constant0 = constants ? load8(constants + c) : _mm256_setzero_si256();
            const __m256i constant1 = constants ? load8(constants + c + 8) : _mm256_setzero_si256();
            if (rounding_up) {
                finish_rows16(q, &data0, &data1, constant0, constant1, accumulators, accumulator_stride, rows, c, output,
                              output_stride, unsigned_output, true);
            } else {
                finish_rows16(q, &data0, &data1, constant0, constant1, accumulators, accumulator_stride, rows, c, output,
                              output_stride, unsigned_output, false);
            }
            c += 16;
            continue;
        }
        const channel_data8 data = load_channel_data8(q, c, high_words);
        const __m256i constant = constants ? load8(constants + c) : _mm256_setzero_si256();
        const size_t count = end_channel - c < 8 ? end_channel - c : 8;
#define LITE_FINISH(left, folds, up, words) \
    finish_rows8(q, &data, constant, accumulators, accumulator_stride, rows, c, count, output, output_stride, \
                 unsigned_output, left, folds, up, words)
        if (!has_left_shifts && folds_zero_point && high_words) {
            if (rounding_up) LITE_FINISH(false, true, true, true); else LITE_FINISH(false, true, false, true);
        } else if (!has_left_shifts && folds_zero_point) {
            if (rounding_up) LITE_FINISH(false, true, true, false); else LITE_FINISH(false, true, false, false);
        } else {
            LITE_FINISH(has_left_shifts, folds_zero_point, rounding_up, high_words);
        }
#undef LITE_FINISH
        c += 8;
    }
}

void lite_qs8_requantize_row__avx2(const lite_qs8_requantization *q, const int32_t *accumulators,
                                   const int32_t *constants, const int32_t *row_sum_factors, int32_t row_sum,
                                   size_t channels, void *output_bytes, bool rounding_up) {
    uint8_t *output = output_bytes;
    const bool unsigned_output = q->high > 127;
    const bool uniform = q->has_uniform_row_sum_factor;
    const __m256i uniform_term =
        _mm256_set1_epi32((int32_t)(0u - (uint32_t)q->uniform_row_sum_factor * (uint32_t)row_sum));
    const __m256i sum = _mm256_set1_epi32(row_sum);
    const bool high_words = q->shifts_from_high_words;
    for (size_t c = 0; c < channels; c += 8) {
        __m256i x = _mm256_add_epi32(load8(accumulators + c), load8(constants + c));
        if (uniform) {
            x = _mm256_add_epi32(x, uniform_term);
        } else {
            x = _mm256_sub_epi32(x, _mm256_mullo_epi32(load8(row_sum_factors + c), sum));
        }
        const channel_data8 data = load_channel_data8(q, c, high_words);
        const __m256i v = rescale8(x, &data, q, q->has_left_shifts, q->folds_zero_point,
                                   rounding_up || !q->corrected_blocks[c >> 3], high_words);
        lite_store_bytes8(lite_pack_bytes8(v, unsigned_output), (int)(channels - c < 8 ? channels - c : 8), output + c);
    }
}

// MARK: - Depthwise convolution

/// Every horizontal tap of output column `ox` lies inside the input.
LITE_INLINE bool is_interior_x(const lite_qs8_dwconv *g, ptrdiff_t ox) {
    const ptrdiff_t ix = ox * g->stride_w - g->pad_w;
    return ix >= 0 && ix + (g->kw - 1) * g->dilation_w < g->in_w;
}

LITE_INLINE ptrdiff_t max_index(ptrdiff_t a, ptrdiff_t b) { return a > b ? a : b; }
LITE_INLINE ptrdiff_t min_index(ptrdiff_t a, ptrdiff_t b) { return a < b ? a : b; }

/// Four horizontally adjacent output pixels whose taps are all inside the input: every weight vector is loaded
/// once for the four, and `-x_zero·Σw` is already in `interior_bias`, so a tap is a widening load, a multiply and
/// an add. Writes the four pixels' accumulators `padded_channels` apart.
LITE_INLINE void four_interior_pixels(const lite_qs8_dwconv *g, bool is_signed, ptrdiff_t b, ptrdiff_t oy, ptrdiff_t ox,
                                      int32_t *acc) {
    const ptrdiff_t padded = g->padded_channels;
    const uint8_t *origin = (const uint8_t *)g->input
        + ((b * g->in_h + oy * g->stride_h - g->pad_h) * g->in_w + ox * g->stride_w - g->pad_w) * g->channels;
    const ptrdiff_t row_step = g->dilation_h * g->in_w * g->channels, column_step = g->dilation_w * g->channels;
    const ptrdiff_t pixel_step = g->stride_w * g->channels;
    for (ptrdiff_t c = 0; c < g->channels; c += 16) {
        __m256i a0l = load8(g->interior_bias + c), a0h = load8(g->interior_bias + c + 8);
        __m256i a1l = a0l, a1h = a0h, a2l = a0l, a2h = a0h, a3l = a0l, a3h = a0h;
        const uint8_t *row = origin + c;
        const int32_t *weight = g->weights + c;
        for (ptrdiff_t ky = 0; ky < g->kh; ky++) {
            const uint8_t *x = row;
            for (ptrdiff_t kx = 0; kx < g->kw; kx++) {
                const __m256i wl = load8(weight), wh = load8(weight + 8);
                __m256i xl, xh;
                lite_widen16(x, !is_signed, &xl, &xh);
                a0l = _mm256_add_epi32(a0l, _mm256_mullo_epi32(xl, wl));
                a0h = _mm256_add_epi32(a0h, _mm256_mullo_epi32(xh, wh));
                lite_widen16(x + pixel_step, !is_signed, &xl, &xh);
                a1l = _mm256_add_epi32(a1l, _mm256_mullo_epi32(xl, wl));
                a1h = _mm256_add_epi32(a1h, _mm256_mullo_epi32(xh, wh));
                lite_widen16(x + 2 * pixel_step, !is_signed, &xl, &xh);
                a2l = _mm256_add_epi32(a2l, _mm256_mullo_epi32(xl, wl));
                a2h = _mm256_add_epi32(a2h, _mm256_mullo_epi32(xh, wh));
                lite_widen16(x + 3 * pixel_step, !is_signed, &xl, &xh);
                a3l = _mm256_add_epi32(a3l, _mm256_mullo_epi32(xl, wl));
                a3h = _mm256_add_epi32(a3h, _mm256_mullo_epi32(xh, wh));
                x += column_step;
                weight += padded;
            }
            row += row_step;
        }
        int32_t *out = acc + c;
        _mm256_storeu_si256((__m256i *)out, a0l);
        _mm256_storeu_si256((__m256i *)(out + 8), a0h);
        _mm256_storeu_si256((__m256i *)(out + padded), a1l);
        _mm256_storeu_si256((__m256i *)(out + padded + 8), a1h);
        _mm256_storeu_si256((__m256i *)(out + 2 * padded), a2l);
        _mm256_storeu_si256((__m256i *)(out + 2 * padded + 8), a2h);
        _mm256_storeu_si256((__m256i *)(out + 3 * padded), a3l);
        _mm256_storeu_si256((__m256i *)(out + 3 * padded + 8), a3h);
    }
}

/// One output pixel whose taps may leave the input: the taps inside, sixteen channels at a time, then eight, then
/// one by one (a wider load could read past the input's end).
LITE_INLINE void edge_pixel(const lite_qs8_dwconv *g, bool is_signed, ptrdiff_t b, ptrdiff_t iy0, ptrdiff_t ky_first,
                            ptrdiff_t ky_end, ptrdiff_t ox, int32_t *acc) {
    const ptrdiff_t padded = g->padded_channels, channels = g->channels;
    const uint8_t *src = g->input;
    const int32_t *weights = g->weights, *bias = g->bias;
    const ptrdiff_t ix0 = ox * g->stride_w - g->pad_w;
    const ptrdiff_t kx_first = max_index(0, (-ix0 + g->dilation_w - 1) / g->dilation_w);
    const ptrdiff_t kx_end = min_index(g->kw, (g->in_w - ix0 + g->dilation_w - 1) / g->dilation_w);
    const ptrdiff_t rows_used = max_index(ky_end - ky_first, 0), columns_used = max_index(kx_end - kx_first, 0);
    const ptrdiff_t row_step = g->dilation_h * g->in_w * channels, column_step = g->dilation_w * channels;
    // Offset of tap (ky_first, kx_first) for channel 0 (only read when some tap is inside).
    const ptrdiff_t first_row = ((b * g->in_h + iy0 + ky_first * g->dilation_h) * g->in_w + ix0 + kx_first * g->dilation_w)
        * channels;
    const ptrdiff_t first_weights = (ky_first * g->kw + kx_first) * padded;
    const __m256i zero = _mm256_set1_epi32(g->input_zero_point);
    ptrdiff_t c = 0;
    while (c + 16 <= channels) {
        __m256i sum_low = load8(bias + c), sum_high = load8(bias + c + 8);
        for (ptrdiff_t r = 0; r < rows_used; r++) {
            const uint8_t *x = src + first_row + r * row_step + c;
            const int32_t *w = weights + first_weights + r * g->kw * padded + c;
            for (ptrdiff_t k = 0; k < columns_used; k++) {
                __m256i low, high;
                lite_widen16(x, !is_signed, &low, &high);
                sum_low = _mm256_add_epi32(sum_low, _mm256_mullo_epi32(_mm256_sub_epi32(low, zero), load8(w)));
                sum_high = _mm256_add_epi32(sum_high, _mm256_mullo_epi32(_mm256_sub_epi32(high, zero), load8(w + 8)));
                x += column_step;
                w += padded;
            }
        }
        _mm256_storeu_si256((__m256i *)(acc + c), sum_low);
        _mm256_storeu_si256((__m256i *)(acc + c + 8), sum_high);
        c += 16;
    }
    while (c < channels) {
        if (channels - c >= 8) {
            __m256i sum = load8(bias + c);
            for (ptrdiff_t ky = ky_first; ky < ky_end; ky++) {
                const uint8_t *row = src + ((b * g->in_h + iy0 + ky * g->dilation_h) * g->in_w + ix0) * channels + c;
                for (ptrdiff_t kx = kx_first; kx < kx_end; kx++) {
                    const __m128i bytes = _mm_loadl_epi64((const __m128i *)(row + kx * g->dilation_w * channels));
                    const __m256i x = is_signed ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes);
                    const __m256i w = load8(weights + (ky * g->kw + kx) * padded + c);
                    sum = _mm256_add_epi32(sum, _mm256_mullo_epi32(_mm256_sub_epi32(x, zero), w));
                }
            }
            _mm256_storeu_si256((__m256i *)(acc + c), sum);
            c += 8;
        } else {
            uint32_t sum = (uint32_t)bias[c];
            for (ptrdiff_t ky = ky_first; ky < ky_end; ky++) {
                const uint8_t *row = src + ((b * g->in_h + iy0 + ky * g->dilation_h) * g->in_w + ix0) * channels + c;
                for (ptrdiff_t kx = kx_first; kx < kx_end; kx++) {
                    const uint8_t byte = row[kx * g->dilation_w * channels];
                    const int32_t x = is_signed ? (int32_t)(int8_t)byte : (int32_t)byte;
                    sum += ((uint32_t)x - (uint32_t)g->input_zero_point) * (uint32_t)weights[(ky * g->kw + kx) * padded + c];
                }
            }
            acc[c] = (int32_t)sum;
            c += 1;
        }
    }
}

LITE_INLINE void dwconv_rows(const lite_qs8_dwconv *g, size_t first_row, size_t end_row, int32_t *acc, bool is_signed) {
    const ptrdiff_t channels = g->channels, padded = g->padded_channels;
    uint8_t *dst = g->output;
    for (ptrdiff_t by = (ptrdiff_t)first_row; by < (ptrdiff_t)end_row; by++) {
        const ptrdiff_t b = by / g->out_h, oy = by % g->out_h;
        const ptrdiff_t iy0 = oy * g->stride_h - g->pad_h;
        const ptrdiff_t ky_first = max_index(0, (-iy0 + g->dilation_h - 1) / g->dilation_h);
        const ptrdiff_t ky_end = min_index(g->kh, (g->in_h - iy0 + g->dilation_h - 1) / g->dilation_h);
        ptrdiff_t ox = 0;
        while (ox < g->out_w) {
            uint8_t *out = dst + ((b * g->out_h + oy) * g->out_w + ox) * channels;
            if (ky_first == 0 && ky_end == g->kh && channels % 16 == 0 && ox + 3 < g->out_w && is_interior_x(g, ox)
                && is_interior_x(g, ox + 3)) {
                four_interior_pixels(g, is_signed, b, oy, ox, acc);
                // Each eight channels' requantization data loaded once for the four pixels.
                lite_qs8_requantize_block8__avx2(g->requantization, acc, (size_t)padded, 4, NULL, 0, (size_t)channels, out,
                                                 (size_t)channels, false);
                ox += 4;
                continue;
            }
            edge_pixel(g, is_signed, b, iy0, ky_first, ky_end, ox, acc);
            lite_qs8_requantize_block8__avx2(g->requantization, acc, (size_t)padded, 1, NULL, 0, (size_t)channels, out,
                                             (size_t)channels, false);
            ox += 1;
        }
    }
}

void lite_qs8_dwconv_rows__avx2(const lite_qs8_dwconv *convolution, size_t first_row, size_t end_row,
                                int32_t *accumulators) {
    if (convolution->is_signed) {
        dwconv_rows(convolution, first_row, end_row, accumulators, true);
    } else {
        dwconv_rows(convolution, first_row, end_row, accumulators, false);
    }
}

LITE_TARGET_END

#endif
