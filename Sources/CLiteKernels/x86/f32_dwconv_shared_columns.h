// Float depthwise output rows for multiplier 1 and dilation 1 across, filters 3, 5 or 7 wide, stride 1 or 2 across,
// written once for the levels that include it, after f32_dwconv_rows.h (its vectors lite_v8 / lite_v16 and their
// functions, and lite_inside_taps). Each level defines LITE_DWV_WIDTH (8 or 16: the channel vector `lite_dwv` is that
// lite_vN), the lane mask `lite_dwv_lanes` and `lite_dwv_lanes_of(count)` (the first `count` lanes, all from the width
// on), `lite_dwv_load(lanes, p)` (the lanes' values, zeros elsewhere, never reading outside the lanes) and
// `lite_dwv_store(p, lanes, v)`.
//
// P adjacent output pixels of one row are computed together: with stride S, pixel p's tap kx reads input column
// p·S + kx of the pixels' window, so one load of a column feeds every pixel whose filter covers it (4 pixels of a
// 5-wide filter: 8 loads for 20 multiply-adds, where a load per tap needs 20). The row's KW weight vectors stay in
// registers while its columns go by.
//
// Taps outside the input are skipped as the one-channel loop skips them: a column outside the input is neither
// loaded nor added, so each pixel's sum is its bias followed by its inside taps in (ky, kx) order, one rounding each:
// the order of every level's other paths, so the same bits. Channels past a multiple of the width are the same code
// with fewer lanes (their loads masked, so the unused lanes add zeros and are not stored).

#define LITE_DWV_JOIN2(a, b) a##b
#define LITE_DWV_JOIN(a, b) LITE_DWV_JOIN2(a, b)
/// The level's lite_vN function `name` (`LITE_DWV(_fma)` is lite_v16_fma at the avx512 level).
#define LITE_DWV(name) LITE_DWV_JOIN(LITE_DWV_JOIN(lite_v, LITE_DWV_WIDTH), name)
typedef LITE_DWV() lite_dwv;

/// Pixels `ox ..< ox + P` of output row `oy` (batch b), the channels from c on that `lanes` has, input rows
/// `ky_first ..< ky_end` of the filter (the ones inside the input), stored clamped when `clamps`. The EDGE variant
/// tests each column for lying inside the input; the other is for pixels whose columns all do.
#define LITE_DW_SHARED_COLUMNS(P, KW, S, EDGE)                                                                         \
    LITE_INLINE void lite_dw_pixels_##P##x##KW##s##S##EDGE(                                                            \
        const lite_f32_dwconv_geometry *g, const float *input, const float *weights, const float *bias,                \
        float *output_row, ptrdiff_t b, ptrdiff_t oy, ptrdiff_t ky_first, ptrdiff_t ky_end, ptrdiff_t ox, ptrdiff_t c, \
        lite_dwv_lanes lanes, int clamps, lite_dwv low, lite_dwv high) {                                               \
        enum { columns = (P - 1) * S + KW };                                                                           \
        const ptrdiff_t ix0 = ox * S - g->pad_w;                                                                       \
        unsigned inside = 0; /* bit j: column j lies inside the input */                                               \
        _Pragma("clang loop unroll(full)") for (int j = 0; j < columns; j++)                                           \
            inside |= (unsigned)(!EDGE || (size_t)(ix0 + j) < (size_t)g->in_w) << j;                                   \
        lite_dwv sum[P];                                                                                               \
        const lite_dwv start = bias != NULL ? lite_dwv_load(lanes, bias + c) : LITE_DWV(_zero)();                        \
        _Pragma("clang loop unroll(full)") for (int p = 0; p < P; p++) sum[p] = start;                                 \
        const ptrdiff_t iy0 = oy * g->stride_h - g->pad_h;                                                             \
        for (ptrdiff_t ky = ky_first; ky < ky_end; ky++) {                                                             \
            /* Column j of this filter row's window: input (iy0 + ky·dilation, ix0 + j), channel c. Columns outside    \
               the input are never read, so their offsets may point anywhere. */                                       \
            const ptrdiff_t window = ((b * g->in_h + iy0 + ky * g->dilation_h) * g->in_w + ix0) * g->in_c + c;         \
            const float *w = weights + (ky * KW * g->out_c + c);                                                       \
            lite_dwv tap[KW];                                                                                          \
            _Pragma("clang loop unroll(full)") for (int kx = 0; kx < KW; kx++)                                         \
                tap[kx] = lite_dwv_load(lanes, w + kx * g->out_c);                                                     \
            _Pragma("clang loop unroll(full)") for (int j = 0; j < columns; j++) {                                     \
                if (!(inside >> j & 1)) continue;                                                                      \
                const lite_dwv x = lite_dwv_load(lanes, input + (window + j * g->in_c));                               \
                /* Pixel p's tap j − p·S, for the pixels whose filter covers column j, in increasing kx per pixel. */  \
                _Pragma("clang loop unroll(full)") for (int p = 0; p < P; p++) {                                       \
                    const int kx = j - p * S;                                                                          \
                    if (kx >= 0 && kx < KW) sum[p] = LITE_DWV(_fma)(sum[p], x, tap[kx]);                                 \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
        float *out = output_row + (ox * g->out_c + c);                                                                 \
        _Pragma("clang loop unroll(full)") for (int p = 0; p < P; p++) {                                               \
            const lite_dwv v = clamps ? LITE_DWV(_clamp)(sum[p], low, high) : sum[p];                                    \
            lite_dwv_store(out + p * g->out_c, lanes, v);                                                              \
        }                                                                                                              \
    }

/// The row's pixels P at a time, the last P overlapping the ones before when the width is not a multiple of P (a
/// pixel computed twice gets the same bits twice: the same sum in the same order), channels `block ..< block_end`.
#define LITE_DW_SWEEP(P, KW, S)                                                                                        \
    for (ptrdiff_t group = 0; group < g->out_w; group += P) {                                                          \
        const ptrdiff_t ox = group + P <= g->out_w ? group : g->out_w - P;                                             \
        const ptrdiff_t ix0 = ox * S - g->pad_w;                                                                       \
        const int interior = ix0 >= 0 && ix0 + (P - 1) * S + KW <= g->in_w;                                            \
        for (ptrdiff_t c = block; c < block_end; c += LITE_DWV_WIDTH) {                                                \
            const lite_dwv_lanes lanes = lite_dwv_lanes_of(g->out_c - c);                                              \
            if (interior) {                                                                                            \
                lite_dw_pixels_##P##x##KW##s##S##0(g, input, weights, bias, output_row, b, oy, ky_first, ky_end, ox, c, \
                                                   lanes, clamps, low, high);                                          \
            } else {                                                                                                   \
                lite_dw_pixels_##P##x##KW##s##S##1(g, input, weights, bias, output_row, b, oy, ky_first, ky_end, ox, c, \
                                                   lanes, clamps, low, high);                                          \
            }                                                                                                          \
        }                                                                                                              \
    }

/// One output row (batch b, row oy) of a KW-wide filter at stride S across, in blocks of 128 channels (a block's
/// input rows stay in the L1 cache while the row goes by): 8 pixels at a time, 4 in rows narrower than 8, one at a
/// time in rows narrower than 4. With 16 AVX registers, stride 2 takes 4 pixels at a time (8 pixels of a 5-wide filter
/// read 19 columns: the hand landmark model's 5x5 stride-2 layer 0.111 -> 0.101 ms).
#define LITE_DW_SHARED_COLUMNS_ROW(KW, S)                                                                              \
    LITE_DW_SHARED_COLUMNS(8, KW, S, 0)                                                                                \
    LITE_DW_SHARED_COLUMNS(8, KW, S, 1)                                                                                \
    LITE_DW_SHARED_COLUMNS(4, KW, S, 0)                                                                                \
    LITE_DW_SHARED_COLUMNS(4, KW, S, 1)                                                                                \
    LITE_DW_SHARED_COLUMNS(1, KW, S, 1)                                                                                \
    static void lite_dw_row_##KW##s##S(const lite_f32_dwconv_geometry *g, const float *input, const float *weights,    \
                                       const float *bias, float *output_row, ptrdiff_t b, ptrdiff_t oy, int clamps,    \
                                       float low_value, float high_value) {                                            \
        ptrdiff_t ky_first, ky_end;                                                                                    \
        lite_inside_taps(oy * g->stride_h - g->pad_h, g->in_h, g->kh, g->dilation_h, &ky_first, &ky_end);              \
        const lite_dwv low = LITE_DWV(_set1)(low_value), high = LITE_DWV(_set1)(high_value);                               \
        for (ptrdiff_t block = 0; block < g->out_c; block += 128) {                                                    \
            const ptrdiff_t block_end = block + 128 < g->out_c ? block + 128 : g->out_c;                               \
            if ((LITE_DWV_WIDTH == 16 || S == 1) && g->out_w >= 8) {                                                   \
                LITE_DW_SWEEP(8, KW, S)                                                                                \
            } else if (g->out_w >= 4) {                                                                                \
                LITE_DW_SWEEP(4, KW, S)                                                                                \
            } else {                                                                                                   \
                for (ptrdiff_t ox = 0; ox < g->out_w; ox++)                                                            \
                    for (ptrdiff_t c = block; c < block_end; c += LITE_DWV_WIDTH)                                      \
                        lite_dw_pixels_1x##KW##s##S##1(g, input, weights, bias, output_row, b, oy, ky_first, ky_end, ox, \
                                                       c, lite_dwv_lanes_of(g->out_c - c), clamps, low, high);         \
            }                                                                                                          \
        }                                                                                                              \
    }

LITE_DW_SHARED_COLUMNS_ROW(3, 1)
LITE_DW_SHARED_COLUMNS_ROW(5, 1)
LITE_DW_SHARED_COLUMNS_ROW(5, 2)
LITE_DW_SHARED_COLUMNS_ROW(7, 1)
LITE_DW_SHARED_COLUMNS_ROW(7, 2)

/// The row function for the geometry, or NULL when it is not one of these shapes.
typedef void (*lite_dw_row_fn)(const lite_f32_dwconv_geometry *, const float *, const float *, const float *, float *,
                               ptrdiff_t, ptrdiff_t, int, float, float);

static lite_dw_row_fn lite_dw_shared_columns_row(const lite_f32_dwconv_geometry *g) {
    if (g->multiplier != 1 || g->dilation_w != 1 || (g->stride_w != 1 && g->stride_w != 2)) return NULL;
    const int s2 = g->stride_w == 2;
    switch (g->kw) {
    case 3: return s2 ? NULL : lite_dw_row_3s1; // 3 wide at stride 2: 9 columns for 24 taps, slower than the 3x3 rows
                                                 // kernel that holds all nine weights (MobileNetV2's 0.027 -> 0.032 ms)
    case 5: return s2 ? lite_dw_row_5s2 : lite_dw_row_5s1;
    case 7: return s2 ? lite_dw_row_7s2 : lite_dw_row_7s1;
    default: return NULL;
    }
}

/// Output rows `row_begin ..< row_end` (row `b · out_h + oy`) through `row`, clamped unless the range is (−∞, ∞).
static void lite_dw_shared_columns_rows(lite_dw_row_fn row, const lite_f32_dwconv_geometry *g, const float *input,
                                        const float *weights, const float *bias, float *output, size_t row_begin,
                                        size_t row_end, float low, float high) {
    const int clamps = low != -INFINITY || high != INFINITY;
    for (size_t by = row_begin; by < row_end; by++) {
        const ptrdiff_t b = (ptrdiff_t)by / g->out_h, oy = (ptrdiff_t)by % g->out_h;
        row(g, input, weights, bias, output + (b * g->out_h + oy) * g->out_w * g->out_c, b, oy, clamps, low, high);
    }
}
