#ifndef LITE_F32_DWCONV_H
#define LITE_F32_DWCONV_H

#include <stddef.h>

/// A float depthwise convolution's shape: input [batches, in_h, in_w, in_c] (NHWC), filter [1, kh, kw, out_c],
/// output [batches, out_h, out_w, out_c], output channel `c` convolving input channel `c / multiplier`; the input
/// pixel of tap (ky, kx) of output (oy, ox) is `(oy · stride_h − pad_h + ky · dilation_h, ox · stride_w − pad_w +
/// kx · dilation_w)`, taps outside the input skipped.
typedef struct lite_f32_dwconv_geometry {
    ptrdiff_t batches, in_h, in_w, in_c, kh, kw, out_c, out_h, out_w;
    ptrdiff_t stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w, multiplier;
} lite_f32_dwconv_geometry;

/// A level's depthwise kernel (``lite_f32_dwconv_rows__avx2``).
typedef void (*lite_f32_dwconv_rows_fn)(const lite_f32_dwconv_geometry *geometry, const float *input, const float *weights,
                                        const float *bias, float *output, size_t row_begin, size_t row_end,
                                        float low, float high);

#if defined(__x86_64__)

/// The output rows `row_begin ..< row_end` (row `b · out_h + oy`) of a float depthwise convolution:
/// `clamp(bias[c] + Σ input · weight)` (bias 0 when `bias` is NULL), the taps added in (ky, kx) order as an
/// in-order chain of fused multiply-adds starting from the bias, then `min(high, max(low, v))`-style clamping that
/// lets NaN through (skipped when the range is (−∞, ∞)). With multiplier 1 channels go 16, 8 and 4 at a time in AVX
/// registers (each lane computing exactly what the one-channel loop computes); a 3x3 filter a row at a time with
/// the channels' nine weights held while the row's pixels go by (1-3 channels past a multiple of 4 as the last four
/// again); filters 5 or 7 wide at stride 1 or 2 across (dilation 1 across) 8 channels a register, adjacent pixels
/// sharing the input columns they read (f32_dwconv_shared_columns.h); other filters four interior pixels at a time.
/// Other multipliers, and channels past the vectors, one channel at a time with scalar fused multiply-adds.
void lite_f32_dwconv_rows__avx2(const lite_f32_dwconv_geometry *geometry, const float *input, const float *weights,
                                const float *bias, float *output, size_t row_begin, size_t row_end,
                                float low, float high);

/// The same results, bit for bit, with AVX-512 registers (avx512 level and above): multiplier 1 and dilation 1 across
/// with filters 3 wide at stride 1, or 5 or 7 wide at stride 1 or 2, a row's adjacent pixels sharing the input
/// columns they read; 3x3 filters at stride 2 a row at a time as the avx2 kernel does, 16 channels a register; the
/// avx2 kernel for the rest.
void lite_f32_dwconv_rows__avx512(const lite_f32_dwconv_geometry *geometry, const float *input, const float *weights,
                                  const float *bias, float *output, size_t row_begin, size_t row_end,
                                  float low, float high);

#endif

#endif
