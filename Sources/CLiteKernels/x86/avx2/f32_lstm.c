#if defined(__x86_64__)

#include <immintrin.h>
#include <math.h>
#include <string.h>

#include "../isa_targets.h"
#include "../../include/lite_f32_lstm.h"

LITE_TARGET_AVX2_BEGIN

#include "f32_vmath8.h"

/// `gate[c] += peephole[c] · cell[c]`, the product rounded before the sum.
static inline void lite_lstm_peephole(float *gate, const float *peephole, const float *cell, size_t count) {
    size_t c = 0;
    for (; c + 8 <= count; c += 8) {
        const __m256 product = _mm256_mul_ps(_mm256_loadu_ps(peephole + c), _mm256_loadu_ps(cell + c));
        _mm256_storeu_ps(gate + c, _mm256_add_ps(_mm256_loadu_ps(gate + c), product));
    }
    for (; c < count; c++) gate[c] += peephole[c] * cell[c];
}

/// `FloatLSTM.finishGate`: layer norm (when `norm`), then the bias (when `bias`).
static inline void lite_lstm_finish_gate(float *gate, size_t count, const float *norm, const float *bias) {
    if (norm) {
        // The sums one value after another, as the Swift loop adds them.
        float sum = 0, sum_squares = 0;
        for (size_t c = 0; c < count; c++) {
            sum += gate[c];
            sum_squares += gate[c] * gate[c];
        }
        const float mean = sum / (float)count;
        const float variance = sum_squares / (float)count - mean * mean;
        const float inverse = 1.0f / sqrtf(variance + 1e-8f);
        const __m256 mean8 = _mm256_set1_ps(mean), inverse8 = _mm256_set1_ps(inverse);
        size_t c = 0;
        for (; c + 8 <= count; c += 8) {
            const __m256 centred = _mm256_sub_ps(_mm256_loadu_ps(gate + c), mean8);
            _mm256_storeu_ps(gate + c, _mm256_mul_ps(_mm256_mul_ps(centred, inverse8), _mm256_loadu_ps(norm + c)));
        }
        for (; c < count; c++) gate[c] = (gate[c] - mean) * inverse * norm[c];
    }
    if (bias) {
        size_t c = 0;
        for (; c + 8 <= count; c += 8) _mm256_storeu_ps(gate + c, _mm256_add_ps(_mm256_loadu_ps(gate + c), _mm256_loadu_ps(bias + c)));
        for (; c < count; c++) gate[c] += bias[c];
    }
}

/// The sigmoid of `count` floats in place, as `lite_f32_sigmoid__avx2` computes it.
static inline void lite_lstm_sigmoid(float *values, size_t count) {
    size_t c = 0;
    for (; c + 8 <= count; c += 8) _mm256_storeu_ps(values + c, lite_sigmoid8(_mm256_loadu_ps(values + c)));
    if (c < count) {
        float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        memcpy(lanes, values + c, (count - c) * sizeof(float));
        _mm256_storeu_ps(lanes, lite_sigmoid8(_mm256_loadu_ps(lanes)));
        memcpy(values + c, lanes, (count - c) * sizeof(float));
    }
}

/// tanh of `count` floats in place, as `lite_f32_tanh__avx2` computes it.
static inline void lite_lstm_tanh(float *values, size_t count) {
    size_t c = 0;
    for (; c + 8 <= count; c += 8) _mm256_storeu_ps(values + c, lite_tanh8(_mm256_loadu_ps(values + c)));
    if (c < count) {
        float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        memcpy(lanes, values + c, (count - c) * sizeof(float));
        _mm256_storeu_ps(lanes, lite_tanh8(_mm256_loadu_ps(lanes)));
        memcpy(values + c, lanes, (count - c) * sizeof(float));
    }
}

/// `v < −clip ? −clip : v`, then `> clip ? clip`, NaN kept (Swift's `min(max(v, −clip), clip)`).
static inline float lite_lstm_clip(float v, float clip) {
    const float x = -clip >= v ? -clip : v;
    return clip < x ? clip : x;
}

void lite_f32_lstm_step__avx2(const lite_f32_lstm_cell *cell, size_t batches, float *gates, float *cell_state,
                              float *hidden, size_t hidden_stride) {
    const size_t count = cell->cells;
    const float clip = cell->cell_clip;
    const int has_input = cell->has_input_gate;
    const __m256 one = _mm256_set1_ps(1.0f), high = _mm256_set1_ps(clip), low = _mm256_set1_ps(-clip);
    for (size_t b = 0; b < batches; b++) {
        float *input = gates + b * 4 * count, *forget = input + count, *update = forget + count, *output = update + count;
        float *state = cell_state + b * count, *h = hidden + b * hidden_stride;
        if (has_input && cell->input_peephole) lite_lstm_peephole(input, cell->input_peephole, state, count);
        if (cell->forget_peephole) lite_lstm_peephole(forget, cell->forget_peephole, state, count);
        if (has_input) lite_lstm_finish_gate(input, count, cell->input_norm, cell->input_bias);
        lite_lstm_finish_gate(forget, count, cell->forget_norm, cell->forget_bias);
        lite_lstm_finish_gate(update, count, cell->cell_norm, cell->cell_bias);
        lite_lstm_sigmoid(forget, count);
        if (has_input) lite_lstm_sigmoid(input, count);
        lite_lstm_tanh(update, count);
        // c = f · c_prev + i · g, clipped.
        size_t c = 0;
        for (; c + 8 <= count; c += 8) {
            const __m256 f = _mm256_loadu_ps(forget + c);
            const __m256 i = has_input ? _mm256_loadu_ps(input + c) : _mm256_sub_ps(one, f);
            __m256 value = _mm256_add_ps(_mm256_mul_ps(f, _mm256_loadu_ps(state + c)), _mm256_mul_ps(i, _mm256_loadu_ps(update + c)));
            // max returns its second operand when either is NaN, min too: NaN passes as in the scalar clip.
            if (clip > 0) value = _mm256_min_ps(high, _mm256_max_ps(low, value));
            _mm256_storeu_ps(state + c, value);
        }
        for (; c < count; c++) {
            const float i = has_input ? input[c] : 1 - forget[c];
            float value = forget[c] * state[c] + i * update[c];
            if (clip > 0) value = lite_lstm_clip(value, clip);
            state[c] = value;
        }
        if (cell->output_peephole) lite_lstm_peephole(output, cell->output_peephole, state, count);
        lite_lstm_finish_gate(output, count, cell->output_norm, cell->output_bias);
        lite_lstm_sigmoid(output, count);
        // h = tanh(c) · o.
        c = 0;
        for (; c + 8 <= count; c += 8) {
            _mm256_storeu_ps(h + c, _mm256_mul_ps(lite_tanh8(_mm256_loadu_ps(state + c)), _mm256_loadu_ps(output + c)));
        }
        if (c < count) {
            float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            memcpy(lanes, state + c, (count - c) * sizeof(float));
            _mm256_storeu_ps(lanes, lite_tanh8(_mm256_loadu_ps(lanes)));
            for (size_t k = 0; c + k < count; k++) h[c + k] = lanes[k] * output[c + k];
        }
    }
}

LITE_TARGET_END

#endif
