// int8 and uint8 DEPTHWISE_CONV_2D with AVX-512 VNNI (channel multiplier 1): the four bytes of a channel's int32
// lane hold one input column's taps from four filter rows, so an output pixel is one `vpdpbusd` per filter column and
// group of four filter rows. The accumulators are TFLite's int32 sums plus a per-channel constant (see LiteEngine's
// `QuantizedDepthwiseDotProduct` for the operands), requantized as the GEMM's are (requantize_lanes.h). At stride 1,
// int8 layers interleave one more input row and compute two output rows from it (`lite_qs8_dwconv__avx512vnni`).
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>

#include "../isa_targets.h"
#include "lite_qs8_vnni.h"

LITE_TARGET_AVX512VNNI_BEGIN

#include "../avx512/requantize_lanes.h"

/// Filter rows 0...3's 16 bytes of one input column, [r0 | r1 | r2 | r3], as 16 lanes of [r0[i], r1[i], r2[i], r3[i]]
/// XOR 0x80, stored at `destination` (64-byte aligned).
static inline __attribute__((always_inline)) void lite_store_interleaved(void *destination, __m128i r0, __m128i r1, __m128i r2,
                                                                         __m128i r3, __m512i gather, __m512i transpose, __m512i flip) {
    __m512i rows = _mm512_castsi128_si512(r0);
    rows = _mm512_mask_broadcast_i32x4(rows, 0x00F0, r1);
    rows = _mm512_mask_broadcast_i32x4(rows, 0x0F00, r2);
    rows = _mm512_mask_broadcast_i32x4(rows, 0xF000, r3);
    const __m512i lanes = _mm512_shuffle_epi8(_mm512_permutexvar_epi32(gather, rows), transpose);
    _mm512_store_si512(destination, _mm512_xor_si512(lanes, flip));
}

/// For each input column `-pad_w ..< columns - pad_w` of output row `oy`, one 64-byte vector: channel i of the block in
/// lane i, its four bytes the column's inputs in filter rows 4·group ... 4·group + 3 (flipped; padding, and rows from
/// `rows` on, hold the input zero point). `rows` is the filter's height, or one more when the window is read for two
/// output rows at once (see `lite_qs8_dwconv__avx512vnni`).
static inline void lite_interleave(const lite_qs8_dwconv_vnni *p, const lite_qs8_dwconv_geometry *g, const int8_t *source,
                                   ptrdiff_t b, ptrdiff_t oy, ptrdiff_t block, ptrdiff_t group, ptrdiff_t rows, ptrdiff_t columns,
                                   uint8_t *interleaved) {
    const ptrdiff_t first = block * 16;
    const ptrdiff_t width = p->channels - first < 16 ? p->channels - first : 16;
    const __mmask16 load_mask = (__mmask16)((1u << width) - 1);
    const __m128i pad = _mm_set1_epi8(p->input_zero_point);
    const __m512i flip = _mm512_set1_epi32((int32_t)0x80808080u);
    // [r0 | r1 | r2 | r3] -> lane L holds dword L of each row (vpermd), then each lane's bytes go from
    // [r0 a b c d, r1 a b c d, ...] to [r0 a, r1 a, r2 a, r3 a, r0 b, ...] (vpshufb).
    const __m512i gather = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
    const __m512i transpose = _mm512_set_epi64(0x0F0B07030E0A0602, 0x0D0905010C080400, 0x0F0B07030E0A0602, 0x0D0905010C080400,
                                               0x0F0B07030E0A0602, 0x0D0905010C080400, 0x0F0B07030E0A0602, 0x0D0905010C080400);
    const ptrdiff_t iy0 = oy * g->stride_h - g->pad_h;
    // Where each filter row's input row starts (at this block's first channel), or NULL for a row of padding.
    const int8_t *row_start[4];
    for (ptrdiff_t row = 0; row < 4; row++) {
        const ptrdiff_t ky = group * 4 + row;
        const ptrdiff_t iy = iy0 + ky * g->dilation_h;
        row_start[row] = ky < rows && iy >= 0 && iy < g->in_h ? source + ((b * g->in_h + iy) * g->in_w) * g->in_c + first : NULL;
    }
    const ptrdiff_t step = g->in_c;
    const ptrdiff_t inside_first = g->pad_w < columns ? g->pad_w : columns;
    const ptrdiff_t inside_bound = g->in_w + g->pad_w > inside_first ? g->in_w + g->pad_w : inside_first;
    const ptrdiff_t inside_end = inside_bound < columns ? inside_bound : columns;
    for (ptrdiff_t column = 0; column < inside_first; column++) {
        lite_store_interleaved(interleaved + column * 64, pad, pad, pad, pad, gather, transpose, flip);
    }
#define LITE_LOAD(ky) (row_start[ky] ? _mm_maskz_loadu_epi8(load_mask, row_start[ky] + offset) : pad)
    for (ptrdiff_t column = inside_first; column < inside_end; column++) {
        const ptrdiff_t offset = (column - g->pad_w) * step;
        lite_store_interleaved(interleaved + column * 64, LITE_LOAD(0), LITE_LOAD(1), LITE_LOAD(2), LITE_LOAD(3), gather, transpose, flip);
    }
#undef LITE_LOAD
    for (ptrdiff_t column = inside_end; column < columns; column++) {
        lite_store_interleaved(interleaved + column * 64, pad, pad, pad, pad, gather, transpose, flip);
    }
}

/// `acc` plus the dot products of one output pixel's taps in one row group: `pixel` is its first input column in the
/// group's interleaved columns, `filter` the group's filter columns. uint8 also sums `d·w_zero` into `correction`.
/// `lower` (int8): the filter's rows moved one byte up, for the output row below the one the columns were interleaved
/// for: [0, w0, w1, w2], the next group's first byte the last row of `previous` (the group above's filter columns, NULL
/// in the first group).
static inline __attribute__((always_inline)) __m512i lite_add_row_group(__m512i acc, __m512i *correction, const uint8_t *pixel,
                                                                       const uint8_t *filter, const uint8_t *previous,
                                                                       __m512i weight_zero, ptrdiff_t column_step, ptrdiff_t kw,
                                                                       int is_uint8, int lower) {
    if (is_uint8) {
        // d·w on the unsigned filter, less d·w_zero.
        for (ptrdiff_t kx = 0; kx < kw; kx++) {
            const __m512i d = _mm512_loadu_si512(pixel + kx * column_step);
            acc = _mm512_dpbusd_epi32(acc, _mm512_loadu_si512(filter + kx * 64), d);
            *correction = _mm512_dpbusd_epi32(*correction, weight_zero, d);
        }
    } else {
        for (ptrdiff_t kx = 0; kx < kw; kx++) {
            __m512i w = _mm512_loadu_si512(filter + kx * 64);
            if (lower) {
                w = _mm512_slli_epi32(w, 8);
                if (previous != NULL) w = _mm512_or_si512(w, _mm512_srli_epi32(_mm512_loadu_si512(previous + kx * 64), 24));
            }
            acc = _mm512_dpbusd_epi32(acc, _mm512_loadu_si512(pixel + kx * column_step), w);
        }
    }
    return acc;
}

/// One block of 16 channels of every pixel of an output row: the dot products, then the requantization with `k`, the
/// block's requantization data. The shape and flag arguments are constants at the calls that matter, so the common
/// layers get loops of their own.
static inline __attribute__((always_inline)) void lite_convolve_row(const lite_qs8_dwconv_vnni *p, const lite_qs8_dwconv_geometry *g,
                                                                   const uint8_t *interleaved, ptrdiff_t columns, ptrdiff_t block,
                                                                   int8_t *output, const lite_requantization16 *requantization,
                                                                   ptrdiff_t groups, ptrdiff_t kw, int is_uint8, int has_left_shifts,
                                                                   int rounds_away, int folds_zero_point, int lower) {
    // A copy in registers: the byte stores below may alias what a pointer points at, so reading through it would
    // load the block's requantization data again for every pixel.
    const lite_requantization16 k = *requantization;
    const ptrdiff_t c = block * 16;
    const ptrdiff_t channels = p->channels;
    const ptrdiff_t width = channels - c < 16 ? channels - c : 16;
    const __mmask16 store_mask = (__mmask16)((1u << width) - 1);
    const __m512i start = _mm512_loadu_si512(p->constants + c);
    const uint8_t *filter = (const uint8_t *)p->weights + block * groups * kw * 64;
    const uint8_t *weight_zero = (const uint8_t *)p->weight_zero_points + block * groups * 64;
    const ptrdiff_t column_step = g->dilation_w * 64, pixel_step = g->stride_w * 64, group_step = columns * 64;
    const uint8_t *pixel = interleaved;
    for (ptrdiff_t ox = 0; ox < g->out_w; ox++) {
        __m512i acc = start, correction = _mm512_setzero_si512();
        for (ptrdiff_t group = 0; group < groups; group++) {
            acc = lite_add_row_group(acc, &correction, pixel + group * group_step, filter + group * kw * 64,
                                     group > 0 ? filter + (group - 1) * kw * 64 : NULL, _mm512_loadu_si512(weight_zero + group * 64),
                                     column_step, kw, is_uint8, lower);
        }
        if (is_uint8) acc = _mm512_sub_epi32(acc, correction);
        const __m128i bytes = _mm512_cvtepi32_epi8(lite_requantize16(acc, &k, has_left_shifts, rounds_away, folds_zero_point));
        // A full block is a plain store: the masked form of the narrowing store is slow on some CPUs.
        if (width == 16) {
            _mm_storeu_si128((__m128i *)(output + ox * channels), bytes);
        } else {
            _mm_mask_storeu_epi8(output + ox * channels, store_mask, bytes);
        }
        pixel += pixel_step;
    }
}

/// `lite_convolve_row` for the block's layer: 3x3 filters without left shifts and with the zero point in the
/// addends (most layers: int8 ones round ties up in all but their last channels, uint8 ones away from zero) get
/// loops of their own, other int8 3x3 and 5x5 layers loops with their shape fixed; the rest share one. `lower` (a
/// constant at both calls): the output row below the one the columns were interleaved for (int8 only), its filter
/// moved up a byte.
static inline __attribute__((always_inline)) void lite_convolve_layer(const lite_qs8_dwconv_vnni *p, const lite_qs8_dwconv_geometry *g,
                                                                     const uint8_t *interleaved, ptrdiff_t columns, ptrdiff_t block,
                                                                     int8_t *output, const lite_requantization16 *k, int lower) {
    const lite_qs8_requantization_avx512 *r = p->requantization;
    const int rounds_away = lite_requantization16_rounds_away(k);
    const int has_left_shifts = r->has_left_shifts != 0, folds_zero_point = r->folds_zero_point != 0, is_uint8 = p->is_uint8 != 0;
    const ptrdiff_t groups = p->row_groups, kw = g->kw;
    if (groups == 1 && kw == 3 && !has_left_shifts && folds_zero_point && !is_uint8 && !rounds_away) {
        lite_convolve_row(p, g, interleaved, columns, block, output, k, 1, 3, 0, 0, 0, 1, lower);
    } else if (groups == 1 && kw == 3 && !has_left_shifts && folds_zero_point && is_uint8 && rounds_away) {
        lite_convolve_row(p, g, interleaved, columns, block, output, k, 1, 3, 1, 0, 1, 1, lower);
    } else if (groups == 1 && kw == 3 && !is_uint8) {
        lite_convolve_row(p, g, interleaved, columns, block, output, k, 1, 3, 0, has_left_shifts, rounds_away, folds_zero_point, lower);
    } else if (groups == 2 && kw == 5 && !is_uint8) {
        lite_convolve_row(p, g, interleaved, columns, block, output, k, 2, 5, 0, has_left_shifts, rounds_away, folds_zero_point, lower);
    } else {
        lite_convolve_row(p, g, interleaved, columns, block, output, k, groups, kw, is_uint8, has_left_shifts, rounds_away,
                          folds_zero_point, lower);
    }
}

/// `lite_convolve_layer` for the interleaved row (`lower` 0) or the one below it (1).
static void lite_convolve(const lite_qs8_dwconv_vnni *p, const lite_qs8_dwconv_geometry *g, const uint8_t *interleaved,
                          ptrdiff_t columns, ptrdiff_t block, int8_t *output, const lite_requantization16 *k, int lower) {
    if (lower) {
        lite_convolve_layer(p, g, interleaved, columns, block, output, k, 1);
    } else {
        lite_convolve_layer(p, g, interleaved, columns, block, output, k, 0);
    }
}

void lite_qs8_dwconv__avx512vnni(const lite_qs8_dwconv_vnni *params, const lite_qs8_dwconv_geometry *geometry,
                                 const int8_t *input, int8_t *output, ptrdiff_t row_begin, ptrdiff_t row_end, ptrdiff_t columns,
                                 void *interleaved) {
    const ptrdiff_t out_h = geometry->out_h, out_w = geometry->out_w, channels = params->channels;
    // An int8 filter at stride 1 whose height is not a multiple of 4 leaves a byte of its last row group unused: the
    // kh + 1 input rows from iy serve output row oy (filter rows in bytes 0 .. kh - 1) and oy + 1 (the filter moved up
    // a byte), so two output rows share one interleave, a third of the kernel's time otherwise. The sums are the
    // same: the bytes past the filter have weight 0.
    const int pairs = !params->is_uint8 && geometry->kh % 4 != 0 && geometry->stride_h == 1 && geometry->dilation_h == 1;
    for (ptrdiff_t row = row_begin; row < row_end;) {
        const ptrdiff_t b = row / out_h, oy = row % out_h;
        const int pair = pairs && row + 1 < row_end && oy + 1 < out_h;
        int8_t *output_row = output + ((b * out_h + oy) * out_w) * channels;
        for (ptrdiff_t block = 0; block < params->blocks; block++) {
            const lite_requantization16 k = lite_load_requantization16(params->requantization, block * 16);
            for (ptrdiff_t group = 0; group < params->row_groups; group++) {
                lite_interleave(params, geometry, input, b, oy, block, group, pair ? geometry->kh + 1 : geometry->kh, columns,
                                (uint8_t *)interleaved + group * columns * 64);
            }
            lite_convolve(params, geometry, (const uint8_t *)interleaved, columns, block, output_row + block * 16, &k, 0);
            if (pair) {
                lite_convolve(params, geometry, (const uint8_t *)interleaved, columns, block, output_row + out_w * channels + block * 16,
                              &k, 1);
            }
        }
        row += pair ? 2 : 1;
    }
}

LITE_TARGET_END

#endif
