#ifndef LITE_QUANTIZE_H
#define LITE_QUANTIZE_H

// Dynamic-range (hybrid) quantization of float activations to int8: the range of a row and its quantized values;
// DEQUANTIZE of 8-bit tensors.
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
/// The smallest and the largest of `values[0 ..< n]` and 0, where n is `count` rounded down to a multiple of 8:
/// eight lanes of running minima (`vminps(v, low)`) and maxima starting at +0, so a lane takes a value only when it
/// is strictly below (above) and NaN never enters; then the lanes reduced. Returns n; the caller folds in the rest.
size_t lite_f32_rminmax__avx2(const float *values, size_t count, float *low, float *high);

/// `q − zero_point` as floats for `values[0 ..< n]` (n: `count` rounded down to a multiple of 8), where
/// q = clamp(zero_point + trunc(p ± 1/2), low, 127) with p = x · inverse (never fused) and the sign of p: the rounding
/// of LiteRT's eight-lane quantizer loop (NEON_2_SSE's RoundToNearest), the zero point added after it. NaN gives
/// `low`. Returns n.
size_t lite_f32_qs8_quantize_offset__avx2(const float *values, size_t count, float inverse, float zero_point, float low,
                                          float *output);

/// `output[i] = (float)input[i] · scale + offset` for i < `count` (a multiple of 8), the multiply and the add each
/// rounded: the vector path of LiteRT's DEQUANTIZE with `offset` = −zero_point · scale.
void lite_s8_dequantize__avx2(const int8_t *input, float *output, size_t count, float scale, float offset);
void lite_u8_dequantize__avx2(const uint8_t *input, float *output, size_t count, float scale, float offset);
#endif

#endif
