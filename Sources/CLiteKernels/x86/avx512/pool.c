// Float MAX_POOL_2D rows in 16-lane AVX-512 registers (F only), 8-lane AVX ones for 8 to 15 channels.
#if defined(__x86_64__)
#include <float.h>
#include <immintrin.h>
#include <stdint.h>

#include "../isa_targets.h"
#include "../../include/lite_pool.h"

LITE_TARGET_AVX512_BEGIN

#include "../pool_window.h"

/// Channels [channel, channel + 16) of one window, clamped and stored at `out + channel`.
static inline void lite_f32_window_maximum16(const float *image, ptrdiff_t row_start, ptrdiff_t row_end, ptrdiff_t x0, ptrdiff_t x1,
                                             ptrdiff_t width, ptrdiff_t channels, ptrdiff_t channel, float *out, float low, float high) {
    __m512 maximum = _mm512_set1_ps(-FLT_MAX);
    for (ptrdiff_t y = row_start; y < row_end; y++) {
        for (ptrdiff_t x = x0; x < x1; x++) {
            maximum = _mm512_max_ps(_mm512_loadu_ps(image + ((y * width + x) * channels + channel)), maximum);
        }
    }
    _mm512_storeu_ps(out + channel, _mm512_min_ps(_mm512_set1_ps(high), _mm512_max_ps(_mm512_set1_ps(low), maximum)));
}

/// The same for 8 channels in an AVX register.
static inline void lite_f32_window_maximum8_512(const float *image, ptrdiff_t row_start, ptrdiff_t row_end, ptrdiff_t x0, ptrdiff_t x1,
                                                ptrdiff_t width, ptrdiff_t channels, ptrdiff_t channel, float *out, float low, float high) {
    __m256 maximum = _mm256_set1_ps(-FLT_MAX);
    for (ptrdiff_t y = row_start; y < row_end; y++) {
        for (ptrdiff_t x = x0; x < x1; x++) {
            maximum = _mm256_max_ps(_mm256_loadu_ps(image + ((y * width + x) * channels + channel)), maximum);
        }
    }
    _mm256_storeu_ps(out + channel, _mm256_min_ps(_mm256_set1_ps(high), _mm256_max_ps(_mm256_set1_ps(low), maximum)));
}

void lite_f32_maxpool_row__avx512(const float *image, ptrdiff_t row_start, ptrdiff_t row_end, const lite_pool_row_geometry *g,
                                  float *out_row, float low, float high) {
    const ptrdiff_t channels = g->channels, width = g->input_width;
    for (ptrdiff_t ox = 0; ox < g->output_width; ox++) {
        ptrdiff_t x0, x1;
        lite_pool_columns(g, ox, &x0, &x1);
        float *out = out_row + ox * channels;
        ptrdiff_t c = 0;
        while (c < channels && channels >= 16) {
            c = c < channels - 16 ? c : channels - 16;
            lite_f32_window_maximum16(image, row_start, row_end, x0, x1, width, channels, c, out, low, high);
            c += 16;
        }
        while (c < channels && channels >= 8) {
            c = c < channels - 8 ? c : channels - 8;
            lite_f32_window_maximum8_512(image, row_start, row_end, x0, x1, width, channels, c, out, low, high);
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

LITE_TARGET_END

#endif
