#ifndef LITE_F32_LSTM_H
#define LITE_F32_LSTM_H

#include <stddef.h>

/// The per-step constants of a float LSTM cell whose cell activation is tanh (lstm_eval.cc's float path, as
/// LiteEngine's `FloatLSTM` runs it): `cells` values per gate; each gate's bias and layer-norm weights ([cells], NULL
/// for none: without layer norm every `*_norm` is NULL), the peepholes of the input, forget and output gates (NULL for
/// none), `cell_clip` (> 0 clips the cell state to ±cell_clip, 0 does not) and whether the cell has an input gate
/// (0: CIFG, the input gate is 1 − forget gate, and the input slots of `gates`, bias, norm and peephole are unused).
typedef struct lite_f32_lstm_cell {
    size_t cells;
    const float *input_bias, *forget_bias, *cell_bias, *output_bias;
    const float *input_norm, *forget_norm, *cell_norm, *output_norm;
    const float *input_peephole, *forget_peephole, *output_peephole;
    float cell_clip;
    int has_input_gate;
} lite_f32_lstm_cell;

/// A level's LSTM step kernel (``lite_f32_lstm_step__avx2``).
typedef void (*lite_f32_lstm_step_fn)(const lite_f32_lstm_cell *cell, size_t batches, float *gates, float *cell_state,
                                      float *hidden, size_t hidden_stride);

#if defined(__x86_64__)

/// One time step's gate arithmetic for `batches` rows, after the matrix products: `gates` holds, row after row, the
/// four gates' pre-activations i, f, c, o (`4 · cells` floats a row: W_x·x + W_h·h), `cell_state` the previous cell
/// states (`cells` a row), updated in place; row b's new hidden state (before any projection) goes to
/// `hidden + b · hidden_stride`. Per row, as `FloatLSTM.run`'s Swift loop and in its order: i += p_i ⊙ c_prev and
/// f += p_f ⊙ c_prev (peepholes); each of i, f, c layer-normalised when it has norm weights (sum and sum of squares
/// added one value after another, `(x − mean) · (1 / sqrt(var + 1e-8)) · w`) and biased; f and i through the sigmoid,
/// c through tanh (`lite_f32_sigmoid__avx2`'s and `lite_f32_tanh__avx2`'s lanes, the last `cells % 8` in a zero-padded
/// register); c_new = f · c_prev + i · g (i = 1 − f without an input gate), clipped to ±cell_clip (NaN passes);
/// o += p_o ⊙ c_new, normalised, biased, sigmoid; h = tanh(c_new) · o. Every operation rounded on its own (no fused
/// multiply-adds outside the sigmoid's polynomial), so the values are those of the Swift loop with the AVX2 sigmoid
/// and tanh kernels. `gates` is overwritten.
void lite_f32_lstm_step__avx2(const lite_f32_lstm_cell *cell, size_t batches, float *gates, float *cell_state,
                              float *hidden, size_t hidden_stride);

#endif

#endif
