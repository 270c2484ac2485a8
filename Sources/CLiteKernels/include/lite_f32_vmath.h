#ifndef LITE_F32_VMATH_H
#define LITE_F32_VMATH_H

#include <stddef.h>
#include <stdint.h>

/// A level's sigmoid kernel (``lite_f32_sigmoid__avx2``).
typedef void (*lite_f32_sigmoid_fn)(const float *input, float *output, size_t count, int multiply_by_input);

/// A level's tanh kernel (``lite_f32_tanh__avx2``).
typedef void (*lite_f32_tanh_fn)(float *values, size_t count);

/// A level's clamped sum kernel (``lite_f32_vadd_minmax__avx2``).
typedef void (*lite_f32_vadd_minmax_fn)(const float *a, const float *b, float *output, size_t count, float low, float high);

/// A level's clamped sum with a channel-padded operand (``lite_f32_vadd_channel_padded__avx2``).
typedef void (*lite_f32_vadd_channel_padded_fn)(const float *a, size_t a_stride, const float *b, size_t b_stride,
                                                const float *other, float *output, size_t rows, size_t summed,
                                                size_t channels, float low, float high);

/// A level's float RESIZE_BILINEAR row (``lite_f32_resize_bilinear_row__avx2``).
typedef void (*lite_f32_resize_bilinear_row_fn)(const float *row0, const float *row1, const int32_t *x0, const int32_t *x1,
                                                const float *dx, size_t out_w, size_t channels, float dy, float *output);

/// A level's float softmax of one row (``lite_f32_softmax_row__avx2``).
typedef void (*lite_f32_softmax_row_fn)(const float *x, float *y, size_t n, float beta);

/// A level's PRELU with one slope per channel (``lite_f32_prelu_channels__avx2``).
typedef void (*lite_f32_prelu_channels_fn)(const float *x, const float *slopes, float *output, size_t rows, size_t channels);

#if defined(__x86_64__)

/// `output[i] = sigmoid(input[i])`, or `input[i] · sigmoid(input[i])` when `multiply_by_input` (SiLU); the buffers
/// may be the same. Eight at a time as XNNPACK's AVX2 sigmoid arranges it: e = e^z for z = −|x| (never overflows;
/// clamped at −87.33 so 2^n stays normal, where e ≈ 1e-38 stands for smaller values) by Cephes' reduction
/// `z = n·ln2 + r` (ln2 in two parts) and degree-6 polynomial with fused multiply-adds, the magic bias
/// 1.5·2^23 + 127 carrying 2^n's exponent; then f = e / (e + 1), and 1 − f for x ≥ 0 (the sign bit picks). The last
/// `count % 8` values go through the same code in a zero-padded register, so every value is computed alike. NaN
/// stays NaN. Within 4 ulp of libm's `1 / (1 + expf(-x))`.
void lite_f32_sigmoid__avx2(const float *input, float *output, size_t count, int multiply_by_input);
/// The same in sixteen-lane AVX-512 registers, lane for lane the same values (AVX-512F and DQ).
void lite_f32_sigmoid__avx512(const float *input, float *output, size_t count, int multiply_by_input);

/// `tanh` of `count` floats in place, eight at a time, each lane (and each of the last `count % 8` values) computing
/// exactly the portable `vectorizableTanh`, every operation rounded on its own (no fused multiply-adds):
/// `1 − 2 / (e^2|x| + 1)` with the sign of x, e^y by Cephes' expf (y clamped to [−87.3, 88.3], `y = n·ln2 + r` with
/// ln2 in two parts, a degree-6 polynomial, 2^n built in the exponent bits), and below |x| = 0.4 the odd Taylor
/// series to x^13. At most 4 ulp from libm's `tanhf`.
void lite_f32_tanh__avx2(float *values, size_t count);

/// One output row of a float RESIZE_BILINEAR: output pixel x (`channels` floats at `output + x·channels`) from input
/// columns `x0[x]` and `x1[x]` of input rows `row0` and `row1`, `w00·a + w10·b + w01·c + w11·d` with
/// `w00 = (1 − dy)(1 − dx[x])`, `w10 = dy(1 − dx[x])`, `w01 = (1 − dy)dx[x]`, `w11 = dy·dx[x]`, summed left to right,
/// every product and sum rounded on its own: the same values as LiteEngine's `ResizeBilinear` loop. Eight channels a
/// step, the last `channels % 8` one at a time.
void lite_f32_resize_bilinear_row__avx2(const float *row0, const float *row1, const int32_t *x0, const int32_t *x1, const float *dx,
                                        size_t out_w, size_t channels, float dy, float *output);

/// `output[i] = clamp(a[i] + b[i], low, high)`, or `clamp(a[i] + 0, low, high)` when `b` is NULL (so −0 becomes +0,
/// as an added zero does), eight at a time. The clamp is `v < low ? low : v`, then `> high ? high`: NaN passes
/// through and −0 stays −0 against a low of 0, as the portable Swift loop does (`vmaxps` returns its second operand
/// when either is NaN). Any `count`; the last `count % 8` one at a time.
void lite_f32_vadd_minmax__avx2(const float *a, const float *b, float *output, size_t count, float low, float high);

/// An ADD whose one operand is the other's shape with its last axis zero-padded (a PAD folded into the ADD), over
/// `rows` rows of `channels` values: row r's first `summed` outputs are `clamp(a[r · a_stride + c] + b[r · b_stride +
/// c], low, high)`, the rest `clamp(other[r · channels + c] + 0, low, high)` (the full-width operand plus the padding's
/// zero), each piece as ``lite_f32_vadd_minmax__avx2`` computes it (eight at a time, the rest one at a time, the
/// same values), `output` row r at `output + r · channels`. One call for a layer's rows, whose pieces of 24-96
/// channels are too short to be worth a call each.
void lite_f32_vadd_channel_padded__avx2(const float *a, size_t a_stride, const float *b, size_t b_stride,
                                        const float *other, float *output, size_t rows, size_t summed,
                                        size_t channels, float low, float high);

/// PRELU with one slope per channel (alpha [1, ..., 1, C], MediaPipe's models) over `rows` rows of `channels`:
/// `output[r · channels + c] = x < 0 ? x · slopes[c] : x` (one rounding), eight channels at a time, the rest one at a
/// time. A NaN x is kept as it is: the reference's `x >= 0 ? x : x · slope` gives the same bits for every quiet NaN
/// and a slope that is not NaN, and with no NaN factor no operand order decides which of two NaNs a product carries.
void lite_f32_prelu_channels__avx2(const float *x, const float *slopes, float *output, size_t rows, size_t channels);

/// One row of float SOFTMAX, `y[i] = exp(beta · (x[i] − max)) / Σ`: the maximum over the row (NaN skipped, as
/// Swift's `max` loop), each exponential as ``lite_exp8`` computes it (`vectorizableExp`'s values, the last `n % 8`
/// in a zero-padded register) stored in `y`, the sum in eight lanes, each in order, then across the lanes (so not
/// the same last bits as a sum in one chain), and each value times `1 / sum`. `y` may be `x`.
void lite_f32_softmax_row__avx2(const float *x, float *y, size_t n, float beta);

#endif

#endif
