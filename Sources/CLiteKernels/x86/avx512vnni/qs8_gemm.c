// The 8-bit GEMM of quantized CONV_2D with AVX-512 VNNI: `vpdpbusd` multiplies 64 unsigned by 64 signed bytes and
// adds each group of four products to an int32 lane, so the accumulators are the exact int32 sums. The activations
// are the unsigned operand (int8 ones with their top bit flipped, x + 128), the filter the signed one. The filter is
// packed per group of four 16-channel blocks, per four-deep step of the depth: each block's 16 lanes x 4 bytes. A
// step of one activation row is its four bytes broadcast to every lane. Each accumulator starts at its channel's
// constant.
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "../isa_targets.h"
#include "lite_qs8_vnni.h"

LITE_TARGET_AVX512VNNI_BEGIN

#include "../avx512/requantize_lanes.h"

/// `vpdpbusd`: the activations (unsigned) times the filter (signed), four products a lane.
static inline __attribute__((always_inline)) __m512i lite_dot(__m512i accumulator, __m512i filter, __m512i activations) {
    return _mm512_dpbusd_epi32(accumulator, activations, filter);
}

/// Four bytes of `row` at step `step` (bytes 4·step ..< 4·step + 4), in every int32 lane; with `flip_activations`
/// (int8 models) each byte's top bit flipped, which reads int8 x as the unsigned byte x + 128. A constant at every
/// call site, so each kernel below is compiled once per kind of activation.
static inline __attribute__((always_inline)) __m512i lite_broadcast(const int8_t *row, ptrdiff_t step, int flip_activations) {
    int32_t word;
    memcpy(&word, row + step * 4, sizeof word);
    const __m512i bytes = _mm512_set1_epi32(word);
    return flip_activations ? _mm512_xor_si512(bytes, _mm512_set1_epi32((int32_t)0x80808080u)) : bytes;
}

/// Where the tiles' results go: int32 accumulators (`requantize` 0), or, requantized in registers, the output bytes
/// (`requantize` 1; rows past `rows` are not stored, nor channels past `channels`).
typedef struct {
    /// Row 0 (of the rows the caller passed), channel 0.
    int32_t *accumulators;
    ptrdiff_t accumulator_stride;
    uint8_t *bytes;
    ptrdiff_t byte_stride;
    ptrdiff_t rows;
    ptrdiff_t channels;
    const lite_qs8_requantization_avx512 *params;
} lite_tile_target;

/// Rows `first_row ..< first_row + 4` of channel block `block`: stored as int32, or requantized (ties up, the GEMM's
/// rounding), narrowed and stored.
static inline __attribute__((always_inline)) void lite_finish4(__m512i v0, __m512i v1, __m512i v2, __m512i v3, ptrdiff_t first_row,
                                                               ptrdiff_t block, const lite_tile_target *t, int requantize) {
    const __m512i v[4] = {v0, v1, v2, v3};
    if (!requantize) {
        for (int i = 0; i < 4; i++) _mm512_storeu_si512(t->accumulators + (first_row + i) * t->accumulator_stride + block * 16, v[i]);
        return;
    }
    const lite_requantization16 k = lite_load_requantization16(t->params, block * 16);
    // `requantize` 1: the common requantization (no left shifts, zero point in the addends), 2: any.
    const int has_left_shifts = requantize == 2 && t->params->has_left_shifts != 0;
    const int folds_zero_point = requantize == 1 || t->params->folds_zero_point != 0;
    const ptrdiff_t remaining = t->channels - block * 16;
    const __mmask16 mask = remaining >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << remaining) - 1);
    for (int i = 0; i < 4; i++) {
        if (first_row + i >= t->rows) return;
        const __m128i bytes = _mm512_cvtepi32_epi8(lite_requantize16(v[i], &k, has_left_shifts, 0, folds_zero_point));
        uint8_t *out = t->bytes + (first_row + i) * t->byte_stride + block * 16;
        if (mask == 0xFFFF) {
            _mm_storeu_si128((__m128i *)out, bytes);
        } else {
            _mm_mask_storeu_epi8(out, mask, bytes);
        }
    }
}

/// 8 rows x 16 channels (a layer of one channel block).
static inline __attribute__((always_inline)) void lite_kernel8x1(const int8_t *const r[8], const uint8_t *filter, const int32_t *constants,
                                                                 ptrdiff_t steps, ptrdiff_t row, const lite_tile_target *t,
                                                                 int flip_activations, int requantize) {
    __m512i c0 = _mm512_loadu_si512(constants), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
    const uint8_t *w = filter;
    for (ptrdiff_t s = 0; s < steps; s++) {
        const __m512i w0 = _mm512_loadu_si512(w);
        c0 = lite_dot(c0, w0, lite_broadcast(r[0], s, flip_activations));
        c1 = lite_dot(c1, w0, lite_broadcast(r[1], s, flip_activations));
        c2 = lite_dot(c2, w0, lite_broadcast(r[2], s, flip_activations));
        c3 = lite_dot(c3, w0, lite_broadcast(r[3], s, flip_activations));
        c4 = lite_dot(c4, w0, lite_broadcast(r[4], s, flip_activations));
        c5 = lite_dot(c5, w0, lite_broadcast(r[5], s, flip_activations));
        c6 = lite_dot(c6, w0, lite_broadcast(r[6], s, flip_activations));
        c7 = lite_dot(c7, w0, lite_broadcast(r[7], s, flip_activations));
        w += 64;
    }
    lite_finish4(c0, c1, c2, c3, row, 0, t, requantize);
    lite_finish4(c4, c5, c6, c7, row + 4, 0, t, requantize);
}

/// 8 rows x 32 channels (a layer of two channel blocks).
static inline __attribute__((always_inline)) void lite_kernel8x2(const int8_t *const r[8], const uint8_t *filter, const int32_t *constants,
                                                                 ptrdiff_t steps, ptrdiff_t row, const lite_tile_target *t,
                                                                 int flip_activations, int requantize) {
    __m512i c00 = _mm512_loadu_si512(constants), c01 = _mm512_loadu_si512(constants + 16), c10 = c00, c11 = c01, c20 = c00, c21 = c01;
    __m512i c30 = c00, c31 = c01, c40 = c00, c41 = c01, c50 = c00, c51 = c01, c60 = c00, c61 = c01, c70 = c00, c71 = c01;
    const uint8_t *w = filter;
    for (ptrdiff_t s = 0; s < steps; s++) {
        const __m512i w0 = _mm512_loadu_si512(w), w1 = _mm512_loadu_si512(w + 64);
        __m512i x = lite_broadcast(r[0], s, flip_activations);
        c00 = lite_dot(c00, w0, x); c01 = lite_dot(c01, w1, x);
        x = lite_broadcast(r[1], s, flip_activations);
        c10 = lite_dot(c10, w0, x); c11 = lite_dot(c11, w1, x);
        x = lite_broadcast(r[2], s, flip_activations);
        c20 = lite_dot(c20, w0, x); c21 = lite_dot(c21, w1, x);
        x = lite_broadcast(r[3], s, flip_activations);
        c30 = lite_dot(c30, w0, x); c31 = lite_dot(c31, w1, x);
        x = lite_broadcast(r[4], s, flip_activations);
        c40 = lite_dot(c40, w0, x); c41 = lite_dot(c41, w1, x);
        x = lite_broadcast(r[5], s, flip_activations);
        c50 = lite_dot(c50, w0, x); c51 = lite_dot(c51, w1, x);
        x = lite_broadcast(r[6], s, flip_activations);
        c60 = lite_dot(c60, w0, x); c61 = lite_dot(c61, w1, x);
        x = lite_broadcast(r[7], s, flip_activations);
        c70 = lite_dot(c70, w0, x); c71 = lite_dot(c71, w1, x);
        w += 128;
    }
    lite_finish4(c00, c10, c20, c30, row, 0, t, requantize);
    lite_finish4(c40, c50, c60, c70, row + 4, 0, t, requantize);
    lite_finish4(c01, c11, c21, c31, row, 1, t, requantize);
    lite_finish4(c41, c51, c61, c71, row + 4, 1, t, requantize);
}

/// 4 rows x 64 channels from block `block` on: 16 zmm accumulators, four filter loads and four broadcasts per step.
static inline __attribute__((always_inline)) void lite_kernel4x4(const int8_t *r0, const int8_t *r1, const int8_t *r2, const int8_t *r3,
                                                                 const uint8_t *filter, const int32_t *constants, ptrdiff_t steps, ptrdiff_t row,
                                                                 ptrdiff_t block, const lite_tile_target *t, int flip_activations,
                                                                 int requantize) {
    __m512i c00 = _mm512_loadu_si512(constants), c01 = _mm512_loadu_si512(constants + 16);
    __m512i c02 = _mm512_loadu_si512(constants + 32), c03 = _mm512_loadu_si512(constants + 48);
    __m512i c10 = c00, c11 = c01, c12 = c02, c13 = c03;
    __m512i c20 = c00, c21 = c01, c22 = c02, c23 = c03;
    __m512i c30 = c00, c31 = c01, c32 = c02, c33 = c03;
    const uint8_t *w = filter;
    for (ptrdiff_t s = 0; s < steps; s++) {
        const __m512i w0 = _mm512_loadu_si512(w), w1 = _mm512_loadu_si512(w + 64);
        const __m512i w2 = _mm512_loadu_si512(w + 128), w3 = _mm512_loadu_si512(w + 192);
        const __m512i x0 = lite_broadcast(r0, s, flip_activations);
        c00 = lite_dot(c00, w0, x0); c01 = lite_dot(c01, w1, x0);
        c02 = lite_dot(c02, w2, x0); c03 = lite_dot(c03, w3, x0);
        const __m512i x1 = lite_broadcast(r1, s, flip_activations);
        c10 = lite_dot(c10, w0, x1); c11 = lite_dot(c11, w1, x1);
        c12 = lite_dot(c12, w2, x1); c13 = lite_dot(c13, w3, x1);
        const __m512i x2 = lite_broadcast(r2, s, flip_activations);
        c20 = lite_dot(c20, w0, x2); c21 = lite_dot(c21, w1, x2);
        c22 = lite_dot(c22, w2, x2); c23 = lite_dot(c23, w3, x2);
        const __m512i x3 = lite_broadcast(r3, s, flip_activations);
        c30 = lite_dot(c30, w0, x3); c31 = lite_dot(c31, w1, x3);
        c32 = lite_dot(c32, w2, x3); c33 = lite_dot(c33, w3, x3);
        w += 256;
    }
    lite_finish4(c00, c10, c20, c30, row, block, t, requantize);
    lite_finish4(c01, c11, c21, c31, row, block + 1, t, requantize);
    lite_finish4(c02, c12, c22, c32, row, block + 2, t, requantize);
    lite_finish4(c03, c13, c23, c33, row, block + 3, t, requantize);
}

/// 4 rows x 32 channels from block `block` on, for a last group of two or three blocks (`filter_step`: the group's
/// bytes per step).
static inline __attribute__((always_inline)) void lite_kernel4x2(const int8_t *r0, const int8_t *r1, const int8_t *r2, const int8_t *r3,
                                                                 const uint8_t *filter, const int32_t *constants, ptrdiff_t filter_step,
                                                                 ptrdiff_t steps, ptrdiff_t row, ptrdiff_t block, const lite_tile_target *t,
                                                                 int flip_activations, int requantize) {
    __m512i c00 = _mm512_loadu_si512(constants), c01 = _mm512_loadu_si512(constants + 16);
    __m512i c10 = c00, c11 = c01, c20 = c00, c21 = c01, c30 = c00, c31 = c01;
    const uint8_t *w = filter;
    for (ptrdiff_t s = 0; s < steps; s++) {
        const __m512i w0 = _mm512_loadu_si512(w), w1 = _mm512_loadu_si512(w + 64);
        const __m512i x0 = lite_broadcast(r0, s, flip_activations), x1 = lite_broadcast(r1, s, flip_activations);
        const __m512i x2 = lite_broadcast(r2, s, flip_activations), x3 = lite_broadcast(r3, s, flip_activations);
        c00 = lite_dot(c00, w0, x0); c01 = lite_dot(c01, w1, x0);
        c10 = lite_dot(c10, w0, x1); c11 = lite_dot(c11, w1, x1);
        c20 = lite_dot(c20, w0, x2); c21 = lite_dot(c21, w1, x2);
        c30 = lite_dot(c30, w0, x3); c31 = lite_dot(c31, w1, x3);
        w += filter_step;
    }
    lite_finish4(c00, c10, c20, c30, row, block, t, requantize);
    lite_finish4(c01, c11, c21, c31, row, block + 1, t, requantize);
}

/// 4 rows x 16 channels of block `block`, for the last block of a group of one or three.
static inline __attribute__((always_inline)) void lite_kernel4x1(const int8_t *r0, const int8_t *r1, const int8_t *r2, const int8_t *r3,
                                                                 const uint8_t *filter, const int32_t *constants, ptrdiff_t filter_step,
                                                                 ptrdiff_t steps, ptrdiff_t row, ptrdiff_t block, const lite_tile_target *t,
                                                                 int flip_activations, int requantize) {
    __m512i c0 = _mm512_loadu_si512(constants), c1 = c0, c2 = c0, c3 = c0;
    const uint8_t *w = filter;
    for (ptrdiff_t s = 0; s < steps; s++) {
        const __m512i w0 = _mm512_loadu_si512(w);
        c0 = lite_dot(c0, w0, lite_broadcast(r0, s, flip_activations));
        c1 = lite_dot(c1, w0, lite_broadcast(r1, s, flip_activations));
        c2 = lite_dot(c2, w0, lite_broadcast(r2, s, flip_activations));
        c3 = lite_dot(c3, w0, lite_broadcast(r3, s, flip_activations));
        w += filter_step;
    }
    lite_finish4(c0, c1, c2, c3, row, block, t, requantize);
}

// The tiles out of line, each compiled once per kind of activation and of result (int8 rows requantized in the
// tile by the common or any requantization, int8 or uint8 rows to int32): the callers' loops stay small and every tile's loop gets the whole register
// file.
#define LITE_TILE_BY_KIND(call)        \
    do {                                \
        if (requantize == 1) {          \
            call(1, 1);                 \
        } else if (requantize == 2) {   \
            call(1, 2);                 \
        } else if (flip_activations) {  \
            call(1, 0);                 \
        } else {                        \
            call(0, 0);                 \
        }                               \
    } while (0)

static __attribute__((noinline)) void lite_tile8x1(const int8_t *const r[8], const uint8_t *filter, const int32_t *constants, ptrdiff_t steps,
                                                   ptrdiff_t row, const lite_tile_target *t, int flip_activations, int requantize) {
#define LITE_CALL(flip, requantizes) lite_kernel8x1(r, filter, constants, steps, row, t, flip, requantizes)
    LITE_TILE_BY_KIND(LITE_CALL);
#undef LITE_CALL
}

static __attribute__((noinline)) void lite_tile8x2(const int8_t *const r[8], const uint8_t *filter, const int32_t *constants, ptrdiff_t steps,
                                                   ptrdiff_t row, const lite_tile_target *t, int flip_activations, int requantize) {
#define LITE_CALL(flip, requantizes) lite_kernel8x2(r, filter, constants, steps, row, t, flip, requantizes)
    LITE_TILE_BY_KIND(LITE_CALL);
#undef LITE_CALL
}

static __attribute__((noinline)) void lite_tile4x4(const int8_t *r0, const int8_t *r1, const int8_t *r2, const int8_t *r3,
                                                   const uint8_t *filter, const int32_t *constants, ptrdiff_t steps, ptrdiff_t row,
                                                   ptrdiff_t block, const lite_tile_target *t, int flip_activations, int requantize) {
#define LITE_CALL(flip, requantizes) lite_kernel4x4(r0, r1, r2, r3, filter, constants, steps, row, block, t, flip, requantizes)
    LITE_TILE_BY_KIND(LITE_CALL);
#undef LITE_CALL
}

static __attribute__((noinline)) void lite_tile4x2(const int8_t *r0, const int8_t *r1, const int8_t *r2, const int8_t *r3,
                                                   const uint8_t *filter, const int32_t *constants, ptrdiff_t filter_step, ptrdiff_t steps,
                                                   ptrdiff_t row, ptrdiff_t block, const lite_tile_target *t, int flip_activations,
                                                   int requantize) {
#define LITE_CALL(flip, requantizes) lite_kernel4x2(r0, r1, r2, r3, filter, constants, filter_step, steps, row, block, t, flip, requantizes)
    LITE_TILE_BY_KIND(LITE_CALL);
#undef LITE_CALL
}

static __attribute__((noinline)) void lite_tile4x1(const int8_t *r0, const int8_t *r1, const int8_t *r2, const int8_t *r3,
                                                   const uint8_t *filter, const int32_t *constants, ptrdiff_t filter_step, ptrdiff_t steps,
                                                   ptrdiff_t row, ptrdiff_t block, const lite_tile_target *t, int flip_activations,
                                                   int requantize) {
#define LITE_CALL(flip, requantizes) lite_kernel4x1(r0, r1, r2, r3, filter, constants, filter_step, steps, row, block, t, flip, requantizes)
    LITE_TILE_BY_KIND(LITE_CALL);
#undef LITE_CALL
}
#undef LITE_TILE_BY_KIND

/// Four rows against every channel block, in groups of four blocks (the group's filter is `group_blocks`·64 bytes
/// per step): 4x64 tiles, and for a last group of two or three blocks a 4x32 tile, then a 4x16 one.
static inline void lite_multiply_tile(const uint8_t *weights, const int32_t *constants, ptrdiff_t padded_channels, ptrdiff_t padded_depth,
                                      const int8_t *r0, const int8_t *r1, const int8_t *r2, const int8_t *r3, ptrdiff_t row,
                                      const lite_tile_target *t, int flip_activations, int requantize) {
    const ptrdiff_t steps = padded_depth / 4, blocks = padded_channels / 16;
    ptrdiff_t block = 0;
    while (block < blocks) {
        const ptrdiff_t group_blocks = blocks - block < 4 ? blocks - block : 4;
        const uint8_t *filter = weights + block * 16 * padded_depth;
        const int32_t *start = constants + block * 16;
        if (group_blocks == 4) {
            lite_tile4x4(r0, r1, r2, r3, filter, start, steps, row, block, t, flip_activations, requantize);
        } else {
            ptrdiff_t j = 0;
            if (group_blocks >= 2) {
                lite_tile4x2(r0, r1, r2, r3, filter, start, group_blocks * 64, steps, row, block, t, flip_activations, requantize);
                j = 2;
            }
            if (j < group_blocks) {
                lite_tile4x1(r0, r1, r2, r3, filter + j * 64, start + j * 16, group_blocks * 64, steps, row, block + j, t, flip_activations,
                             requantize);
            }
        }
        block += group_blocks;
    }
}

/// `count` rows against the whole filter, tile by tile: 8-row tiles for layers of one or two channel blocks, else
/// 4-row ones.
static inline void lite_multiply_rows(const uint8_t *filter, const int32_t *constants, ptrdiff_t padded_channels, ptrdiff_t padded_depth,
                                      const int8_t *rows, ptrdiff_t count, ptrdiff_t row_stride, const lite_tile_target *t,
                                      int flip_activations, int requantize) {
    const ptrdiff_t last = count - 1;
#define LITE_ROW(i) (rows + ((i) < last ? (i) : last) * row_stride)
    const ptrdiff_t blocks = padded_channels / 16, steps = padded_depth / 4;
    if (blocks <= 2) {
        for (ptrdiff_t tile = 0; tile < count; tile += 8) {
            const int8_t *const r[8] = {LITE_ROW(tile), LITE_ROW(tile + 1), LITE_ROW(tile + 2), LITE_ROW(tile + 3),
                                        LITE_ROW(tile + 4), LITE_ROW(tile + 5), LITE_ROW(tile + 6), LITE_ROW(tile + 7)};
            if (blocks == 2) {
                lite_tile8x2(r, filter, constants, steps, tile, t, flip_activations, requantize);
            } else {
                lite_tile8x1(r, filter, constants, steps, tile, t, flip_activations, requantize);
            }
        }
        return;
    }
    for (ptrdiff_t tile = 0; tile < count; tile += 4) {
        lite_multiply_tile(filter, constants, padded_channels, padded_depth, LITE_ROW(tile), LITE_ROW(tile + 1), LITE_ROW(tile + 2),
                           LITE_ROW(tile + 3), tile, t, flip_activations, requantize);
    }
#undef LITE_ROW
}

void lite_qs8_gemm_multiply_block__avx512vnni(const void *weights, const int32_t *constants, ptrdiff_t padded_channels,
                                              ptrdiff_t padded_depth, const int8_t *rows, ptrdiff_t count, ptrdiff_t row_stride,
                                              int flip_activations, int32_t *accumulators) {
    const lite_tile_target target = {accumulators, padded_channels, NULL, 0, count, 0, NULL};
    lite_multiply_rows((const uint8_t *)weights, constants, padded_channels, padded_depth, rows, count, row_stride, &target,
                       flip_activations, 0);
}

void lite_qs8_gemm_requantized__avx512vnni(const void *weights, const int32_t *constants, ptrdiff_t padded_channels,
                                           ptrdiff_t padded_depth, const int8_t *rows, ptrdiff_t count, ptrdiff_t row_stride,
                                           const lite_qs8_requantization_avx512 *params, ptrdiff_t channels, void *output,
                                           ptrdiff_t output_stride) {
    const lite_tile_target target = {NULL, 0, (uint8_t *)output, output_stride, count, channels, params};
    const int common = params->has_left_shifts == 0 && params->folds_zero_point != 0;
    lite_multiply_rows((const uint8_t *)weights, constants, padded_channels, padded_depth, rows, count, row_stride, &target, 1,
                       common ? 1 : 2);
}

/// One row's 16 partial sums: its bytes 64 at a time, `vpdpbusd` against ones (the row as the unsigned operand when
/// `activations_unsigned`), the last bytes by a masked load.
static inline __attribute__((always_inline)) __m512i lite_row_partial_sums(const int8_t *row, ptrdiff_t padded_depth, __mmask64 tail_mask,
                                                                           int activations_unsigned) {
    const __m512i ones = _mm512_set1_epi8(1);
    __m512i sum = _mm512_setzero_si512();
    ptrdiff_t k = 0;
    while (k + 64 <= padded_depth) {
        const __m512i bytes = _mm512_loadu_si512(row + k);
        sum = activations_unsigned ? _mm512_dpbusd_epi32(sum, bytes, ones) : _mm512_dpbusd_epi32(sum, ones, bytes);
        k += 64;
    }
    if (k < padded_depth) {
        const __m512i bytes = _mm512_maskz_loadu_epi8(tail_mask, row + k);
        sum = activations_unsigned ? _mm512_dpbusd_epi32(sum, bytes, ones) : _mm512_dpbusd_epi32(sum, ones, bytes);
    }
    return sum;
}

/// Two rows a and b -> per 128-bit lane [a0+a2, b0+b2, a1+a3, b1+b3].
static inline __m512i lite_pair(__m512i a, __m512i b) {
    return _mm512_add_epi32(_mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b));
}

/// Two pairs (rows a, b and c, d) -> per 128-bit lane that lane's [Σa, Σb, Σc, Σd].
static inline __m512i lite_quad(__m512i ab, __m512i cd) {
    return _mm512_add_epi32(_mm512_unpacklo_epi64(ab, cd), _mm512_unpackhi_epi64(ab, cd));
}

/// 128-bit lanes [x.L0, x.L2, y.L0, y.L2] + [x.L1, x.L3, y.L1, y.L3]: applied twice, lane group g of the result is
/// the sum of the four lanes of q_g.
static inline __m512i lite_fold(__m512i x, __m512i y) {
    const __m512i even_lanes = _mm512_set_epi64(13, 12, 9, 8, 5, 4, 1, 0), odd_lanes = _mm512_set_epi64(15, 14, 11, 10, 7, 6, 3, 2);
    return _mm512_add_epi32(_mm512_permutex2var_epi64(x, even_lanes, y), _mm512_permutex2var_epi64(x, odd_lanes, y));
}

static inline __attribute__((always_inline)) void lite_row_sums16(const int8_t *rows, ptrdiff_t row_stride, ptrdiff_t count,
                                                                  ptrdiff_t padded_depth, int activations_unsigned, int32_t *sums) {
    const __mmask64 tail_mask = padded_depth % 64 == 0 ? ~(__mmask64)0 : ((__mmask64)1 << (padded_depth % 64)) - 1;
#define LITE_PARTIAL(i) \
    lite_row_partial_sums(rows + ((i) < count - 1 ? (i) : count - 1) * row_stride, padded_depth, tail_mask, activations_unsigned)
    const __m512i q0 = lite_quad(lite_pair(LITE_PARTIAL(0), LITE_PARTIAL(1)), lite_pair(LITE_PARTIAL(2), LITE_PARTIAL(3)));
    const __m512i q1 = lite_quad(lite_pair(LITE_PARTIAL(4), LITE_PARTIAL(5)), lite_pair(LITE_PARTIAL(6), LITE_PARTIAL(7)));
    const __m512i q2 = lite_quad(lite_pair(LITE_PARTIAL(8), LITE_PARTIAL(9)), lite_pair(LITE_PARTIAL(10), LITE_PARTIAL(11)));
    const __m512i q3 = lite_quad(lite_pair(LITE_PARTIAL(12), LITE_PARTIAL(13)), lite_pair(LITE_PARTIAL(14), LITE_PARTIAL(15)));
#undef LITE_PARTIAL
    _mm512_storeu_si512(sums, lite_fold(lite_fold(q0, q1), lite_fold(q2, q3)));
}

void lite_qs8_gemm_row_sums16__avx512vnni(const int8_t *rows, ptrdiff_t row_stride, ptrdiff_t count, ptrdiff_t padded_depth,
                                          int activations_unsigned, int32_t *sums) {
    if (activations_unsigned) {
        lite_row_sums16(rows, row_stride, count, padded_depth, 1, sums);
    } else {
        lite_row_sums16(rows, row_stride, count, padded_depth, 0, sums);
    }
}

LITE_TARGET_END

#endif
