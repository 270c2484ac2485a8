#ifndef LITE_POOL_H
#define LITE_POOL_H

// Pooling microkernels: one output row of MAX_POOL_2D (or float AVERAGE_POOL_2D) over an NHWC image at a time.
#include <stddef.h>
#include <stdint.h>

/// The horizontal geometry of a pooling row: output pixel `ox`'s window covers the input columns
/// `[max(ox·stride - pad_left, 0), min(ox·stride - pad_left + filter_width, input_width))` (empty when that is).
typedef struct {
    ptrdiff_t input_width;   ///< Pixels in an input row.
    ptrdiff_t channels;      ///< Values per pixel, input and output.
    ptrdiff_t output_width;  ///< Pixels in the output row.
    ptrdiff_t stride;
    ptrdiff_t pad_left;
    ptrdiff_t filter_width;
} lite_pool_row_geometry;

#if defined(__x86_64__)
/// One output row of float MAX_POOL_2D: for each output pixel, each channel's largest value over the input rows
/// `[row_start, row_end)` of `image` (HWC) and the pixel's columns, clamped as `min(max(m, low), high)`, stored at
/// `out` (output_width · channels floats). The running maximum starts at -FLT_MAX and takes a value only when it is
/// larger (so NaN never enters, as TFLite's `std::max` loop). Channels go 8 at a time (__avx2) or 16 (__avx512), the
/// last piece overlapping the one before (the same maxima again); fewer channels than a vector one at a time.
void lite_f32_maxpool_row__avx2(const float *image, ptrdiff_t row_start, ptrdiff_t row_end, const lite_pool_row_geometry *geometry,
                                float *out, float low, float high);
void lite_f32_maxpool_row__avx512(const float *image, ptrdiff_t row_start, ptrdiff_t row_end, const lite_pool_row_geometry *geometry,
                                  float *out, float low, float high);

/// One output row of float AVERAGE_POOL_2D, as the portable loop computes it: for each output pixel, each channel's
/// sum from 0 over the window's in-bounds values (rows `[row_start, row_end)`, the pixel's columns, in order), divided
/// by their count (at least 1), clamped as `v < low ? low : v`, then `> high ? high`. Channels go 64 at a time, then 8 (the
/// last piece overlapping the one before: the same sums again); fewer than 8 one at a time.
void lite_f32_avgpool_row__avx2(const float *image, ptrdiff_t row_start, ptrdiff_t row_end, const lite_pool_row_geometry *geometry,
                                float *out, float low, float high);

/// One output row of int8 (s8), uint8 (u8) or int16 (s16) MAX_POOL_2D, as the float kernel: the maximum starts at
/// the type's lowest value and is clamped to [low, high]; channels go 16 bytes at a time, the last piece overlapping.
/// Needs at least 16 bytes of channels (16 int8/uint8, 8 int16).
void lite_s8_maxpool_row__avx2(const int8_t *image, ptrdiff_t row_start, ptrdiff_t row_end, const lite_pool_row_geometry *geometry,
                               int8_t *out, int8_t low, int8_t high);
void lite_u8_maxpool_row__avx2(const uint8_t *image, ptrdiff_t row_start, ptrdiff_t row_end, const lite_pool_row_geometry *geometry,
                               uint8_t *out, uint8_t low, uint8_t high);
void lite_s16_maxpool_row__avx2(const int16_t *image, ptrdiff_t row_start, ptrdiff_t row_end, const lite_pool_row_geometry *geometry,
                                int16_t *out, int16_t low, int16_t high);
#endif

#endif
