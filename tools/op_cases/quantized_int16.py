"""16x8 quantization: int16 activations, int8 weights, int64 biases."""
from .common import case, np, tf
from .quantized_int8 import q_tconv_b, q_tconv_w


# ---- 16x8 quantization: int16 activations, int8 weights, int64 biases (the converter's
# EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8; symmetric int16, zero points 0) ----------------------
def q16case(name, shapes, fn, low=-2.0, high=2.0, io="int16"):
    case(name, shapes, low=low, high=high, optimize=f"quantize16x8_{io}")(fn)


q16_rng = np.random.default_rng(1616)


def q16const(*shape, scale=0.5):
    return tf.constant(q16_rng.normal(0, scale, size=shape).astype(np.float32))


q16_other = q16const(1, 1, 3)
q16case("q16_add_same_shape", [(1, 4, 5, 3), (1, 4, 5, 3)], lambda x, y: x + y)
q16case("q16_add_long", [(1, 7, 9, 5), (1, 7, 9, 5)], lambda x, y: tf.nn.relu(x + 0.7 * y))
q16case("q16_add_broadcast_relu", [(1, 4, 5, 3)], lambda x: tf.nn.relu(x + q16_other))
# 65,536 sums with scales about 2.7 apart: LiteRT's int16 ADD rescales the inputs with one rounding (NEON's shift and
# rounding high multiply, emulated on x86) in whole groups of 16, where TFLite's reference rounds twice; near output ties
# the two differ (ResNet50 16x8: 1 of 401,408 sums). SUB alike.
# MAXIMUM and MINIMUM of int16 values (Keras' Maximum/Minimum layers in 16x8), compared as stored, as maximum_minimum.cc.
q16case("q16_gelu", [(2, 9, 24)], lambda x: tf.nn.gelu(x), low=-5, high=5)
q16case("q16_gelu_approximate", [(2, 9, 24)], lambda x: tf.nn.gelu(x, approximate=True), low=-5, high=5)
q16case("q16_reduce_max_min", [(2, 7, 9)], lambda x: (tf.reduce_max(x, axis=1), tf.reduce_min(x, axis=[0, 2], keepdims=True)))
q16case("q16_maximum_minimum", [(1, 5, 6, 4), (1, 5, 6, 4)], lambda x, y: tf.maximum(x, y) + tf.minimum(x, 0.5 * y))
q16case("q16_add_large", [(1, 64, 64, 16), (1, 64, 64, 16)], lambda x, y: x + 0.37 * y)
q16case("q16_sub_large", [(1, 64, 64, 16), (1, 64, 64, 16)], lambda x, y: x - 0.37 * y)
q16case("q16_sub_same_shape", [(1, 4, 5, 3), (1, 4, 5, 3)], lambda x, y: x - y)
q16case("q16_sub_broadcast", [(1, 4, 5, 3)], lambda x: x - q16_other)
q16case("q16_mul_same_shape", [(1, 4, 5, 3), (1, 4, 5, 3)], lambda x, y: x * y)
q16case("q16_mul_broadcast", [(1, 4, 5, 3)], lambda x: x * q16_other)
q16_conv_w, q16_conv_b = q16const(3, 3, 4, 8), q16const(8)
q16case("q16_conv_per_channel_relu6", [(1, 9, 9, 4)], lambda x: tf.nn.relu6(tf.nn.bias_add(tf.nn.conv2d(x, q16_conv_w, 1, "SAME"), q16_conv_b)))
q16case("q16_conv_stride2_valid", [(2, 8, 7, 4)], lambda x: tf.nn.conv2d(x, q16_conv_w, 2, "VALID"))
# ABS in 16x8 (elementwise.cc's AbsEvalQuantized for int16: symmetric, tabulated here); every stored value reached.
q16case("q16_abs", [(8, 512)], lambda x: (tf.abs(x), tf.abs(x - 0.5) * 0.75), low=-3.0, high=3.0)
# LOG in 16x8 (TFLite's interpolated int16 table of logf); the input range from the calibration, all positive, and the
# same table over a range that crosses zero (log of the values at and below zero).
q16case("q16_log", [(8, 512)], lambda x: tf.math.log(x), low=0.05, high=4.0)
q16case("q16_log_through_zero", [(8, 512)], lambda x: tf.math.log(x), low=-1.0, high=3.0)
# EXP in 16x8 (exp.cc's interpolated int16 table of expf).
q16case("q16_exp", [(8, 512)], lambda x: tf.exp(x), low=-4.0, high=2.0)
# RSQRT in 16x8 (elementwise.cc's interpolated int16 table of 1/sqrt, the output's largest value at zero) on every
# eighth stored value from 0 up (a negative one is an error in LiteRT, and here).
case("q16_rsqrt", [(8, 512)], low=0.05, high=4.0, optimize="quantize16x8_int16", inputs=[np.arange(0, 32768, 8).reshape(8, 512)])(
    lambda x: tf.math.rsqrt(x))
q16case("q16_reduce_prod_last_axis", [(3, 4, 5)], lambda x: tf.reduce_prod(x, axis=-1), low=-1.6, high=1.6)
q16case("q16_reduce_prod_axes_0_2", [(3, 4, 2)], lambda x: tf.reduce_prod(x, axis=[0, 2]), low=0.4, high=1.8)
q16_dw_w, q16_dw_b = q16const(3, 3, 6, 2), q16const(12)
q16case("q16_depthwise_multiplier2_relu", [(1, 8, 8, 6)], lambda x: tf.nn.relu(tf.nn.depthwise_conv2d(x, q16_dw_w, [1, 2, 2, 1], "SAME") + q16_dw_b))
q16_fc_w, q16_fc_b = q16const(20, 12), q16const(12)
q16case("q16_fully_connected", [(3, 20)], lambda x: tf.matmul(x, q16_fc_w) + q16_fc_b)
q16case("q16_mean_hw", [(1, 7, 7, 16)], lambda x: tf.reduce_mean(x, axis=[1, 2]))
q16case("q16_mean_hw_keepdims", [(2, 5, 6, 40)], lambda x: tf.reduce_mean(x, axis=[1, 2], keepdims=True))
q16case("q16_mean_last_axis", [(3, 4, 10)], lambda x: tf.reduce_mean(x, axis=-1))
q16case("q16_softmax", [(3, 10)], tf.nn.softmax, low=-4, high=4)
q16case("q16_logistic", [(2, 5, 7)], tf.sigmoid, low=-6, high=6)
q16case("q16_tanh", [(2, 5, 7)], tf.tanh, low=-3, high=3)
q16case("q16_average_pool", [(1, 8, 9, 5)], lambda x: tf.nn.avg_pool2d(x, 2, 2, "VALID"))
q16case("q16_max_pool", [(1, 9, 7, 6)], lambda x: tf.nn.max_pool2d(x, 3, 2, "SAME"))
q16case("q16_max_pool_wide", [(1, 10, 9, 20)], lambda x: tf.nn.max_pool2d(x, 3, 1, "SAME"))
q16case("q16_concatenation_scales", [(1, 4, 4, 3), (1, 4, 4, 5)], lambda x, y: tf.concat([x, 3.0 * y], axis=3))
q16case("q16_pad", [(1, 3, 4, 2)], lambda x: tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]]))
q16case("q16_transpose_reshape", [(2, 3, 4, 5)], lambda x: tf.reshape(tf.transpose(x, [0, 3, 1, 2]), [2, 5, 12]))
q16case("q16_strided_slice", [(4, 6, 5)], lambda x: x[1:3, ::2, 1:4])
q16case("q16_leaky_relu", [(2, 5, 7)], lambda x: tf.nn.leaky_relu(x, 0.2))
q16case("q16_relu6", [(2, 5, 7)], tf.nn.relu6, low=-3, high=8)
q16case("q16_resize_bilinear", [(1, 5, 7, 3)], lambda x: tf.compat.v1.image.resize_bilinear(x, (9, 4)))
q16case("q16_batch_matmul", [(2, 5, 6), (2, 6, 4)], lambda x, y: tf.matmul(x, y))
q16case("q16_float_io_conv", [(1, 6, 6, 4)], lambda x: tf.nn.conv2d(x, q16_conv_w, 1, "VALID"), io="float32")
q16case("q16_transpose_conv_stride2_same_bias", [(1, 4, 5, 6)],
        lambda x: tf.nn.bias_add(tf.nn.conv2d_transpose(x, q_tconv_w, output_shape=[1, 8, 10, 5], strides=2, padding="SAME"), q_tconv_b))
# Every entry of the sigmoid table and of the softmax tables is reached: 4,096 values over the whole int16 range.
q16case("q16_logistic_dense", [(64, 64)], tf.sigmoid, low=-12, high=12)
q16case("q16_tanh_dense", [(64, 64)], tf.tanh, low=-6, high=6)
q16case("q16_softmax_wide", [(8, 512)], tf.nn.softmax, low=-12, high=12)


def q16_small_cnn():
    """A 16x8 classifier with the layers of MobileNetV2 and EfficientNet (BN folded into convolutions, ReLU6, depthwise,
    a residual ADD, swish as LOGISTIC and MUL, global average pool, dense, softmax), weights from its own generator."""
    import tf_keras as keras
    keras.utils.set_random_seed(1616)
    x = inputs = keras.Input((16, 16, 3), batch_size=1)
    x = keras.layers.Conv2D(16, 3, strides=2, padding="same")(x)
    x = keras.layers.BatchNormalization()(x, training=False)
    x = keras.layers.ReLU(6.0)(x)
    y = keras.layers.DepthwiseConv2D(3, padding="same")(x)
    y = keras.layers.Activation("swish")(y)
    y = keras.layers.Conv2D(16, 1)(y)
    x = keras.layers.Add()([x, y])
    x = keras.layers.GlobalAveragePooling2D()(x)
    x = keras.layers.Dense(10)(x)
    return keras.Model(inputs, keras.layers.Softmax()(x))


case("q16_small_cnn", [(1, 16, 16, 3)], keras=True, optimize="quantize16x8_float32", low=-1.0, high=1.0)(q16_small_cnn)
