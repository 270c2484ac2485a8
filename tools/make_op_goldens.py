#!/usr/bin/env python3
"""Builds single-op .tflite models with TensorFlow's converter and records LiteRT's outputs on them.

Writes Tests/LiteEngineTests/Goldens/ops/<case>/{model.tflite,input_<i>.npy,output_<i>.npy} and a manifest.json
listing every case with the ops its model contains. The Swift tests run each model and compare with the
recorded outputs (max |ours - LiteRT| <= 1e-4 * max(1, max |LiteRT|)).

    pip install ai-edge-litert numpy tensorflow-cpu==2.21.0 tf_keras==2.21.0     (tools/setup.sh --tensorflow)
    python3 tools/make_op_goldens.py            # all cases
    python3 tools/make_op_goldens.py conv       # cases whose name contains "conv"

Reference: LiteRT's built-in kernels (OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES), the same kernels
TensorFlow Lite's reference semantics are defined by.
"""
import json
import os
import shutil
import sys
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# Keras 2 (the tf_keras package): TensorFlow's converter fuses its LSTM layers into UNIDIRECTIONAL_SEQUENCE_LSTM;
# Keras 3's LSTM converts to a WHILE loop over its cell instead (the while_keras3_* cases).
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import numpy as np
import tensorflow as tf
from ai_edge_litert import interpreter as litert

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "LiteEngineTests", "Goldens", "ops")
CASES = []


def case(name, input_shapes, dtype=np.float32, low=-2.0, high=2.0, optimize=None, step=None, keras=False, run_shapes=None, built=False,
         tensorflow_reference=None, inputs=None, exact=False, special=False):
    """Registers a case: fn(*inputs) -> output(s); inputs are random in [low, high] (float inputs on a grid of `step`
    when given, to hit rounding ties).

    keras=True: fn() returns a Keras model, converted with from_keras_model (how PReLU layers become PRELU).
    built=True: fn() returns the .tflite bytes itself (ops no converter emits in the form wanted, see GraphBuilder).
    Shapes may contain None (a resizable dimension, -1 in the file's shape_signature); run_shapes then gives the
    shapes LiteRT and our engine are resized to before running.
    tensorflow_reference="why": the expected outputs are TensorFlow's own (fn run eagerly), not LiteRT's, where LiteRT
    is wrong for the reason given (the manifest keeps it, and LiteRT's outputs as output_<i>.litert.npy).
    inputs=[arrays]: these inputs instead of random ones (special values: NaN, infinities, overflow).
    exact=True: the test compares float outputs bit for bit (NaN matching any NaN), not within 1e-4.
    special=True: NaN, ±inf and ±FLT_MAX must be where LiteRT has them, other values within 1e-4 of the largest of
    them (sums whose order differs from LiteRT's, over inputs with special values).
    """
    def register(fn):
        CASES.append(dict(name=name, fn=fn, shapes=input_shapes, dtype=dtype, low=low, high=high, optimize=optimize, step=step,
                          keras=keras, run_shapes=run_shapes, built=built, tensorflow_reference=tensorflow_reference,
                          inputs=inputs, exact=exact, special=special))
        return fn
    return register


rng = np.random.default_rng(1234)


def const(*shape, scale=0.5):
    return tf.constant(rng.normal(0, scale, size=shape).astype(np.float32))


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


def transpose_conv_case(name, shape, k, cout, stride, padding, out_hw):
    cin = shape[-1]
    w = const(k, k, cout, cin)

    @case(name, [shape])
    def f(x):
        return tf.nn.conv2d_transpose(x, w, output_shape=[shape[0], out_hw[0], out_hw[1], cout], strides=stride, padding=padding)


transpose_conv_case("transpose_conv_stride2_same", (1, 4, 5, 6), 3, 4, 2, "SAME", (8, 10))
transpose_conv_case("transpose_conv_stride2_valid", (1, 4, 4, 3), 3, 2, 2, "VALID", (9, 9))
transpose_conv_case("transpose_conv_stride1_same", (1, 5, 5, 2), 3, 3, 1, "SAME", (5, 5))

# ---- fully connected ------------------------------------------------------------------------------------
fc_w, fc_b = const(20, 12), const(12)


@case("fully_connected_relu", [(3, 20)])
def fully_connected(x):
    return tf.nn.relu(tf.matmul(x, fc_w) + fc_b)


@case("fully_connected_keep_num_dims", [(2, 5, 20)])
def fully_connected_keep(x):
    return tf.tensordot(x, fc_w, axes=1) + fc_b


# BATCH_MATMUL: both operands computed (a constant right-hand side of rank 2 becomes FULLY_CONNECTED).
case("batch_matmul_3d", [(2, 5, 6), (2, 6, 4)])(lambda x, y: tf.matmul(x, y))
case("batch_matmul_adjoints", [(2, 6, 5), (2, 4, 6)])(lambda x, y: tf.matmul(x, y, adjoint_a=True, adjoint_b=True))
case("batch_matmul_adjoint_b", [(3, 7, 9), (3, 5, 9)])(lambda x, y: tf.matmul(x, y, adjoint_b=True))
case("batch_matmul_broadcast_4d", [(2, 1, 5, 6), (3, 6, 4)])(lambda x, y: tf.matmul(x, y))
case("batch_matmul_rank5", [(2, 1, 2, 3, 4), (1, 3, 1, 4, 5)])(lambda x, y: tf.matmul(x, y))
case("batch_matmul_constant_rhs_batched", [(2, 5, 6)])(lambda x: tf.matmul(x, const(2, 6, 3)))
case("batch_matmul_large", [(4, 33, 40), (4, 40, 37)])(lambda x, y: tf.matmul(x, y))
case("gelu", [(2, 5, 7, 3)], low=-5, high=5)(lambda x: tf.nn.gelu(x, approximate=False))
case("gelu_approximate", [(2, 5, 7, 3)], low=-5, high=5)(lambda x: tf.nn.gelu(x, approximate=True))


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


@case("prelu_elementwise_alpha", [(1, 3, 5, 2)], keras=True)
def prelu_full():
    inputs = tf.keras.Input(shape=(3, 5, 2), batch_size=1)
    layer = tf.keras.layers.PReLU(alpha_initializer=tf.keras.initializers.RandomUniform(-0.5, 0.5, seed=3))
    return tf.keras.Model(inputs, layer(inputs))


# ---- pooling and reductions ------------------------------------------------------------------------------
case("average_pool_2x2_valid", [(1, 8, 9, 5)])(lambda x: tf.nn.avg_pool2d(x, 2, 2, "VALID"))
case("average_pool_3x3_stride2_same", [(1, 7, 7, 20)])(lambda x: tf.nn.avg_pool2d(x, 3, 2, "SAME"))
case("max_pool_2x2_valid", [(2, 8, 8, 3)])(lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"))
case("max_pool_3x3_stride2_same", [(1, 9, 7, 17)])(lambda x: tf.nn.max_pool2d(x, 3, 2, "SAME"))
case("mean_hw_keepdims", [(1, 7, 7, 16)])(lambda x: tf.reduce_mean(x, axis=[1, 2], keepdims=True))
case("mean_last_axis", [(2, 3, 10)])(lambda x: tf.reduce_mean(x, axis=-1))
case("sum_axis0_keepdims", [(4, 3, 5)])(lambda x: tf.reduce_sum(x, axis=0, keepdims=True))
case("sum_two_axes", [(2, 3, 4, 5)])(lambda x: tf.reduce_sum(x, axis=[1, 3]))

# ---- shape and data movement -----------------------------------------------------------------------------
case("reshape", [(2, 3, 4)])(lambda x: tf.reshape(x, (4, 6)) * 1.0)
case("squeeze", [(1, 3, 1, 4)])(lambda x: tf.squeeze(x, axis=[0, 2]) + 1.0)
case("expand_dims", [(3, 4)])(lambda x: tf.expand_dims(x + 1.0, axis=1))
case("squeeze_dynamic_batch", [(None, None, 1, 4)], run_shapes=[(2, 3, 1, 4)])(lambda x: tf.squeeze(x, axis=[2]) * 2.0)
case("expand_dims_dynamic_batch", [(None, 4)], run_shapes=[(3, 4)])(lambda x: tf.expand_dims(x, axis=-1) * 2.0)
case("conv_dynamic_batch_resized", [(None, 6, 6, 3)], run_shapes=[(3, 6, 6, 3)])(
    lambda x: tf.nn.relu(tf.nn.conv2d(x, tf.constant(np.linspace(-1, 1, 3 * 3 * 3 * 4, dtype=np.float32).reshape(3, 3, 3, 4)), 1, "SAME")))
case("mean_dynamic_batch", [(None, 5, 5, 8)], run_shapes=[(2, 5, 5, 8)])(lambda x: tf.reduce_mean(x, axis=[1, 2]))
case("reduce_prod_axis1", [(3, 4, 5)], low=0.5, high=1.5)(lambda x: tf.reduce_prod(x, axis=1))
case("reduce_max_two_axes_keepdims", [(2, 3, 4, 5)])(lambda x: tf.reduce_max(x, axis=[1, 3], keepdims=True))
case("reduce_min_last_axis", [(4, 6)])(lambda x: tf.reduce_min(x, axis=-1))
case("reduce_prod_max_int32", [(3, 5)], low=-4, high=4)(
    lambda x: (tf.reduce_prod(tf.cast(x, tf.int32), axis=0), tf.reduce_max(tf.cast(x, tf.int32), axis=1)))
case("shape_of_dynamic_input", [(None, 3, None)], run_shapes=[(2, 3, 7)])(lambda x: (tf.shape(x), x * 2.0))
# A Keras Dense layer on a sequence of resizable length: SHAPE, GATHER, REDUCE_PROD, PACK build the RESHAPE's shape.
case("dense_on_dynamic_sequence", [(1, None, 6)], keras=True, run_shapes=[(1, 9, 6)])(
    lambda: (lambda i: tf.keras.Model(i, tf.keras.layers.Dense(4, bias_initializer="glorot_uniform")(i)))(tf.keras.Input((None, 6), batch_size=1)))
case("concatenation_axis3", [(1, 4, 4, 3), (1, 4, 4, 5)])(lambda x, y: tf.concat([x, y], axis=3))
case("concatenation_axis1_three", [(2, 3, 4), (2, 1, 4), (2, 2, 4)])(lambda x, y, z: tf.concat([x, y, z], axis=1))
case("pad", [(1, 3, 4, 2)])(lambda x: tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]]))
case("padv2", [(2, 3, 3)])(lambda x: tf.pad(x, [[1, 0], [0, 2], [1, 1]], constant_values=1.5))
# Channel padding only (residual blocks of BlazeFace-style detectors): rows of 21 floats (two 32-byte blocks and a
# tail), fills on both sides; with a fill value, one side longer than 64 bytes.
case("pad_channels", [(1, 6, 7, 21)])(lambda x: tf.pad(x, [[0, 0], [0, 0], [0, 0], [3, 11]]))
case("padv2_channels", [(2, 3, 5)])(lambda x: tf.pad(x, [[0, 0], [0, 0], [1, 20]], constant_values=-0.5))
# A BlazeFace residual block's shortcut: the block input zero-padded on channels, added to the block's output (the
# engine folds the PAD into the ADD, which reads the unpadded input); the PAD first or second, with and without a
# ReLU, and -0 in the block's output where the padding adds +0. A resizable batch also takes the folded path, and
# bit for bit.
pad_add_rng = np.random.default_rng(99)
pad_add_w = tf.constant(pad_add_rng.normal(0, 0.5, size=(1, 1, 6, 10)).astype(np.float32))
case("pad_channels_into_add", [(1, 5, 7, 6)])(lambda x: (
    tf.nn.relu(tf.pad(x, [[0, 0], [0, 0], [0, 0], [0, 4]]) + tf.nn.conv2d(x, pad_add_w, 1, "SAME")),
    tf.nn.conv2d(x, pad_add_w, 1, "SAME") + tf.pad(x * 2.0, [[0, 0], [0, 0], [0, 0], [0, 4]])))
case("pad_channels_into_add_signed_zeros", [(1, 5, 7, 6)], exact=True)(lambda x: (
    tf.concat([x, x[..., :4]], axis=-1) * -0.0 + tf.pad(x * 2.0, [[0, 0], [0, 0], [0, 0], [0, 4]])))
case("pad_channels_into_add_resized", [(None, 4, 4, 6)], run_shapes=[(3, 4, 4, 6)])(lambda x: (
    tf.nn.conv2d(x, pad_add_w, 1, "SAME") + tf.pad(x, [[0, 0], [0, 0], [0, 0], [0, 4]])))
case("mirror_pad_reflect", [(1, 4, 5, 2)])(lambda x: tf.pad(x, [[0, 0], [2, 1], [1, 3], [0, 0]], mode="REFLECT"))
case("mirror_pad_symmetric", [(3, 4)])(lambda x: tf.pad(x, [[1, 2], [3, 1]], mode="SYMMETRIC"))
for ac, hp in [(False, False), (True, False), (False, True)]:
    tag = "align_corners" if ac else ("half_pixel" if hp else "plain")
    case(f"resize_bilinear_{tag}", [(1, 5, 7, 3)])(lambda x, ac=ac, hp=hp: tf.compat.v1.image.resize_bilinear(x, (9, 4), align_corners=ac, half_pixel_centers=hp))
    case(f"resize_nearest_{tag}", [(1, 5, 7, 3)])(lambda x, ac=ac, hp=hp: tf.compat.v1.image.resize_nearest_neighbor(x, (11, 3), align_corners=ac, half_pixel_centers=hp))
case("strided_slice_basic", [(4, 6, 5)])(lambda x: x[1:3, ::2, 1:4])
case("strided_slice_masks", [(4, 6, 5)])(lambda x: x[:, 1:, ::-2])
case("strided_slice_shrink_newaxis", [(4, 6, 5)])(lambda x: x[2, tf.newaxis, 1:5, 3])
case("strided_slice_ellipsis", [(2, 3, 4, 5)])(lambda x: x[..., 1:3])
case("strided_slice_negative", [(5, 6)])(lambda x: x[-4:-1, -1:0:-2])
case("slice", [(3, 4, 5)])(lambda x: tf.slice(x, [1, 0, 2], [2, -1, 3]))
case("transpose", [(2, 3, 4, 5)])(lambda x: tf.transpose(x, [0, 3, 1, 2]))
case("transpose_2d", [(7, 5)])(lambda x: tf.transpose(x))
case("split", [(2, 6, 4)])(lambda x: tf.split(x, 3, axis=1))
case("split_v", [(2, 7, 4)])(lambda x: tf.split(x, [2, 4, 1], axis=1))
case("pack", [(3, 4), (3, 4)])(lambda x, y: tf.stack([x, y], axis=1))
case("unpack", [(3, 4, 2)])(lambda x: tf.unstack(x, axis=1))
case("gather", [(5, 4)])(lambda x: tf.gather(x, tf.constant([4, 0, 2, 2]), axis=0))
case("gather_axis1", [(3, 6, 2)])(lambda x: tf.gather(x, tf.constant([[5, 1], [0, 3]]), axis=1))
case("arg_max", [(3, 7)])(lambda x: tf.argmax(x, axis=1))
case("arg_min", [(2, 3, 5)])(lambda x: tf.argmin(x, axis=-1, output_type=tf.int32))
case("cast_to_int32", [(3, 4)], low=-50, high=50)(lambda x: tf.cast(x, tf.int32))
case("depth_to_space", [(1, 3, 4, 8)])(lambda x: tf.nn.depth_to_space(x, 2))
case("space_to_depth", [(1, 4, 6, 3)])(lambda x: tf.nn.space_to_depth(x, 2))

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

# ---- more math and shape ops (float, and int32 through casts) ----------------------------------------------------
for opname, fn, lo, hi in [("log", tf.math.log, 0.01, 9), ("sin", tf.sin, -7, 7), ("cos", tf.cos, -7, 7), ("square", tf.square, -3, 3),
                           ("floor", tf.floor, -5, 5), ("ceil", tf.math.ceil, -5, 5), ("sign", tf.sign, -2, 2)]:
    case(opname, [(2, 5, 7)], low=lo, high=hi)(lambda x, fn=fn: fn(x))
case("round_half_to_even", [(4, 20)], low=-5, high=5, step=0.5)(lambda x: tf.round(x))
case("pow", [(2, 3, 4), (2, 3, 4)], low=0.1, high=3)(lambda x, y: tf.pow(x, y))
case("pow_int32", [(3, 5)], low=-4, high=4)(lambda x: tf.pow(tf.cast(x, tf.int32), tf.constant([0, 1, 2, 3, 2], tf.int32)))
case("floor_div", [(2, 3, 4), (2, 3, 4)], low=-5, high=5)(lambda x, y: tf.math.floordiv(x, y + tf.sign(y) * 0.5))
case("floor_div_int32", [(3, 5)], low=-20, high=20)(lambda x: tf.math.floordiv(tf.cast(x, tf.int32), tf.constant([3, -3, 7, -2, 5], tf.int32)))
case("floor_mod", [(2, 3, 4)], low=-5, high=5)(lambda x: tf.math.floormod(x, tf.constant([1.5, -2.0, 0.75, 3.0])))
case("floor_mod_int32", [(3, 5)], low=-20, high=20)(lambda x: tf.math.floormod(tf.cast(x, tf.int32), tf.constant([3, -3, 7, -2, 5], tf.int32)))
case("select_v2_broadcast", [(2, 3, 4), (3, 4)])(lambda x, y: tf.where(x > 0.0, x, y * 2.0))
case("select_v2_scalar_branch", [(2, 3, 4)])(lambda x: tf.where(x > 0.5, x, 0.0))
case("tile", [(2, 3, 2)])(lambda x: tf.tile(x, [2, 1, 3]))
case("tile_int32", [(2, 3)], low=-9, high=9)(lambda x: tf.tile(tf.cast(x, tf.int32), [3, 2]))
case("fill_dynamic_shape", [(None, 3)], run_shapes=[(4, 3)])(lambda x: x + tf.fill(tf.shape(x), 2.5))
case("broadcast_to", [(3, 1)])(lambda x: tf.broadcast_to(x, [2, 3, 4]))
case("zeros_and_ones_like", [(None, 3)], run_shapes=[(2, 3)])(lambda x: (tf.zeros_like(x) + 1.0, tf.ones_like(x) * x))
case("range_from_shape", [(None, 3)], run_shapes=[(5, 3)])(lambda x: tf.cast(tf.range(tf.shape(x)[0]), tf.float32)[:, None] * x)
case("l2_normalization", [(3, 8)])(lambda x: tf.math.l2_normalize(x, axis=-1))
case("gather_batch_dims", [(2, 3, 5, 4)])(lambda x: tf.gather(x, tf.constant([[4, 0, 4], [1, 2, 3]]), axis=2, batch_dims=1))
case("gather_batch_dims_negative", [(3, 6, 2)])(lambda x: tf.gather(x, tf.constant([[5, 0], [1, 1], [2, 4]]), axis=1, batch_dims=-1))
case("gather_nd", [(4, 5, 3)])(lambda x: tf.gather_nd(x, tf.constant([[1, 2], [3, 0], [0, 4]])))
case("gather_nd_batch_of_slices", [(4, 5, 3)])(lambda x: tf.gather_nd(x, tf.constant([[[1], [3]], [[0], [2]]])))
case("cumsum", [(3, 6)])(lambda x: tf.cumsum(x, axis=1))
case("cumsum_exclusive_reverse", [(4, 5)])(lambda x: tf.cumsum(x, axis=0, exclusive=True, reverse=True))
case("one_hot", [(2, 3)], low=0, high=5)(lambda x: tf.one_hot(tf.cast(x, tf.int32), 6, on_value=2.0, off_value=-1.0))
case("one_hot_axis0", [(4,)], low=0, high=3)(lambda x: tf.one_hot(tf.cast(x, tf.int32), 4, axis=0))
case("one_hot_axis1_of_3", [(2, 3)], low=-1, high=4)(lambda x: tf.one_hot(tf.cast(x, tf.int32), 4, axis=1))
case("top_k", [(3, 10)])(lambda x: tf.math.top_k(x, k=4))
case("top_k_ties", [(2, 12)], low=-2, high=2, step=1.0)(lambda x: tf.math.top_k(x, k=5))
# Boxes are [y1, x1, y2, x2] corners in [0, 1] in either order; on a grid (step) many scores tie, and which of two
# equal scores is taken first follows TFLite's std::priority_queue, and boxes repeat or have no area (TFLite selects
# such a box again each time it comes back out of the queue: nothing suppresses it, its IoU with itself being 0).
case("nms_v4", [(40, 4), (40,)], low=0, high=1)(lambda b, s: tf.image.non_max_suppression(b, s, 10, 0.5, 0.3))
case("nms_v4_no_score_threshold", [(30, 4), (30,)], low=0, high=1)(lambda b, s: tf.image.non_max_suppression(b, s, 6, 0.4))
case("nms_v4_fewer_than_max", [(25, 4), (25,)], low=0, high=1)(lambda b, s: tf.image.non_max_suppression(b, s, 20, 0.2, 0.5))
case("nms_v4_ties", [(300, 4), (300,)], low=0, high=1, step=0.125)(lambda b, s: tf.image.non_max_suppression(b, s, 60, 0.3, 0.2))
case("nms_v4_ties_boxes_with_area", [(300, 4), (300,)], low=0, high=1, step=0.125)(
    lambda b, s: tf.image.non_max_suppression(tf.concat([b[:, :2], b[:, :2] + 0.125 + 0.5 * b[:, 2:]], axis=1), s, 40, 0.4, 0.1))
case("nms_v5_soft", [(60, 4), (60,)], low=0, high=1)(lambda b, s: tf.image.non_max_suppression_with_scores(b, s, 15, 1.0, 0.1, 0.5))
case("nms_v5_soft_and_hard", [(200, 4), (200,)], low=0, high=1, step=0.0625)(
    lambda b, s: tf.image.non_max_suppression_with_scores(b, s, 40, 0.6, 0.05, 0.3))
case("nms_v5_sigma_zero", [(40, 4), (40,)], low=0, high=1)(lambda b, s: tf.image.non_max_suppression_with_scores(b, s, 8, 0.5, 0.2, 0.0))
# The padded form is TensorFlow code, not an op: a WHILE over tiles of boxes with TOPK_V2, GATHER, IF and SELECT.
case("nms_padded_while_loop", [(50, 4), (50,)], low=0, high=1)(
    lambda b, s: tf.image.non_max_suppression_padded(b, s, 12, 0.5, 0.2, pad_to_max_output_size=True))
# Integer arithmetic as index code uses it; products past 2^31 wrap as TFLite's int32 kernels do.
case("int32_mul_minimum_maximum_sum", [(3, 5), (3, 5)], low=-1e5, high=1e5)(
    lambda x, y: tf.reduce_sum(tf.maximum(tf.minimum(tf.cast(x, tf.int32) * tf.cast(y, tf.int32), 2_000_000_000), -2_100_000_000), axis=1))
case("int64_mul_minimum_maximum_sum", [(4, 3), (4, 3)], low=-1e5, high=1e5)(
    lambda x, y: tf.reduce_sum(tf.maximum(tf.minimum(tf.cast(x, tf.int64) * tf.cast(y, tf.int64), 5_000_000_000), -7_000_000_000), axis=0))
# Special values, compared bit for bit: every pair of NaN, ±inf, ±3e38, 2e38, 1, -2, ±0 and the smallest subnormal.
# ADD, SUB, MUL and DIV clamp every result to ±FLT_MAX in the built-in kernels (XNNPACK, LiteRT's default, keeps
# ±inf); this engine clamps as the built-in kernels do, elementwise and broadcast.
special = np.array([np.nan, np.inf, -np.inf, 3e38, -3e38, 1.0, -2.0, 0.0, -0.0, 1e-45, 2e38], np.float32)
special_x, special_y = np.repeat(special, len(special)), np.tile(special, len(special))
case("special_add_sub_mul_div", [(121,), (121,)], inputs=[special_x, special_y], exact=True)(lambda x, y: (x + y, x - y, x * y, x / y))
case("special_add_mul_broadcast", [(11, 1), (1, 11)], inputs=[special.reshape(11, 1), special.reshape(1, 11)], exact=True)(
    lambda x, y: (x + y, x * y))
# Keras' softplus and mish on pre-activations past 88, where exp overflows: log(exp(x) + 1) is 88.72 in LiteRT's
# built-in kernels (the ADD clamps the infinite sum), not inf (and then NaN in the layers after it).
case("softplus_mish_large_inputs", [(4, 16)], low=-300.0, high=300.0)(lambda x: (tf.nn.softplus(x), x * tf.math.tanh(tf.nn.softplus(x))))
# The convolutions, FULLY_CONNECTED and the pools clamp their float results to ±FLT_MAX in LiteRT's built-in kernels
# (the fused activation none is that range there), as ADD does; BATCH_MATMUL keeps ±inf. Inputs with ±inf and NaN.
special_rng = np.random.default_rng(77)  # its own generator: the shared one's sequence stays as the cases after it had it
special_image = special_rng.normal(size=(1, 6, 6, 4)).astype(np.float32)
special_image[0, 2, 2, 1], special_image[0, 4, 4, 2], special_image[0, 0, 5, 3] = np.inf, -np.inf, np.nan
special_image[0, 3, 0, 0], special_image[0, 1, 4, 3] = np.inf, np.nan
special_conv_filter, special_depthwise_filter, special_dense, special_bias, special_volume_filter = (
    tf.constant(special_rng.normal(0, 0.5, size=shape).astype(np.float32)) for shape in [(3, 3, 4, 5), (3, 3, 4, 1), (144, 7), (5,), (3, 3, 3, 3, 4)])
case("special_convolutions_and_pools", [(1, 6, 6, 4)], inputs=[special_image], special=True)(lambda x: (
    tf.nn.conv2d(x, special_conv_filter, 1, "SAME") + special_bias,
    tf.nn.depthwise_conv2d(x, special_depthwise_filter, [1, 1, 1, 1], "VALID"),
    tf.nn.conv2d_transpose(x, tf.transpose(special_conv_filter, [0, 1, 3, 2]), (1, 6, 6, 5), 1, "SAME"),
    tf.matmul(tf.reshape(x, (1, 144)), special_dense),
    tf.nn.avg_pool2d(x, 2, 2, "VALID"), tf.nn.max_pool2d(x, 3, 1, "SAME"),
    tf.matmul(tf.reshape(x, (2, 2, 36)), tf.reshape(x, (2, 2, 36)) * 1.5, transpose_b=True)))
special_volume = special_rng.normal(size=(1, 4, 5, 5, 3)).astype(np.float32)
special_volume[0, 1, 2, 2, 1], special_volume[0, 2, 4, 4, 2], special_volume[0, 3, 0, 1, 0] = np.inf, -np.inf, np.nan
case("special_conv3d", [(1, 4, 5, 5, 3)], inputs=[special_volume], special=True)(lambda x: (
    tf.nn.conv3d(x, special_volume_filter, [1, 1, 1, 1, 1], "SAME"),
    tf.nn.conv3d_transpose(x, tf.transpose(special_volume_filter, [0, 1, 2, 4, 3]), (1, 4, 5, 5, 4), [1, 1, 1, 1, 1], "SAME")))
case("special_maximum_minimum", [(121,), (121,)], inputs=[special_x, special_y], exact=True)(lambda x, y: (tf.maximum(x, y), tf.minimum(x, y)))
case("special_sign_hard_swish", [(121,)], inputs=[special_x], exact=True)(lambda x: (tf.sign(x), x * tf.nn.relu6(x + 3) / 6))
case("special_floor_mod", [(121,), (121,)], inputs=[special_x, special_y], exact=True)(lambda x, y: tf.math.floormod(x, y))
case("hard_swish_bits", [(1000,)], low=-5, high=5, exact=True)(lambda x: x * tf.nn.relu6(x + 3) / 6)
case("special_cast_float_to_integers", [(21,)], inputs=[np.concatenate([special_x[::11], [3e9, -3e9, 7e4, -7e4, 300, -300, 2.7, -2.7, 255.9, -0.5]])],
     exact=True)(lambda x: (tf.cast(x, tf.int32), tf.cast(x, tf.int64), tf.cast(x, tf.int16), tf.cast(x, tf.int8), tf.cast(x, tf.uint8),
                            tf.cast(tf.cast(x, tf.bool), tf.float32)))
case("cast_integer_narrowing", [(10,)], inputs=[np.array([3e9, -3e9, 7e4, -7e4, 300, -300, 4e4, 129, -129, 256], np.float32)])(
    lambda x: (tf.cast(tf.cast(x, tf.int64), tf.int32), tf.cast(tf.cast(x, tf.int32), tf.int16), tf.cast(tf.cast(x, tf.int64), tf.int16),
               tf.cast(tf.cast(x, tf.int32), tf.uint8), tf.cast(tf.cast(x, tf.int16), tf.int8)))
case("add_n", [(3, 4), (3, 4), (3, 4)])(lambda x, y, z: tf.math.add_n([x, y, z]))
case("add_n_int32", [(2, 5), (2, 5)], low=-3e9, high=3e9)(
    lambda x, y: tf.math.add_n([tf.cast(x, tf.int32), tf.cast(y, tf.int32), tf.cast(x, tf.int32)]))
case("reverse_sequence", [(3, 5, 2)])(lambda x: tf.reverse_sequence(x, tf.constant([2, 5, 0]), seq_axis=1, batch_axis=0))
case("reverse_sequence_batch_after_sequence", [(4, 3, 2)])(lambda x: tf.reverse_sequence(x, tf.constant([4, 1, 3], tf.int64), seq_axis=0, batch_axis=1))
case("matrix_diag", [(2, 4)])(lambda x: tf.linalg.diag(x))
case("matrix_set_diag", [(2, 4, 3), (2, 3)])(lambda x, d: tf.linalg.set_diag(x, d))
case("band_part_lower", [(2, 5, 5)])(lambda x: tf.linalg.band_part(x, -1, 0))
case("segment_sum", [(6, 3)])(lambda x: tf.math.segment_sum(x, tf.constant([0, 0, 1, 2, 2, 2])))
case("segment_sum_int32", [(5, 2)], low=-100, high=100)(lambda x: tf.math.segment_sum(tf.cast(x, tf.int32), tf.constant([0, 1, 1, 1, 2])))
for _kind, _fn in [("sum", tf.math.unsorted_segment_sum), ("prod", tf.math.unsorted_segment_prod), ("max", tf.math.unsorted_segment_max),
                   ("min", tf.math.unsorted_segment_min)]:
    case(f"unsorted_segment_{_kind}", [(6, 3)])(lambda x, _fn=_fn: _fn(x, tf.constant([2, 0, 1, 0, 2, -1]), 4))
case("unsorted_segment_max_int32", [(5, 2)], low=-100, high=100)(
    lambda x: tf.math.unsorted_segment_max(tf.cast(x, tf.int32), tf.constant([1, 1, 0, 1, 0]), 3))
case("bucketize", [(4, 5)], low=-3, high=3, step=0.5)(lambda x: tf.raw_ops.Bucketize(input=x, boundaries=[-1.0, 0.0, 0.5, 0.5, 2.0]))
case("bucketize_int32", [(12,)], low=-5, high=5)(lambda x: tf.raw_ops.Bucketize(input=tf.cast(x, tf.int32), boundaries=[-2.0, 0.0, 1.5, 3.0]))
case("bitwise_xor_int32", [(3, 4), (1, 4)], low=-1e6, high=1e6)(lambda x, y: tf.bitwise.bitwise_xor(tf.cast(x, tf.int32), tf.cast(y, tf.int32)))
case("bitwise_xor_uint8", [(10,), (10,)], low=0, high=255)(lambda x, y: tf.bitwise.bitwise_xor(tf.cast(x, tf.uint8), tf.cast(y, tf.uint8)))
case("right_shift_int32", [(12,), (12,)], low=-40, high=40)(
    lambda x, y: tf.bitwise.right_shift(tf.cast(x * 5e7, tf.int32), tf.cast(y, tf.int32)))
case("right_shift_int8_broadcast", [(2, 6), (6,)], low=-10, high=10)(
    lambda x, y: tf.bitwise.right_shift(tf.cast(x * 12, tf.int8), tf.cast(y, tf.int8)))
case("neg_abs_sign_int32", [(12,)], inputs=[np.array([-2.2e9, 2.2e9, -7, 7, 0, -1, 1, 3e9, -3e9, 5, -5, 0.5], np.float32)])(
    lambda x: (-tf.cast(x, tf.int32), tf.abs(tf.cast(x, tf.int32)), tf.sign(tf.cast(x, tf.int32))))
case("neg_int64", [(6,)], low=-1e12, high=1e12)(lambda x: -tf.cast(x, tf.int64))
# tf.signal: RFFT2D gives complex64; COMPLEX_ABS, REAL and IMAG take it back to float32.
case("rfft", [(3, 16)])(lambda x: tf.signal.rfft(x))
case("rfft_padded_abs", [(2, 10)])(lambda x: tf.abs(tf.signal.rfft(x, fft_length=[16])))
case("rfft2d_cropped_real_imag", [(2, 6, 20)])(lambda x: (tf.math.real(tf.signal.rfft2d(x, fft_length=[4, 16])), tf.math.imag(tf.signal.rfft2d(x, fft_length=[4, 16]))))
case("stft_magnitude", [(1, 400)])(lambda x: tf.abs(tf.signal.stft(x, frame_length=64, frame_step=32, fft_length=64)))
# Random ops (seeded: TFLite's Philox-4x32-10 stream from the seed and seed2 options, continuing from one run to the
# next, so both runs are recorded): counts that leave part of the last block of four values unused, an odd count of
# normal values (the last Box-Muller pair's second value dropped), a shape computed from the input's shape.
case("random_uniform_seeded", [(3, 7)], exact=True)(lambda x: x + tf.random.uniform([3, 7], seed=7))
case("random_uniform_dynamic_shape", [(None, 5)], run_shapes=[(3, 5)], exact=True)(
    lambda x: tf.random.uniform(tf.shape(x), seed=11) * x)
case("random_normal_seeded", [(3, 5)], exact=True)(lambda x: (x + tf.random.normal([3, 5], seed=3), tf.random.normal([2, 6], mean=1.0, stddev=2.0, seed=4)))
case("random_normal_many", [(1,)], exact=True)(lambda x: tf.random.normal([4099], seed=5) + x)
# tf.random.categorical: int64 and int32 indices; non-finite logits have probability 0, a row of only non-finite
# logits draws the class count.
multinomial_logits = np.array([[0.5, 1.0, -1.0, 2.0, 0.0], [np.nan, 3.0, -np.inf, 1.0, np.inf], [-np.inf, np.nan, np.inf, -np.inf, np.nan]], np.float32)
case("multinomial_int64", [(3, 5)], exact=True)(lambda x: tf.random.categorical(x, 7, seed=9))
case("multinomial_non_finite_int32", [(3, 5)], inputs=[multinomial_logits], exact=True)(
    lambda x: tf.random.categorical(x, 6, dtype=tf.int32, seed=13))
# Shapes broadcast while running (BROADCAST_ARGS: tf.broadcast_dynamic_shape), int32 and int64.
case("broadcast_args_dynamic", [(None, 1), (1, None)], run_shapes=[(3, 1), (1, 4)])(
    lambda x, y: tf.broadcast_to(x, tf.broadcast_dynamic_shape(tf.shape(x), tf.shape(y))) + y)
case("broadcast_args_int64", [(None, 1, 2), (None, 1)], run_shapes=[(2, 1, 2), (5, 1)])(
    lambda x, y: tf.cast(tf.broadcast_dynamic_shape(tf.shape(x, out_type=tf.int64), tf.shape(y, out_type=tf.int64)), tf.float32))
# BITCAST: the same bytes as another type; same size, to a smaller type (one more dimension), to a larger one (the
# last dimension dropped).
case("bitcast_types", [(3, 4)], exact=True)(
    lambda x: (tf.bitcast(x, tf.int32), tf.bitcast(x, tf.uint8), tf.bitcast(tf.reshape(tf.cast(x * 50, tf.int8), (3, 2, 2)), tf.int16),
               tf.bitcast(tf.reshape(tf.cast(x * 50, tf.int16), (6, 2)), tf.int32)))
# Resizable dimensions in Keras models, run at other sizes (found by a probe of resized Keras models): MultiHeadAttention
# on a sequence of any length reshapes by an UNSORTED_SEGMENT_PROD of a SHAPE, which must fold while planning; an
# UpSampling2D after a pooling on an image of any size has a 1x1 placeholder shape in the file, which the pooling
# empties, so the model must load and plan only once resized.
def keras_resizable(make):
    def build():
        tf.keras.utils.set_random_seed(4)
        return make()
    return build


case("keras_mha_resizable_length", [(None, None, 16)], keras=True, run_shapes=[(2, 7, 16)])(keras_resizable(
    lambda: (lambda i: tf.keras.Model(i, tf.keras.layers.MultiHeadAttention(2, 8)(i, i)))(tf.keras.Input((None, 16)))))
case("keras_upsample_concat_resizable_hw", [(None, None, None, 4)], keras=True, run_shapes=[(2, 8, 6, 4)])(keras_resizable(
    lambda: (lambda i: tf.keras.Model(i, tf.keras.layers.Concatenate()([tf.keras.layers.UpSampling2D()(tf.keras.layers.MaxPooling2D()(i)), i])))(
        tf.keras.Input((None, None, 4)))))
# Output sizes known only when running (WHERE, UNIQUE): planned for their largest size, shrunk when they run, and the
# nodes after them prepared again.
case("where_coordinates", [(4, 5)])(lambda x: tf.cast(tf.where(x > 0.5), tf.float32) * 2.0)
case("boolean_mask_sum", [(6, 7)])(lambda x: tf.reduce_sum(tf.boolean_mask(x, x > 0.3)) + tf.cast(tf.shape(tf.boolean_mask(x, x > 0.3))[0], tf.float32))
case("where_none_true", [(3, 4)], low=-2, high=-1)(lambda x: tf.cast(tf.where(x > 0.0), tf.float32))
case("unique_values_and_positions", [(12,)], low=0, high=4, step=1.0)(lambda x: (tf.unique(x)[0] * 3.0, tf.cast(tf.unique(x)[1], tf.float32)))
case("unique_int64_positions", [(10,)], low=-3, high=3, step=1.0)(
    lambda x: tf.cast(tf.unique(tf.cast(x, tf.int32), out_idx=tf.int64)[1], tf.float32))
case("sparse_to_dense", [(4,)])(lambda x: tf.sparse.to_dense(tf.sparse.SparseTensor([[0, 1], [2, 3], [3, 0], [1, 2]], x, [4, 5])))
case("sparse_to_dense_scalar_value", [(1,)])(
    lambda x: tf.raw_ops.SparseToDense(sparse_indices=tf.constant([0, 3, 5]), output_shape=[7], sparse_values=x[0], default_value=-1.0))
case("space_to_batch_nd", [(1, 5, 6, 2)])(lambda x: tf.space_to_batch_nd(x, [2, 3], [[1, 0], [2, 1]]))
case("batch_to_space_nd", [(6, 2, 3, 2)])(lambda x: tf.compat.v1.batch_to_space_nd(x, [2, 3], [[1, 0], [2, 1]]))
case("elu", [(2, 5, 7)], low=-4, high=3)(lambda x: tf.nn.elu(x))
case("atan2", [(3, 4), (3, 4)])(lambda x, y: tf.math.atan2(x, y))
case("local_response_normalization", [(1, 4, 5, 9)])(lambda x: tf.nn.local_response_normalization(x, depth_radius=2, bias=1.5, alpha=0.3, beta=0.75))
case("scatter_nd", [(3, 4)])(lambda x: tf.scatter_nd(tf.constant([[1], [3], [1]]), x, [5, 4]))
case("reduce_any_all", [(3, 5)])(lambda x: tf.cast(tf.reduce_any(x > 1.0, axis=1), tf.float32) + 2.0 * tf.cast(tf.reduce_all(x > -1.5, axis=0), tf.float32)[:3])
def built_conv3d(in_shape, kernel, outputs, strides, dilations, padding, activation, transpose=False):
    """CONV_3D (or CONV_3D_TRANSPOSE to `in_shape`'s spatial size times the strides) with dilations and a fused activation,
    which the converter does not emit from Keras (it dilates through SPACE_TO_BATCH and fuses no activation)."""
    def build():
        g = GraphBuilder()
        channels = in_shape[-1]
        o = g.fb.Conv3DOptionsT()
        o.padding = getattr(g.fb.Padding, padding)
        o.strideD, o.strideH, o.strideW = strides
        o.dilationDFactor, o.dilationHFactor, o.dilationWFactor = dilations
        o.fusedActivationFunction = getattr(g.fb.ActivationFunctionType, activation)
        x = g.tensor("x", in_shape)
        b = g.weights("b", outputs)
        if transpose:
            out_shape = [in_shape[0]] + [in_shape[1 + i] * strides[i] for i in range(3)] + [outputs]
            shape = g.tensor("output_shape", [5], data=out_shape, dtype=np.int32)
            w = g.weights("w", *kernel, outputs, channels)
            y = g.tensor("y", out_shape)
            g.operator(g.fb.BuiltinOperator.CONV_3D_TRANSPOSE, [shape, w, x, b], [y], g.fb.BuiltinOptions.Conv3DOptions, o)
        else:
            def size(i):
                effective = (kernel[i] - 1) * dilations[i] + 1
                return -(-in_shape[1 + i] // strides[i]) if padding == "SAME" else -(-(in_shape[1 + i] - effective + 1) // strides[i])
            w = g.weights("w", *kernel, channels, outputs)
            y = g.tensor("y", [in_shape[0], size(0), size(1), size(2), outputs])
            g.operator(g.fb.BuiltinOperator.CONV_3D, [x, w, b], [y], g.fb.BuiltinOptions.Conv3DOptions, o)
        return g.build([x], [y])
    return build


case("conv3d_dilated_relu6", [(1, 6, 7, 8, 2)], built=True)(built_conv3d((1, 6, 7, 8, 2), (2, 3, 2), 3, (1, 2, 1), (2, 1, 3), "SAME", "RELU6"))
case("conv3d_dilated_valid_batch2", [(2, 7, 6, 9, 3)], built=True)(built_conv3d((2, 7, 6, 9, 3), (3, 2, 2), 4, (2, 1, 2), (2, 2, 1), "VALID", "RELU_N1_TO_1"))
case("conv3d_transpose_dilated_relu", [(1, 3, 4, 3, 2)], built=True)(built_conv3d((1, 3, 4, 3, 2), (3, 2, 3), 3, (2, 1, 2), (1, 2, 1), "SAME", "RELU",
                                                                                   transpose=True))


def built_int16_sqrt(shape):
    """int16 SQRT (16x8 models; the converter has no 16x8 form of it): truncated onto the output scale."""
    def build():
        g = GraphBuilder()
        x = g.tensor("x", shape, dtype=np.int16, quantization=(6.0 / 32767, 0))
        y = g.tensor("y", shape, dtype=np.int16, quantization=(2.5 / 32767, 0))
        g.operator(g.fb.BuiltinOperator.SQRT, [x], [y], 0, None)
        return g.build([x], [y])
    return build


case("q16_sqrt_built", [(4, 64)], built=True, inputs=[np.random.default_rng(17).integers(0, 32768, size=(4, 64))])(built_int16_sqrt((4, 64)))


def built_uint8_l2_normalization(shape):
    """uint8 L2_NORMALIZATION (older uint8 models; the converter now quantizes to int8): output scale 1/128, zero point 128."""
    def build():
        g = GraphBuilder()
        x = g.tensor("x", shape, dtype=np.uint8, quantization=(0.02, 131))
        y = g.tensor("y", shape, dtype=np.uint8, quantization=(1 / 128, 128))
        g.operator(g.fb.BuiltinOperator.L2_NORMALIZATION, [x], [y], 0, None)
        return g.build([x], [y])
    return build


case("q_l2_normalization_uint8_built", [(3, 24)], built=True, inputs=[np.random.default_rng(23).integers(0, 256, size=(3, 24))])(
    built_uint8_l2_normalization((3, 24)))


def resource_variable_model():
    """A tf.Variable state updated every run (converted with resource variables: CALL_ONCE, VAR_HANDLE, READ_VARIABLE,
    ASSIGN_VARIABLE); the second invocation's outputs are recorded too."""
    def build():
        class Accumulator(tf.Module):
            def __init__(self):
                self.state = tf.Variable(tf.constant([[0.5, -1.0, 2.0, 0.0]]))
                self.steps = tf.Variable(tf.constant(3, tf.int32))

            @tf.function(input_signature=[tf.TensorSpec([1, 4])])
            def __call__(self, x):
                new = self.state * 0.5 + x
                self.state.assign(new)
                self.steps.assign(self.steps + 1)
                return new * 2.0, tf.cast(self.steps, tf.float32)
        module = Accumulator()
        converter = tf.lite.TFLiteConverter.from_concrete_functions([module.__call__.get_concrete_function()], module)
        converter.experimental_enable_resource_variables = True
        return converter.convert()
    return build


case("resource_variable_state", [(1, 4)], built=True)(resource_variable_model())


def built_svdf(batch, input_size, filters, memory, rank, activation, bias=True):
    """SVDF (keyword-spotting models; no converter emits it from Keras) with its state in a variable tensor; the second
    invocation's outputs are recorded too."""
    def build():
        g = GraphBuilder()
        x = g.tensor("x", [batch, input_size])
        features = g.weights("features", filters, input_size)
        time = g.weights("time", filters, memory)
        b = g.weights("bias", filters // rank) if bias else -1
        state = g.tensor("state", [batch, memory * filters], variable=True)
        y = g.tensor("y", [batch, filters // rank])
        o = g.fb.SVDFOptionsT()
        o.rank = rank
        o.fusedActivationFunction = getattr(g.fb.ActivationFunctionType, activation)
        g.operator(g.fb.BuiltinOperator.SVDF, [x, features, time, b, state], [y], g.fb.BuiltinOptions.SVDFOptions, o)
        return g.build([x], [y])
    return build


case("svdf_rank1", [(2, 10)], built=True)(built_svdf(2, 10, 8, 5, 1, "NONE"))
case("svdf_rank2_relu_no_bias", [(1, 6)], built=True)(built_svdf(1, 6, 12, 4, 2, "RELU", bias=False))


def keras_layer(shape, make_layer, seed=3):
    """A one-layer Keras 2 model on a batch of one (the converter's form of the layer)."""
    def build():
        import tf_keras
        tf_keras.utils.set_random_seed(seed)
        inputs = tf_keras.Input(shape, batch_size=1)
        return tf.lite.TFLiteConverter.from_keras_model(tf_keras.Model(inputs, make_layer()(inputs))).convert()
    return build


case("conv3d_same_relu", [(1, 6, 7, 8, 3)], built=True)(keras_layer((6, 7, 8, 3), lambda: tf.keras.layers.Conv3D(4, 3, padding="same", activation="relu")))
case("conv3d_valid_strided", [(1, 7, 9, 9, 2)], built=True)(keras_layer((7, 9, 9, 2), lambda: tf.keras.layers.Conv3D(3, (2, 3, 2), strides=(1, 2, 2))))
case("conv3d_no_bias", [(1, 5, 6, 7, 2)], built=True)(keras_layer((5, 6, 7, 2), lambda: tf.keras.layers.Conv3D(3, 3, padding="same", use_bias=False)))
case("conv3d_transpose_same_stride2", [(1, 3, 4, 5, 2)], built=True)(keras_layer((3, 4, 5, 2), lambda: tf.keras.layers.Conv3DTranspose(3, 3, strides=2, padding="same")))
case("conv3d_transpose_valid_relu", [(1, 2, 3, 3, 4)], built=True)(
    keras_layer((2, 3, 3, 4), lambda: tf.keras.layers.Conv3DTranspose(2, (2, 3, 3), strides=(1, 2, 1), padding="valid", activation="relu")))
case("dilated_conv_odd_size", [(1, 9, 11, 3)])(lambda x: tf.nn.conv2d(x, const(3, 3, 3, 4), 1, "SAME", dilations=2))


# ---- full-integer quantized ops (post-training int8 with a representative dataset; int8 or uint8 in and out) ----
def qcase(name, shapes, fn, low=-2.0, high=2.0, io="int8"):
    case(name, shapes, low=low, high=high, optimize=f"quantize_{io}")(fn)


q_other = const(1, 1, 3)
qcase("q_add_same_shape", [(1, 4, 5, 3), (1, 4, 5, 3)], lambda x, y: x + y)
qcase("q_add_broadcast_relu", [(1, 4, 5, 3)], lambda x: tf.nn.relu(x + q_other))
qcase("q_sub_same_shape", [(1, 4, 5, 3), (1, 4, 5, 3)], lambda x, y: x - y)
qcase("q_sub_broadcast", [(1, 4, 5, 3)], lambda x: x - q_other)
qcase("q_mul_same_shape", [(1, 4, 5, 3), (1, 4, 5, 3)], lambda x, y: x * y)
qcase("q_mul_broadcast", [(1, 4, 5, 3)], lambda x: x * q_other)
qcase("q_hard_swish", [(1, 6, 6, 8)], lambda x: x * tf.nn.relu6(x + 3.0) / 6.0, low=-5, high=5)
qcase("q_logistic", [(2, 5, 7)], tf.sigmoid, low=-6, high=6)
qcase("q_tanh", [(2, 5, 7)], tf.tanh, low=-3, high=3)
qcase("q_softmax", [(3, 10)], tf.nn.softmax, low=-4, high=4)
# LiteRT's optimized 8-bit LOG_SOFTMAX: the softmax table, logf of the float sum, rint onto scale 16/256.
qcase("q_log_softmax", [(4, 12)], tf.nn.log_softmax, low=-6, high=6)
qcase("q_resize_bilinear", [(1, 5, 7, 3)], lambda x: tf.compat.v1.image.resize_bilinear(x, (9, 4)))
qcase("q_resize_bilinear_half_pixel", [(1, 5, 7, 3)], lambda x: tf.compat.v1.image.resize_bilinear(x, (10, 14), half_pixel_centers=True))
qcase("q_resize_nearest", [(1, 5, 7, 3)], lambda x: tf.compat.v1.image.resize_nearest_neighbor(x, (11, 3)))
qcase("q_pad", [(1, 3, 4, 2)], lambda x: tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]]))
qcase("q_pad_channels", [(1, 6, 7, 37)], lambda x: tf.pad(x, [[0, 0], [0, 0], [0, 0], [2, 7]]))
qcase("q_gather", [(5, 4)], lambda x: tf.gather(x, tf.constant([4, 0, 2, 2]), axis=0))
qcase("q_strided_slice", [(4, 6, 5)], lambda x: x[1:3, ::2, 1:4])
qcase("q_transpose", [(2, 3, 4, 5)], lambda x: tf.transpose(x, [0, 3, 1, 2]))
qcase("q_concatenation_scales", [(1, 4, 4, 3), (1, 4, 4, 5)], lambda x, y: tf.concat([x, 3.0 * y], axis=3))
qcase("q_mean_hw", [(1, 7, 7, 16)], lambda x: tf.reduce_mean(x, axis=[1, 2]))
# Kept dimensions over H and W (a classifier's global average pool): TFLite's own quantized-mean path.
qcase("q_mean_hw_keepdims", [(2, 5, 6, 40)], lambda x: tf.reduce_mean(x, axis=[1, 2], keepdims=True))
qcase("q_uint8_mean_hw_keepdims", [(1, 7, 7, 24)], lambda x: tf.reduce_mean(x, axis=[1, 2], keepdims=True), io="uint8")
qcase("q_average_pool", [(1, 8, 9, 5)], lambda x: tf.nn.avg_pool2d(x, 2, 2, "VALID"))
qcase("q_max_pool", [(1, 9, 7, 6)], lambda x: tf.nn.max_pool2d(x, 3, 2, "SAME"))
# Wide enough for the vector path (16 bytes of channels at a time, the last piece overlapping; 8 lanes for int16).
qcase("q_max_pool_wide", [(1, 12, 11, 40)], lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"))
qcase("q_average_pool_wide", [(1, 9, 9, 33)], lambda x: tf.nn.avg_pool2d(x, 3, 2, "SAME"))
qcase("q_arg_max", [(3, 7)], lambda x: tf.argmax(x, axis=1) + 0)
q_conv_w, q_conv_b = const(3, 3, 4, 8), const(8)
qcase("q_conv_per_channel_relu6", [(1, 9, 9, 4)], lambda x: tf.nn.relu6(tf.nn.bias_add(tf.nn.conv2d(x, q_conv_w, 1, "SAME"), q_conv_b)))
q_dw_w = const(3, 3, 6, 1)
qcase("q_depthwise", [(1, 8, 8, 6)], lambda x: tf.nn.depthwise_conv2d(x, q_dw_w, [1, 2, 2, 1], "SAME"))
q_fc_w, q_fc_b = const(20, 12), const(12)
qcase("q_fully_connected", [(3, 20)], lambda x: tf.matmul(x, q_fc_w) + q_fc_b)
qcase("q_batch_matmul", [(2, 5, 6), (2, 6, 4)], lambda x, y: tf.matmul(x, y))
qcase("q_batch_matmul_adjoint_b_broadcast", [(2, 1, 5, 8), (3, 4, 8)], lambda x, y: tf.matmul(x, y, adjoint_b=True))
qcase("q_gelu", [(2, 5, 7)], lambda x: tf.nn.gelu(x, approximate=False), low=-4, high=4)
qcase("q_gelu_approximate", [(2, 5, 7)], lambda x: tf.nn.gelu(x, approximate=True), low=-4, high=4)
qcase("q_squared_difference", [(2, 5, 7), (2, 5, 7)], lambda x, y: tf.math.squared_difference(x, y))
qcase("q_squared_difference_broadcast", [(1, 6, 16)], lambda x: tf.math.squared_difference(x, tf.reduce_mean(x, axis=-1, keepdims=True)))
qcase("q_rsqrt", [(2, 5, 7)], tf.math.rsqrt, low=0.05, high=4.0)
# Quantized REDUCE_PROD (reduce.cc's EvalQuantizedProd): each step's int64 product rescaled at once, so the order of
# the values is part of the result; the last axis, a middle one, and two axes kept.
qcase("q_reduce_prod_last_axis", [(3, 4, 5)], lambda x: tf.reduce_prod(x, axis=-1), low=-1.6, high=1.6)
qcase("q_reduce_prod_axes_0_2_keep", [(3, 4, 2)], lambda x: tf.reduce_prod(x, axis=[0, 2], keepdims=True), low=0.4, high=1.8)
qcase("q_reduce_prod_middle_axis", [(2, 6, 3)], lambda x: tf.reduce_prod(x, axis=1), low=-1.3, high=1.3)
qcase("q_uint8_io_conv", [(1, 6, 6, 4)], lambda x: tf.nn.conv2d(x, q_conv_w, 1, "VALID"), io="uint8")
q_tconv_rng = np.random.default_rng(4242)
q_tconv_w = tf.constant(q_tconv_rng.normal(0, 0.5, size=(3, 3, 5, 6)).astype(np.float32))   # [kh, kw, cout, cin]
q_tconv_b = tf.constant(q_tconv_rng.normal(0, 0.5, size=(5,)).astype(np.float32))
qcase("q_transpose_conv_stride2_same_bias", [(1, 4, 5, 6)],
      lambda x: tf.nn.bias_add(tf.nn.conv2d_transpose(x, q_tconv_w, output_shape=[1, 8, 10, 5], strides=2, padding="SAME"), q_tconv_b))
qcase("q_transpose_conv_stride2_valid_relu", [(2, 3, 4, 6)],
      lambda x: tf.nn.relu(tf.nn.conv2d_transpose(x, q_tconv_w, output_shape=[2, 7, 9, 5], strides=2, padding="VALID")))
qcase("q_transpose_conv_stride1_same", [(1, 5, 5, 6)],
      lambda x: tf.nn.conv2d_transpose(x, q_tconv_w, output_shape=[1, 5, 5, 5], strides=1, padding="SAME"))

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

# ---- hybrid ops: int8 constant weights, float activations (dynamic-range quantization) ---------------------------
h_fc_w, h_fc_b = const(64, 48), const(48)
case("hybrid_fully_connected", [(3, 64)], optimize="dynamic_range", exact=True)(lambda x: tf.nn.relu(tf.matmul(x, h_fc_w) + h_fc_b))
# Rows of 1,100 values: the product in three slices of under 518, added as integers.
h_fc_long_w, h_fc_long_b = const(1100, 40), const(40)
case("hybrid_fully_connected_long_rows", [(5, 1100)], optimize="dynamic_range", exact=True)(lambda x: tf.matmul(x, h_fc_long_w) + h_fc_long_b)
h_conv_w, h_conv_b = const(3, 3, 8, 16), const(16)
case("hybrid_conv", [(1, 10, 10, 8)], optimize="dynamic_range", exact=True)(
    lambda x: tf.nn.relu6(tf.nn.bias_add(tf.nn.conv2d(x, h_conv_w, 1, "SAME"), h_conv_b)))
def float_width_image(shape, seed):
    """An input whose asymmetric int8 scale depends on taking max − min in single precision (as LiteRT's hybrid kernels
    do) rather than in double: the two scales differ in the last bit."""
    gen = np.random.default_rng(seed)
    while True:
        x = gen.uniform(-2, 2, size=shape).astype(np.float32)
        low, high = min(np.float32(0), x.min()), max(np.float32(0), x.max())
        if np.float32((float(high) - float(low)) / 255.0) != np.float32(float(np.float32(high - low)) / 255.0):
            return x


case("hybrid_conv_float_width", [(1, 10, 10, 8)], optimize="dynamic_range", inputs=[float_width_image((1, 10, 10, 8), 5)], exact=True)(
    lambda x: tf.nn.relu6(tf.nn.bias_add(tf.nn.conv2d(x, h_conv_w, 1, "SAME"), h_conv_b)))
case("hybrid_conv_per_tensor_batch2", [(2, 9, 9, 8)], optimize="dynamic_range_per_tensor", exact=True)(
    lambda x: tf.nn.bias_add(tf.nn.conv2d(x, h_conv_w, 2, "SAME"), h_conv_b))
# Filter rows of 1,152 and 600 values: summed in three and two slices of under 518 (exact float sums), added as integers.
h_long_rng = np.random.default_rng(7171)
h_long_w = tf.constant(h_long_rng.normal(0, 0.5, size=(3, 3, 128, 24)).astype(np.float32))
h_long_b = tf.constant(h_long_rng.normal(0, 0.5, size=(24,)).astype(np.float32))
case("hybrid_conv_long_rows_batch2", [(2, 6, 5, 128)], optimize="dynamic_range", exact=True)(
    lambda x: tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, h_long_w, 1, "SAME"), h_long_b)))
h_long_pointwise_w = tf.constant(h_long_rng.normal(0, 0.5, size=(1, 1, 600, 20)).astype(np.float32))
case("hybrid_conv_pointwise_long_rows", [(1, 4, 4, 600)], optimize="dynamic_range", exact=True)(
    lambda x: tf.nn.conv2d(x, h_long_pointwise_w, 1, "VALID"))
h_dw_rng = np.random.default_rng(6161)
h_dw_w = tf.constant(h_dw_rng.normal(0, 0.5, size=(3, 3, 128, 1)).astype(np.float32))   # 1,152 weights: dynamic range quantizes them
h_dw_b = tf.constant(h_dw_rng.normal(0, 0.5, size=(128,)).astype(np.float32))
case("hybrid_depthwise_relu6", [(1, 7, 6, 128)], optimize="dynamic_range", exact=True)(
    lambda x: tf.nn.relu6(tf.nn.bias_add(tf.nn.depthwise_conv2d(x, h_dw_w, [1, 2, 2, 1], "SAME"), h_dw_b)))
# Not a case: per-tensor hybrid DEPTHWISE_CONV_2D (dynamic_range_per_tensor), where LiteRT 2.3's output is garbage
# (values up to 1e35: its per-channel hybrid kernel reads a scale per channel from a one-scale filter).
case("hybrid_depthwise_batch2_valid", [(2, 5, 5, 128)], optimize="dynamic_range", exact=True)(
    lambda x: tf.nn.depthwise_conv2d(x, h_dw_w, [1, 1, 1, 1], "VALID"))
h_tconv_rng = np.random.default_rng(5151)
h_tconv_w = tf.constant(h_tconv_rng.normal(0, 0.5, size=(3, 3, 16, 12)).astype(np.float32))   # [kh, kw, cout, cin]: 1,728 weights
h_tconv_b = tf.constant(h_tconv_rng.normal(0, 0.5, size=(16,)).astype(np.float32))
case("hybrid_transpose_conv_relu", [(1, 5, 6, 12)], optimize="dynamic_range")(
    lambda x: tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d_transpose(x, h_tconv_w, output_shape=[1, 10, 12, 16], strides=2, padding="SAME"), h_tconv_b)))
case("hybrid_transpose_conv_batch2_valid", [(2, 4, 5, 12)], optimize="dynamic_range")(
    lambda x: tf.nn.conv2d_transpose(x, h_tconv_w, output_shape=[2, 9, 11, 16], strides=2, padding="VALID"))

# ---- LSTM forms no converter emits from Keras (peepholes, projection, layer norm, CIFG, clipping, time-major, the
# BIDIRECTIONAL_SEQUENCE_LSTM op), written directly with TFLite's flatbuffer schema -------------------------------
class GraphBuilder:
    """A one-subgraph .tflite written with the schema's object API (tensorflow.lite.python.schema_py_generated)."""

    def __init__(self):
        from tensorflow.lite.python import schema_py_generated as fb
        self.fb = fb
        self.model = fb.ModelT()
        self.model.version = 3
        self.model.description = "tools/make_op_goldens.py"
        self.model.buffers = [fb.BufferT()]
        self.model.operatorCodes = []
        self.graph = fb.SubGraphT()
        self.graph.tensors, self.graph.operators, self.graph.inputs, self.graph.outputs = [], [], [], []
        self.model.subgraphs = [self.graph]

    def tensor(self, name, shape, data=None, variable=False, dtype=np.float32, quantization=None):
        """dtype: float32, uint8, int8 or int32; quantization: (scale, zero_point) for a per-tensor quantized one, or
        (scales, zero_points, axis) with lists for a per-channel one."""
        t = self.fb.TensorT()
        types = {np.float32: "FLOAT32", np.uint8: "UINT8", np.int8: "INT8", np.int16: "INT16", np.int32: "INT32", np.bool_: "BOOL"}
        t.name, t.shape, t.type, t.isVariable = name, list(shape), getattr(self.fb.TensorType, types[dtype]), variable
        if quantization:
            q = self.fb.QuantizationParametersT()
            if len(quantization) == 3:
                q.scale, q.zeroPoint = [float(v) for v in quantization[0]], [int(v) for v in quantization[1]]
                q.quantizedDimension = quantization[2]
            else:
                q.scale, q.zeroPoint = [float(quantization[0])], [int(quantization[1])]
            t.quantization = q
        buffer = self.fb.BufferT()
        if data is not None:
            buffer.data = np.frombuffer(np.asarray(data, dtype).tobytes(), dtype=np.uint8)
        self.model.buffers.append(buffer)
        t.buffer = len(self.model.buffers) - 1
        self.graph.tensors.append(t)
        return len(self.graph.tensors) - 1

    def weights(self, name, *shape, scale=0.4):
        return self.tensor(name, shape, rng.normal(0, scale, size=shape))

    def operator(self, code, inputs, outputs, options_type, options, intermediates=None):
        op_code = self.fb.OperatorCodeT()
        op_code.builtinCode, op_code.deprecatedBuiltinCode, op_code.version = code, min(code, 127), 1
        self.model.operatorCodes.append(op_code)
        op = self.fb.OperatorT()
        op.opcodeIndex, op.inputs, op.outputs = len(self.model.operatorCodes) - 1, inputs, outputs
        op.builtinOptionsType, op.builtinOptions = options_type, options
        if intermediates:
            op.intermediates = intermediates
        self.graph.operators.append(op)

    def build(self, inputs, outputs):
        from tensorflow.lite.tools import flatbuffer_utils
        self.graph.inputs, self.graph.outputs = inputs, outputs
        return bytes(flatbuffer_utils.convert_object_to_bytearray(self.model))


def lstm_cell(g, prefix, batch, inputs, cells, outputs=None, cifg=False, peephole=False, projection=False, projection_bias=True,
              layer_norm=False):
    """The 23 cell tensors of the unidirectional op's layout (1-23; -1 where omitted) plus its two state variables."""
    outputs = outputs or cells
    t = [-1] * 24
    for k, gate in enumerate("ifco"):
        if cifg and gate == "i":
            continue
        t[1 + k] = g.weights(f"{prefix}W_x{gate}", cells, inputs)
        t[5 + k] = g.weights(f"{prefix}W_h{gate}", cells, outputs)
        t[12 + k] = g.weights(f"{prefix}b_{gate}", cells, scale=0.3)
        if layer_norm:
            t[20 + k] = g.tensor(f"{prefix}ln_{gate}", [cells], rng.uniform(0.5, 1.5, cells))
    if peephole:
        for k, gate in enumerate("ifo"):
            if not (cifg and gate == "i"):
                t[9 + k] = g.weights(f"{prefix}peephole_{gate}", cells)
    if projection:
        t[16] = g.weights(f"{prefix}projection", outputs, cells)
        if projection_bias:
            t[17] = g.weights(f"{prefix}projection_bias", outputs, scale=0.1)
    t[18] = g.tensor(f"{prefix}output_state", [batch, outputs], variable=True)
    t[19] = g.tensor(f"{prefix}cell_state", [batch, cells], variable=True)
    return t


def built_lstm(time_steps, batch, inputs, cells, time_major=False, activation="TANH", cell_clip=0.0, proj_clip=0.0, **cell):
    def build():
        g = GraphBuilder()
        x = g.tensor("x", [time_steps, batch, inputs] if time_major else [batch, time_steps, inputs])
        t = lstm_cell(g, "", batch, inputs, cells, **cell)
        t[0] = x
        out_size = cell.get("outputs") or cells
        y = g.tensor("y", [time_steps, batch, out_size] if time_major else [batch, time_steps, out_size])
        o = g.fb.UnidirectionalSequenceLSTMOptionsT()
        o.fusedActivationFunction = getattr(g.fb.ActivationFunctionType, activation)
        o.cellClip, o.projClip, o.timeMajor = cell_clip, proj_clip, time_major
        g.operator(g.fb.BuiltinOperator.UNIDIRECTIONAL_SEQUENCE_LSTM, t, [y], g.fb.BuiltinOptions.UnidirectionalSequenceLSTMOptions, o)
        return g.build([x], [y])
    return build


def built_bilstm(time_steps, batch, inputs, forward, backward, merge=True, time_major=True, cell_clip=0.0, proj_clip=0.0, aux_inputs=None):
    """forward/backward: lstm_cell keyword arguments (with `cells`). aux_inputs: the backward cell reads its own input."""
    def build():
        g = GraphBuilder()
        shape = lambda size: [time_steps, batch, size] if time_major else [batch, time_steps, size]
        x = g.tensor("x", shape(inputs))
        aux = g.tensor("aux", shape(aux_inputs)) if aux_inputs else -1
        fw = lstm_cell(g, "fw_", batch, inputs, **forward)
        bw = lstm_cell(g, "bw_", batch, aux_inputs or inputs, **backward)
        op_inputs = [x] + fw[1:18] + bw[1:18] + [fw[18], fw[19], bw[18], bw[19], aux] + [-1] * 8
        fw_size, bw_size = forward.get("outputs") or forward["cells"], backward.get("outputs") or backward["cells"]
        outs = [g.tensor("y", shape(fw_size + bw_size))] if merge else [g.tensor("y_fw", shape(fw_size)), g.tensor("y_bw", shape(bw_size))]
        o = g.fb.BidirectionalSequenceLSTMOptionsT()
        o.fusedActivationFunction = g.fb.ActivationFunctionType.TANH
        o.cellClip, o.projClip, o.mergeOutputs, o.timeMajor = cell_clip, proj_clip, merge, time_major
        g.operator(g.fb.BuiltinOperator.BIDIRECTIONAL_SEQUENCE_LSTM, op_inputs, outs, g.fb.BuiltinOptions.BidirectionalSequenceLSTMOptions, o)
        return g.build([x] + ([aux] if aux_inputs else []), outs)
    return build


def built_uint8_resize_bilinear(in_shape, size, align_corners=False, half_pixel_centers=False):
    """uint8 RESIZE_BILINEAR (the converter's full-integer models compute in int8; uint8 ops come from older tools)."""
    def build():
        g = GraphBuilder()
        quantization = (0.05, 117)
        x = g.tensor("x", in_shape, dtype=np.uint8, quantization=quantization)
        size_tensor = g.tensor("size", [2], data=list(size), dtype=np.int32)
        y = g.tensor("y", [in_shape[0], size[0], size[1], in_shape[3]], dtype=np.uint8, quantization=quantization)
        o = g.fb.ResizeBilinearOptionsT()
        o.alignCorners, o.halfPixelCenters = align_corners, half_pixel_centers
        g.operator(g.fb.BuiltinOperator.RESIZE_BILINEAR, [x, size_tensor], [y], g.fb.BuiltinOptions.ResizeBilinearOptions, o)
        return g.build([x], [y])
    return build


def built_uint8_pool(op, shape, filter_size, stride, padding, activation):
    """uint8 MAX_POOL_2D / AVERAGE_POOL_2D with a fused activation (older uint8 models; the converter folds the
    activation into the output's range instead)."""
    def build():
        g = GraphBuilder()
        quantization = (0.04, 121)
        geometry = [(n - filter_size) // stride + 1 if padding == "VALID" else -(-n // stride) for n in shape[1:3]]
        x = g.tensor("x", shape, dtype=np.uint8, quantization=quantization)
        y = g.tensor("y", [shape[0]] + geometry + [shape[3]], dtype=np.uint8, quantization=quantization)
        o = g.fb.Pool2DOptionsT()
        o.padding = getattr(g.fb.Padding, padding)
        o.strideH = o.strideW = stride
        o.filterHeight = o.filterWidth = filter_size
        o.fusedActivationFunction = getattr(g.fb.ActivationFunctionType, activation)
        g.operator(getattr(g.fb.BuiltinOperator, op), [x], [y], g.fb.BuiltinOptions.Pool2DOptions, o)
        return g.build([x], [y])
    return build


def built_concatenation(dtype, shapes, quantizations, output_quantization, axis):
    """CONCATENATION of uint8 inputs whose scales and zero points differ from the output's (TFLite's
    ConcatenationWithScaling; its int8 kernel refuses them, and the converter gives int8 concatenations one scale)."""
    def build():
        g = GraphBuilder()
        inputs = [g.tensor(f"x{i}", shape, dtype=dtype, quantization=q) for i, (shape, q) in enumerate(zip(shapes, quantizations))]
        out_shape = list(shapes[0])
        out_shape[axis] = sum(shape[axis] for shape in shapes)
        y = g.tensor("y", out_shape, dtype=dtype, quantization=output_quantization)
        o = g.fb.ConcatenationOptionsT()
        o.axis = axis
        g.operator(g.fb.BuiltinOperator.CONCATENATION, inputs, [y], g.fb.BuiltinOptions.ConcatenationOptions, o)
        return g.build(inputs, [y])
    return build


def built_add(dtype, shape, quantizations, output_quantization, op="ADD"):
    """Quantized ADD/SUB of one shape with the scales given. Scales that are powers of two apart make TFLite's
    rescaled sums exact multiples of the last shift, so half of the outputs are ties (rounded away from zero),
    which calibrated scales almost never give."""
    def build():
        g = GraphBuilder()
        a = g.tensor("a", shape, dtype=dtype, quantization=quantizations[0])
        b = g.tensor("b", shape, dtype=dtype, quantization=quantizations[1])
        y = g.tensor("y", shape, dtype=dtype, quantization=output_quantization)
        if op == "ADD":
            g.operator(g.fb.BuiltinOperator.ADD, [a, b], [y], g.fb.BuiltinOptions.AddOptions, g.fb.AddOptionsT())
        else:
            g.operator(g.fb.BuiltinOperator.SUB, [a, b], [y], g.fb.BuiltinOptions.SubOptions, g.fb.SubOptionsT())
        return g.build([a, b], [y])
    return build


def built_transpose_conv_ties(in_shape, channels, kernel, stride):
    """int8 TRANSPOSE_CONV (SAME) with power-of-two scales and small weights, so many rescaled sums are rounding ties:
    pins LiteRT's rounding of this op (its own seeded weights)."""
    def build():
        gen = np.random.default_rng(77)
        g = GraphBuilder()
        in_c = in_shape[-1]
        w_scales = [2.0 ** -(2 + c % 3) for c in range(channels)]
        out_shape = [in_shape[0], in_shape[1] * stride, in_shape[2] * stride, channels]
        shape = g.tensor("output_shape", [4], data=out_shape, dtype=np.int32)
        w = g.tensor("w", (channels, kernel, kernel, in_c), data=gen.integers(-3, 4, size=(channels, kernel, kernel, in_c)), dtype=np.int8,
                     quantization=(w_scales, [0] * channels, 0))
        x = g.tensor("x", in_shape, dtype=np.int8, quantization=(2.0 ** -4, -5))
        b = g.tensor("b", [channels], data=gen.integers(-40, 41, size=channels), dtype=np.int32,
                     quantization=([2.0 ** -4 * s_ for s_ in w_scales], [0] * channels, 0))
        y = g.tensor("y", out_shape, dtype=np.int8, quantization=(2.0 ** -2, 3))
        o = g.fb.TransposeConvOptionsT()
        o.padding, o.strideH, o.strideW = g.fb.Padding.SAME, stride, stride
        g.operator(g.fb.BuiltinOperator.TRANSPOSE_CONV, [shape, w, x, b], [y], g.fb.BuiltinOptions.TransposeConvOptions, o)
        return g.build([x], [y])
    return build


def built_mul(dtype, shape, scales):
    """MUL of two inputs of one shape with the scales given (zero points 0)."""
    def build():
        g = GraphBuilder()
        a = g.tensor("a", shape, dtype=dtype, quantization=(scales[0], 0))
        b = g.tensor("b", shape, dtype=dtype, quantization=(scales[1], 0))
        y = g.tensor("y", shape, dtype=dtype, quantization=(scales[2], 0))
        g.operator(g.fb.BuiltinOperator.MUL, [a, b], [y], g.fb.BuiltinOptions.MulOptions, g.fb.MulOptionsT())
        return g.build([a, b], [y])
    return build


def built_int16_activation(op, input_scale, shape=(64, 64)):
    """int16 LOGISTIC or TANH with the input scale given and output scale 2^-15: on power-of-two input scales LiteRT runs
    gemmlowp's fixed-point functions instead of its table interpolation (the converter picks other scales)."""
    def build():
        g = GraphBuilder()
        x = g.tensor("x", shape, dtype=np.int16, quantization=(input_scale, 0))
        y = g.tensor("y", shape, dtype=np.int16, quantization=(2.0 ** -15, 0))
        g.operator(getattr(g.fb.BuiltinOperator, op), [x], [y], 0, None)
        return g.build([x], [y])
    return build


def built_batch_matmul(lhs_shape, rhs_shape, lhs_quantization, rhs_quantization, output_quantization, adj_x=False, adj_y=False):
    """int8 BATCH_MATMUL with the scales given. With scales a power of two apart and a depth of 1 or 2 the rescaled sums
    are often ties of the last shift, which pins its rounding (LiteRT rounds them away from zero here, up in
    FULLY_CONNECTED)."""
    def build():
        g = GraphBuilder()
        a = g.tensor("lhs", lhs_shape, dtype=np.int8, quantization=lhs_quantization)
        b = g.tensor("rhs", rhs_shape, dtype=np.int8, quantization=rhs_quantization)
        rows, cols = lhs_shape[-1 if adj_x else -2], rhs_shape[-2 if adj_y else -1]
        batch = np.broadcast_shapes(tuple(lhs_shape[:-2]), tuple(rhs_shape[:-2]))
        y = g.tensor("y", list(batch) + [rows, cols], dtype=np.int8, quantization=output_quantization)
        options = g.fb.BatchMatMulOptionsT()
        options.adjX, options.adjY = adj_x, adj_y
        g.operator(g.fb.BuiltinOperator.BATCH_MATMUL, [a, b], [y], g.fb.BuiltinOptions.BatchMatMulOptions, options)
        return g.build([a, b], [y])
    return build


def built_select(shape):
    """SELECT (the first version, which converters no longer emit for tf.where) with a rank-1 condition along the first
    axis, made by GREATER from a third input: whole rows of x or y."""
    def build():
        g = GraphBuilder()
        x, y = g.tensor("x", shape), g.tensor("y", shape)
        c = g.tensor("c", [shape[0]])
        zero = g.tensor("zero", [], data=[0.0])
        condition = g.tensor("condition", [shape[0]])
        g.graph.tensors[condition].type = g.fb.TensorType.BOOL
        out = g.tensor("out", shape)
        g.operator(g.fb.BuiltinOperator.GREATER, [c, zero], [condition], g.fb.BuiltinOptions.GreaterOptions, g.fb.GreaterOptionsT())
        g.operator(g.fb.BuiltinOperator.SELECT, [condition, x, y], [out], g.fb.BuiltinOptions.SelectOptions, g.fb.SelectOptionsT())
        return g.build([x, y, c], [out])
    return build


case("select_rows", [(4, 3), (4, 3), (4,)], built=True)(built_select((4, 3)))


def built_dynamic_update_slice(operand_shape, update_shape, start):
    """DYNAMIC_UPDATE_SLICE (what XLA-style exports write for a cache update) with constant start indices; start
    [4, 2] on a 5x6 operand with a 2x3 update is clamped to [3, 2]."""
    def build():
        g = GraphBuilder()
        operand, update = g.tensor("operand", operand_shape), g.tensor("update", update_shape)
        begin = g.tensor("start", [len(start)], data=start, dtype=np.int32)
        out = g.tensor("out", operand_shape)
        g.operator(g.fb.BuiltinOperator.DYNAMIC_UPDATE_SLICE, [operand, update, begin], [out], g.fb.BuiltinOptions.NONE, None)
        return g.build([operand, update], [out])
    return build


case("dynamic_update_slice", [(5, 6), (2, 3)], built=True)(built_dynamic_update_slice((5, 6), (2, 3), [4, 2]))


def built_unary_float(op, shape):
    """A one-input float op no converter emits alone (RELU_0_TO_1: the converter writes MINIMUM and RELU)."""
    def build():
        g = GraphBuilder()
        x, y = g.tensor("x", shape), g.tensor("y", shape)
        g.operator(getattr(g.fb.BuiltinOperator, op), [x], [y], g.fb.BuiltinOptions.NONE, None)
        return g.build([x], [y])
    return build


def built_embedding_lookup(ids, rows, width):
    """EMBEDDING_LOOKUP of a float table at constant ids after a CAST-free int32 input (converters write GATHER)."""
    def build():
        g = GraphBuilder()
        table = np.random.default_rng(77).normal(0, 1, (rows, width)).astype(np.float32)
        x = g.tensor("x", [ids, width])
        index = g.tensor("ids", [ids], data=[(3 * i + 1) % rows for i in range(ids)], dtype=np.int32)
        values = g.tensor("table", [rows, width], data=table)
        looked_up, y = g.tensor("looked_up", [ids, width]), g.tensor("y", [ids, width])
        g.operator(g.fb.BuiltinOperator.EMBEDDING_LOOKUP, [index, values], [looked_up], g.fb.BuiltinOptions.NONE, None)
        g.operator(g.fb.BuiltinOperator.ADD, [looked_up, x], [y], g.fb.BuiltinOptions.AddOptions, g.fb.AddOptionsT())
        return g.build([x], [y])
    return build


case("relu_0_to_1", [(2, 5, 7)], built=True)(built_unary_float("RELU_0_TO_1", (2, 5, 7)))
case("embedding_lookup", [(4, 5)], built=True)(built_embedding_lookup(4, 7, 5))


def built_power_of_two_layer(kind, dtype, in_shape, channels, kernel=1, stride=1, padding="SAME"):
    """CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED whose scales are all powers of two and whose weights are small
    (|w - w_zero| <= 3): the requantization's products are then exact multiples of its rounding steps, so many
    outputs are ties in one or both of its roundings (the doubling high multiply's, the final shift's), which
    calibrated scales almost never give. int8 layers get per-channel filter scales 2^-2...2^-4, uint8 one 2^-3."""
    def build():
        g = GraphBuilder()
        signed = dtype == np.int8
        x_scale, x_zero = 2.0 ** -4, (-5 if signed else 131)
        y_scale, y_zero = 2.0 ** -2, (3 if signed else 126)
        w_zero = 0 if signed else 128
        per_channel = signed and kind != "FULLY_CONNECTED"
        w_scales = [2.0 ** -(2 + c % 3) for c in range(channels)] if per_channel else [2.0 ** -3]
        in_c = in_shape[-1]
        if kind == "CONV_2D":
            w_shape, axis = (channels, kernel, kernel, in_c), 0
        elif kind == "DEPTHWISE_CONV_2D":
            w_shape, axis = (1, kernel, kernel, channels), 3
        else:
            w_shape, axis = (channels, in_c), 0
        w_data = rng.integers(-3, 4, size=w_shape) + w_zero
        wq = (w_scales, [w_zero] * len(w_scales), axis) if per_channel else (w_scales[0], w_zero)
        x = g.tensor("x", in_shape, dtype=dtype, quantization=(x_scale, x_zero))
        w = g.tensor("w", w_shape, data=w_data, dtype=dtype, quantization=wq)
        b_scales = [x_scale * s_ for s_ in w_scales]
        bq = (b_scales, [0] * len(b_scales), 0) if per_channel else (b_scales[0], 0)
        b = g.tensor("b", [channels], data=rng.integers(-40, 41, size=channels), dtype=np.int32, quantization=bq)
        if kind == "FULLY_CONNECTED":
            y = g.tensor("y", [in_shape[0], channels], dtype=dtype, quantization=(y_scale, y_zero))
            o = g.fb.FullyConnectedOptionsT()
            g.operator(g.fb.BuiltinOperator.FULLY_CONNECTED, [x, w, b], [y], g.fb.BuiltinOptions.FullyConnectedOptions, o)
            return g.build([x], [y])
        out_hw = [(d + stride - 1) // stride if padding == "SAME" else (d - kernel) // stride + 1 for d in in_shape[1:3]]
        y = g.tensor("y", [in_shape[0]] + out_hw + [channels], dtype=dtype, quantization=(y_scale, y_zero))
        if kind == "CONV_2D":
            o = g.fb.Conv2DOptionsT()
            options_type, op = g.fb.BuiltinOptions.Conv2DOptions, g.fb.BuiltinOperator.CONV_2D
        else:
            o = g.fb.DepthwiseConv2DOptionsT()
            o.depthMultiplier = 1
            options_type, op = g.fb.BuiltinOptions.DepthwiseConv2DOptions, g.fb.BuiltinOperator.DEPTHWISE_CONV_2D
        o.padding = getattr(g.fb.Padding, padding)
        o.strideH = o.strideW = stride
        o.dilationHFactor = o.dilationWFactor = 1
        g.operator(op, [x, w, b], [y], options_type, o)
        return g.build([x], [y])
    return build


def built_reduce(op, dtype, shape, axes, keep_dims, input_quantization, output_quantization):
    """Quantized MEAN or SUM with the scales given (the converter fuses or float-computes most of them)."""
    def build():
        g = GraphBuilder()
        o = g.fb.ReducerOptionsT()
        o.keepDims = keep_dims
        x = g.tensor("x", shape, dtype=dtype, quantization=input_quantization)
        axes_tensor = g.tensor("axes", [len(axes)], data=list(axes), dtype=np.int32)
        out_shape = [1 if i in axes else d for i, d in enumerate(shape)] if keep_dims else [d for i, d in enumerate(shape) if i not in axes]
        y = g.tensor("y", out_shape, dtype=dtype, quantization=output_quantization)
        g.operator(getattr(g.fb.BuiltinOperator, op), [x, axes_tensor], [y], g.fb.BuiltinOptions.ReducerOptions, o)
        return g.build([x], [y])
    return build


def built_comparisons(dtype, shape_x, shape_y, quantization_x, quantization_y):
    """8-bit GREATER, LESS_EQUAL, EQUAL and NOT_EQUAL of inputs with different scales and zero points (Keras' SELU in
    full-integer models compares x with a 0 of another scale): comparisons.cc rescales both to fixed point."""
    def build():
        g = GraphBuilder()
        x = g.tensor("x", shape_x, dtype=dtype, quantization=quantization_x)
        y = g.tensor("y", shape_y, dtype=dtype, quantization=quantization_y)
        out_shape = list(np.broadcast_shapes(tuple(shape_x), tuple(shape_y)))
        outputs = []
        for op in ["GREATER", "LESS_EQUAL", "EQUAL", "NOT_EQUAL"]:
            outputs.append(g.tensor(op.lower(), out_shape, dtype=np.bool_))
            g.operator(getattr(g.fb.BuiltinOperator, op), [x, y], [outputs[-1]], 0, None)
        return g.build([x, y], outputs)
    return build


def built_div(dtype, shape_x, shape_y, quantization_x, quantization_y, quantization_out):
    """8- or 16-bit DIV with the scales given: div.cc's fixed-point reciprocal of the divisor, then the rescale."""
    def build():
        g = GraphBuilder()
        x = g.tensor("x", shape_x, dtype=dtype, quantization=quantization_x)
        y = g.tensor("y", shape_y, dtype=dtype, quantization=quantization_y)
        out = g.tensor("quotient", list(np.broadcast_shapes(tuple(shape_x), tuple(shape_y))), dtype=dtype, quantization=quantization_out)
        g.operator(g.fb.BuiltinOperator.DIV, [x, y], [out], g.fb.BuiltinOptions.DivOptions, g.fb.DivOptionsT())
        return g.build([x, y], [out])
    return build


def divisors(dtype, shape, zero_point, seed):
    """Random stored values other than the zero point (a real 0, which div.cc refuses); stored 0s are kept."""
    info = np.iinfo(dtype)
    values = np.random.default_rng(seed).integers(info.min, info.max + 1, size=shape)
    values[values == zero_point] = zero_point + 1
    return values


def built_dequantize(dtype, shape, quantization):
    """DEQUANTIZE of an 8-bit input to float32 (a full-integer model's float output)."""
    def build():
        g = GraphBuilder()
        x = g.tensor("x", shape, dtype=dtype, quantization=quantization)
        y = g.tensor("y", shape)
        g.operator(g.fb.BuiltinOperator.DEQUANTIZE, [x], [y], 0, None)
        return g.build([x], [y])
    return build


def built_quantize_float(dtype, shape, quantization):
    """QUANTIZE from float32 (a float model's first op in full-integer models)."""
    def build():
        g = GraphBuilder()
        x = g.tensor("x", shape)
        y = g.tensor("y", shape, dtype=dtype, quantization=quantization)
        g.operator(g.fb.BuiltinOperator.QUANTIZE, [x], [y], 0, None)
        return g.build([x], [y])
    return build


def built_unary(op, dtype, shape, input_quantization, output_quantization, alpha=None):
    """A one-input 8-bit op with the scales given (RELU and its kin keep their own node when not fused); `alpha` makes
    it a LEAKY_RELU."""
    def build():
        g = GraphBuilder()
        x = g.tensor("x", shape, dtype=dtype, quantization=input_quantization)
        y = g.tensor("y", shape, dtype=dtype, quantization=output_quantization)
        if alpha is None:
            g.operator(getattr(g.fb.BuiltinOperator, op), [x], [y], 0, None)
        else:
            o = g.fb.LeakyReluOptionsT()
            o.alpha = alpha
            g.operator(g.fb.BuiltinOperator.LEAKY_RELU, [x], [y], g.fb.BuiltinOptions.LeakyReluOptions, o)
        return g.build([x], [y])
    return build


def built_binary(op, dtype, shapes, quantization):
    """A two-input 8-bit op whose inputs and output share `quantization` (MAXIMUM, MINIMUM compare stored values)."""
    def build():
        g = GraphBuilder()
        a = g.tensor("a", shapes[0], dtype=dtype, quantization=quantization)
        b = g.tensor("b", shapes[1], dtype=dtype, quantization=quantization)
        out_shape = [max(x, y) for x, y in zip([1] * (len(shapes[1]) - len(shapes[0])) + list(shapes[0]),
                                               [1] * (len(shapes[0]) - len(shapes[1])) + list(shapes[1]))]
        y = g.tensor("y", out_shape, dtype=dtype, quantization=quantization)
        g.operator(getattr(g.fb.BuiltinOperator, op), [a, b], [y], 0, None)
        return g.build([a, b], [y])
    return build


def built_prelu(dtype, x_shape, alpha_shape, x_quantization, alpha_quantization, output_quantization):
    """8-bit PRELU with a constant alpha (the converter folds or floats most PRELUs)."""
    def build():
        g = GraphBuilder()
        info = np.iinfo(dtype)
        x = g.tensor("x", x_shape, dtype=dtype, quantization=x_quantization)
        alpha = g.tensor("alpha", alpha_shape, data=rng.integers(info.min, info.max + 1, size=alpha_shape), dtype=dtype,
                         quantization=alpha_quantization)
        y = g.tensor("y", x_shape, dtype=dtype, quantization=output_quantization)
        g.operator(g.fb.BuiltinOperator.PRELU, [x, alpha], [y], 0, None)
        return g.build([x], [y])
    return build


def built_int8_lstm_projection(time_steps, batch, inputs, cells, outputs, cell_clip=0.0, proj_clip=0.0):
    """An integer (8x8_16) UNIDIRECTIONAL_SEQUENCE_LSTM with a projection and its bias, which the converter does not
    make from Keras: int8 input, weights and output state, int32 biases, int16 cell state (scale 2^-11), and the five
    intermediates (the first four unused without layer norm, the fifth the hidden value's scale and zero point)."""
    def build():
        g = GraphBuilder()
        q = lambda name, shape, scale, zp, dtype=np.int8, data=None, variable=False: g.tensor(
            name, shape, data=data, dtype=dtype, quantization=(scale, zp), variable=variable)
        x_scale, x_zp, state_scale, state_zp = 0.02, -3, 0.011, 7
        x = q("x", [batch, time_steps, inputs], x_scale, x_zp)
        t = [-1] * 24
        t[0] = x
        for k, gate in enumerate("ifco"):
            w_scale, r_scale = 0.004 + 0.001 * k, 0.005 + 0.001 * k
            t[1 + k] = q(f"W_x{gate}", [cells, inputs], w_scale, 0, data=rng.integers(-127, 128, size=(cells, inputs)))
            t[5 + k] = q(f"W_h{gate}", [cells, outputs], r_scale, 0, data=rng.integers(-127, 128, size=(cells, outputs)))
            t[12 + k] = q(f"b_{gate}", [cells], w_scale * x_scale, 0, dtype=np.int32, data=rng.integers(-3000, 3000, size=cells))
        t[16] = q("projection", [outputs, cells], 0.006, 0, data=rng.integers(-127, 128, size=(outputs, cells)))
        t[17] = q("projection_bias", [outputs], 0.006 * 0.007, 0, dtype=np.int32, data=rng.integers(-500, 500, size=outputs))
        t[18] = q("output_state", [batch, outputs], state_scale, state_zp, variable=True)
        t[19] = q("cell_state", [batch, cells], 2.0 ** -11, 0, dtype=np.int16, variable=True)
        intermediates = [q(f"gate_{k}", [batch, cells], 2.0 ** -12, 0, dtype=np.int16) for k in range(4)]
        intermediates.append(q("hidden", [batch, cells], 0.007, -9))
        y = q("y", [batch, time_steps, outputs], state_scale, state_zp)
        o = g.fb.UnidirectionalSequenceLSTMOptionsT()
        o.fusedActivationFunction = g.fb.ActivationFunctionType.TANH
        o.cellClip, o.projClip, o.timeMajor = cell_clip, proj_clip, False
        g.operator(g.fb.BuiltinOperator.UNIDIRECTIONAL_SEQUENCE_LSTM, t, [y], g.fb.BuiltinOptions.UnidirectionalSequenceLSTMOptions, o,
                   intermediates=intermediates)
        return g.build([x], [y])
    return build


case("q_lstm_int8_projection", [(2, 6, 5)], built=True)(built_int8_lstm_projection(6, 2, 5, 8, 4))
case("q_lstm_int8_projection_clips", [(1, 9, 3)], built=True)(built_int8_lstm_projection(9, 1, 3, 6, 5, cell_clip=0.5, proj_clip=0.3))

case("q_add_int8_ties", [(1, 8, 9, 7), (1, 8, 9, 7)], built=True)(
    built_add(np.int8, (1, 8, 9, 7), [(0.05, -3), (0.05, 11)], (0.1, 2)))
case("q_add_uint8_ties", [(1, 8, 9, 7), (1, 8, 9, 7)], built=True)(
    built_add(np.uint8, (1, 8, 9, 7), [(0.025, 120), (0.05, 131)], (0.1, 127)))
case("q_sub_int8_ties", [(2, 5, 13), (2, 5, 13)], built=True)(
    built_add(np.int8, (2, 5, 13), [(0.05, 0), (0.025, -7)], (0.2, -1), op="SUB"))
case("q_batch_matmul_int8_ties", [(2, 16, 1), (2, 1, 16)], built=True)(
    built_batch_matmul((2, 16, 1), (2, 1, 16), (0.0625, 3), (0.0625, -5), (0.5, 1)))
case("q_batch_matmul_int8_ties_adjoints", [(3, 2, 9), (1, 12, 2)], built=True)(
    built_batch_matmul((3, 2, 9), (1, 12, 2), (0.125, -2), (0.0625, 0), (1.0, -3), adj_x=True, adj_y=True))
# DenseNet121 16x8's first batch-norm MUL scales: LiteRT's multiplier s_a·s_b/s_out in single precision (1224752896)
# and in double (1224752921) put about 4 of these 16,384 products on other sides of a rounding tie.
case("q16_mul_float_multiplier", [(1, 128, 128), (1, 128, 128)], built=True)(
    built_mul(np.int16, (1, 128, 128), (3.18578677251935e-05, 3.051835665246472e-05, 2.7930529540753923e-05)))
case("q16_logistic_power_of_two_scale", [(64, 64)], built=True)(built_int16_activation("LOGISTIC", 2.0 ** -12))
case("q16_tanh_power_of_two_scale", [(64, 64)], built=True)(built_int16_activation("TANH", 2.0 ** -12))
case("q16_tanh_power_of_two_scale_shifted", [(64, 64)], built=True)(built_int16_activation("TANH", 2.0 ** -11))
case("q_transpose_conv_int8_ties", [(1, 5, 6, 7)], built=True)(built_transpose_conv_ties((1, 5, 6, 7), 10, 3, 2))
case("q_conv_int8_1x1_ties", [(1, 6, 7, 5)], built=True)(built_power_of_two_layer("CONV_2D", np.int8, (1, 6, 7, 5), 19))
case("q_conv_int8_3x3_ties", [(1, 7, 6, 3)], built=True)(built_power_of_two_layer("CONV_2D", np.int8, (1, 7, 6, 3), 10, kernel=3, stride=2))
case("q_conv_uint8_1x1_ties", [(1, 6, 7, 5)], built=True)(built_power_of_two_layer("CONV_2D", np.uint8, (1, 6, 7, 5), 12))
case("q_depthwise_int8_ties", [(1, 8, 7, 28)], built=True)(built_power_of_two_layer("DEPTHWISE_CONV_2D", np.int8, (1, 8, 7, 28), 28, kernel=3))
case("q_depthwise_uint8_ties", [(1, 8, 7, 16)], built=True)(built_power_of_two_layer("DEPTHWISE_CONV_2D", np.uint8, (1, 8, 7, 16), 16, kernel=3))
case("q_fully_connected_int8_ties", [(3, 9)], built=True)(built_power_of_two_layer("FULLY_CONNECTED", np.int8, (3, 9), 13))
case("q_fully_connected_uint8_ties", [(1, 9)], built=True)(built_power_of_two_layer("FULLY_CONNECTED", np.uint8, (1, 9), 21))
# MEAN over H and W with keep_dims (TFLite's optimized integer Mean) on scales a power of two apart and 16 pixels:
# the rescale is exact, so one mean in 32 is a rounding tie.
case("q_mean_int8_ties", [(48, 4, 4, 40)], built=True)(
    built_reduce("MEAN", np.int8, (48, 4, 4, 40), [1, 2], True, (2.0 ** -4, 3), (2.0 ** -3, -1)))
case("q_mean_uint8_ties", [(48, 4, 4, 40)], built=True)(
    built_reduce("MEAN", np.uint8, (48, 4, 4, 40), [1, 2], True, (2.0 ** -4, 128), (2.0 ** -3, 125)))
# SUM that rescales (LiteRT does it in single precision: with scales 0.05 -> 0.3 its float errors decide the near-ties
# of sum / 6), and a generic MEAN (integer).
case("q_comparisons_int8_rescaled", [(6, 40), (6, 40)], built=True)(built_comparisons(np.int8, (6, 40), (6, 40), (0.05, 3), (0.0731, -7)))
# Scales 0.05 and 0.1 with x - 3 = 2 (y + 7) + {-1, 0, 1}: a third of the pairs are equal in real value, the rest one
# step of x apart, so EQUAL and the order of near neighbours depend on the fixed-point rescale's rounding.
comparison_y = np.random.default_rng(31).integers(-60, 55, size=(6, 40))
comparison_x = np.clip(2 * (comparison_y + 7) + 3 + np.random.default_rng(32).integers(-1, 2, size=(6, 40)), -128, 127)
case("q_comparisons_int8_near_ties", [(6, 40), (6, 40)], built=True, inputs=[comparison_x, comparison_y])(
    built_comparisons(np.int8, (6, 40), (6, 40), (0.05, 3), (0.1, -7)))
case("q_comparisons_uint8_rescaled_broadcast", [(5, 1, 30), (4, 30)], built=True)(
    built_comparisons(np.uint8, (5, 1, 30), (4, 30), (0.02, 128), (0.5 / 128, 140)))
# Quotients of every size: small numerators over large divisors ask the rescale for right shifts past 31, which
# LiteRT's x86 build takes modulo 32 (Div.roundingDivideByPOT).
case("q_div_int8", [(8, 50), (8, 50)], built=True,
     inputs=[np.random.default_rng(41).integers(-128, 128, size=(8, 50)), divisors(np.int8, (8, 50), -3, 42)])(
    built_div(np.int8, (8, 50), (8, 50), (0.04, 5), (0.05, -3), (1 / 128, 0)))
# Scales whose multiplier is 25 in single precision (25.0000006 in double): real quotients such as 62.5 are ties.
case("q_div_int8_ties", [(12, 30), (12, 30)], built=True,
     inputs=[np.random.default_rng(7).integers(-128, 128, size=(12, 30)), divisors(np.int8, (12, 30), -8, 8)])(
    built_div(np.int8, (12, 30), (12, 30), (0.1, 0), (0.02, -8), (0.2, -28)))
case("q_div_uint8_broadcast", [(4, 1, 30), (3, 30)], built=True,
     inputs=[np.random.default_rng(43).integers(0, 256, size=(4, 1, 30)), divisors(np.uint8, (3, 30), 120, 44)])(
    built_div(np.uint8, (4, 1, 30), (3, 30), (0.1, 128), (0.02, 120), (0.2, 100)))
case("q_div_int16", [(6, 40), (6, 40)], built=True,
     inputs=[np.random.default_rng(45).integers(-32768, 32768, size=(6, 40)), divisors(np.int16, (6, 40), 0, 46)])(
    built_div(np.int16, (6, 40), (6, 40), (1 / 4096, 0), (1 / 2048, 0), (1 / 16384, 0)))
# Keras' softsign, x / (1 + |x|), in a full-integer model: the converter's int8 DIV.
case("q_div_softsign_int8", [(4, 24)], optimize="quantize_int8", low=-6.0, high=6.0)(lambda x: tf.nn.softsign(x * 1.5))
case("q_log_softmax_uint8_built", [(3, 1, 40)], built=True)(built_unary("LOG_SOFTMAX", np.uint8, (3, 1, 40), (0.07, 140), (16 / 256, 255)))
# LiteRT's x86 DEQUANTIZE takes whole blocks of 8 values through a two-rounding vector path and the rest through a
# one-rounding scalar one: lengths that leave a tail, compared bit for bit.
case("q_dequantize_int8_blocks_and_tail", [(37,)], built=True, exact=True)(built_dequantize(np.int8, (37,), (0.0011001141, -14)))
case("q_dequantize_uint8_blocks_and_tail", [(5, 14)], built=True, exact=True)(built_dequantize(np.uint8, (5, 14), (0.0011001141, 114)))
# int16 SUM (16x8 models), rescaled from the input's scale to the output's as the 8-bit SUM is.
case("q16_sum_built", [(3, 40, 5)], built=True)(built_reduce("SUM", np.int16, (3, 40, 5), [1], False, (0.001, 0), (0.004, 0)))
case("q16_sum_ties", [(6, 40, 5)], built=True, inputs=[np.random.default_rng(61).integers(-60, 61, size=(6, 40, 5))])(
    built_reduce("SUM", np.int16, (6, 40, 5), [1], True, (0.001, 0), (0.004, 0)))
case("q_sum_int8_rescaled", [(8, 5, 3, 32)], built=True)(built_reduce("SUM", np.int8, (8, 5, 3, 32), [2], True, (0.05, 3), (0.3, -2)))
case("q_sum_uint8_axis2_keepdims", [(8, 5, 6, 32)], built=True)(
    built_reduce("SUM", np.uint8, (8, 5, 6, 32), [2], True, (0.03, 120), (0.21, 117)))
case("q_sum_uint8_rescaled", [(8, 5, 3, 32)], built=True)(
    built_reduce("SUM", np.uint8, (8, 5, 3, 32), [1, 3], False, (0.02, 131), (0.5, 120)))
case("q_mean_int8_axis2", [(8, 5, 6, 16)], built=True)(built_reduce("MEAN", np.int8, (8, 5, 6, 16), [2], False, (0.05, 3), (0.03, -2)))
# QUANTIZE from float: inputs on a grid of half the scale, so half are ties (39 values: groups of 8 and a tail), and
# a uint8 one on a scale whose reciprocal rounds.
case("q_quantize_float_ties", [(3, 13)], built=True, low=-12.0, high=12.0, step=0.0625)(built_quantize_float(np.int8, (3, 13), (0.125, 3)))
case("q_quantize_float_uint8", [(4, 251)], built=True, low=-1.0, high=2.0)(built_quantize_float(np.uint8, (4, 251), (0.0123, 131)))
# Standalone 8-bit RELU, RELU6, RELU_N1_TO_1: a rescale (scales a power of two apart, so ties; or not) and a clamp.
case("q_relu_int8_rescaled", [(3, 37)], built=True)(built_unary("RELU", np.int8, (3, 37), (2.0 ** -4, -3), (2.0 ** -3, -128)))
case("q_relu_uint8_same_scale", [(2, 21)], built=True)(built_unary("RELU", np.uint8, (2, 21), (0.05, 130), (0.05, 130)))
case("q_relu6_int8", [(4, 19)], built=True)(built_unary("RELU6", np.int8, (4, 19), (0.07, 5), (0.03, -120)))
case("q_relu6_uint8_ties", [(3, 33)], built=True)(built_unary("RELU6", np.uint8, (3, 33), (2.0 ** -4, 128), (2.0 ** -5, 0)))
case("q_leaky_relu_int8", [(3, 29)], built=True)(built_unary("LEAKY_RELU", np.int8, (3, 29), (0.05, -3), (0.04, 10), alpha=0.2))
case("q_leaky_relu_uint8_ties", [(2, 40)], built=True)(
    built_unary("LEAKY_RELU", np.uint8, (2, 40), (2.0 ** -4, 128), (2.0 ** -3, 100), alpha=0.25))
case("q_leaky_relu_int8_negative_alpha", [(1, 50)], built=True)(
    built_unary("LEAKY_RELU", np.int8, (1, 50), (0.05, 0), (0.05, 0), alpha=-0.3))
case("q_maximum_int8_broadcast", [(2, 3, 5), (1, 3, 1)], built=True)(built_binary("MAXIMUM", np.int8, [(2, 3, 5), (1, 3, 1)], (0.05, -3)))
case("q_minimum_uint8", [(4, 9), (4, 9)], built=True)(built_binary("MINIMUM", np.uint8, [(4, 9), (4, 9)], (0.05, 128)))
case("q_minimum_int8_scalar", [(3, 7), (1,)], built=True)(built_binary("MINIMUM", np.int8, [(3, 7), (1,)], (0.02, 4)))
case("q_prelu_int8_channels", [(1, 4, 5, 6)], built=True)(
    built_prelu(np.int8, (1, 4, 5, 6), (1, 1, 6), (0.05, -3), (0.004, 2), (0.04, 5)))
case("q_prelu_uint8_ties", [(2, 3, 7)], built=True)(
    built_prelu(np.uint8, (2, 3, 7), (3, 7), (2.0 ** -4, 128), (2.0 ** -8, 120), (2.0 ** -3, 100)))
# Output scale 2^16 times and more the input's 128-times finer one: gemmlowp's 16-bit RoundingDivideByPOT then
# shifts by 16 or more (its mask truncates to all ones), as a converted MobileNetV3Small with random weights has it.
case("q_hard_swish_int8_wide_output_scale", [(2, 64)], built=True)(built_unary("HARD_SWISH", np.int8, (2, 64), (0.002, -5), (40.0, 0)))
case("q_hard_swish_uint8_wide_output_scale", [(2, 64)], built=True)(built_unary("HARD_SWISH", np.uint8, (2, 64), (0.0005, 128), (300.0, 3)))
case("q_relu_n1_to_1_int8", [(2, 45)], built=True)(built_unary("RELU_N1_TO_1", np.int8, (2, 45), (0.02, 0), (2.0 ** -6, 1)))
case("q_relu_0_to_1_int8", [(2, 45)], built=True)(built_unary("RELU_0_TO_1", np.int8, (2, 45), (0.02, -10), (2.0 ** -7, -128)))
case("q_elu_int8", [(2, 45)], built=True)(built_unary("ELU", np.int8, (2, 45), (0.03, 20), (0.025, -90)))
case("q_relu_0_to_1_uint8", [(2, 45)], built=True)(built_unary("RELU_0_TO_1", np.uint8, (2, 45), (0.01, 100), (2.0 ** -8, 0)))
case("q_concatenation_uint8_rescaled", [(1, 6, 4), (1, 6, 3)], built=True)(
    built_concatenation(np.uint8, [(1, 6, 4), (1, 6, 3)], [(0.02, 128), (0.07, 100)], (0.05, 120), axis=2))
case("q_resize_bilinear_uint8", [(1, 5, 7, 3)], built=True)(built_uint8_resize_bilinear((1, 5, 7, 3), (9, 4)))
case("q_resize_bilinear_uint8_align_corners", [(2, 4, 6, 5)], built=True)(
    built_uint8_resize_bilinear((2, 4, 6, 5), (7, 11), align_corners=True))
case("q_resize_bilinear_uint8_half_pixel", [(1, 5, 7, 3)], built=True)(
    built_uint8_resize_bilinear((1, 5, 7, 3), (10, 14), half_pixel_centers=True))
case("q_resize_bilinear_uint8_half_pixel_down", [(1, 9, 12, 16)], built=True)(
    built_uint8_resize_bilinear((1, 9, 12, 16), (4, 5), half_pixel_centers=True))
case("q_resize_bilinear_uint8_x8_half_pixel", [(1, 2, 3, 8)], built=True)(
    built_uint8_resize_bilinear((1, 2, 3, 8), (16, 24), half_pixel_centers=True))

case("lstm_peephole_projection_clips", [(2, 6, 5)], built=True, low=-1, high=1)(
    built_lstm(6, 2, 5, 8, outputs=4, peephole=True, projection=True, cell_clip=0.7, proj_clip=0.5))
case("lstm_cifg_layer_norm", [(1, 7, 4)], built=True, low=-1, high=1)(built_lstm(7, 1, 4, 6, cifg=True, layer_norm=True))
case("lstm_time_major_peephole_layer_norm_projection", [(5, 3, 3)], built=True, low=-1, high=1)(
    built_lstm(5, 3, 3, 7, outputs=5, time_major=True, peephole=True, layer_norm=True, projection=True, projection_bias=False, cell_clip=1.0))
case("lstm_cifg_peephole_relu6", [(2, 5, 4)], built=True, low=-1, high=1)(
    built_lstm(5, 2, 4, 6, cifg=True, peephole=True, activation="RELU6"))
case("bilstm_merged_time_major", [(6, 2, 4)], built=True, low=-1, high=1)(
    built_bilstm(6, 2, 4, dict(cells=5, outputs=3, peephole=True, projection=True), dict(cells=5, outputs=3, projection=True, projection_bias=False)))
case("bilstm_separate_batch_major_clips", [(2, 7, 3)], built=True, low=-1, high=1)(
    built_bilstm(7, 2, 3, dict(cells=4, cifg=True), dict(cells=4), merge=False, time_major=False, cell_clip=0.8, proj_clip=0.0))
case("bilstm_aux_input_backward", [(5, 1, 4), (5, 1, 4)], built=True, low=-1, high=1)(
    built_bilstm(5, 1, 4, dict(cells=4), dict(cells=4), aux_inputs=4))

# ---- quantized recurrent layers: a Keras 2 LSTM fully int8-quantized becomes TFLite's integer LSTM (int8
# weights and output state, int16 cell state, five intermediates); dynamic-range quantization makes it hybrid ----
case("q_lstm_keras_sequences_batch2", [(2, 9, 5)], keras=True, optimize="quantize_int8")(
    keras_sequence_model(9, 5, 2, lambda x: lstm_layer(7, 70, return_sequences=True)(x)))
case("q_lstm_keras_stacked", [(1, 11, 4)], keras=True, optimize="quantize_int8", low=-1.0, high=1.0)(
    keras_sequence_model(11, 4, 1, lambda x: lstm_layer(6, 80, return_sequences=True)(lstm_layer(9, 90, return_sequences=True)(x))))
# (The converter leaves tensors under 1024 elements in float, so the hybrid layer is 48 cells on 40 features.)
case("hybrid_lstm_keras", [(1, 10, 40)], keras=True, optimize="dynamic_range")(
    keras_sequence_model(10, 40, 1, lambda x: lstm_layer(48, 100, return_sequences=True)(x)))
case("hybrid_lstm_keras_batch2_last", [(2, 7, 40)], keras=True, optimize="dynamic_range")(
    keras_sequence_model(7, 40, 2, lambda x: lstm_layer(36, 110)(x)))

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
def keras3_encoder_block(sequence, width, heads, int8=False):
    """A pre-norm Transformer encoder block in Keras 3 (LayerNormalization, MultiHeadAttention, a GELU MLP, residuals):
    BATCH_MATMUL for the attention scores and the weighted values, GELU in the MLP. int8: full-integer post-training
    quantization (int8 SQUARED_DIFFERENCE and RSQRT in the layer norms)."""
    def build():
        import keras as keras3
        keras3.utils.set_random_seed(11)
        inputs = keras3.Input((sequence, width), batch_size=1)
        x = keras3.layers.LayerNormalization()(inputs)
        x = inputs + keras3.layers.MultiHeadAttention(num_heads=heads, key_dim=width // heads)(x, x)
        y = keras3.layers.Dense(2 * width, activation="gelu")(keras3.layers.LayerNormalization()(x))
        model = keras3.Model(inputs, x + keras3.layers.Dense(width)(y))
        converter = tf.lite.TFLiteConverter.from_keras_model(model)
        if int8:
            calibration = np.random.default_rng(12)
            converter.optimizations = [tf.lite.Optimize.DEFAULT]
            converter.representative_dataset = lambda: ([calibration.uniform(-2, 2, (1, sequence, width)).astype(np.float32)] for _ in range(64))
            converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
            converter.inference_input_type = converter.inference_output_type = tf.int8
        if int16:
            calibration = np.random.default_rng(13)
            converter.optimizations = [tf.lite.Optimize.DEFAULT]
            converter.representative_dataset = lambda: ([calibration.uniform(*calibration_range, (1,) + tuple(shape)).astype(np.float32)] for _ in range(32))
            converter.target_spec.supported_ops = [tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
            converter.inference_input_type = converter.inference_output_type = tf.int16
        return converter.convert()
    return build


case("keras3_transformer_encoder_block", [(1, 16, 32)], built=True)(keras3_encoder_block(16, 32, 4))
case("q_keras3_transformer_encoder_block", [(1, 16, 32)], built=True)(keras3_encoder_block(16, 32, 4, int8=True))
def keras3_grouped_conv(shape, filters, kernel, strides=1, activation=None, groups=None, int8=False, calibration_range=(-2, 2), int16=False):
    """Keras 3's Conv2D with groups (by default as many as input channels: ConvNeXt's depthwise 7x7): CONV_2D with a
    filter of input channels / groups."""
    def build():
        import keras as keras3
        keras3.utils.set_random_seed(5)
        inputs = keras3.Input(shape, batch_size=1)
        layer = keras3.layers.Conv2D(filters, kernel, strides=strides, padding="same", groups=groups or shape[-1], activation=activation)
        converter = tf.lite.TFLiteConverter.from_keras_model(keras3.Model(inputs, layer(inputs)))
        if int8 or int16:
            calibration = np.random.default_rng(13)
            converter.optimizations = [tf.lite.Optimize.DEFAULT]
            converter.representative_dataset = lambda: ([calibration.uniform(*calibration_range, (1,) + tuple(shape)).astype(np.float32)] for _ in range(32))
            converter.target_spec.supported_ops = [tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8 if int16
                                                   else tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
            converter.inference_input_type = converter.inference_output_type = tf.int16 if int16 else tf.int8
        return converter.convert()
    return build


case("conv_grouped_one_channel_a_group", [(1, 9, 9, 8)], built=True)(keras3_grouped_conv((1, 9, 9, 8)[1:], 8, 7))
case("conv_grouped_two_outputs_a_group_stride2_relu", [(1, 10, 11, 6)], built=True)(keras3_grouped_conv((10, 11, 6), 12, 3, strides=2, activation="relu"))
case("conv_grouped_four_channels_a_group", [(1, 9, 8, 16)], built=True)(keras3_grouped_conv((9, 8, 16), 12, 3, groups=4))
case("q_conv_grouped_one_channel_a_group", [(1, 9, 9, 8)], built=True)(keras3_grouped_conv((9, 9, 8), 8, 7, int8=True, calibration_range=(-1, 3)))
case("q_conv_grouped_two_groups_stride2_relu", [(1, 11, 10, 6)], built=True)(keras3_grouped_conv((11, 10, 6), 4, 3, strides=2, activation="relu", groups=2, int8=True,
                                                                                                         calibration_range=(-1, 3)))
case("conv_grouped_two_groups_stride2_relu6", [(2, 11, 10, 6)], built=True)(keras3_grouped_conv((11, 10, 6), 4, 3, strides=2, activation="relu6", groups=2))
# 16x8 (int16 activations): TFLite's reference ConvPerChannel for int16 with groups, the only kernel LiteRT has for it.
case("q16_conv_grouped_two_groups_stride2_relu", [(1, 11, 10, 6)], built=True)(keras3_grouped_conv((11, 10, 6), 4, 3, strides=2, activation="relu", groups=2,
                                                                                                          int16=True, calibration_range=(-1, 3)))
case("q16_conv_grouped_one_channel_a_group", [(1, 9, 9, 8)], built=True)(keras3_grouped_conv((9, 9, 8), 8, 7, int16=True))
# tf.cond becomes IF with two branch subgraphs; one case takes each branch.
case("if_then_branch", [(3,)], low=0.1, high=1.0)(lambda x: tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0 + 1.0, lambda: x - 1.0))
case("if_else_branch", [(3,)], low=-1.0, high=-0.1)(lambda x: tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0 + 1.0, lambda: x - 1.0))

# int8 elementwise ops through lookup tables (EXP, LOG, SQRT: TFLite's LUTPopulate of the float function; ABS: its integer
# formula) and REDUCE_MAX/MIN on stored values.
qcase("q_exp", [(4, 16)], lambda x: tf.exp(x), low=-3, high=2)
qcase("q_log", [(4, 16)], lambda x: tf.math.log(x + 2.5), low=-2, high=4)
qcase("q_sqrt", [(4, 16)], lambda x: tf.sqrt(x + 2.0), low=-2, high=6)
qcase("q_abs", [(4, 16)], lambda x: tf.abs(x), low=-3, high=2)
qcase("q_abs_then_add", [(4, 16)], lambda x: tf.abs(x) + 0.5, low=-1, high=3)
qcase("q_l2_normalization", [(3, 24)], lambda x: tf.math.l2_normalize(x, axis=-1))
qcase("q_reduce_max_min", [(3, 5, 7)], lambda x: (tf.reduce_max(x, axis=[0, 2]), tf.reduce_min(x, axis=1, keepdims=True)))

# ---- weight formats --------------------------------------------------------------------------------------
fp16_w, fp16_b = const(3, 3, 4, 6), const(6)
case("dequantize_float16_weights", [(1, 6, 6, 4)], optimize="float16")(
    lambda x: tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, fp16_w, 1, "SAME"), fp16_b)))
sparse = rng.normal(0, 0.5, size=(64, 32)).astype(np.float32)
sparse[rng.random(sparse.shape) < 0.85] = 0.0
sparse_w = tf.constant(sparse)
case("densify_sparse_weights", [(2, 64)], optimize="sparsity")(lambda x: tf.matmul(x, sparse_w))


def convert(c):
    if c["built"]:
        return c["fn"]()
    if c["keras"]:
        converter = tf.lite.TFLiteConverter.from_keras_model(c["fn"]())
    else:
        specs = [tf.TensorSpec(s, tf.float32) for s in c["shapes"]]
        fn = tf.function(c["fn"], input_signature=specs, autograph=False)
        converter = tf.lite.TFLiteConverter.from_concrete_functions([fn.get_concrete_function()], fn)
    if c["optimize"] == "float16":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.target_spec.supported_types = [tf.float16]
    elif c["optimize"] == "sparsity":
        converter.optimizations = [tf.lite.Optimize.EXPERIMENTAL_SPARSITY]
    elif c["optimize"] in ("dynamic_range", "dynamic_range_per_tensor"):
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter._experimental_disable_per_channel = c["optimize"] == "dynamic_range_per_tensor"
    elif c["optimize"] and c["optimize"].startswith("quantize"):
        calibration_rng = np.random.default_rng(zlib.crc32(c["name"].encode()) + 1)
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = lambda: ([calibration_rng.uniform(c["low"], c["high"], size=s).astype(np.float32)
                                                     for s in c["shapes"]] for _ in range(64))
        if c["optimize"].startswith("quantize16x8_"):
            converter.target_spec.supported_ops = [tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
            if c["optimize"] == "quantize16x8_int16":
                converter.inference_input_type = converter.inference_output_type = tf.int16
        else:
            converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
            io = tf.int8 if c["optimize"] == "quantize_int8" else tf.uint8
            converter.inference_input_type = io
            converter.inference_output_type = io
    return converter.convert()


def ops_of(model_bytes):
    interp = litert.Interpreter(model_content=model_bytes)
    return sorted({op["op_name"] for op in interp._get_ops_details()})


case("q_uint8_max_pool_relu6_built", [(1, 9, 10, 24)], built=True, inputs=[np.random.default_rng(31).integers(0, 256, size=(1, 9, 10, 24))])(
    built_uint8_pool("MAX_POOL_2D", (1, 9, 10, 24), 3, 2, "SAME", "RELU6"))
case("q_uint8_average_pool_relu_built", [(1, 8, 8, 20)], built=True, inputs=[np.random.default_rng(32).integers(0, 256, size=(1, 8, 8, 20))])(
    built_uint8_pool("AVERAGE_POOL_2D", (1, 8, 8, 20), 2, 2, "VALID", "RELU"))


def main():
    selected = [c for c in CASES if len(sys.argv) < 2 or any(a in c["name"] for a in sys.argv[1:])]
    os.makedirs(ROOT, exist_ok=True)
    manifest_path = os.path.join(ROOT, "manifest.json")
    manifest = json.load(open(manifest_path)) if os.path.exists(manifest_path) and len(sys.argv) >= 2 else {}
    for c in selected:
        model = convert(c)
        folder = os.path.join(ROOT, c["name"])
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        open(os.path.join(folder, "model.tflite"), "wb").write(model)
        interp = litert.Interpreter(model_content=model, experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        for detail, shape in zip(interp.get_input_details(), c["run_shapes"] or []):
            interp.resize_tensor_input(detail["index"], shape)
        interp.allocate_tensors()
        case_rng = np.random.default_rng(zlib.crc32(c["name"].encode()))
        for i, detail in enumerate(interp.get_input_details()):
            if c["inputs"] is not None:
                x = np.asarray(c["inputs"][i], dtype=detail["dtype"])
            elif detail["dtype"] in (np.int8, np.uint8, np.int16):
                info = np.iinfo(detail["dtype"])
                x = case_rng.integers(info.min, info.max + 1, size=detail["shape"]).astype(detail["dtype"])
            else:
                x = case_rng.uniform(c["low"], c["high"], size=detail["shape"])
                if c["step"]:
                    x = np.round(x / c["step"]) * c["step"]
                x = x.astype(detail["dtype"])
            if c["run_shapes"]:
                assert list(detail["shape"]) == list(c["run_shapes"][i]) and -1 in detail["shape_signature"], c["name"]
            np.save(os.path.join(folder, f"input_{i}.npy"), x)
            interp.set_tensor(detail["index"], x)
        interp.invoke()
        for i, detail in enumerate(interp.get_output_details()):
            suffix = ".litert" if c["tensorflow_reference"] else ""
            np.save(os.path.join(folder, f"output_{i}{suffix}.npy"), interp.get_tensor(detail["index"]))
        if c["tensorflow_reference"]:
            inputs = [np.load(os.path.join(folder, f"input_{i}.npy")) for i in range(len(interp.get_input_details()))]
            expected = c["fn"](*[tf.constant(x) for x in inputs])
            for i, value in enumerate(expected if isinstance(expected, (list, tuple)) else [expected]):
                np.save(os.path.join(folder, f"output_{i}.npy"), np.asarray(value))
        if any(op in " ".join(ops_of(model)) for op in ("LSTM", "ASSIGN_VARIABLE", "SVDF", "RANDOM_", "MULTINOMIAL")):
            # Recurrent state lives in variable tensors (resource variables for ASSIGN_VARIABLE) and carries over to the
            # next invocation; so does a random op's stream.
            interp.invoke()
            for i, detail in enumerate(interp.get_output_details()):
                np.save(os.path.join(folder, f"output_{i}.second_invocation.npy"), interp.get_tensor(detail["index"]))
        manifest[c["name"]] = {"ops": ops_of(model), "inputs": len(interp.get_input_details()), "outputs": len(interp.get_output_details())}
        if c["exact"]:
            manifest[c["name"]]["exact"] = True
        if c["special"]:
            manifest[c["name"]]["special"] = True
        if c["tensorflow_reference"]:
            manifest[c["name"]]["reference"] = "TensorFlow: " + c["tensorflow_reference"]
        print(f"{c['name']:40s} {', '.join(manifest[c['name']]['ops'])}")
    json.dump(dict(sorted(manifest.items())), open(manifest_path, "w"), indent=1)


if __name__ == "__main__":
    main()
