// MAX_POOL_2D rows (and float AVERAGE_POOL_2D's): float in 8-lane AVX registers, int8/uint8/int16 in 16-byte SSE registers (compiled for AVX2).
#if defined(__x86_64__)
#include <float.h>
#include <immintrin.h>
#include <stdint.h>

#include "../isa_targets.h"
#include "../../include/lite_pool.h"

LITE_TARGET_AVX2_BEGIN

#include "../pool_window.h"

/// Channels [channel, channel + 8) of one window, clamped and stored at `out + channel`. `vmaxps(v, maximum)`
/// keeps the maximum when v is not larger, NaN included.
static inline void lite_f32_window_maximum8(const float *image, ptrdiff_t row_start, ptrdiff_t row_end, ptrdiff_t x0, ptrdiff_t x1,
                                            ptrdiff_t width, ptrdiff_t channels, ptrdiff_t channel, float *out, float low, float high) {
    __m256 maximum = _mm256_set1_ps(-FLT_MAX);
    for (ptrdiff_t y = row_start; y < row_end; y++) {
        for (ptrdiff_t x = x0; x < x1; x++) {
            maximum = _mm256_max_ps(_mm256_loadu_ps(image + ((y * width + x) * channels + channel)), maximum);
        }
    }
    _mm256_storeu_ps(out + channel, _mm256_min_ps(_mm256_set1_ps(high), _mm256_max_ps(_mm256_set1_ps(low), maximum)));
}

/// Channels [channel, channel + 8 · blocks) of one window (`blocks` 1 or 8, a constant at each call), each the sum from
/// 0 over the window's pixels in order, divided by `count`, clamped, stored at `out + channel`. Eight blocks keep eight
/// chains of additions in flight; one block's chain waits on each addition.
static inline __attribute__((always_inline)) void lite_f32_window_mean(const float *image, ptrdiff_t row_start, ptrdiff_t row_end,
                                                                       ptrdiff_t x0, ptrdiff_t x1, ptrdiff_t width, ptrdiff_t channels,
                                                                       ptrdiff_t channel, const int blocks, __m256 count, float *out,
                                                                       float low, float high) {
    __m256 sum[8];
    for (int b = 0; b < blocks; b++) sum[b] = _mm256_setzero_ps();
    for (ptrdiff_t y = row_start; y < row_end; y++) {
        for (ptrdiff_t x = x0; x < x1; x++) {
            const float *pixel = image + ((y * width + x) * channels + channel);
            for (int b = 0; b < blocks; b++) sum[b] = _mm256_add_ps(sum[b], _mm256_loadu_ps(pixel + 8 * b));
        }
    }
    for (int b = 0; b < blocks; b++) {
        const __m256 mean = _mm256_div_ps(sum[b], count);
        _mm256_storeu_ps(out + channel + 8 * b, _mm256_min_ps(_mm256_set1_ps(high), _mm256_max_ps(_mm256_set1_ps(low), mean)));
    }
}

void lite_f32_avgpool_row__avx2(const float *image, ptrdiff_t row_start, ptrdiff_t row_end, const lite_pool_row_geometry *g,
                                float *out_row, float low, float high) {
    const ptrdiff_t channels = g->channels, width = g->input_width;
    for (ptrdiff_t ox = 0; ox < g->output_width; ox++) {
        ptrdiff_t x0, x1;
        lite_pool_columns(g, ox, &x0, &x1);
        const ptrdiff_t area = (row_end - row_start) * (x1 - x0);
        const float count = (float)(area > 1 ? area : 1);
        float *out = out_row + ox * channels;
        ptrdiff_t c = 0;
        for (; c + 64 <= channels; c += 64) {
            lite_f32_window_mean(image, row_start, row_end, x0, x1, width, channels, c, 8, _mm256_set1_ps(count), out, low, high);
        }
        while (c < channels && channels >= 8) {
            c = c < channels - 8 ? c : channels - 8;
            lite_f32_window_mean(image, row_start, row_end, x0, x1, width, channels, c, 1, _mm256_set1_ps(count), out, low, high);
            c += 8;
        }
        for (; c < channels; c++) {
            float sum = 0;
            for (ptrdiff_t y = row_start; y < row_end; y++) {
                for (ptrdiff_t x = x0; x < x1; x++) sum += image[(y * width + x) * channels + c];
            }
            const float mean = sum / count;
            const float raised = mean < low ? low : mean;
            out[c] = raised > high ? high : raised;
        }
    }
}

void lite_f32_maxpool_row__avx2(const float *image, ptrdiff_t row_start, ptrdiff_t row_end, const lite_pool_row_geometry *g,
                                float *out_row, float low, float high) {
    const ptrdiff_t channels = g->channels, width = g->input_width;
    for (ptrdiff_t ox = 0; ox < g->output_width; ox++) {
        ptrdiff_t x0, x1;
        lite_pool_columns(g, ox, &x0, &x1);
        float *out = out_row + ox * channels;
        ptrdiff_t c = 0;
        while (c < channels && channels >= 8) {
            c = c < channels - 8 ? c : channels - 8;
            lite_f32_window_maximum8(image, row_start, row_end, x0, x1, width, channels, c, out, low, high);
            c += 8;
        }
        for (; c < channels; c++) {
            float maximum = -FLT_MAX;
            for (ptrdiff_t y = row_start; y < row_end; y++) {
                for (ptrdiff_t x = x0; x < x1; x++) {
                    const float v = image[(y * width + x) * channels + c];
                    if (v > maximum) maximum = v;
                }
            }
            out[c] = lite_clamp_scalar(maximum, low, high);
        }
    }
}

enum { LITE_POOL_S8, LITE_POOL_U8, LITE_POOL_S16 };

static inline __m128i lite_lane_maximum(__m128i a, __m128i b, int kind) {
    if (kind == LITE_POOL_U8) return _mm_max_epu8(a, b);
    if (kind == LITE_POOL_S8) return _mm_max_epi8(a, b);
    return _mm_max_epi16(a, b);
}

static inline __m128i lite_lane_minimum(__m128i a, __m128i b, int kind) {
    if (kind == LITE_POOL_U8) return _mm_min_epu8(a, b);
    if (kind == LITE_POOL_S8) return _mm_min_epi8(a, b);
    return _mm_min_epi16(a, b);
}

/// `value` (the element's bits) in every lane.
static inline __m128i lite_splat(int32_t value, int kind) {
    return kind == LITE_POOL_S16 ? _mm_set1_epi16((short)value) : _mm_set1_epi8((char)value);
}

static inline __attribute__((always_inline)) void lite_q_maxpool_row(const void *image, ptrdiff_t row_start, ptrdiff_t row_end,
                                                                     const lite_pool_row_geometry *g, void *out_row, int32_t low,
                                                                     int32_t high, int kind) {
    const ptrdiff_t size = kind == LITE_POOL_S16 ? 2 : 1, lanes = 16 / size;
    const ptrdiff_t channels = g->channels, width = g->input_width;
    const int32_t lowest = kind == LITE_POOL_U8 ? 0 : (kind == LITE_POOL_S8 ? INT8_MIN : INT16_MIN);
    const __m128i low_vector = lite_splat(low, kind), high_vector = lite_splat(high, kind), start = lite_splat(lowest, kind);
    const char *bytes = (const char *)image;
    for (ptrdiff_t ox = 0; ox < g->output_width; ox++) {
        ptrdiff_t x0, x1;
        lite_pool_columns(g, ox, &x0, &x1);
        char *out = (char *)out_row + ox * channels * size;
        ptrdiff_t c = 0;
        while (c < channels) {
            c = c < channels - lanes ? c : channels - lanes;
            __m128i maximum = start;
            for (ptrdiff_t y = row_start; y < row_end; y++) {
                for (ptrdiff_t x = x0; x < x1; x++) {
                    const __m128i v = _mm_loadu_si128((const __m128i *)(bytes + ((y * width + x) * channels + c) * size));
                    maximum = lite_lane_maximum(maximum, v, kind);
                }
            }
            maximum = lite_lane_minimum(lite_lane_maximum(maximum, low_vector, kind), high_vector, kind);
            _mm_storeu_si128((__m128i *)(out + c * size), maximum);
            c += lanes;
        }
    }
}

void lite_s8_maxpool_row__avx2(const int8_t *image, ptrdiff_t row_start, ptrdiff_t row_end, const lite_pool_row_geometry *geometry,
                               int8_t *out, int8_t low, int8_t high) {
    lite_q_maxpool_row(image, row_start, row_end, geometry, out, low, high, LITE_POOL_S8);
}

void lite_u8_maxpool_row__avx2(const uint8_t *image, ptrdiff_t row_start, ptrdiff_t row_end, const lite_pool_row_geometry *geometry,
                               uint8_t *out, uint8_t low, uint8_t high) {
    lite_q_maxpool_row(image, row_start, row_end, geometry, out, low, high, LITE_POOL_U8);
}

void lite_s16_maxpool_row__avx2(const int16_t *image, ptrdiff_t row_start, ptrdiff_t row_end, const lite_pool_row_geometry *geometry,
                                int16_t *out, int16_t low, int16_t high) {
    lite_q_maxpool_row(image, row_start, row_end, geometry, out, low, high, LITE_POOL_S16);
}

LITE_TARGET_END

#endif
