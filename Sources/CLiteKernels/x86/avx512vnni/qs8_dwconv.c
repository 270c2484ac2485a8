// int8 and uint8 DEPTHWISE_CONV_2D with AVX-512 VNNI (channel multiplier 1, at most four filter rows): the four
// bytes of a channel's int32 lane hold one input column's taps from four filter rows, so an output pixel is one
// `vpdpbusd` per filter column. The accumulators are TFLite's int32 sums plus a per-channel constant (see
// LiteEngine's `QuantizedDepthwiseDotProduct` for the operands and the requantization's derivation).
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>

#include "../isa_targets.h"
#include "lite_qs8_vnni.h"

LITE_TARGET_AVX512VNNI_BEGIN

#include "../avx512/even_odd_lanes.h"

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
/// lane i, its four bytes the column's inputs in filter rows 0...3 (flipped; padding holds the input zero point).
static inline void lite_interleave(const lite_qs8_dwconv_vnni *p, const lite_qs8_dwconv_geometry *g, const int8_t *source,
                                   ptrdiff_t b, ptrdiff_t oy, ptrdiff_t block, ptrdiff_t columns, uint8_t *interleaved) {
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
    for (ptrdiff_t ky = 0; ky < 4; ky++) {
        const ptrdiff_t iy = iy0 + ky * g->dilation_h;
        row_start[ky] = ky < g->kh && iy >= 0 && iy < g->in_h ? source + ((b * g->in_h + iy) * g->in_w) * g->in_c + first : NULL;
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

/// One block of 16 channels of every pixel of an output row: the dot products, then the requantization.
static inline void lite_convolve(const lite_qs8_dwconv_vnni *p, const lite_qs8_dwconv_geometry *g, const uint8_t *interleaved,
                                 ptrdiff_t block, int8_t *output) {
    const ptrdiff_t c = block * 16;
    const ptrdiff_t channels = p->channels;
    const ptrdiff_t width = channels - c < 16 ? channels - c : 16;
    const __mmask16 store_mask = (__mmask16)((1u << width) - 1);
    const __m512i start = _mm512_loadu_si512(p->constants + c);
    const __m512i multiplier = _mm512_loadu_si512(p->multipliers + c), odd_multiplier = _mm512_srli_epi64(multiplier, 32);
    const __m512i left = _mm512_loadu_si512(p->left_shifts + c), right = _mm512_loadu_si512(p->right_shifts + c);
    const __m512i offset = _mm512_loadu_si512(p->offsets + c), away_ones = _mm512_loadu_si512(p->rounds_away + c);
    const __m512i even_nudge = _mm512_loadu_si512(p->nudges + c), odd_nudge = _mm512_loadu_si512(p->nudges + c + 8);
    const __m512i lowest = _mm512_set1_epi32(p->low), highest = _mm512_set1_epi32(p->high);
    const uint8_t *filter = (const uint8_t *)p->weights + block * g->kw * 64;
    const __m512i weight_zero = _mm512_loadu_si512((const uint8_t *)p->weight_zero_points + block * 64);
    const ptrdiff_t column_step = g->dilation_w * 64, pixel_step = g->stride_w * 64;
    const ptrdiff_t kw = g->kw;
    const int is_uint8 = p->is_uint8 != 0, has_left_shifts = p->has_left_shifts != 0;
    const uint8_t *pixel = interleaved;
    for (ptrdiff_t ox = 0; ox < g->out_w; ox++) {
        __m512i acc = start;
        if (is_uint8) {
            // d·w on the unsigned filter, less d·w_zero.
            __m512i correction = _mm512_setzero_si512();
            if (kw == 3) {
                const __m512i d0 = _mm512_loadu_si512(pixel), d1 = _mm512_loadu_si512(pixel + column_step);
                const __m512i d2 = _mm512_loadu_si512(pixel + 2 * column_step);
                acc = _mm512_dpbusd_epi32(acc, _mm512_loadu_si512(filter), d0);
                correction = _mm512_dpbusd_epi32(correction, weight_zero, d0);
                acc = _mm512_dpbusd_epi32(acc, _mm512_loadu_si512(filter + 64), d1);
                correction = _mm512_dpbusd_epi32(correction, weight_zero, d1);
                acc = _mm512_dpbusd_epi32(acc, _mm512_loadu_si512(filter + 128), d2);
                correction = _mm512_dpbusd_epi32(correction, weight_zero, d2);
            } else {
                const uint8_t *column = pixel, *w = filter;
                for (ptrdiff_t kx = 0; kx < kw; kx++) {
                    const __m512i d = _mm512_loadu_si512(column);
                    acc = _mm512_dpbusd_epi32(acc, _mm512_loadu_si512(w), d);
                    correction = _mm512_dpbusd_epi32(correction, weight_zero, d);
                    column += column_step;
                    w += 64;
                }
            }
            acc = _mm512_sub_epi32(acc, correction);
        } else if (kw == 3) {
            acc = _mm512_dpbusd_epi32(acc, _mm512_loadu_si512(pixel), _mm512_loadu_si512(filter));
            acc = _mm512_dpbusd_epi32(acc, _mm512_loadu_si512(pixel + column_step), _mm512_loadu_si512(filter + 64));
            acc = _mm512_dpbusd_epi32(acc, _mm512_loadu_si512(pixel + 2 * column_step), _mm512_loadu_si512(filter + 128));
        } else {
            const uint8_t *column = pixel, *w = filter;
            for (ptrdiff_t kx = 0; kx < kw; kx++) {
                acc = _mm512_dpbusd_epi32(acc, _mm512_loadu_si512(column), _mm512_loadu_si512(w));
                column += column_step;
                w += 64;
            }
        }
        if (has_left_shifts) acc = _mm512_sllv_epi32(acc, left);
        const __m512i even = _mm512_srai_epi64(_mm512_add_epi64(_mm512_mul_epi32(acc, multiplier), even_nudge), 31);
        const __m512i odd =
            _mm512_srai_epi64(_mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(acc, 32), odd_multiplier), odd_nudge), 31);
        // t < K (h < 0): one less where ties round away from zero.
        __m512i t = lite_join_even_odd_lanes16(even, odd);
        t = _mm512_mask_sub_epi32(t, _mm512_cmplt_epi32_mask(t, offset), t, away_ones);
        const __m512i v = _mm512_min_epi32(_mm512_max_epi32(_mm512_srav_epi32(t, right), lowest), highest);
        const __m128i bytes = _mm512_cvtepi32_epi8(v);
        // A full block is a plain store: the masked form of the narrowing store is slow on some CPUs.
        if (width == 16) {
            _mm_storeu_si128((__m128i *)(output + ox * channels), bytes);
        } else {
            _mm_mask_storeu_epi8(output + ox * channels, store_mask, bytes);
        }
        pixel += pixel_step;
    }
}

void lite_qs8_dwconv__avx512vnni(const lite_qs8_dwconv_vnni *params, const lite_qs8_dwconv_geometry *geometry,
                                 const int8_t *input, int8_t *output, ptrdiff_t row_begin, ptrdiff_t row_end, ptrdiff_t columns,
                                 void *interleaved) {
    const ptrdiff_t out_h = geometry->out_h, out_w = geometry->out_w, channels = params->channels;
    for (ptrdiff_t row = row_begin; row < row_end; row++) {
        const ptrdiff_t b = row / out_h, oy = row % out_h;
        for (ptrdiff_t block = 0; block < params->blocks; block++) {
            lite_interleave(params, geometry, input, b, oy, block, columns, (uint8_t *)interleaved);
            lite_convolve(params, geometry, (const uint8_t *)interleaved, block,
                          output + ((b * out_h + oy) * out_w) * channels + block * 16);
        }
    }
}

LITE_TARGET_END

#endif
