#ifndef LITE_S8_DOT_H
#define LITE_S8_DOT_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
/// `sums[r] = Σ_c x[c]·w[r·columns + c]` for `rows` rows of int8 weights against one int8 vector, in int32. Every
/// product is at most 2^14 in magnitude, so a sum is exact for fewer than 2^17 columns; the order of the additions
/// does not matter for integers, so the result equals a scalar loop's. AVX2: 16 columns per step, widened to
/// int16 and multiplied pairwise into int32 lanes (`vpmaddwd`).
void lite_s8_dot_rows__avx2(const int8_t *x, const int8_t *w, ptrdiff_t rows, ptrdiff_t columns, int32_t *sums);

/// The integer LSTM's gate product (TFLite's `MatrixBatchVectorMultiplyAccumulate` into int16, one batch row):
/// `out[r] = sat16(MultiplyByQuantizedMultiplier(bias[r] + Σ_c x[c]·w[r·columns + c], multiplier, shift) + prior)`,
/// where `prior` is `out[r]` when `accumulate` is nonzero, else 0. The rescale is TFLite's double rounding, exactly;
/// needs multiplier ≥ 0 and -31 ≤ shift ≤ 30. Eight rows per step; the last `rows % 8` through 8-lane buffers.
void lite_s8_matvec_s16__avx2(const int8_t *x, const int8_t *w, const int32_t *bias, ptrdiff_t rows, ptrdiff_t columns,
                              int32_t multiplier, int32_t shift, int16_t *out, int accumulate);
#endif

#endif
