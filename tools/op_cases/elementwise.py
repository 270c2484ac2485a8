"""Float elementwise ops: binary arithmetic with broadcasts, activations, softmax, PRELU."""
from .common import benchmark, case, const, tf


# ---- elementwise -----------------------------------------------------------------------------------------
bias_c = const(3)
other = const(2, 1, 3)
for opname, fn in [("add", tf.add), ("sub", tf.subtract), ("mul", tf.multiply), ("squared_difference", tf.math.squared_difference),
                   ("minimum", tf.minimum), ("maximum", tf.maximum)]:
    case(f"{opname}_same_shape", [(1, 4, 5, 3), (1, 4, 5, 3)])(lambda x, y, fn=fn: fn(x, y))
    case(f"{opname}_broadcast", [(2, 4, 3)])(lambda x, fn=fn: fn(x, other))
    case(f"{opname}_channel_vector", [(1, 3, 5, 3)])(lambda x, fn=fn: fn(bias_c, x))
case("add_broadcast_4d_relu", [(1, 1, 5, 1), (2, 3, 1, 4)])(lambda x, y: tf.nn.relu(x + y))
case("mul_scalar_relu6", [(1, 6, 6, 5)])(lambda x: tf.nn.relu6(x * 3.0))
case("div", [(2, 3, 4), (2, 3, 4)], low=0.5, high=3.0)(lambda x, y: x / y)
case("div_broadcast", [(2, 3, 4)], low=0.5, high=3.0)(lambda x: x / tf.constant([1.5, -2.0, 0.75, 3.0]))
for opname, fn, lo, hi in [("relu", tf.nn.relu, -2, 2), ("relu6", tf.nn.relu6, -3, 9), ("relu_n1_to_1", lambda x: tf.clip_by_value(x, -1.0, 1.0), -2, 2),
                           ("logistic", tf.sigmoid, -8, 8), ("tanh", tf.tanh, -4, 4), ("exp", tf.exp, -5, 5),
                           ("sqrt", tf.sqrt, 0.01, 9), ("rsqrt", tf.math.rsqrt, 0.05, 9), ("abs", tf.abs, -3, 3),
                           ("leaky_relu", lambda x: tf.nn.leaky_relu(x, alpha=0.15), -3, 3),
                           ("hard_swish", lambda x: x * tf.nn.relu6(x + 3.0) / 6.0, -5, 5),
                           ("log_softmax", tf.nn.log_softmax, -4, 4), ("softmax", tf.nn.softmax, -4, 4)]:
    case(opname, [(2, 5, 7, 3)], low=lo, high=hi)(lambda x, fn=fn: fn(x))
case("softmax_wide", [(3, 1001)], low=-6, high=6)(lambda x: tf.nn.softmax(x))
# Large enough (over 8,192 elements) that the elementwise loops split over two threads in the tests.
case("add_same_shape_relu_large", [(1, 32, 33, 9), (1, 32, 33, 9)])(lambda x, y: tf.nn.relu(x + y))
case("tanh_large", [(1, 32, 33, 9)], low=-4, high=4)(lambda x: tf.tanh(x))


@case("prelu", [(1, 4, 4, 3)], keras=True)
def prelu():
    inputs = tf.keras.Input(shape=(4, 4, 3), batch_size=1)
    layer = tf.keras.layers.PReLU(alpha_initializer=tf.constant_initializer([0.1, 0.25, -0.5]), shared_axes=[1, 2])
    return tf.keras.Model(inputs, layer(inputs))


@case("prelu_channel_slopes", [(1, 6, 7, 19)], keras=True)
def prelu_channel_slopes():
    """One slope per channel, as MediaPipe's models have it: 19 channels are two vectors of 8 and three alone."""
    inputs = tf.keras.Input(shape=(6, 7, 19), batch_size=1)
    layer = tf.keras.layers.PReLU(alpha_initializer=tf.keras.initializers.RandomUniform(-0.5, 0.5, seed=5), shared_axes=[1, 2])
    return tf.keras.Model(inputs, layer(inputs))


@case("prelu_elementwise_alpha", [(1, 3, 5, 2)], keras=True)
def prelu_full():
    inputs = tf.keras.Input(shape=(3, 5, 2), batch_size=1)
    layer = tf.keras.layers.PReLU(alpha_initializer=tf.keras.initializers.RandomUniform(-0.5, 0.5, seed=3))
    return tf.keras.Model(inputs, layer(inputs))

# A residual ADD and then a PRELU with one slope per channel (MediaPipe's palm, iris and face landmark blocks), on a
# layer large enough to split over threads, with the sum also an output, and with a resizable batch.
def _add_then_prelu(shape, seed, sum_is_an_output=False, batch=1):
    x, y = tf.keras.Input(shape=shape, batch_size=batch), tf.keras.Input(shape=shape, batch_size=batch)
    total = tf.keras.layers.Add()([x, y])
    layer = tf.keras.layers.PReLU(alpha_initializer=tf.keras.initializers.RandomUniform(-0.5, 0.5, seed=seed), shared_axes=[1, 2])
    return tf.keras.Model([x, y], [layer(total), total] if sum_is_an_output else layer(total))


case("prelu_after_add", [(1, 9, 10, 19), (1, 9, 10, 19)], keras=True)(lambda: _add_then_prelu((9, 10, 19), 11))
case("prelu_after_add_large", [(1, 24, 25, 32), (1, 24, 25, 32)], keras=True)(lambda: _add_then_prelu((24, 25, 32), 12))
case("prelu_after_add_sum_is_an_output", [(1, 5, 6, 8), (1, 5, 6, 8)], keras=True)(
    lambda: _add_then_prelu((5, 6, 8), 13, sum_is_an_output=True))
case("prelu_after_add_resized", [(None, 4, 5, 16), (None, 4, 5, 16)], keras=True, run_shapes=[(3, 4, 5, 16), (3, 4, 5, 16)])(
    lambda: _add_then_prelu((4, 5, 16), 14, batch=None))

# Op benchmark: a classifier's 1,001 scores.
benchmark("softmax 1001", "SOFTMAX", input=[1, 1001])
