"""Keras 2 LSTMs as the converter fuses them (UNIDIRECTIONAL_SEQUENCE_LSTM, bidirectional pairs), and hybrid BATCH_MATMUL."""
from .common import case, np, tf


# ---- recurrent layers as TensorFlow's converter emits them (Keras 2 LSTM -> UNIDIRECTIONAL_SEQUENCE_LSTM; a
# Bidirectional layer -> two of them with REVERSE_V2 and CONCATENATION or ADD) ---------------------------------
def keras_sequence_model(time_steps, features, batch, layer_fn):
    inputs = tf.keras.Input(shape=(time_steps, features), batch_size=batch)
    return lambda: tf.keras.Model(inputs, layer_fn(inputs))


def lstm_layer(units, seed, **kwargs):
    return tf.keras.layers.LSTM(units, kernel_initializer=tf.keras.initializers.GlorotUniform(seed=seed),
                                recurrent_initializer=tf.keras.initializers.Orthogonal(seed=seed + 1),
                                bias_initializer=tf.keras.initializers.RandomUniform(-0.5, 0.5, seed=seed + 2), **kwargs)


case("lstm_keras_dynamic_length", [(1, None, 6)], keras=True, run_shapes=[(1, 13, 6)])(
    keras_sequence_model(None, 6, 1, lambda x: lstm_layer(12, 10, return_sequences=True)(x)))
case("lstm_keras_last_output_batch2", [(2, 9, 5)], keras=True)(
    keras_sequence_model(9, 5, 2, lambda x: lstm_layer(7, 20)(x)))
case("lstm_keras_stacked", [(1, 11, 4)], keras=True)(
    keras_sequence_model(11, 4, 1, lambda x: lstm_layer(6, 40, return_sequences=True)(lstm_layer(9, 30, return_sequences=True)(x))))
case("bilstm_keras_concat", [(1, None, 3)], keras=True, run_shapes=[(1, 17, 3)])(
    keras_sequence_model(None, 3, 1, lambda x: tf.keras.layers.Bidirectional(lstm_layer(8, 50, return_sequences=True))(x)))
# Hybrid BATCH_MATMUL (dynamic range: the constant rhs int8 with one scale, each lhs row quantized asymmetrically).
hybrid_rhs = tf.constant(np.random.default_rng(91).normal(0, 0.1, size=(3, 64, 40)).astype(np.float32))
case("hybrid_batch_matmul", [(1, 3, 5, 64)], optimize="dynamic_range", exact=True)(lambda x: tf.matmul(x, hybrid_rhs))
case("hybrid_batch_matmul_broadcast_lhs", [(1, 1, 7, 64)], optimize="dynamic_range", exact=True)(lambda x: tf.matmul(x, hybrid_rhs))
case("hybrid_batch_matmul_adjoints", [(3, 64, 6)], optimize="dynamic_range", exact=True)(
    lambda x: tf.matmul(x, tf.transpose(hybrid_rhs, [0, 2, 1]), transpose_a=True, transpose_b=True))
# float16 weights: DEQUANTIZE nodes also write the LSTM's state variables once (their initial value).
case("lstm_keras_float16_weights", [(1, 8, 5)], keras=True, optimize="float16")(
    keras_sequence_model(8, 5, 1, lambda x: lstm_layer(6, 110, return_sequences=True)(x)))
case("bilstm_keras_sum_last", [(1, 10, 4)], keras=True)(
    keras_sequence_model(10, 4, 1, lambda x: tf.keras.layers.Bidirectional(lstm_layer(5, 60), merge_mode="sum")(x)))
