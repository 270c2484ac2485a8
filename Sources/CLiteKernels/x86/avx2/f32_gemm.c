#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>

#include "../isa_targets.h"
#include "../../include/lite_f32_gemm.h"

LITE_TARGET_AVX2_BEGIN

/// Row `row`'s piece `segment` of A.
static inline const float *lite_f32_row(const lite_f32_gemm_rows *a, size_t row, size_t segment) {
    if (a->indirection != NULL) return a->indirection[row * a->segments + segment];
    return a->a + row * a->lda;
}

/// `min(high, max(low, v))`: with a NaN in v both instructions return v (their second operand), so NaN passes
/// through as in the reference's `v < low ? low : v`.
static inline __m256 lite_f32_clamp8(__m256 v, __m256 low, __m256 high) {
    return _mm256_min_ps(high, _mm256_max_ps(low, v));
}

/// Stores the first `count` (1...8) lanes of v at o, in pieces of 4, 2 and 1 (XNNPACK's), not with `vmaskmovps`,
/// which AMD's cores run as many micro-ops.
static inline void lite_f32_store_first8(size_t count, __m256 v, float *o) {
    if (count >= 8) {
        _mm256_storeu_ps(o, v);
        return;
    }
    __m128 half = _mm256_castps256_ps128(v);
    if (count & 4) {
        _mm_storeu_ps(o, half);
        half = _mm256_castps256_ps128(_mm256_permutevar8x32_ps(v, _mm256_setr_epi32(4, 5, 6, 7, 4, 5, 6, 7)));
        o += 4;
    }
    if (count & 2) {
        _mm_storel_epi64((__m128i *)o, _mm_castps_si128(half));
        half = _mm_movehl_ps(half, half);
        o += 2;
    }
    if (count & 1) _mm_store_ss(o, half);
}

static inline size_t lite_min(size_t a, size_t b) { return a < b ? a : b; }

/// One 6x8 tile: the first 8 columns of panel p (of 8 or 16), one AVX register a row.
static inline void lite_f32_tile6x8(const lite_f32_packed_filter *f, const lite_f32_gemm_rows *a, size_t rows,
                                    size_t t, size_t p, size_t columns, float *c, size_t ldc, __m256 low, __m256 high) {
    const size_t first = t * 6, valid = lite_min(6, rows - first);
    const size_t r0 = first, r1 = first + lite_min(1, valid - 1), r2 = first + lite_min(2, valid - 1);
    const size_t r3 = first + lite_min(3, valid - 1), r4 = first + lite_min(4, valid - 1), r5 = first + lite_min(5, valid - 1);
    const size_t stride = f->panel_width;
    const float *w = f->packed + p * (f->k + 1) * stride;
    const __m256 b = _mm256_loadu_ps(w);
    __m256 c0 = b, c1 = b, c2 = b, c3 = b, c4 = b, c5 = b;
    w += stride;
    for (size_t s = 0; s < a->segments; s++) {
        const float *a0 = lite_f32_row(a, r0, s), *a1 = lite_f32_row(a, r1, s), *a2 = lite_f32_row(a, r2, s);
        const float *a3 = lite_f32_row(a, r3, s), *a4 = lite_f32_row(a, r4, s), *a5 = lite_f32_row(a, r5, s);
        for (size_t i = 0; i < a->segment_length; i++) {
            const __m256 w0 = _mm256_loadu_ps(w);
            w += stride;
            c0 = _mm256_fmadd_ps(_mm256_set1_ps(a0[i]), w0, c0);
            c1 = _mm256_fmadd_ps(_mm256_set1_ps(a1[i]), w0, c1);
            c2 = _mm256_fmadd_ps(_mm256_set1_ps(a2[i]), w0, c2);
            c3 = _mm256_fmadd_ps(_mm256_set1_ps(a3[i]), w0, c3);
            c4 = _mm256_fmadd_ps(_mm256_set1_ps(a4[i]), w0, c4);
            c5 = _mm256_fmadd_ps(_mm256_set1_ps(a5[i]), w0, c5);
        }
    }
    float *out = c + first * ldc + p * stride;
    // Row by row from the registers (an array of them, indexed in a loop, went through the stack).
#define LITE_STORE_ROW(r, v) if (r < valid) lite_f32_store_first8(columns, lite_f32_clamp8(v, low, high), out + r * ldc);
    LITE_STORE_ROW(0, c0) LITE_STORE_ROW(1, c1) LITE_STORE_ROW(2, c2) LITE_STORE_ROW(3, c3) LITE_STORE_ROW(4, c4) LITE_STORE_ROW(5, c5)
#undef LITE_STORE_ROW
}

/// One 6x16 tile in AVX registers (two a row), of a panel of 16.
static inline void lite_f32_tile6x16(const lite_f32_packed_filter *f, const lite_f32_gemm_rows *a, size_t rows,
                                     size_t t, size_t p, size_t columns, float *c, size_t ldc, __m256 low, __m256 high) {
    const size_t first = t * 6, valid = lite_min(6, rows - first);
    const size_t r0 = first, r1 = first + lite_min(1, valid - 1), r2 = first + lite_min(2, valid - 1);
    const size_t r3 = first + lite_min(3, valid - 1), r4 = first + lite_min(4, valid - 1), r5 = first + lite_min(5, valid - 1);
    const float *w = f->packed + p * (f->k + 1) * 16;
    const __m256 b0 = _mm256_loadu_ps(w), b1 = _mm256_loadu_ps(w + 8);
    __m256 c00 = b0, c01 = b1, c10 = b0, c11 = b1, c20 = b0, c21 = b1, c30 = b0, c31 = b1, c40 = b0, c41 = b1, c50 = b0, c51 = b1;
    w += 16;
    for (size_t s = 0; s < a->segments; s++) {
        const float *a0 = lite_f32_row(a, r0, s), *a1 = lite_f32_row(a, r1, s), *a2 = lite_f32_row(a, r2, s);
        const float *a3 = lite_f32_row(a, r3, s), *a4 = lite_f32_row(a, r4, s), *a5 = lite_f32_row(a, r5, s);
        for (size_t i = 0; i < a->segment_length; i++) {
            const __m256 w0 = _mm256_loadu_ps(w), w1 = _mm256_loadu_ps(w + 8);
            w += 16;
            __m256 x = _mm256_set1_ps(a0[i]);
            c00 = _mm256_fmadd_ps(x, w0, c00); c01 = _mm256_fmadd_ps(x, w1, c01);
            x = _mm256_set1_ps(a1[i]);
            c10 = _mm256_fmadd_ps(x, w0, c10); c11 = _mm256_fmadd_ps(x, w1, c11);
            x = _mm256_set1_ps(a2[i]);
            c20 = _mm256_fmadd_ps(x, w0, c20); c21 = _mm256_fmadd_ps(x, w1, c21);
            x = _mm256_set1_ps(a3[i]);
            c30 = _mm256_fmadd_ps(x, w0, c30); c31 = _mm256_fmadd_ps(x, w1, c31);
            x = _mm256_set1_ps(a4[i]);
            c40 = _mm256_fmadd_ps(x, w0, c40); c41 = _mm256_fmadd_ps(x, w1, c41);
            x = _mm256_set1_ps(a5[i]);
            c50 = _mm256_fmadd_ps(x, w0, c50); c51 = _mm256_fmadd_ps(x, w1, c51);
        }
    }
    float *out = c + first * ldc + p * 16;
#define LITE_STORE_ROW(r, v0, v1)                                                                                    \
    if (r < valid) {                                                                                                 \
        _mm256_storeu_ps(out + r * ldc, lite_f32_clamp8(v0, low, high));                                             \
        lite_f32_store_first8(columns - 8, lite_f32_clamp8(v1, low, high), out + r * ldc + 8);                       \
    }
    LITE_STORE_ROW(0, c00, c01) LITE_STORE_ROW(1, c10, c11) LITE_STORE_ROW(2, c20, c21)
    LITE_STORE_ROW(3, c30, c31) LITE_STORE_ROW(4, c40, c41) LITE_STORE_ROW(5, c50, c51)
#undef LITE_STORE_ROW
}

void lite_f32_gemm_6x16__avx2(const lite_f32_packed_filter *filter, const lite_f32_gemm_rows *a, size_t rows,
                              size_t tile_begin, size_t tile_end, size_t panel_begin, size_t panel_end,
                              float *c, size_t ldc, float low, float high) {
    const __m256 lows = _mm256_set1_ps(low), highs = _mm256_set1_ps(high);
    for (size_t tile = tile_begin; tile < tile_end; tile++) {
        for (size_t p = panel_begin; p < panel_end; p++) {
            // A panel with at most 8 real columns takes the 6x8 tile: a second register would only multiply padding.
            const size_t columns = lite_min(filter->panel_width, filter->n - p * filter->panel_width);
            if (columns > 8) {
                lite_f32_tile6x16(filter, a, rows, tile, p, columns, c, ldc, lows, highs);
            } else {
                lite_f32_tile6x8(filter, a, rows, tile, p, columns, c, ldc, lows, highs);
            }
        }
    }
}

/// One row times the blocks of 8 columns `8g ..< 8g + count` of the full-width panels, eight chains.
static void lite_f32_one_row(const lite_f32_packed_filter *f, const lite_f32_gemm_rows *a, size_t row, size_t g,
                             size_t blocks, float *c, __m256 low, __m256 high) {
    const size_t blocks_per_panel = f->panel_width / 8, k = f->k, stride = f->panel_width;
    const size_t first = g * 8, count = lite_min(8, blocks - first);
    const float *wb[8];
    for (size_t j = 0; j < 8; j++) {
        // Blocks past the end repeat the last real one (computed, not stored).
        const size_t b = first + lite_min(j, count - 1);
        wb[j] = f->packed + ((b / blocks_per_panel) * (k + 1) * stride + (b % blocks_per_panel) * 8);
    }
    const float *w0 = wb[0], *w1 = wb[1], *w2 = wb[2], *w3 = wb[3], *w4 = wb[4], *w5 = wb[5], *w6 = wb[6], *w7 = wb[7];
    __m256 c0 = _mm256_loadu_ps(w0), c1 = _mm256_loadu_ps(w1), c2 = _mm256_loadu_ps(w2), c3 = _mm256_loadu_ps(w3);
    __m256 c4 = _mm256_loadu_ps(w4), c5 = _mm256_loadu_ps(w5), c6 = _mm256_loadu_ps(w6), c7 = _mm256_loadu_ps(w7);
    size_t o = stride;
    for (size_t s = 0; s < a->segments; s++) {
        const float *x = lite_f32_row(a, row, s);
        for (size_t i = 0; i < a->segment_length; i++) {
            const __m256 v = _mm256_set1_ps(x[i]);
            c0 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w0 + o), c0); c1 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w1 + o), c1);
            c2 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w2 + o), c2); c3 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w3 + o), c3);
            c4 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w4 + o), c4); c5 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w5 + o), c5);
            c6 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w6 + o), c6); c7 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w7 + o), c7);
            o += stride;
        }
    }
    const __m256 v[8] = {c0, c1, c2, c3, c4, c5, c6, c7};
    for (size_t j = 0; j < count; j++) {
        const size_t column = (first + j) * 8;
        lite_f32_store_first8(lite_min(8, f->n - column), lite_f32_clamp8(v[j], low, high), c + column);
    }
}

/// One row times a last panel narrower than the others (8, 16 or 24 columns in up to three registers, a narrower
/// panel computing its last block again).
static void lite_f32_last_panel_row(const lite_f32_packed_filter *f, const lite_f32_gemm_rows *a, size_t row,
                                    float *c, __m256 low, __m256 high) {
    const size_t p = f->panels - 1, stride = f->last_panel_width, column0 = p * f->panel_width;
    const float *w = f->packed + p * (f->k + 1) * f->panel_width;
    const size_t second = lite_min(8, stride - 8), third = lite_min(16, stride - 8);
    __m256 c0 = _mm256_loadu_ps(w), c1 = _mm256_loadu_ps(w + second), c2 = _mm256_loadu_ps(w + third);
    size_t o = stride;
    for (size_t s = 0; s < a->segments; s++) {
        const float *x = lite_f32_row(a, row, s);
        for (size_t i = 0; i < a->segment_length; i++) {
            const __m256 v = _mm256_set1_ps(x[i]);
            c0 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w + o), c0);
            c1 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w + (o + second)), c1);
            c2 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w + (o + third)), c2);
            o += stride;
        }
    }
    const __m256 v[3] = {c0, c1, c2};
    for (size_t j = 0; j < 3; j++) {
        const size_t offset = j * 8;
        if (offset < stride && offset < f->n - column0) {
            lite_f32_store_first8(lite_min(8, f->n - column0 - offset), lite_f32_clamp8(v[j], low, high), c + (column0 + offset));
        }
    }
}

void lite_f32_gemm_1x64__avx2(const lite_f32_packed_filter *filter, const lite_f32_gemm_rows *a, size_t row,
                              size_t group, size_t blocks, float *c, float low, float high) {
    const __m256 lows = _mm256_set1_ps(low), highs = _mm256_set1_ps(high);
    if (group == (blocks + 7) / 8) {
        lite_f32_last_panel_row(filter, a, row, c, lows, highs);
    } else {
        lite_f32_one_row(filter, a, row, group, blocks, c, lows, highs);
    }
}

LITE_TARGET_END

#endif
