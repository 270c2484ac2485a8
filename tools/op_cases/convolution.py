"""CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV as the converter emits them."""
from .common import benchmark, case, const, tf


# ---- convolution family -------------------------------------------------------------------------------
def conv_case(name, shape, kh, kw, cin, cout, strides, padding, dilations=1, act=None, bias=True):
    w, b = const(kh, kw, cin, cout), const(cout)

    @case(name, [shape])
    def f(x):
        y = tf.nn.conv2d(x, w, strides=strides, padding=padding, dilations=dilations)
        if bias:
            y = tf.nn.bias_add(y, b)
        return act(y) if act else y


conv_case("conv_3x3_same_relu", (1, 9, 9, 3), 3, 3, 3, 8, 1, "SAME", act=tf.nn.relu)
conv_case("conv_3x3_stride2_same_relu6", (1, 10, 11, 4), 3, 3, 4, 16, 2, "SAME", act=tf.nn.relu6)
conv_case("conv_3x3_valid_dilation2", (1, 12, 12, 5), 3, 3, 5, 7, 1, "VALID", dilations=2)
conv_case("conv_1x1", (1, 8, 8, 24), 1, 1, 24, 40, 1, "SAME")
conv_case("conv_2x3_batch2_stride21", (2, 7, 5, 3), 2, 3, 3, 6, (2, 1), "VALID", act=tf.nn.relu)
conv_case("conv_5x5_same_relu_n1_to_1", (1, 6, 6, 2), 5, 5, 2, 3, 1, "SAME", act=lambda y: tf.clip_by_value(y, -1.0, 1.0))
conv_case("conv_1x1_stride2", (1, 9, 9, 8), 1, 1, 8, 4, 2, "SAME")


def depthwise_case(name, shape, k, mult, strides, padding, dilations=1, act=None):
    c = shape[-1]
    w, b = const(k, k, c, mult), const(c * mult)

    @case(name, [shape])
    def f(x):
        y = tf.nn.depthwise_conv2d(x, w, strides=[1, strides, strides, 1], padding=padding, dilations=[dilations, dilations])
        y = tf.nn.bias_add(y, b)
        return act(y) if act else y


depthwise_case("depthwise_3x3_same_relu6", (1, 9, 9, 32), 3, 1, 1, "SAME", act=tf.nn.relu6)
depthwise_case("depthwise_3x3_stride2_same", (1, 11, 10, 20), 3, 1, 2, "SAME")
depthwise_case("depthwise_multiplier2", (1, 7, 7, 3), 3, 2, 1, "SAME", act=tf.nn.relu)
depthwise_case("depthwise_dilation2_valid", (1, 12, 12, 17), 3, 1, 1, "VALID", dilations=2)
depthwise_case("depthwise_5x5_stride2_valid", (2, 13, 13, 8), 5, 1, 2, "VALID")
# The shapes of the shared-column kernels (avx512 level): rows 8 pixels at a time with the last 8 overlapping, 4 at a
# time (rows 4-7 wide), one at a time (narrower), channels past a multiple of 16, edges on every side.
depthwise_case("depthwise_5x5_same_relu6_37_channels", (1, 14, 13, 37), 5, 1, 1, "SAME", act=tf.nn.relu6)
depthwise_case("depthwise_7x7_stride2_same", (1, 15, 15, 20), 7, 1, 2, "SAME")
depthwise_case("depthwise_5x5_7x7_maps_batch2", (2, 7, 7, 24), 5, 1, 1, "SAME", act=tf.nn.relu)
depthwise_case("depthwise_5x5_stride2_same_relu", (1, 20, 21, 33), 5, 1, 2, "SAME", act=tf.nn.relu)
depthwise_case("depthwise_3x3_3x3_map", (1, 3, 3, 5), 3, 1, 1, "SAME")
depthwise_case("depthwise_7x7_valid", (1, 12, 19, 16), 7, 1, 1, "VALID")


def transpose_conv_case(name, shape, k, cout, stride, padding, out_hw):
    cin = shape[-1]
    w = const(k, k, cout, cin)

    @case(name, [shape])
    def f(x):
        return tf.nn.conv2d_transpose(x, w, output_shape=[shape[0], out_hw[0], out_hw[1], cout], strides=stride, padding=padding)


transpose_conv_case("transpose_conv_stride2_same", (1, 4, 5, 6), 3, 4, 2, "SAME", (8, 10))
transpose_conv_case("transpose_conv_stride2_valid", (1, 4, 4, 3), 3, 2, 2, "VALID", (9, 9))
transpose_conv_case("transpose_conv_stride1_same", (1, 5, 5, 2), 3, 3, 1, "SAME", (5, 5))

# Float ADD and PRELU nodes that the engine folds into the store of the convolution before them (MediaPipe's blocks:
# a convolution, a residual ADD of the block's input, a PRELU with one slope per channel): the convolution's paths
# (1x1 read in place, 3x3 read through pointers, tiles with a partial last one, single rows, panel by panel), either
# operand order of the ADD, a broadcasting ADD (which runs whole after the product), the sum also an output (the
# PRELU then stays a node of its own), and a resizable batch.
def _conv_store(shape, filters, kernel, seed, residual="input", conv_operand=0, relu=False, sum_is_an_output=False, batch=1):
    x = tf.keras.Input(shape=shape, batch_size=batch)
    inputs = [x]
    conv = tf.keras.layers.Conv2D(filters, kernel, padding="same", activation="relu" if relu else None,
                                  kernel_initializer=tf.keras.initializers.RandomUniform(-0.3, 0.3, seed=seed),
                                  bias_initializer=tf.keras.initializers.RandomUniform(-0.2, 0.2, seed=seed + 1))(x)
    if residual is None:
        total = conv
    else:
        if residual == "input":
            other = x
        else:
            other = tf.keras.Input(shape=residual, batch_size=batch)
            inputs.append(other)
        total = tf.keras.layers.Add()([conv, other] if conv_operand == 0 else [other, conv])
    prelu = tf.keras.layers.PReLU(alpha_initializer=tf.keras.initializers.RandomUniform(-0.5, 0.5, seed=seed + 2), shared_axes=[1, 2])(total)
    return tf.keras.Model(inputs, [prelu, total] if sum_is_an_output else prelu)


case("conv_store_prelu", [(1, 20, 21, 24)], keras=True)(lambda: _conv_store((20, 21, 24), 40, 1, 21, residual=None))
case("conv_store_add_prelu", [(1, 16, 17, 32)], keras=True)(lambda: _conv_store((16, 17, 32), 32, 3, 24))
case("conv_store_add_prelu_conv_second", [(1, 9, 11, 16)], keras=True)(lambda: _conv_store((9, 11, 16), 16, 3, 27, conv_operand=1, relu=True))
case("conv_store_single_rows", [(1, 3, 3, 64), (1, 3, 3, 96)], keras=True)(lambda: _conv_store((3, 3, 64), 96, 1, 30, residual=(3, 3, 96)))
case("conv_store_one_pixel", [(1, 1, 1, 16)], keras=True)(lambda: _conv_store((1, 1, 16), 24, 1, 33, residual=None))
case("conv_store_add_broadcast", [(1, 6, 7, 16), (1, 1, 1, 16)], keras=True)(lambda: _conv_store((6, 7, 16), 16, 1, 36, residual=(1, 1, 16)))
case("conv_store_sum_is_an_output", [(1, 8, 8, 16)], keras=True)(lambda: _conv_store((8, 8, 16), 16, 3, 39, sum_is_an_output=True))
case("conv_store_resized", [(None, 5, 6, 16)], keras=True, run_shapes=[(3, 5, 6, 16)])(lambda: _conv_store((5, 6, 16), 16, 3, 42, batch=None))
# BlazeFace's block: the ADD of a channel-padded shortcut (its PAD folded into the ADD first), with a RELU, either order.
conv_store_w = const(3, 3, 6, 10)
case("conv_store_add_channel_padded", [(1, 8, 9, 6)])(lambda x: tf.nn.relu(
    tf.pad(x, [[0, 0], [0, 0], [0, 0], [0, 4]]) + tf.nn.conv2d(x, conv_store_w, 1, "SAME")))
case("conv_store_add_channel_padded_second", [(1, 8, 9, 6)])(lambda x: (
    tf.nn.conv2d(x, conv_store_w, 1, "SAME") + tf.pad(x, [[0, 0], [0, 0], [0, 0], [0, 4]])))

# Op benchmarks (Benchmarks/OpBenchmarks): the real shapes of MobileNetV2 (224x224) and the COCO SSD, SAME padding, a
# fused ReLU6; quantized ones in each numerics mode, uint8 per-tensor or int8 with per-channel filter scales.
for _type in ("uint8", "int8"):
    benchmark("conv 1x1 112x112x16 -> 96 (expand)", "CONV_2D", type=_type, numerics=["exact", "fast"], input=[1, 112, 112, 16], filters=96, kernel=1, stride=1)
    if _type == "uint8":
        benchmark("conv 3x3 19x19x512 -> 512 (SSD)", "CONV_2D", type=_type, numerics=["exact", "fast"], input=[1, 19, 19, 512], filters=512, kernel=3, stride=1)
    else:
        benchmark("conv 1x1 7x7x320 -> 1280 (head)", "CONV_2D", type=_type, numerics=["exact", "fast"], input=[1, 7, 7, 320], filters=1280, kernel=1, stride=1)
    benchmark("depthwise 3x3 s1 56x56x144", "DEPTHWISE_CONV_2D", type=_type, numerics=["exact", "fast"], input=[1, 56, 56, 144], kernel=3, stride=1)
benchmark("conv 3x3 s2 224x224x3 -> 32 (MobileNetV2 stem)", "CONV_2D", input=[1, 224, 224, 3], filters=32, kernel=3, stride=2)
benchmark("conv 1x1 112x112x16 -> 96 (expand)", "CONV_2D", input=[1, 112, 112, 16], filters=96, kernel=1, stride=1)
benchmark("conv 1x1 56x56x144 -> 24 (project)", "CONV_2D", input=[1, 56, 56, 144], filters=24, kernel=1, stride=1)
benchmark("conv 1x1 7x7x320 -> 1280 (head)", "CONV_2D", input=[1, 7, 7, 320], filters=1280, kernel=1, stride=1)
benchmark("conv 3x3 19x19x512 -> 512 (SSD)", "CONV_2D", input=[1, 19, 19, 512], filters=512, kernel=3, stride=1)
benchmark("depthwise 3x3 s1 56x56x144", "DEPTHWISE_CONV_2D", input=[1, 56, 56, 144], kernel=3, stride=1)
benchmark("depthwise 3x3 s2 112x112x96", "DEPTHWISE_CONV_2D", input=[1, 112, 112, 96], kernel=3, stride=2)
