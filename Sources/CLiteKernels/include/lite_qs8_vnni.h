#ifndef LITE_QS8_VNNI_H
#define LITE_QS8_VNNI_H

// The AVX-512 quantized microkernels of `fast` numerics: the 8-bit GEMM of CONV_2D (`vpdpbusd`), its im2col packing,
// the depthwise dot-product kernel, and the exact integer requantization they and the int32 depthwise kernel use.
// Every result is TFLite's integer arithmetic exactly. Counts, strides and offsets are `ptrdiff_t` (Swift's Int).

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)

/// TFLite's per-channel requantization, folded to one 64-bit multiply-add-shift per value (LiteEngine's
/// `ExactRequantization`). Every array covers the channels rounded up to a multiple of 16. The 64-bit arrays are stored
/// per 16-channel group as [8 even channels, 8 odd channels], where `vpmuldq` leaves their products.
typedef struct {
    const int32_t *multipliers;
    /// Channel c+1's multiplier at even channel c (the low half of its 64-bit lane).
    const int32_t *odd_multipliers;
    const int32_t *left_shifts;
    /// `2^30 + 2^(r-1)·2^31` (+ `zero·2^(31+r)` when `folds_zero_point`), per 64-bit slot.
    const int64_t *addends;
    /// `31 + r` per 64-bit slot.
    const int64_t *total_shifts;
    /// The 2^31 taken off a negative high product when rounding ties away from zero, per 64-bit slot (0 for channels
    /// that round ties up).
    const int64_t *negative_corrections;
    int32_t output_zero_point;
    int32_t low, high;
    /// Nonzero when some channel shifts left (`x·2^left` wraps in int32 like TFLite's).
    int32_t has_left_shifts;
    /// Nonzero when the output zero point is in `addends`, else it is added after the shift.
    int32_t folds_zero_point;
    /// Nonzero when every channel's row-sum factor is `uniform_row_sum_factor`.
    int32_t has_uniform_row_sum_factor;
    int32_t uniform_row_sum_factor;
} lite_qs8_requantization_avx512;

/// One row of int32 accumulators requantized to `channels` bytes (uint8 or int8, by `low`/`high`):
/// `x = accumulators[c] + constants[c] - row_sum_factors[c]·row_sum` (wrapping), `x·2^left[c]`, then
/// `(x·m[c] + addend) >> (31 + r)` in 64-bit lanes (ties up), or with `rounding_up` 0 ties away from zero (the
/// channel's negative correction taken off where `x·m + 2^30` is negative), plus the zero point, clamped to
/// [low, high]. The accumulator and per-channel arrays are read up to the next multiple of 16 channels; exactly
/// `channels` bytes are written. AVX-512 F/BW/VL: 16 channels per step.
void lite_qs8_requantize_row__avx512(const lite_qs8_requantization_avx512 *params, const int32_t *accumulators, const int32_t *constants,
                                     const int32_t *row_sum_factors, int32_t row_sum, ptrdiff_t channels, void *output,
                                     int rounding_up);

/// `rows` (at most 16) rows of accumulators `accumulator_stride` apart, each already holding its channel's constant,
/// requantized as `lite_qs8_requantize_row__avx512` does with ties up, to `channels` bytes per row `output_stride`
/// apart. Row i's row-sum term is `-row_sum_factors[c]·row_sums[i]`, or none when `row_sums` is NULL (int8 filters
/// with zero points 0). Each 16-channel block's data is loaded once for all the rows. With a uniform row-sum factor
/// q, `row_sums[i]` is overwritten with `-q·row_sums[i]` (wrapping).
void lite_qs8_requantize_block__avx512(const lite_qs8_requantization_avx512 *params, const int32_t *accumulators,
                                       ptrdiff_t accumulator_stride, ptrdiff_t rows, const int32_t *row_sum_factors, int32_t *row_sums,
                                       ptrdiff_t channels, void *output, ptrdiff_t output_stride);

/// The columns `column_begin ..< column_end` of one output row of the GEMM's im2col whose taps are all inside the
/// input horizontally (dilation 1): output column j's row starts at `output_row + j·row_length`; filter row ky
/// fills its bytes `ky·span ..< (ky+1)·span` with the input bytes from `first_column + (j - column_begin)·step` of
/// input row `iy = first_input_row + ky·dilation_h` (at `image_offset + iy·input_row_bytes` from `source`), or with
/// `pad` where iy is outside [0, input_height). The bytes `kh·span ..< row_length` become 0. `end` is the input's
/// end: no load reads past it. Filter rows of at most 16 bytes take one 16-byte load and store each (the bytes past
/// the span zeros, overwritten by the next filter row); longer ones are copied in masked 16-byte pieces.
/// AVX-512 BW/VL.
void lite_qs8_gemm_pack_interior__avx512(const uint8_t *source, const uint8_t *end, int8_t *output_row, ptrdiff_t row_length,
                                         ptrdiff_t column_begin, ptrdiff_t column_end, ptrdiff_t kh, ptrdiff_t span,
                                         ptrdiff_t step, ptrdiff_t first_column, ptrdiff_t first_input_row, ptrdiff_t dilation_h,
                                         ptrdiff_t input_height, ptrdiff_t image_offset, ptrdiff_t input_row_bytes, int8_t pad);

/// `accumulators[i·padded_channels + c] = constants[c] + Σ_k x'_i[k]·w'[c, k]` for `count` (1...16) rows
/// `row_stride` bytes apart, `padded_depth` bytes each (a multiple of 4), against the packed filter `weights`:
/// channels in blocks of 16, blocks in groups of four; per group, per four-deep step, each block's 16 lanes x 4 bytes.
/// `vpdpbusd` reads the activations as unsigned bytes, after flipping each one's top bit when `flip_activations`
/// (int8 models: x' = x + 128), and the filter as signed. Layers of one or two blocks take tiles of 8 rows x 16 or
/// 32 channels, wider ones 4 rows x 64 (then 32, 16) channels. Rows past `count` repeat the last one: `accumulators`
/// must hold 16 rows, and the rows past `count` of the last tile are written but not meaningful.
void lite_qs8_gemm_multiply_block__avx512vnni(const void *weights, const int32_t *constants, ptrdiff_t padded_channels,
                                              ptrdiff_t padded_depth, const int8_t *rows, ptrdiff_t count, ptrdiff_t row_stride,
                                              int flip_activations, int32_t *accumulators);

/// `lite_qs8_gemm_multiply_block__avx512vnni` for int8 rows (`flip_activations` 1), any `count` of them, with each
/// tile's accumulators requantized in registers as `lite_qs8_requantize_block__avx512` does without row sums (ties
/// up) and stored as `channels` bytes per row, `output_stride` apart.
void lite_qs8_gemm_requantized__avx512vnni(const void *weights, const int32_t *constants, ptrdiff_t padded_channels,
                                           ptrdiff_t padded_depth, const int8_t *rows, ptrdiff_t count, ptrdiff_t row_stride,
                                           const lite_qs8_requantization_avx512 *params, ptrdiff_t channels, void *output,
                                           ptrdiff_t output_stride);

/// `sums[i] = Σ_k row_i[k]` over `padded_depth` bytes for `count` (1...16) rows `row_stride` apart, the bytes read as
/// uint8 when `activations_unsigned`, else int8; `sums[count..<16]` repeat the last row's sum (16 are written).
/// `vpdpbusd` against ones adds each row's bytes 64 at a time into 16 partial sums; the 16 rows' partial sums are
/// reduced across lanes together by unpacks and lane permutes.
void lite_qs8_gemm_row_sums16__avx512vnni(const int8_t *rows, ptrdiff_t row_stride, ptrdiff_t count, ptrdiff_t padded_depth,
                                          int activations_unsigned, int32_t *sums);

/// The depthwise dot-product kernel's data (LiteEngine's `QuantizedDepthwiseDotProduct`): per 16-channel block and
/// group of four filter rows, filter bytes [w(4g,kx), w(4g+1,kx), w(4g+2,kx), w(4g+3,kx)] per lane and filter column
/// (rows past the filter 0), the uint8 filter zero points, the accumulators' start values, and the per-channel
/// requantization the GEMM's requantization also reads.
typedef struct {
    /// Per block, per row group, per filter column: 64 bytes. 64-byte aligned.
    const void *weights;
    /// Per block, per row group: 64 bytes (uint8 only).
    const void *weight_zero_points;
    /// Per channel (whole blocks of 16): the accumulator's start value.
    const int32_t *constants;
    const lite_qs8_requantization_avx512 *requantization;
    ptrdiff_t channels;
    ptrdiff_t blocks;
    /// Groups of four filter rows: ceil(kh / 4).
    ptrdiff_t row_groups;
    /// Nonzero for uint8 (the filter is `vpdpbusd`'s unsigned operand), zero for int8 (the flipped input is).
    int32_t is_uint8;
    int8_t input_zero_point;
} lite_qs8_dwconv_vnni;

/// A depthwise convolution's shape (channel multiplier 1, so the output has `in_c` channels).
typedef struct {
    ptrdiff_t in_h, in_w, in_c, kh, kw, out_h, out_w;
    ptrdiff_t stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w;
} lite_qs8_dwconv_geometry;

/// Output rows `row_begin ..< row_end` (row = batch·out_h + oy) of a depthwise convolution: per output row and
/// 16-channel block, every input column the row reads (`columns` of them, from the left padding on) is interleaved
/// into `interleaved` (64 bytes per column and row group, 64-byte aligned, the groups `columns·64` bytes apart): lane
/// i holds channel i's inputs in the group's four filter rows, XOR 0x80, padding `input_zero_point`; then each output
/// pixel is one `vpdpbusd` per filter column and row group (uint8: two, the second against the filter zero points),
/// requantized in registers and stored.
void lite_qs8_dwconv__avx512vnni(const lite_qs8_dwconv_vnni *params, const lite_qs8_dwconv_geometry *geometry,
                                 const int8_t *input, int8_t *output, ptrdiff_t row_begin, ptrdiff_t row_end, ptrdiff_t columns,
                                 void *interleaved);

#endif

#endif
