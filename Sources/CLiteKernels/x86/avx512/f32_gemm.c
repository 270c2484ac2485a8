#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>

#include "../isa_targets.h"
#include "../../include/lite_f32_gemm.h"

LITE_TARGET_AVX512_BEGIN

#include "../ordered_add.h"

/// Row `row`'s piece `segment` of A.
static inline const float *lite_f32_row512(const lite_f32_gemm_rows *a, size_t row, size_t segment) {
    if (a->indirection != NULL) return a->indirection[row * a->segments + segment];
    return a->a + row * a->lda;
}

/// ``lite_add_ordered8`` for 16 lanes.
static inline __m512 lite_add_ordered16(__m512 a, __m512 b) {
    __m512 sum;
    __asm__("vaddps %2, %1, %0" : "=v"(sum) : "v"(a), "vm"(b));
    return sum;
}

static inline size_t lite_min512(size_t a, size_t b) { return a < b ? a : b; }

/// The first `columns` of 16 lanes as a store mask (none when `columns` is 0, all from 16 on).
static inline __mmask16 lite_mask16(size_t columns) {
    return (__mmask16)(columns >= 16 ? 0xFFFF : (1u << columns) - 1);
}

/// The forms of store epilogue the tiles compile (`form`, a constant at every call): an ADD (also of a channel-padded
/// operand) or none, then a PRELU or none.
#define LITE_STORE_ADD 1
#define LITE_STORE_PRELU 2

/// A tile's store epilogue operands for 16 columns, read once a tile: the ADD's other operand's first column (row r at
/// `other + r · stride`, only `read` of the lanes loaded: the columns of C, and of those the source's when the
/// operand is channel-padded), its order and clamp, and the PRELU's slopes.
typedef struct lite_store16 {
    const float *other;
    size_t stride;
    int other_first;
    __mmask16 read;
    __m512 low, high, slope;
} lite_store16;

/// ``lite_store16`` for 8 columns in an AVX register.
typedef struct lite_store8 {
    const float *other;
    size_t stride;
    int other_first;
    __mmask8 read;
    __m256 low, high, slope;
} lite_store8;

/// The first step's columns the ADD reads: all of `mask`, or of a channel-padded operand only those before `summed`.
static inline __mmask16 lite_store_read(const lite_f32_store_step *step, size_t column, __mmask16 mask) {
    if (step->kind != LITE_F32_STORE_ADD_CHANNEL_PADDED) return mask;
    return mask & lite_mask16(step->summed > column ? step->summed - column : 0);
}

static inline __attribute__((always_inline)) lite_store16 lite_store16_at(const lite_f32_store_epilogue *e, const int form, size_t column,
                                                                         __mmask16 mask) {
    lite_store16 s = {NULL, 0, 0, 0, _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    if (form & LITE_STORE_ADD) {
        const lite_f32_store_step *step = &e->steps[0];
        s.other = step->values + column;
        s.stride = step->stride;
        s.other_first = step->other_first;
        s.read = lite_store_read(step, column, mask);
        s.low = _mm512_set1_ps(step->low);
        s.high = _mm512_set1_ps(step->high);
    }
    if (form & LITE_STORE_PRELU) s.slope = _mm512_maskz_loadu_ps(mask, e->steps[e->count - 1].values + column);
    return s;
}

static inline __attribute__((always_inline)) lite_store8 lite_store8_at(const lite_f32_store_epilogue *e, const int form, size_t column,
                                                                       __mmask8 mask) {
    lite_store8 s = {NULL, 0, 0, 0, _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    if (form & LITE_STORE_ADD) {
        const lite_f32_store_step *step = &e->steps[0];
        s.other = step->values + column;
        s.stride = step->stride;
        s.other_first = step->other_first;
        s.read = (__mmask8)lite_store_read(step, column, mask);
        s.low = _mm256_set1_ps(step->low);
        s.high = _mm256_set1_ps(step->high);
    }
    if (form & LITE_STORE_PRELU) s.slope = _mm256_maskz_loadu_ps(mask, e->steps[e->count - 1].values + column);
    return s;
}

/// `v` clamped, then through the tile's store epilogue (`form` 0 compiles none): each step the operation its node's
/// own kernel applies to the stored value, in the same order. An ADD is `min(high, max(low, v + other))` (`other + v`
/// when it comes first; a padded column adds the 0 its unread lane holds, the same value in either order); a PRELU
/// multiplies the lanes below 0 by their slope and keeps the others (NaN too, as the kernel does: a NaN is never a
/// factor, so no operand order decides which NaN a product of two carries).
static inline __attribute__((always_inline)) __m512 lite_finish16(__m512 v, __m512 low, __m512 high, const int form, const lite_store16 *s,
                                                                  size_t row) {
    v = _mm512_min_ps(high, _mm512_max_ps(low, v));
    if (form & LITE_STORE_ADD) {
        const __m512 other = _mm512_maskz_loadu_ps(s->read, s->other + row * s->stride);
        const __m512 sum = s->other_first ? lite_add_ordered16(other, v) : lite_add_ordered16(v, other);
        v = _mm512_min_ps(s->high, _mm512_max_ps(s->low, sum));
    }
    if (form & LITE_STORE_PRELU) {
        v = _mm512_mask_mul_ps(v, _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ), v, s->slope);
    }
    return v;
}

static inline __attribute__((always_inline)) __m256 lite_finish8(__m256 v, __m256 low, __m256 high, const int form, const lite_store8 *s,
                                                                 size_t row) {
    v = _mm256_min_ps(high, _mm256_max_ps(low, v));
    if (form & LITE_STORE_ADD) {
        const __m256 other = _mm256_maskz_loadu_ps(s->read, s->other + row * s->stride);
        const __m256 sum = s->other_first ? lite_add_ordered8(other, v) : lite_add_ordered8(v, other);
        v = _mm256_min_ps(s->high, _mm256_max_ps(s->low, sum));
    }
    if (form & LITE_STORE_PRELU) {
        v = _mm256_mask_mul_ps(v, _mm256_cmp_ps_mask(v, _mm256_setzero_ps(), _CMP_LT_OQ), v, s->slope);
    }
    return v;
}

/// The row indices of tile t of `mr` (8 or 7) rows: rows past the end repeat the last row (computed, not stored).
/// With `mr` 7 the eighth row's multiply-adds are left out (`mr` is a constant at every call).
#define LITE_TILE_ROWS8                                                                                              \
    const size_t first = t * mr, valid = lite_min512(mr, rows - first);                                              \
    const size_t r0 = first, r1 = first + lite_min512(1, valid - 1), r2 = first + lite_min512(2, valid - 1);         \
    const size_t r3 = first + lite_min512(3, valid - 1), r4 = first + lite_min512(4, valid - 1);                     \
    const size_t r5 = first + lite_min512(5, valid - 1), r6 = first + lite_min512(6, valid - 1);                     \
    const size_t r7 = first + lite_min512(7, valid - 1)

#define LITE_TILE_POINTERS8                                                                                          \
    const float *a0 = lite_f32_row512(a, r0, s), *a1 = lite_f32_row512(a, r1, s), *a2 = lite_f32_row512(a, r2, s);   \
    const float *a3 = lite_f32_row512(a, r3, s), *a4 = lite_f32_row512(a, r4, s), *a5 = lite_f32_row512(a, r5, s);   \
    const float *a6 = lite_f32_row512(a, r6, s), *a7 = lite_f32_row512(a, r7, s)

/// `STORE(r, accumulators...)` for the eight rows of a tile (two accumulators a row, or one). Each tile's STORE stores
/// row r when `r < valid`, straight from its registers: written as an array of them indexed in a loop, the compiler
/// spilled all of them to the stack and read them back for every tile (16 stores and loads more per tile, a tenth of
/// a layer with 16 input channels).
#define LITE_EACH_ROW8_PAIR(STORE)                                                                                   \
    STORE(0, c00, c01) STORE(1, c10, c11) STORE(2, c20, c21) STORE(3, c30, c31)                                      \
    STORE(4, c40, c41) STORE(5, c50, c51) STORE(6, c60, c61) STORE(7, c70, c71)
#define LITE_EACH_ROW8(STORE) \
    STORE(0, c0) STORE(1, c1) STORE(2, c2) STORE(3, c3) STORE(4, c4) STORE(5, c5) STORE(6, c6) STORE(7, c7)

/// One 8x32 tile: two AVX-512 registers a row. `min(high, max(low, v))` lets NaN through, as the reference does.
static inline __attribute__((always_inline)) void lite_f32_tile8x32(const lite_f32_packed_filter *f, const lite_f32_gemm_rows *a, size_t rows,
                                                                    size_t t, size_t p, float *c, size_t ldc, float lowValue, float highValue,
                                                                    const size_t mr, const lite_f32_store_epilogue *epilogue, const int form) {
    LITE_TILE_ROWS8;
    const float *w = f->packed + p * (f->k + 1) * f->panel_width;
    const __m512 b0 = _mm512_loadu_ps(w), b1 = _mm512_loadu_ps(w + 16);
    __m512 c00 = b0, c01 = b1, c10 = b0, c11 = b1, c20 = b0, c21 = b1, c30 = b0, c31 = b1;
    __m512 c40 = b0, c41 = b1, c50 = b0, c51 = b1, c60 = b0, c61 = b1, c70 = b0, c71 = b1;
    w += 32;
    for (size_t s = 0; s < a->segments; s++) {
        LITE_TILE_POINTERS8;
        for (size_t i = 0; i < a->segment_length; i++) {
            const __m512 w0 = _mm512_loadu_ps(w), w1 = _mm512_loadu_ps(w + 16);
            w += 32;
            __m512 x = _mm512_set1_ps(a0[i]);
            c00 = _mm512_fmadd_ps(x, w0, c00); c01 = _mm512_fmadd_ps(x, w1, c01);
            x = _mm512_set1_ps(a1[i]);
            c10 = _mm512_fmadd_ps(x, w0, c10); c11 = _mm512_fmadd_ps(x, w1, c11);
            x = _mm512_set1_ps(a2[i]);
            c20 = _mm512_fmadd_ps(x, w0, c20); c21 = _mm512_fmadd_ps(x, w1, c21);
            x = _mm512_set1_ps(a3[i]);
            c30 = _mm512_fmadd_ps(x, w0, c30); c31 = _mm512_fmadd_ps(x, w1, c31);
            x = _mm512_set1_ps(a4[i]);
            c40 = _mm512_fmadd_ps(x, w0, c40); c41 = _mm512_fmadd_ps(x, w1, c41);
            x = _mm512_set1_ps(a5[i]);
            c50 = _mm512_fmadd_ps(x, w0, c50); c51 = _mm512_fmadd_ps(x, w1, c51);
            x = _mm512_set1_ps(a6[i]);
            c60 = _mm512_fmadd_ps(x, w0, c60); c61 = _mm512_fmadd_ps(x, w1, c61);
            if (mr == 8) {
                x = _mm512_set1_ps(a7[i]);
                c70 = _mm512_fmadd_ps(x, w0, c70); c71 = _mm512_fmadd_ps(x, w1, c71);
            }
        }
    }
    const __m512 low = _mm512_set1_ps(lowValue), high = _mm512_set1_ps(highValue);
    const size_t column0 = p * f->panel_width, columns = lite_min512(32, f->n - column0);
    const __mmask16 mask0 = lite_mask16(columns), mask1 = lite_mask16(columns > 16 ? columns - 16 : 0);
    float *out = c + first * ldc + column0;
    const lite_store16 s0 = lite_store16_at(epilogue, form, column0, mask0), s1 = lite_store16_at(epilogue, form, column0 + 16, mask1);
#define LITE_STORE_ROW(r, v0, v1)                                                                                    \
    if (r < valid) {                                                                                                 \
        _mm512_mask_storeu_ps(out + r * ldc, mask0, lite_finish16(v0, low, high, form, &s0, first + r));            \
        _mm512_mask_storeu_ps(out + r * ldc + 16, mask1, lite_finish16(v1, low, high, form, &s1, first + r));       \
    }
    LITE_EACH_ROW8_PAIR(LITE_STORE_ROW)
#undef LITE_STORE_ROW
}

/// One 8x24 tile (a last panel of 24): an AVX-512 and an AVX register a row.
static inline __attribute__((always_inline)) void lite_f32_tile8x24(const lite_f32_packed_filter *f, const lite_f32_gemm_rows *a, size_t rows,
                                                                    size_t t, size_t p, float *c, size_t ldc, float lowValue, float highValue,
                                                                    const size_t mr, const lite_f32_store_epilogue *epilogue, const int form) {
    LITE_TILE_ROWS8;
    const float *w = f->packed + p * (f->k + 1) * f->panel_width;
    const __m512 b0 = _mm512_loadu_ps(w);
    const __m256 b1 = _mm256_loadu_ps(w + 16);
    __m512 c00 = b0, c10 = b0, c20 = b0, c30 = b0, c40 = b0, c50 = b0, c60 = b0, c70 = b0;
    __m256 c01 = b1, c11 = b1, c21 = b1, c31 = b1, c41 = b1, c51 = b1, c61 = b1, c71 = b1;
    w += 24;
    for (size_t s = 0; s < a->segments; s++) {
        LITE_TILE_POINTERS8;
        for (size_t i = 0; i < a->segment_length; i++) {
            const __m512 w0 = _mm512_loadu_ps(w);
            const __m256 w1 = _mm256_loadu_ps(w + 16);
            w += 24;
            __m512 x = _mm512_set1_ps(a0[i]);
            c00 = _mm512_fmadd_ps(x, w0, c00); c01 = _mm256_fmadd_ps(_mm512_castps512_ps256(x), w1, c01);
            x = _mm512_set1_ps(a1[i]);
            c10 = _mm512_fmadd_ps(x, w0, c10); c11 = _mm256_fmadd_ps(_mm512_castps512_ps256(x), w1, c11);
            x = _mm512_set1_ps(a2[i]);
            c20 = _mm512_fmadd_ps(x, w0, c20); c21 = _mm256_fmadd_ps(_mm512_castps512_ps256(x), w1, c21);
            x = _mm512_set1_ps(a3[i]);
            c30 = _mm512_fmadd_ps(x, w0, c30); c31 = _mm256_fmadd_ps(_mm512_castps512_ps256(x), w1, c31);
            x = _mm512_set1_ps(a4[i]);
            c40 = _mm512_fmadd_ps(x, w0, c40); c41 = _mm256_fmadd_ps(_mm512_castps512_ps256(x), w1, c41);
            x = _mm512_set1_ps(a5[i]);
            c50 = _mm512_fmadd_ps(x, w0, c50); c51 = _mm256_fmadd_ps(_mm512_castps512_ps256(x), w1, c51);
            x = _mm512_set1_ps(a6[i]);
            c60 = _mm512_fmadd_ps(x, w0, c60); c61 = _mm256_fmadd_ps(_mm512_castps512_ps256(x), w1, c61);
            if (mr == 8) {
                x = _mm512_set1_ps(a7[i]);
                c70 = _mm512_fmadd_ps(x, w0, c70); c71 = _mm256_fmadd_ps(_mm512_castps512_ps256(x), w1, c71);
            }
        }
    }
    const __m512 low = _mm512_set1_ps(lowValue), high = _mm512_set1_ps(highValue);
    const __m256 low8 = _mm256_set1_ps(lowValue), high8 = _mm256_set1_ps(highValue);
    const size_t column0 = p * f->panel_width, columns = lite_min512(24, f->n - column0);
    const __mmask16 mask0 = lite_mask16(columns);
    const __mmask8 mask1 = (__mmask8)(columns >= 24 ? 0xFF : columns > 16 ? (1u << (columns - 16)) - 1 : 0);
    float *out = c + first * ldc + column0;
    const lite_store16 s0 = lite_store16_at(epilogue, form, column0, mask0);
    const lite_store8 s1 = lite_store8_at(epilogue, form, column0 + 16, mask1);
#define LITE_STORE_ROW(r, v0, v1)                                                                                    \
    if (r < valid) {                                                                                                 \
        _mm512_mask_storeu_ps(out + r * ldc, mask0, lite_finish16(v0, low, high, form, &s0, first + r));            \
        _mm256_mask_storeu_ps(out + r * ldc + 16, mask1, lite_finish8(v1, low8, high8, form, &s1, first + r));      \
    }
    LITE_EACH_ROW8_PAIR(LITE_STORE_ROW)
#undef LITE_STORE_ROW
}

/// One 8x16 tile (panels of 16): one AVX-512 register a row.
static inline __attribute__((always_inline)) void lite_f32_tile8x16(const lite_f32_packed_filter *f, const lite_f32_gemm_rows *a, size_t rows,
                                                                    size_t t, size_t p, float *c, size_t ldc, float lowValue, float highValue,
                                                                    const size_t mr, const lite_f32_store_epilogue *epilogue, const int form) {
    LITE_TILE_ROWS8;
    const float *w = f->packed + p * (f->k + 1) * f->panel_width;
    const __m512 b = _mm512_loadu_ps(w);
    __m512 c0 = b, c1 = b, c2 = b, c3 = b, c4 = b, c5 = b, c6 = b, c7 = b;
    w += 16;
    for (size_t s = 0; s < a->segments; s++) {
        LITE_TILE_POINTERS8;
        for (size_t i = 0; i < a->segment_length; i++) {
            const __m512 w0 = _mm512_loadu_ps(w);
            w += 16;
            c0 = _mm512_fmadd_ps(_mm512_set1_ps(a0[i]), w0, c0);
            c1 = _mm512_fmadd_ps(_mm512_set1_ps(a1[i]), w0, c1);
            c2 = _mm512_fmadd_ps(_mm512_set1_ps(a2[i]), w0, c2);
            c3 = _mm512_fmadd_ps(_mm512_set1_ps(a3[i]), w0, c3);
            c4 = _mm512_fmadd_ps(_mm512_set1_ps(a4[i]), w0, c4);
            c5 = _mm512_fmadd_ps(_mm512_set1_ps(a5[i]), w0, c5);
            c6 = _mm512_fmadd_ps(_mm512_set1_ps(a6[i]), w0, c6);
            if (mr == 8) c7 = _mm512_fmadd_ps(_mm512_set1_ps(a7[i]), w0, c7);
        }
    }
    const __m512 low = _mm512_set1_ps(lowValue), high = _mm512_set1_ps(highValue);
    const size_t column0 = p * f->panel_width, columns = lite_min512(16, f->n - column0);
    const __mmask16 mask = lite_mask16(columns);
    float *out = c + first * ldc + column0;
    const lite_store16 s0 = lite_store16_at(epilogue, form, column0, mask);
#define LITE_STORE_ROW(r, v) \
    if (r < valid) _mm512_mask_storeu_ps(out + r * ldc, mask, lite_finish16(v, low, high, form, &s0, first + r));
    LITE_EACH_ROW8(LITE_STORE_ROW)
#undef LITE_STORE_ROW
}

/// One 8x8 tile (panels of 8) in AVX registers: on CPUs that run AVX-512 multiply-adds as two halves, twice as
/// many of them a cycle as an AVX-512 tile of the same width.
static inline __attribute__((always_inline)) void lite_f32_tile8x8(const lite_f32_packed_filter *f, const lite_f32_gemm_rows *a, size_t rows,
                                    size_t t, size_t p, float *c, size_t ldc, float lowValue, float highValue,
                                     const size_t mr, const lite_f32_store_epilogue *epilogue, const int form) {
    LITE_TILE_ROWS8;
    const float *w = f->packed + p * (f->k + 1) * f->panel_width;
    const __m256 b = _mm256_loadu_ps(w);
    __m256 c0 = b, c1 = b, c2 = b, c3 = b, c4 = b, c5 = b, c6 = b, c7 = b;
    w += 8;
    for (size_t s = 0; s < a->segments; s++) {
        LITE_TILE_POINTERS8;
        for (size_t i = 0; i < a->segment_length; i++) {
            const __m256 w0 = _mm256_loadu_ps(w);
            w += 8;
            c0 = _mm256_fmadd_ps(_mm256_set1_ps(a0[i]), w0, c0);
            c1 = _mm256_fmadd_ps(_mm256_set1_ps(a1[i]), w0, c1);
            c2 = _mm256_fmadd_ps(_mm256_set1_ps(a2[i]), w0, c2);
            c3 = _mm256_fmadd_ps(_mm256_set1_ps(a3[i]), w0, c3);
            c4 = _mm256_fmadd_ps(_mm256_set1_ps(a4[i]), w0, c4);
            c5 = _mm256_fmadd_ps(_mm256_set1_ps(a5[i]), w0, c5);
            c6 = _mm256_fmadd_ps(_mm256_set1_ps(a6[i]), w0, c6);
            if (mr == 8) c7 = _mm256_fmadd_ps(_mm256_set1_ps(a7[i]), w0, c7);
        }
    }
    const __m256 low = _mm256_set1_ps(lowValue), high = _mm256_set1_ps(highValue);
    const size_t column0 = p * f->panel_width, columns = lite_min512(8, f->n - column0);
    const __mmask8 mask = (__mmask8)(columns >= 8 ? 0xFF : (1u << columns) - 1);
    float *out = c + first * ldc + column0;
    const lite_store8 s0 = lite_store8_at(epilogue, form, column0, mask);
#define LITE_STORE_ROW(r, v) \
    if (r < valid) _mm256_mask_storeu_ps(out + r * ldc, mask, lite_finish8(v, low, high, form, &s0, first + r));
    LITE_EACH_ROW8(LITE_STORE_ROW)
#undef LITE_STORE_ROW
}

/// Tiles `tile_begin ..< tile_end` of `mr` rows against panels `panel_begin ..< panel_end`.
static inline __attribute__((always_inline)) void lite_f32_gemm_tiles(const lite_f32_packed_filter *filter, const lite_f32_gemm_rows *a,
                                                                      size_t rows, size_t tile_begin, size_t tile_end, size_t panel_begin,
                                                                      size_t panel_end, float *c, size_t ldc, float low, float high,
                                                                      const size_t mr, const lite_f32_store_epilogue *epilogue, const int form) {
    for (size_t tile = tile_begin; tile < tile_end; tile++) {
        for (size_t p = panel_begin; p < panel_end; p++) {
            const size_t width = p == filter->panels - 1 ? filter->last_panel_width : filter->panel_width;
            switch (width) {
            case 8: lite_f32_tile8x8(filter, a, rows, tile, p, c, ldc, low, high, mr, epilogue, form); break;
            case 16: lite_f32_tile8x16(filter, a, rows, tile, p, c, ldc, low, high, mr, epilogue, form); break;
            case 24: lite_f32_tile8x24(filter, a, rows, tile, p, c, ldc, low, high, mr, epilogue, form); break;
            default: lite_f32_tile8x32(filter, a, rows, tile, p, c, ldc, low, high, mr, epilogue, form); break;
            }
        }
    }
}

void lite_f32_gemm_8x32__avx512(const lite_f32_packed_filter *filter, const lite_f32_gemm_rows *a, size_t rows,
                                size_t tile_begin, size_t tile_end, size_t panel_begin, size_t panel_end,
                                float *c, size_t ldc, float low, float high) {
    lite_f32_gemm_tiles(filter, a, rows, tile_begin, tile_end, panel_begin, panel_end, c, ldc, low, high, 8, NULL, 0);
}

void lite_f32_gemm_7x32__avx512(const lite_f32_packed_filter *filter, const lite_f32_gemm_rows *a, size_t rows,
                                size_t tile_begin, size_t tile_end, size_t panel_begin, size_t panel_end,
                                float *c, size_t ldc, float low, float high) {
    lite_f32_gemm_tiles(filter, a, rows, tile_begin, tile_end, panel_begin, panel_end, c, ldc, low, high, 7, NULL, 0);
}

/// The tiles compiled for `epilogue`'s form: an ADD, a PRELU, or an ADD then a PRELU.
#define LITE_STORING_FORMS(mr)                                                                                       \
    const int add = epilogue->steps[0].kind != LITE_F32_STORE_PRELU, prelu = epilogue->steps[epilogue->count - 1].kind == LITE_F32_STORE_PRELU; \
    if (add && prelu) {                                                                                              \
        lite_f32_gemm_tiles(filter, a, rows, tile_begin, tile_end, panel_begin, panel_end, c, ldc, low, high, mr, epilogue, \
                            LITE_STORE_ADD | LITE_STORE_PRELU);                                                      \
    } else if (add) {                                                                                                \
        lite_f32_gemm_tiles(filter, a, rows, tile_begin, tile_end, panel_begin, panel_end, c, ldc, low, high, mr, epilogue, LITE_STORE_ADD); \
    } else {                                                                                                         \
        lite_f32_gemm_tiles(filter, a, rows, tile_begin, tile_end, panel_begin, panel_end, c, ldc, low, high, mr, epilogue, LITE_STORE_PRELU); \
    }

void lite_f32_gemm_8x32_storing__avx512(const lite_f32_packed_filter *filter, const lite_f32_gemm_rows *a, size_t rows,
                                        size_t tile_begin, size_t tile_end, size_t panel_begin, size_t panel_end,
                                        float *c, size_t ldc, float low, float high, const lite_f32_store_epilogue *epilogue) {
    LITE_STORING_FORMS(8);
}

void lite_f32_gemm_7x32_storing__avx512(const lite_f32_packed_filter *filter, const lite_f32_gemm_rows *a, size_t rows,
                                        size_t tile_begin, size_t tile_end, size_t panel_begin, size_t panel_end,
                                        float *c, size_t ldc, float low, float high, const lite_f32_store_epilogue *epilogue) {
    LITE_STORING_FORMS(7);
}

LITE_TARGET_END

#endif
