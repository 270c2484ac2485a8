"""Comparisons, logic, run-time slices, WHILE loops (tf.while_loop and Keras 3 recurrent layers)."""
from .common import case, tf


# ---- comparisons, logic and control flow ----------------------------------------------------------------
case("comparisons_broadcast", [(2, 3, 4), (3, 1)])(
    lambda x, y: tf.cast(tf.less(x, y), tf.float32) + 2 * tf.cast(tf.greater_equal(x, y), tf.float32)
    + 4 * tf.cast(tf.less_equal(y, x), tf.float32) + 8 * tf.cast(tf.greater(y, 0.5), tf.float32))
case("comparisons_int32_equality", [(4, 5), (4, 5)], low=-3.0, high=3.0)(
    lambda x, y: tf.cast(tf.equal(tf.cast(x, tf.int32), tf.cast(y, tf.int32)), tf.float32)
    - tf.cast(tf.not_equal(tf.cast(x, tf.int32), 1), tf.float32))
# Integer arithmetic, as index computations do it: int32 and int64 ADD and SUB with broadcasting.
case("add_sub_integers", [(3, 4), (1, 4)], low=-5.0, high=5.0)(
    lambda x, y: tf.cast(tf.cast(x * 10, tf.int32) - tf.cast(y * 10, tf.int32) + tf.cast(y, tf.int32), tf.float32)
    + tf.cast(tf.cast(x * 1000, tf.int64) + tf.cast(y * 7, tf.int64) - tf.cast(x, tf.int64), tf.float32))
case("logical_ops", [(3, 6), (1, 6)])(
    lambda x, y: tf.cast(tf.logical_or(tf.logical_not(x > 0), tf.logical_and(y < 0.5, x < 1.0)), tf.float32)
    + 2 * tf.cast(tf.logical_not(tf.logical_and(x > -0.5, y > 0)), tf.float32))
# SLICE whose begin the model computes (data-dependent cropping): the size is constant, the begin read at run time.
case("slice_begin_at_run_time", [(4, 5), (2,)], low=0.0, high=0.99)(
    lambda x, y: tf.slice(x, tf.cast(y * 2.0, tf.int32), [2, 3]))
# tf.while_loop becomes WHILE with condition and body subgraphs: a counted loop, and one whose condition reads the data.
case("while_counted", [(3,)])(
    lambda x: tf.while_loop(lambda i, v: i < 5, lambda i, v: (i + 1, v * 1.5 + 0.25), [tf.constant(0), x])[1])
# A body whose PAD takes paddings computed from the loop counter: the same shapes every step, other values.
case("while_pad_follows_counter", [(2,)])(
    lambda x: tf.while_loop(lambda i, acc: i < 5, lambda i, acc: (i + 1, acc + tf.pad(x * tf.cast(i + 1, tf.float32), [[i, 4 - i]])),
                            [tf.constant(0), tf.zeros([6])])[1])
# A body that returns its inputs swapped: its outputs are its own inputs, so each step's values must be read before
# the next step's inputs are written. LiteRT 2.3 copies them one by one and gives both variables the same value.
case("while_swaps_variables", [(3,)], tensorflow_reference="LiteRT copies the swapped body outputs into the body's inputs one by one, "
     "so the second copy reads a value the first has overwritten (both variables end equal)")(
    lambda x: (lambda r: r[1] + 10.0 * r[2])(tf.while_loop(lambda i, a, b: i < 5, lambda i, a, b: (i + 1, b, a), [tf.constant(0), x, x * 2.0 + 1.0])))
case("while_data_dependent", [(2, 4)], low=0.1, high=1.0)(
    lambda x: tf.while_loop(lambda i, v: tf.logical_and(i < 40, tf.reduce_max(v) < 20.0),
                            lambda i, v: (i + 1, v * 1.3 + 0.1), [tf.constant(0), x])[1])


def keras3_recurrent(time_steps, features, layer):
    """A Keras 3 recurrent layer (the `keras` package, not tf_keras) and a Dense(3): the converter writes a WHILE
    loop over its cell. `layer(keras)` makes the layer."""
    def build():
        import keras as keras3
        keras3.utils.set_random_seed(7)
        model = keras3.Sequential([keras3.Input((time_steps, features), batch_size=1), layer(keras3), keras3.layers.Dense(3)])
        return tf.lite.TFLiteConverter.from_keras_model(model).convert()
    return build


case("while_keras3_lstm", [(1, 10, 8)], built=True, low=-1.0, high=1.0)(keras3_recurrent(10, 8, lambda k: k.layers.LSTM(16)))
case("while_keras3_lstm_sequences", [(1, 6, 5)], built=True, low=-1.0, high=1.0)(
    keras3_recurrent(6, 5, lambda k: k.layers.LSTM(7, return_sequences=True)))
case("while_keras3_gru", [(1, 7, 4)], built=True, low=-1.0, high=1.0)(keras3_recurrent(7, 4, lambda k: k.layers.GRU(12)))
case("while_keras3_gru_sequences", [(1, 7, 4)], built=True, low=-1.0, high=1.0)(
    keras3_recurrent(7, 4, lambda k: k.layers.GRU(5, return_sequences=True)))
case("while_keras3_simple_rnn", [(1, 7, 4)], built=True, low=-1.0, high=1.0)(keras3_recurrent(7, 4, lambda k: k.layers.SimpleRNN(10)))
case("while_keras3_bidirectional_lstm", [(1, 7, 4)], built=True, low=-1.0, high=1.0)(
    keras3_recurrent(7, 4, lambda k: k.layers.Bidirectional(k.layers.LSTM(6))))
# Sequences written by TensorListSetItem, which the engine fuses: backwards (the index counts down), in both
# directions, and two layers deep (the second loop reads the first one's written buffer).
case("while_keras3_simple_rnn_backwards_sequences", [(1, 6, 3)], built=True, low=-1.0, high=1.0)(
    keras3_recurrent(6, 3, lambda k: k.layers.SimpleRNN(5, return_sequences=True, go_backwards=True)))
case("while_keras3_bidirectional_lstm_sequences", [(1, 5, 3)], built=True, low=-1.0, high=1.0)(
    keras3_recurrent(5, 3, lambda k: k.layers.Bidirectional(k.layers.LSTM(4, return_sequences=True))))
case("while_keras3_stacked_lstm_sequences", [(1, 6, 3)], built=True, low=-1.0, high=1.0)(
    keras3_recurrent(6, 3, lambda k: k.Sequential([k.layers.LSTM(5, return_sequences=True), k.layers.LSTM(4, return_sequences=True)])))
