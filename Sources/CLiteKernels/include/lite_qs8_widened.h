#ifndef LITE_QS8_WIDENED_H
#define LITE_QS8_WIDENED_H

// Quantized (int8 and uint8) convolution kernels for CPUs without 8-bit dot products: operands widened to int16 for
// `vpmaddwd` (CONV_2D, FULLY_CONNECTED) or to int32 (DEPTHWISE_CONV_2D), accumulators exact in int32, then TFLite's
// exact integer requantization. Every result is bit-exact with TFLite's reference kernels.

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)

/// A layer's per-channel requantization, as LiteEngine's `ExactRequantization` stores it (the arrays it owns). For
/// channel c with folded multiplier m, left shift l and total shift s = 31 + right shift, the result is
/// `clamp(((x << l)·m + addend) >> s [+ zero point], low, high)`, `>>` an arithmetic (floor) shift: the addend holds
/// 2^30 (the high multiply's rounding), the right shift's rounding and, when `folds_zero_point`, zero point·2^s.
///
/// Per-channel int32 arrays are indexed by channel; per-channel int64 arrays by slot: within each group of 16
/// channels, the 8 even channels' values first, then the 8 odd ones' (as `vpmuldq` multiplies even and odd lanes).
/// Every array is readable up to the next multiple of 16 channels.
typedef struct lite_qs8_requantization {
    const int32_t *multipliers;
    /// Each odd channel's multiplier one channel down (the low half of its 64-bit lane).
    const int32_t *odd_multipliers;
    const int32_t *left_shifts;
    /// The total shift less 32 (used when `shifts_from_high_words`).
    const int32_t *high_word_shifts;
    /// By slot: the addend, the total shift, the 2^31 taken off negative products when rounding ties away from
    /// zero, the addend plus 2^63 (wrapping) and 2^(63 - total shift): AVX2 shifts 64-bit lanes only logically, and
    /// for any int64 t, ((t + 2^63) as unsigned) >> s is (t >> s) + 2^(63 - s).
    const int64_t *addends;
    const int64_t *total_shifts;
    const int64_t *negative_corrections;
    const int64_t *biased_addends;
    const int64_t *shift_biases;
    /// Per block of 8 channels: whether any of them rounds ties away from zero (has a negative correction).
    const bool *corrected_blocks;
    int32_t output_zero_point;
    int32_t low;
    int32_t high;
    /// The row-sum factor shared by every channel (when `has_uniform_row_sum_factor`).
    int32_t uniform_row_sum_factor;
    bool has_uniform_row_sum_factor;
    bool has_left_shifts;
    /// Whether the output zero point is in the addends (else added after the shift).
    bool folds_zero_point;
    /// Whether every total shift is at least 32: then t >> s is the high 32 bits of t shifted by s - 32.
    bool shifts_from_high_words;
} lite_qs8_requantization;

/// `destination[i] = source[i] - zero` as int16 for `count` int8 (`is_signed`) or uint8 values, 16 per step with
/// `vpmovsxbw`/`vpmovzxbw` and `vpsubw`, the rest one by one.
void lite_qs8_widen_s16__avx2(const uint8_t *source, size_t count, int32_t zero, bool is_signed, int16_t *destination);

/// The int16 GEMM of a block of `row_count` (at most 16) rows: `accumulators[r·padded_channels + c] =
/// Σ_k rows[r·row_stride + k]·w[c][k]` in int32 (`vpmaddwd` adds each pair of int16 products exactly), for the
/// channels of blocks `first_block..<end_block` (8 channels each; `first_block` even). `weights` holds the filter
/// packed in pairs of channel blocks: for each pair, for each step of two depths, each block's 8 channels' two int16
/// weights (64 bytes per step, 32 for a last block alone); `padded_depth` is even. Rows go four at a time (rows past
/// `row_count` repeat the last one; their accumulators are written but not meaningful), or one alone.
void lite_qs8_gemm_s16_block__avx2(const int16_t *rows, size_t row_count, size_t row_stride, const int16_t *weights,
                                   size_t padded_depth, size_t padded_channels, size_t first_block, size_t end_block,
                                   int32_t *accumulators);

/// The requantization of a block of rows: for row i < `rows` and channel c in `first_channel..<end_channel`
/// (`first_channel` a multiple of 8), `output[i·output_stride + c] = requantize(accumulators[i·accumulator_stride +
/// c] + constants[c])` as a byte (uint8 when `high` > 127, else int8), rounding ties up, or, with `rounding_up`
/// false, away from zero in the blocks of 8 channels that have negative corrections. `constants` may be NULL
/// (zeros). Accumulators and constants are readable up to the next multiple of 8 channels; no byte past
/// `end_channel` is written. Eight channels per step (sixteen, packed together, when every total shift is at least
/// 32, there are no left shifts and the zero point is folded), each step's data loaded once for all the rows.
void lite_qs8_requantize_block8__avx2(const lite_qs8_requantization *requantization, const int32_t *accumulators,
                                      size_t accumulator_stride, size_t rows, const int32_t *constants,
                                      size_t first_channel, size_t end_channel, void *output, size_t output_stride,
                                      bool rounding_up);

/// One row: `output[c] = requantize(accumulators[c] + constants[c] - row_sum_factors[c]·row_sum)` for c <
/// `channels` (with a uniform factor, `- factor·row_sum` for every channel), wrapping in int32, rounding as
/// `lite_qs8_requantize_block8__avx2`. Arrays are readable up to the next multiple of 8 channels.
void lite_qs8_requantize_row__avx2(const lite_qs8_requantization *requantization, const int32_t *accumulators,
                                   const int32_t *constants, const int32_t *row_sum_factors, int32_t row_sum,
                                   size_t channels, void *output, bool rounding_up);

/// A DEPTHWISE_CONV_2D with depth multiplier 1 in int32 lanes (NHWC, `channels` = input channels = output
/// channels). `weights` is [kh·kw][padded_channels] of `w - w_zero` as int32, `bias` [padded_channels] the bias,
/// `interior_bias` [padded_channels] `bias - input_zero_point·Σ_taps w` (the bias of a pixel whose taps are all
/// inside the input); `padded_channels` is a multiple of 16.
typedef struct lite_qs8_dwconv {
    const void *input;
    void *output;
    const int32_t *weights;
    const int32_t *bias;
    const int32_t *interior_bias;
    const lite_qs8_requantization *requantization;
    ptrdiff_t batches, in_h, in_w, channels, kh, kw, out_h, out_w;
    ptrdiff_t stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w;
    ptrdiff_t padded_channels;
    int32_t input_zero_point;
    bool is_signed;
} lite_qs8_dwconv;

/// Output rows `first_row..<end_row` (row index = batch·out_h + y) of `convolution`: `acc[c] = bias[c] + Σ_taps
/// (x[c] - x_zero)·w[c]` over the taps inside the input, wrapping in int32, then requantized with ties rounded away
/// from zero (`lite_qs8_requantize_block8__avx2`). Four horizontally adjacent pixels whose taps are all inside go
/// together (when the channels are a multiple of 16), each weight vector loaded once for the four. `accumulators`
/// is scratch for 4·padded_channels int32.
void lite_qs8_dwconv_rows__avx2(const lite_qs8_dwconv *convolution, size_t first_row, size_t end_row,
                                int32_t *accumulators);

#endif

#endif
