// The im2col rows of the 8-bit GEMM (LiteEngine's `QuantizedGEMM.pack`) for the output columns whose taps are all
// inside the input horizontally, with AVX-512 BW/VL masked byte loads and stores.
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "../isa_targets.h"
#include "lite_qs8_vnni.h"

LITE_TARGET_AVX512_BEGIN

/// `count` bytes, sixteen at a time; the last ones by a masked load and store (nothing read or written past `count`).
static inline void lite_copy_masked(const uint8_t *source, uint8_t *destination, ptrdiff_t count) {
    for (ptrdiff_t offset = 0; offset < count; offset += 16) {
        const __mmask16 mask = (__mmask16)(count - offset >= 16 ? 0xFFFF : (1u << (count - offset)) - 1);
        _mm_mask_storeu_epi8(destination + offset, mask, _mm_maskz_loadu_epi8(mask, source + offset));
    }
}

void lite_qs8_gemm_pack_interior__avx512(const uint8_t *source, const uint8_t *end, int8_t *output_row, ptrdiff_t row_length,
                                         ptrdiff_t column_begin, ptrdiff_t column_end, ptrdiff_t kh, ptrdiff_t span,
                                         ptrdiff_t step, ptrdiff_t first_column, ptrdiff_t first_input_row, ptrdiff_t dilation_h,
                                         ptrdiff_t input_height, ptrdiff_t image_offset, ptrdiff_t input_row_bytes, int8_t pad) {
    if (span > 16) {
        // Each filter row's span copied, or filled with the padding byte; then the depth padding.
        const ptrdiff_t depth = kh * span;
        for (ptrdiff_t column = column_begin; column < column_end; column++) {
            int8_t *row = output_row + column * row_length;
            const ptrdiff_t column_offset = first_column + (column - column_begin) * step;
            ptrdiff_t destination = 0;
            for (ptrdiff_t ky = 0; ky < kh; ky++) {
                const ptrdiff_t iy = first_input_row + ky * dilation_h;
                if (iy >= 0 && iy < input_height) {
                    lite_copy_masked(source + image_offset + iy * input_row_bytes + column_offset, (uint8_t *)(row + destination), span);
                } else {
                    memset(row + destination, (uint8_t)pad, (size_t)span);
                }
                destination += span;
            }
            if (depth < row_length) memset(row + depth, 0, (size_t)(row_length - depth));
        }
        return;
    }
    // Filter rows of at most 16 bytes (a first layer's 3x3 taps of 3 channels: 9): filter row by filter row, each
    // column's span is one 16-byte load (the bytes past the span cleared; a masked load where 16 bytes would read past
    // `end`) and one store at its place in the column's row, whose bytes past the span are zeros that the next filter
    // row overwrites or that remain as the depth padding. A store that would reach past its row is masked to it.
    const __mmask16 span_mask = (__mmask16)((1u << span) - 1);
    const __m128i span_bytes = _mm_maskz_mov_epi8(span_mask, _mm_set1_epi8(-1));
    for (ptrdiff_t ky = 0; ky < kh; ky++) {
        const ptrdiff_t offset = ky * span;
        const ptrdiff_t room = row_length - offset < 16 ? row_length - offset : 16;
        const __mmask16 store_mask = (__mmask16)((1u << room) - 1);
        const int masked = offset + 16 > row_length;
        int8_t *destination = output_row + column_begin * row_length + offset;
        const ptrdiff_t iy = first_input_row + ky * dilation_h;
        if (iy < 0 || iy >= input_height) {
            const __m128i padding = _mm_maskz_mov_epi8(span_mask, _mm_set1_epi8(pad));
            for (ptrdiff_t column = column_begin; column < column_end; column++) {
                _mm_mask_storeu_epi8(destination, store_mask, padding);
                destination += row_length;
            }
            continue;
        }
        const uint8_t *pointer = source + image_offset + iy * input_row_bytes + first_column;
        for (ptrdiff_t column = column_begin; column < column_end; column++) {
            const __m128i bytes = end - pointer >= 16 ? _mm_and_si128(_mm_loadu_si128((const __m128i *)pointer), span_bytes)
                                                      : _mm_maskz_loadu_epi8(span_mask, pointer);
            if (masked) {
                _mm_mask_storeu_epi8(destination, store_mask, bytes);
            } else {
                _mm_storeu_si128((__m128i *)destination, bytes);
            }
            pointer += step;
            destination += row_length;
        }
    }
    // The depth padding, where the last filter row's store did not reach it (span + padding > 16).
    const ptrdiff_t tail = kh * span;
    if (tail < row_length && (kh - 1) * span + 16 < row_length) {
        for (ptrdiff_t column = column_begin; column < column_end; column++) {
            memset(output_row + column * row_length + tail, 0, (size_t)(row_length - tail));
        }
    }
}

LITE_TARGET_END

#endif
