#ifndef LITE_F32_GEMM_H
#define LITE_F32_GEMM_H

#include <stddef.h>

/// The float convolution's and fully connected layer's product `C = clamp(A · Fᵀ + bias, low, high)` with the filter
/// F ([n, k], one row per output channel) packed once at load, as XNNPACK's f32 GEMM microkernels read it:
/// `panels` panels of `panel_width` output channels (8, 16 or 32), panel p at `packed + p · (k + 1) · panel_width`
/// holding its biases, then k rows of filter values, zero-padded past n. The last panel may be narrower
/// (`last_panel_width`, a multiple of 8 no wider than `panel_width`) and is then as wide in memory.
typedef struct lite_f32_packed_filter {
    const float *packed;
    size_t n, k;
    size_t panel_width, last_panel_width, panels;
} lite_f32_packed_filter;

/// The rows of A: row r is `segments` pieces of `segment_length` consecutive values (together k), found at
/// `indirection[r · segments + s]` (a convolution read in place, XNNPACK's indirect GEMM), or, when `indirection` is
/// NULL, one piece at `a + r · lda`.
typedef struct lite_f32_gemm_rows {
    const float *a;
    size_t lda;
    const float *const *indirection;
    size_t segments, segment_length;
} lite_f32_gemm_rows;

/// What a folded node does to the rows of C as a tile stores them (Sources/LiteEngine/Graph/StoreEpilogueFusion.swift):
/// the convolution's float ADD or PRELU successors, applied in registers between the clamp and the store.
typedef enum lite_f32_store_step_kind {
    /// `clamp(v + other, low, high)`, or `other + v` when `other_first`; `other`'s row r at `values + r · stride`.
    LITE_F32_STORE_ADD = 0,
    /// The same with `other` zero-padded past its first `summed` columns (an ADD with a folded channel PAD): the
    /// padded columns compute `v + 0`.
    LITE_F32_STORE_ADD_CHANNEL_PADDED = 1,
    /// `v >= 0 ? v : v · slope[column]` (a PRELU with one slope per channel, `values` the slopes).
    LITE_F32_STORE_PRELU = 2,
} lite_f32_store_step_kind;

/// One step of a ``lite_f32_store_epilogue``.
typedef struct lite_f32_store_step {
    lite_f32_store_step_kind kind;
    int other_first;
    const float *values;
    size_t stride, summed;
    float low, high;
} lite_f32_store_step;

/// The most steps a store epilogue holds.
#define LITE_F32_STORE_STEPS_MAX 2

/// The steps each output of C goes through after its clamp, in order, before it is stored: an ADD (plain or
/// channel-padded), a PRELU, or an ADD then a PRELU (MediaPipe's residual blocks), each with the same operations in
/// the same order and with the same roundings as the folded node's own kernel (``lite_f32_vadd_minmax__avx2``,
/// ``lite_f32_vadd_channel_padded__avx2``, ``lite_f32_prelu_channels__avx2``) applied to the stored rows.
typedef struct lite_f32_store_epilogue {
    size_t count;
    lite_f32_store_step steps[LITE_F32_STORE_STEPS_MAX];
} lite_f32_store_epilogue;

/// A level's tile kernel (``lite_f32_gemm_6x16__avx2``, ``lite_f32_gemm_8x32__avx512``).
typedef void (*lite_f32_gemm_tiles_fn)(const lite_f32_packed_filter *filter, const lite_f32_gemm_rows *a, size_t rows,
                                       size_t tile_begin, size_t tile_end, size_t panel_begin, size_t panel_end,
                                       float *c, size_t ldc, float low, float high);

/// A level's tile kernel with a store epilogue (``lite_f32_gemm_8x32_storing__avx512``).
typedef void (*lite_f32_gemm_tiles_storing_fn)(const lite_f32_packed_filter *filter, const lite_f32_gemm_rows *a, size_t rows,
                                               size_t tile_begin, size_t tile_end, size_t panel_begin, size_t panel_end,
                                               float *c, size_t ldc, float low, float high,
                                               const lite_f32_store_epilogue *epilogue);

/// A level's one-row kernel (``lite_f32_gemm_1x64__avx2``).
typedef void (*lite_f32_gemm_row_fn)(const lite_f32_packed_filter *filter, const lite_f32_gemm_rows *a, size_t row,
                                     size_t group, size_t blocks, float *c, float low, float high);

#if defined(__x86_64__)

/// The row tiles `tile_begin ..< tile_end` of C (tile t: rows `t · 6 ..< min(t · 6 + 6, rows)`), one after another,
/// each against the panels `panel_begin ..< panel_end` (one call for a layer's or a thread's share of the rows: the
/// pointwise layers of small models have tiles of a few hundred multiply-adds each): a 6x16 tile in AVX registers (two a row) where the panel has more than 8 real columns, else a 6x8 tile over its
/// first 8. Each output is the panel's bias followed by an in-order chain of fused multiply-adds over k (the value
/// of A broadcast, times the filter), then `min(high, max(low, v))` (NaN passes through). Rows past the end repeat
/// the last row and are not stored; columns past n are computed on the zero padding and not stored (partial rows
/// of 8 are stored in pieces of 4, 2 and 1). Needs panels of width 8 or 16 whose last panel is as wide as the others.
void lite_f32_gemm_6x16__avx2(const lite_f32_packed_filter *filter, const lite_f32_gemm_rows *a, size_t rows,
                              size_t tile_begin, size_t tile_end, size_t panel_begin, size_t panel_end,
                              float *c, size_t ldc, float low, float high);

/// One row of A (row `row`) times 64 columns of F, the 8-column blocks `8 · group ..< min(8 · group + 8, blocks)`
/// of the panels of full width (block b: columns 8b ..< 8b + 8, b / (panel_width / 8) its panel): eight AVX
/// registers, each the blocks' biases followed by an in-order chain of fused multiply-adds over k; clamped and
/// stored as ``lite_f32_gemm_6x16__avx2`` stores. With `group` equal to `(blocks + 7) / 8` it computes the last
/// panel instead, when that is narrower than the others (8, 16 or 24 columns, up to three AVX registers).
void lite_f32_gemm_1x64__avx2(const lite_f32_packed_filter *filter, const lite_f32_gemm_rows *a, size_t row,
                              size_t group, size_t blocks, float *c, float low, float high);

/// The row tiles `tile_begin ..< tile_end` of C (tile t: rows `t · 8 ..< min(t · 8 + 8, rows)`), each against the
/// panels `panel_begin ..< panel_end`, with AVX-512 registers: 8x32 tiles for panels of 32, 8x24 (an AVX-512 and an AVX register a row), 8x16 and
/// 8x8 (AVX registers) for narrower ones, chosen by each panel's width. Sums as ``lite_f32_gemm_6x16__avx2``'s; the
/// columns past n are masked out of the stores.
void lite_f32_gemm_8x32__avx512(const lite_f32_packed_filter *filter, const lite_f32_gemm_rows *a, size_t rows,
                                size_t tile_begin, size_t tile_end, size_t panel_begin, size_t panel_end,
                                float *c, size_t ldc, float low, float high);
/// The same with tiles of 7 rows (tile t: rows `t · 7 ..< min(t · 7 + 7, rows)`), for row counts that 7 divides and
/// 8 does not (maps of 7x7 and 14x14 pixels): the same sums, one accumulator row fewer.
void lite_f32_gemm_7x32__avx512(const lite_f32_packed_filter *filter, const lite_f32_gemm_rows *a, size_t rows,
                                size_t tile_begin, size_t tile_end, size_t panel_begin, size_t panel_end,
                                float *c, size_t ldc, float low, float high);

/// ``lite_f32_gemm_8x32__avx512`` and ``lite_f32_gemm_7x32__avx512`` with `epilogue`'s steps applied to each output
/// between its clamp and its store (row r of C is row r of the steps' operands), so the folded nodes cost no pass of
/// their own over the layer.
void lite_f32_gemm_8x32_storing__avx512(const lite_f32_packed_filter *filter, const lite_f32_gemm_rows *a, size_t rows,
                                        size_t tile_begin, size_t tile_end, size_t panel_begin, size_t panel_end,
                                        float *c, size_t ldc, float low, float high, const lite_f32_store_epilogue *epilogue);
void lite_f32_gemm_7x32_storing__avx512(const lite_f32_packed_filter *filter, const lite_f32_gemm_rows *a, size_t rows,
                                        size_t tile_begin, size_t tile_end, size_t panel_begin, size_t panel_end,
                                        float *c, size_t ldc, float low, float high, const lite_f32_store_epilogue *epilogue);

#endif

#endif
