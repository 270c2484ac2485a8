// The float depthwise rows kernel, written once for the levels that include it: each defines LITE_INLINE, the vector
// type lite_v16 (16 channels: two AVX registers or one AVX-512 register) with its load, store, zero, set1, fma and
// clamp functions, and LITE_DWCONV_ROWS (the entry's name), opens its target, includes this file, and closes the
// target; lite_v8 and lite_v4 (8 and 4 channels) are the same AVX and SSE registers at every level, below. Every lane
// computes what the one-channel loop computes: the same fused multiply-adds in the same order at every level, so the
// levels' results are the same bits. `fma(c, a, b)` is `c + a·b` rounded once in every lane; `clamp(v, low, high)` is
// `min(high, max(low, v))`, whose instructions return their second operand when either is NaN, so NaN passes through
// as in the scalar `v < low ? low : v`, then `x > high ? high : x`.

typedef __m256 lite_v8;
LITE_INLINE lite_v8 lite_v8_load(const float *p) { return _mm256_loadu_ps(p); }
LITE_INLINE void lite_v8_store(float *p, lite_v8 v) { _mm256_storeu_ps(p, v); }
LITE_INLINE lite_v8 lite_v8_zero(void) { return _mm256_setzero_ps(); }
LITE_INLINE lite_v8 lite_v8_set1(float x) { return _mm256_set1_ps(x); }
LITE_INLINE lite_v8 lite_v8_fma(lite_v8 c, lite_v8 a, lite_v8 b) { return _mm256_fmadd_ps(a, b, c); }
LITE_INLINE lite_v8 lite_v8_clamp(lite_v8 v, lite_v8 low, lite_v8 high) { return _mm256_min_ps(high, _mm256_max_ps(low, v)); }

typedef __m128 lite_v4;
LITE_INLINE lite_v4 lite_v4_load(const float *p) { return _mm_loadu_ps(p); }
LITE_INLINE void lite_v4_store(float *p, lite_v4 v) { _mm_storeu_ps(p, v); }
LITE_INLINE lite_v4 lite_v4_zero(void) { return _mm_setzero_ps(); }
LITE_INLINE lite_v4 lite_v4_set1(float x) { return _mm_set1_ps(x); }
LITE_INLINE lite_v4 lite_v4_fma(lite_v4 c, lite_v4 a, lite_v4 b) { return _mm_fmadd_ps(a, b, c); }
LITE_INLINE lite_v4 lite_v4_clamp(lite_v4 v, lite_v4 low, lite_v4 high) { return _mm_min_ps(high, _mm_max_ps(low, v)); }

LITE_INLINE float lite_clamp1(float v, float low, float high) {
    const float x = v < low ? low : v;
    return x > high ? high : x;
}

LITE_INLINE ptrdiff_t lite_dw_min(ptrdiff_t a, ptrdiff_t b) { return a < b ? a : b; }
LITE_INLINE ptrdiff_t lite_dw_max(ptrdiff_t a, ptrdiff_t b) { return a > b ? a : b; }

/// The output columns whose taps all lie inside the input horizontally, `*first ..< *end` (empty: equal).
LITE_INLINE void lite_interior_outputs(ptrdiff_t output, ptrdiff_t input, ptrdiff_t filter, ptrdiff_t stride, ptrdiff_t dilation,
                                       ptrdiff_t pad_before, ptrdiff_t *first, ptrdiff_t *end) {
    const ptrdiff_t f = lite_dw_min((lite_dw_max(pad_before, 0) + stride - 1) / stride, output);
    const ptrdiff_t last_start = input - 1 - (filter - 1) * dilation + pad_before;
    const ptrdiff_t e = last_start < 0 ? 0 : lite_dw_min(output, last_start / stride + 1);
    *first = f;
    *end = f < e ? e : f;
}

/// The taps k with `0 <= origin + k·dilation < size`, as `*first ..< *end` (empty: first >= end).
LITE_INLINE void lite_inside_taps(ptrdiff_t origin, ptrdiff_t size, ptrdiff_t kernel, ptrdiff_t dilation, ptrdiff_t *first,
                                  ptrdiff_t *end) {
    *first = origin >= 0 ? 0 : (-origin + dilation - 1) / dilation;
    *end = origin >= size ? 0 : lite_dw_min(kernel, (size - 1 - origin) / dilation + 1);
}

/// Every horizontal tap of output column ox lies inside the input.
LITE_INLINE int lite_is_interior_x(const lite_f32_dwconv_geometry *g, ptrdiff_t ox) {
    const ptrdiff_t ix = ox * g->stride_w - g->pad_w;
    return ix >= 0 && ix + (g->kw - 1) * g->dilation_w < g->in_w;
}

/// Output row oy of a 3x3 filter (multiplier 1) for the W channels from c on: nine weight vectors and the bias held
/// while the row's pixels go by, taps outside the input skipped (a loop of its own for the columns whose taps are
/// all inside, on rows whose taps are too), clamped as stored when `clamps`.
#define LITE_DW_ROW3X3(W)                                                                                              \
    LITE_INLINE void lite_row3x3_##W(const lite_f32_dwconv_geometry *g, const float *src, const float *weights,       \
                                     const float *bias, float *output_row, ptrdiff_t b, ptrdiff_t oy, ptrdiff_t c,     \
                                     int clamps, float low_value, float high_value) {                                \
        const ptrdiff_t iy0 = oy * g->stride_h - g->pad_h;                                                            \
        const int top = iy0 >= 0 && iy0 < g->in_h;                                                                    \
        const int middle = iy0 + g->dilation_h >= 0 && iy0 + g->dilation_h < g->in_h;                                 \
        const int bottom = iy0 + 2 * g->dilation_h >= 0 && iy0 + 2 * g->dilation_h < g->in_h;                         \
        ptrdiff_t interior_begin, interior_end;                                                                       \
        lite_interior_outputs(g->out_w, g->in_w, g->kw, g->stride_w, g->dilation_w, g->pad_w, &interior_begin,        \
                              &interior_end);                                                                         \
        const ptrdiff_t row = g->dilation_h * g->in_w * g->in_c, column = g->dilation_w * g->in_c;                    \
        const ptrdiff_t pixel = g->stride_w * g->in_c;                                                                \
        /* Input offset of tap (0, 0) of output column 0, which may lie outside the input: only taps inside are      \
           read. */                                                                                                   \
        const ptrdiff_t origin = ((b * g->in_h + iy0) * g->in_w - g->pad_w) * g->in_c;                               \
        const lite_v##W w0 = lite_v##W##_load(weights + (0 * g->out_c + c));                                          \
        const lite_v##W w1 = lite_v##W##_load(weights + (1 * g->out_c + c));                                          \
        const lite_v##W w2 = lite_v##W##_load(weights + (2 * g->out_c + c));                                          \
        const lite_v##W w3 = lite_v##W##_load(weights + (3 * g->out_c + c));                                          \
        const lite_v##W w4 = lite_v##W##_load(weights + (4 * g->out_c + c));                                          \
        const lite_v##W w5 = lite_v##W##_load(weights + (5 * g->out_c + c));                                          \
        const lite_v##W w6 = lite_v##W##_load(weights + (6 * g->out_c + c));                                          \
        const lite_v##W w7 = lite_v##W##_load(weights + (7 * g->out_c + c));                                          \
        const lite_v##W w8 = lite_v##W##_load(weights + (8 * g->out_c + c));                                          \
        const lite_v##W start = bias != NULL ? lite_v##W##_load(bias + c) : lite_v##W##_zero();                       \
        const lite_v##W low = lite_v##W##_set1(low_value), high = lite_v##W##_set1(high_value);                       \
        const float *base = src + c;                                                                                  \
        for (ptrdiff_t ox = 0; ox < g->out_w; ox++) {                                                                 \
            if (ox == interior_begin && top && middle && bottom && interior_begin < interior_end) {                   \
                /* Three row pointers that advance a pixel at a time, each tap an offset of one. */                   \
                const float *r0 = base + (origin + interior_begin * pixel);                                           \
                const float *r1 = r0 + row, *r2 = r0 + 2 * row;                                                       \
                float *o = output_row + (interior_begin * g->out_c + c);                                              \
                for (ptrdiff_t x = interior_begin; x < interior_end; x++) {                                           \
                    lite_v##W a = lite_v##W##_fma(start, lite_v##W##_load(r0), w0);                                   \
                    a = lite_v##W##_fma(a, lite_v##W##_load(r0 + column), w1);                                        \
                    a = lite_v##W##_fma(a, lite_v##W##_load(r0 + 2 * column), w2);                                    \
                    a = lite_v##W##_fma(a, lite_v##W##_load(r1), w3);                                                 \
                    a = lite_v##W##_fma(a, lite_v##W##_load(r1 + column), w4);                                        \
                    a = lite_v##W##_fma(a, lite_v##W##_load(r1 + 2 * column), w5);                                    \
                    a = lite_v##W##_fma(a, lite_v##W##_load(r2), w6);                                                 \
                    a = lite_v##W##_fma(a, lite_v##W##_load(r2 + column), w7);                                        \
                    a = lite_v##W##_fma(a, lite_v##W##_load(r2 + 2 * column), w8);                                    \
                    lite_v##W##_store(o, clamps ? lite_v##W##_clamp(a, low, high) : a);                               \
                    r0 += pixel; r1 += pixel; r2 += pixel; o += g->out_c;                                             \
                }                                                                                                     \
                ox = interior_end - 1;                                                                                \
                continue;                                                                                             \
            }                                                                                                         \
            const ptrdiff_t ix0 = ox * g->stride_w - g->pad_w;                                                        \
            const int inside_row = ox >= interior_begin && ox < interior_end;                                         \
            const int left = inside_row || (ix0 >= 0 && ix0 < g->in_w);                                               \
            const int center = inside_row || (ix0 + g->dilation_w >= 0 && ix0 + g->dilation_w < g->in_w);             \
            const int right = inside_row || (ix0 + 2 * g->dilation_w >= 0 && ix0 + 2 * g->dilation_w < g->in_w);      \
            const ptrdiff_t p = origin + ox * pixel;                                                                  \
            lite_v##W a = start;                                                                                      \
            if (top) {                                                                                                \
                if (left) a = lite_v##W##_fma(a, lite_v##W##_load(base + p), w0);                                     \
                if (center) a = lite_v##W##_fma(a, lite_v##W##_load(base + (p + column)), w1);                       \
                if (right) a = lite_v##W##_fma(a, lite_v##W##_load(base + (p + 2 * column)), w2);                    \
            }                                                                                                         \
            if (middle) {                                                                                             \
                if (left) a = lite_v##W##_fma(a, lite_v##W##_load(base + (p + row)), w3);                            \
                if (center) a = lite_v##W##_fma(a, lite_v##W##_load(base + (p + row + column)), w4);                 \
                if (right) a = lite_v##W##_fma(a, lite_v##W##_load(base + (p + row + 2 * column)), w5);              \
            }                                                                                                         \
            if (bottom) {                                                                                             \
                if (left) a = lite_v##W##_fma(a, lite_v##W##_load(base + (p + 2 * row)), w6);                        \
                if (center) a = lite_v##W##_fma(a, lite_v##W##_load(base + (p + 2 * row + column)), w7);             \
                if (right) a = lite_v##W##_fma(a, lite_v##W##_load(base + (p + 2 * row + 2 * column)), w8);          \
            }                                                                                                         \
            lite_v##W##_store(output_row + (ox * g->out_c + c), clamps ? lite_v##W##_clamp(a, low, high) : a);        \
        }                                                                                                             \
    }

LITE_DW_ROW3X3(16)
LITE_DW_ROW3X3(8)
LITE_DW_ROW3X3(4)

/// W channels from c on of four adjacent output pixels whose taps are all inside the input in x: each weight
/// vector loaded once and used four times.
#define LITE_DW_FOUR_PIXELS(W)                                                                                         \
    LITE_INLINE void lite_four_pixels_##W(const lite_f32_dwconv_geometry *g, const float *src, const float *weights,  \
                                          const float *bias, float *out, ptrdiff_t b, ptrdiff_t iy0, ptrdiff_t ix0,   \
                                          ptrdiff_t c) {                                                              \
        const ptrdiff_t step = g->stride_w * g->in_c;                                                                 \
        lite_v##W a0 = bias != NULL ? lite_v##W##_load(bias + c) : lite_v##W##_zero();                                \
        lite_v##W a1 = a0, a2 = a0, a3 = a0;                                                                          \
        if (g->kh == 3 && g->kw == 3 && iy0 >= 0 && iy0 + 2 * g->dilation_h < g->in_h) {                              \
            const ptrdiff_t row_step = g->dilation_h * g->in_w * g->in_c, column_step = g->dilation_w * g->in_c;      \
            const float *first = src + (((b * g->in_h + iy0) * g->in_w + ix0) * g->in_c + c);                         \
            const float *filter = weights + c;                                                                        \
            for (ptrdiff_t ky = 0; ky < 3; ky++) {                                                                    \
                for (ptrdiff_t kx = 0; kx < 3; kx++) {                                                                \
                    const lite_v##W w = lite_v##W##_load(filter + (ky * 3 + kx) * g->out_c);                          \
                    const float *p = first + (ky * row_step + kx * column_step);                                      \
                    a0 = lite_v##W##_fma(a0, lite_v##W##_load(p), w);                                                 \
                    a1 = lite_v##W##_fma(a1, lite_v##W##_load(p + step), w);                                          \
                    a2 = lite_v##W##_fma(a2, lite_v##W##_load(p + 2 * step), w);                                      \
                    a3 = lite_v##W##_fma(a3, lite_v##W##_load(p + 3 * step), w);                                      \
                }                                                                                                     \
            }                                                                                                         \
        } else {                                                                                                      \
            for (ptrdiff_t ky = 0; ky < g->kh; ky++) {                                                                \
                const ptrdiff_t iy = iy0 + ky * g->dilation_h;                                                        \
                if (iy < 0 || iy >= g->in_h) continue;                                                                \
                const float *row = src + (((b * g->in_h + iy) * g->in_w + ix0) * g->in_c + c);                        \
                const float *wrow = weights + (ky * g->kw * g->out_c + c);                                            \
                for (ptrdiff_t kx = 0; kx < g->kw; kx++) {                                                            \
                    const lite_v##W w = lite_v##W##_load(wrow + kx * g->out_c);                                       \
                    const float *p = row + kx * g->dilation_w * g->in_c;                                              \
                    a0 = lite_v##W##_fma(a0, lite_v##W##_load(p), w);                                                 \
                    a1 = lite_v##W##_fma(a1, lite_v##W##_load(p + step), w);                                          \
                    a2 = lite_v##W##_fma(a2, lite_v##W##_load(p + 2 * step), w);                                      \
                    a3 = lite_v##W##_fma(a3, lite_v##W##_load(p + 3 * step), w);                                      \
                }                                                                                                     \
            }                                                                                                         \
        }                                                                                                             \
        lite_v##W##_store(out + c, a0);                                                                               \
        lite_v##W##_store(out + (g->out_c + c), a1);                                                                  \
        lite_v##W##_store(out + (2 * g->out_c + c), a2);                                                              \
        lite_v##W##_store(out + (3 * g->out_c + c), a3);                                                              \
    }

LITE_DW_FOUR_PIXELS(16)
LITE_DW_FOUR_PIXELS(8)
LITE_DW_FOUR_PIXELS(4)

/// W channels from c on of one output pixel (multiplier 1), taps outside the input skipped.
#define LITE_DW_ONE_PIXEL(W)                                                                                           \
    LITE_INLINE void lite_one_pixel_##W(const lite_f32_dwconv_geometry *g, const float *src, const float *weights,    \
                                        const float *bias, float *out, ptrdiff_t b, ptrdiff_t iy0, ptrdiff_t ix0,     \
                                        ptrdiff_t c) {                                                                \
        lite_v##W acc = bias != NULL ? lite_v##W##_load(bias + c) : lite_v##W##_zero();                               \
        ptrdiff_t first, end;                                                                                         \
        lite_inside_taps(ix0, g->in_w, g->kw, g->dilation_w, &first, &end);                                           \
        if (first < end) {                                                                                            \
            const ptrdiff_t tap_step = g->dilation_w * g->in_c, weight_step = g->out_c;                               \
            for (ptrdiff_t ky = 0; ky < g->kh; ky++) {                                                                \
                const ptrdiff_t iy = iy0 + ky * g->dilation_h;                                                        \
                if (iy < 0 || iy >= g->in_h) continue;                                                                \
                const float *p = src + (((b * g->in_h + iy) * g->in_w + ix0 + first * g->dilation_w) * g->in_c + c); \
                const float *w = weights + ((ky * g->kw + first) * g->out_c + c);                                     \
                for (ptrdiff_t kx = first; kx < end; kx++) {                                                          \
                    acc = lite_v##W##_fma(acc, lite_v##W##_load(p), lite_v##W##_load(w));                             \
                    p += tap_step;                                                                                    \
                    w += weight_step;                                                                                 \
                }                                                                                                     \
            }                                                                                                         \
        }                                                                                                             \
        lite_v##W##_store(out + c, acc);                                                                              \
    }

LITE_DW_ONE_PIXEL(16)
LITE_DW_ONE_PIXEL(8)
LITE_DW_ONE_PIXEL(4)

/// One output channel of one pixel, any multiplier, taps outside the input skipped.
static float lite_scalar_channel(const lite_f32_dwconv_geometry *g, const float *src, const float *weights, const float *bias,
                                 ptrdiff_t b, ptrdiff_t iy0, ptrdiff_t ix0, ptrdiff_t oc) {
    const ptrdiff_t ic = oc / g->multiplier;
    float sum = bias != NULL ? bias[oc] : 0;
    for (ptrdiff_t ky = 0; ky < g->kh; ky++) {
        const ptrdiff_t iy = iy0 + ky * g->dilation_h;
        if (iy < 0 || iy >= g->in_h) continue;
        for (ptrdiff_t kx = 0; kx < g->kw; kx++) {
            const ptrdiff_t ix = ix0 + kx * g->dilation_w;
            if (ix < 0 || ix >= g->in_w) continue;
            sum = fmaf(src[((b * g->in_h + iy) * g->in_w + ix) * g->in_c + ic], weights[(ky * g->kw + kx) * g->out_c + oc], sum);
        }
    }
    return sum;
}

/// Four horizontally adjacent interior output pixels: 16, 8 and 4 channels at a time, then one at a time.
static void lite_four_pixels(const lite_f32_dwconv_geometry *g, const float *src, const float *weights, const float *bias,
                             float *out, ptrdiff_t b, ptrdiff_t oy, ptrdiff_t ox) {
    const ptrdiff_t iy0 = oy * g->stride_h - g->pad_h, ix0 = ox * g->stride_w - g->pad_w;
    ptrdiff_t c = 0;
    while (c + 16 <= g->out_c) {
        lite_four_pixels_16(g, src, weights, bias, out, b, iy0, ix0, c);
        c += 16;
    }
    if (c + 8 <= g->out_c) {
        lite_four_pixels_8(g, src, weights, bias, out, b, iy0, ix0, c);
        c += 8;
    }
    if (c + 4 <= g->out_c) {
        lite_four_pixels_4(g, src, weights, bias, out, b, iy0, ix0, c);
        c += 4;
    }
    for (; c < g->out_c; c++) {
        for (ptrdiff_t pixel = 0; pixel < 4; pixel++) {
            float sum = bias != NULL ? bias[c] : 0;
            for (ptrdiff_t ky = 0; ky < g->kh; ky++) {
                const ptrdiff_t iy = iy0 + ky * g->dilation_h;
                if (iy < 0 || iy >= g->in_h) continue;
                for (ptrdiff_t kx = 0; kx < g->kw; kx++) {
                    const ptrdiff_t ix = ix0 + pixel * g->stride_w + kx * g->dilation_w;
                    sum = fmaf(src[((b * g->in_h + iy) * g->in_w + ix) * g->in_c + c], weights[(ky * g->kw + kx) * g->out_c + c], sum);
                }
            }
            out[pixel * g->out_c + c] = sum;
        }
    }
}

/// One output pixel, any position and multiplier.
static void lite_one_pixel(const lite_f32_dwconv_geometry *g, const float *src, const float *weights, const float *bias,
                           float *out, ptrdiff_t b, ptrdiff_t oy, ptrdiff_t ox) {
    const ptrdiff_t iy0 = oy * g->stride_h - g->pad_h, ix0 = ox * g->stride_w - g->pad_w;
    if (g->multiplier != 1) {
        for (ptrdiff_t oc = 0; oc < g->out_c; oc++) out[oc] = lite_scalar_channel(g, src, weights, bias, b, iy0, ix0, oc);
        return;
    }
    ptrdiff_t c = 0;
    while (c + 16 <= g->out_c) {
        lite_one_pixel_16(g, src, weights, bias, out, b, iy0, ix0, c);
        c += 16;
    }
    if (c + 8 <= g->out_c) {
        lite_one_pixel_8(g, src, weights, bias, out, b, iy0, ix0, c);
        c += 8;
    }
    if (c + 4 <= g->out_c) {
        lite_one_pixel_4(g, src, weights, bias, out, b, iy0, ix0, c);
        c += 4;
    }
    for (; c < g->out_c; c++) out[c] = lite_scalar_channel(g, src, weights, bias, b, iy0, ix0, c);
}

static void lite_clamp_values(float *values, ptrdiff_t count, float low, float high) {
    if (low == -INFINITY && high == INFINITY) return;
    for (ptrdiff_t i = 0; i < count; i++) values[i] = lite_clamp1(values[i], low, high);
}

/// The channel groups of one 3x3 output row, clamped or not (each its own specialization).
LITE_INLINE void lite_row3x3_groups(const lite_f32_dwconv_geometry *g, const float *src, const float *weights, const float *bias,
                                    float *output_row, ptrdiff_t b, ptrdiff_t oy, int clamps, float low, float high) {
    ptrdiff_t c = 0;
    while (c + 16 <= g->out_c) {
        lite_row3x3_16(g, src, weights, bias, output_row, b, oy, c, clamps, low, high);
        c += 16;
    }
    if (c + 8 <= g->out_c) {
        lite_row3x3_8(g, src, weights, bias, output_row, b, oy, c, clamps, low, high);
        c += 8;
    }
    if (c + 4 <= g->out_c) {
        lite_row3x3_4(g, src, weights, bias, output_row, b, oy, c, clamps, low, high);
        c += 4;
    }
    if (c < g->out_c) {
        // The last 1-3 channels as the last four, overlapping channels already done: their lanes add the same taps
        // in the same order, so those are written again with the same values.
        lite_row3x3_4(g, src, weights, bias, output_row, b, oy, g->out_c - 4, clamps, low, high);
    }
}

static void lite_row3x3_clamped(const lite_f32_dwconv_geometry *g, const float *src, const float *weights, const float *bias,
                                float *output_row, ptrdiff_t b, ptrdiff_t oy, float low, float high) {
    lite_row3x3_groups(g, src, weights, bias, output_row, b, oy, 1, low, high);
}

static void lite_row3x3_unclamped(const lite_f32_dwconv_geometry *g, const float *src, const float *weights, const float *bias,
                                  float *output_row, ptrdiff_t b, ptrdiff_t oy) {
    lite_row3x3_groups(g, src, weights, bias, output_row, b, oy, 0, 0, 0);
}

void LITE_DWCONV_ROWS(const lite_f32_dwconv_geometry *geometry, const float *input, const float *weights,
                     const float *bias, float *output, size_t row_begin, size_t row_end, float low, float high) {
    const lite_f32_dwconv_geometry *g = geometry;
    const int clamped = low != -INFINITY || high != INFINITY;
    for (ptrdiff_t by = (ptrdiff_t)row_begin; by < (ptrdiff_t)row_end; by++) {
        const ptrdiff_t b = by / g->out_h, oy = by % g->out_h;
        if (g->multiplier == 1 && g->kh == 3 && g->kw == 3 && g->out_c >= 4) {
            float *output_row = output + (b * g->out_h + oy) * g->out_w * g->out_c;
            if (clamped) {
                lite_row3x3_clamped(g, input, weights, bias, output_row, b, oy, low, high);
            } else {
                lite_row3x3_unclamped(g, input, weights, bias, output_row, b, oy);
            }
            continue;
        }
        ptrdiff_t ox = 0;
        while (ox < g->out_w) {
            float *out = output + ((b * g->out_h + oy) * g->out_w + ox) * g->out_c;
            if (g->multiplier == 1 && ox + 4 <= g->out_w && lite_is_interior_x(g, ox) && lite_is_interior_x(g, ox + 3)) {
                lite_four_pixels(g, input, weights, bias, out, b, oy, ox);
                lite_clamp_values(out, 4 * g->out_c, low, high);
                ox += 4;
            } else {
                lite_one_pixel(g, input, weights, bias, out, b, oy, ox);
                lite_clamp_values(out, g->out_c, low, high);
                ox += 1;
            }
        }
    }
}

