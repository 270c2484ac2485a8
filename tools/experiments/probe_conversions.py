#!/usr/bin/env python3
"""Converts many small models with TensorFlow's converter and compares vision-cli with LiteRT's built-in kernels on each.

The sessions of 2026-11-26 found about twenty engine bugs and gaps this way (every one is now a case in
tools/make_op_goldens.py with LiteRT's outputs). Suites: `keras2` (tf_keras layers), `keras3` (the same layers in
Keras 3), `functions` (TensorFlow functions), `resized` (models with resizable dimensions run at other sizes). Modes:
float, dynamic (dynamic-range int8 weights), float16, int8 and uint8 (full integer), int16 (16x8).

    tools/setup.sh --tensorflow && tools/build.sh
    python3 tools/experiments/probe_conversions.py --suite keras2 functions --modes int8 int16
    python3 tools/experiments/probe_conversions.py --suite resized --only mha_len

One line per model and mode: OK; DIFFERS (what differs); OURS FAILS (our error, where LiteRT runs the model);
CONVERT FAILS or LITERT FAILS (TensorFlow's converter or LiteRT itself cannot, so nothing to compare); CRASHED (the
converter ended the process; each case runs in a child process for that reason). Float outputs are compared within
1e-4 of the largest magnitude, integer outputs exactly, at 1 and 2 threads and in both numerics. Exit status 1 when any
model DIFFERS or OURS FAILS.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = ["float", "dynamic", "float16", "int8", "uint8", "int16"]


def keras_cases(keras):
    """Single layers and small graphs, each `name -> () -> (model, input shapes without the batch)`."""
    L = keras.layers

    def seq(shape, *layers):
        keras.utils.set_random_seed(3)
        model = keras.Sequential([keras.Input(shape)] + list(layers))
        import numpy as np
        for layer in model.layers:  # batch norms with statistics that are not the identity
            if isinstance(layer, L.BatchNormalization):
                w = layer.get_weights()
                rng = np.random.default_rng(5)
                layer.set_weights([rng.uniform(0.5, 1.5, w[0].shape), rng.normal(0, 0.3, w[1].shape),
                                   rng.normal(0, 0.3, w[2].shape), rng.uniform(0.5, 2, w[3].shape)])
        return model, [shape]

    def graph(shapes, build):
        keras.utils.set_random_seed(3)
        inputs = [keras.Input(s) for s in shapes]
        return keras.Model(inputs if len(inputs) > 1 else inputs[0], build(*inputs)), shapes

    return {
        "conv2d_transpose_output_padding": lambda: seq((5, 6, 4), L.Conv2DTranspose(6, 3, strides=2, padding="same", output_padding=1)),
        "conv2d_transpose_valid_relu": lambda: seq((5, 6, 4), L.Conv2DTranspose(5, 4, strides=3, padding="valid", activation="relu")),
        "separable_conv": lambda: seq((9, 9, 6), L.SeparableConv2D(8, 3, depth_multiplier=2, padding="same", activation="relu6")),
        "depthwise_multiplier3_stride2": lambda: seq((10, 9, 4), L.DepthwiseConv2D(3, strides=2, depth_multiplier=3, padding="same")),
        "depthwise_dilated": lambda: seq((12, 12, 5), L.DepthwiseConv2D(3, dilation_rate=2, padding="same")),
        "conv_dilated_batchnorm_relu": lambda: seq((12, 11, 3), L.Conv2D(7, 3, dilation_rate=2, padding="same", use_bias=False),
                                                   L.BatchNormalization(), L.ReLU()),
        "conv_grouped": lambda: seq((8, 8, 8), L.Conv2D(8, 3, groups=4, padding="same")),
        "conv1d_causal_dilated": lambda: seq((20, 5), L.Conv1D(6, 3, padding="causal", dilation_rate=2, activation="tanh")),
        "conv1d_stride_valid": lambda: seq((21, 4), L.Conv1D(5, 4, strides=3)),
        "conv3d": lambda: seq((4, 6, 6, 2), L.Conv3D(3, 3, padding="same", activation="relu")),
        "upsample_bilinear": lambda: seq((5, 6, 3), L.UpSampling2D(2, interpolation="bilinear")),
        "upsample_nearest": lambda: seq((5, 6, 3), L.UpSampling2D(3)),
        "zero_padding_cropping": lambda: seq((7, 8, 3), L.ZeroPadding2D(((1, 2), (3, 0))), L.Cropping2D(((2, 0), (1, 2)))),
        "global_max_pool": lambda: seq((8, 8, 6), L.Conv2D(4, 1), L.GlobalMaxPooling2D()),
        "max_pool_same_stride1": lambda: seq((7, 7, 3), L.MaxPooling2D(3, strides=1, padding="same")),
        "average_pool_valid_stride2": lambda: seq((9, 8, 3), L.AveragePooling2D(3, strides=2)),
        "pooling_1d": lambda: seq((9, 4), L.UpSampling1D(2), L.MaxPooling1D(3), L.AveragePooling1D(2)),
        "layer_norm": lambda: seq((6, 16), L.LayerNormalization()),
        "layer_norm_two_axes": lambda: seq((4, 5, 6), L.LayerNormalization(axis=[1, 2])),
        "batch_norm": lambda: seq((6, 7), L.BatchNormalization()),
        "dense_3d_softmax": lambda: seq((5, 12), L.Dense(7), L.Softmax()),
        "dense_gelu": lambda: seq((12,), L.Dense(16, activation="gelu"), L.Dense(4)),
        "dense_elu_selu": lambda: seq((12,), L.Dense(8, activation="elu"), L.Dense(8, activation="selu")),
        "dense_swish_hard_sigmoid": lambda: seq((12,), L.Dense(8, activation="swish"), L.Dense(8, activation="hard_sigmoid")),
        "dense_softplus_softsign": lambda: seq((12,), L.Dense(8, activation="softplus"), L.Dense(8, activation="softsign")),
        "leaky_relu_prelu": lambda: seq((6, 6, 3), L.Conv2D(4, 3), L.LeakyReLU(0.2), L.Conv2D(4, 1), L.PReLU(shared_axes=[1, 2])),
        "multi_head_attention": lambda: graph([(5, 8)], lambda i: L.MultiHeadAttention(2, 4)(i, i)),
        # Two inputs of one shape: the converter may take calibration inputs in another order than the model's.
        "attention": lambda: graph([(5, 6), (5, 6)], lambda a, b: L.Attention()([a, b])),
        "reshape_permute_flatten": lambda: seq((4, 6, 2), L.Permute((2, 1, 3)), L.Reshape((12, 4)), L.Flatten(), L.Dense(5)),
        "add_multiply_concatenate": lambda: graph([(6,)], lambda a: L.Concatenate()([L.Add()([L.Dense(4)(a), L.Dense(4)(a)]),
                                                                                     L.Multiply()([L.Dense(4)(a), L.Dense(4)(a)])])),
        "minimum_maximum_subtract_average": lambda: graph([(6,)], lambda a: L.Average()([
            L.Minimum()([L.Dense(4)(a), L.Dense(4)(a)]), L.Maximum()([L.Dense(4)(a), L.Subtract()([L.Dense(4)(a), L.Dense(4)(a)])])])),
        "dot_normalized": lambda: graph([(4, 5), (4, 5)], lambda a, b: L.Dot(axes=(2, 2), normalize=True)([a, b])),
        "dropout_noise_at_inference": lambda: seq((6, 6, 3), L.Conv2D(4, 3), L.SpatialDropout2D(0.3), L.GaussianNoise(0.1),
                                                  L.GlobalAveragePooling2D()),
        "repeat_vector_time_distributed": lambda: seq((6,), L.RepeatVector(4), L.TimeDistributed(L.Dense(3))),
        "group_normalization": lambda: seq((6, 6, 8), L.GroupNormalization(groups=4)),
        "unit_normalization": lambda: seq((5, 8), L.UnitNormalization()),
        "conv1d_transpose": lambda: seq((7, 4), L.Conv1DTranspose(5, 3, strides=2, padding="same")),
        "depthwise_conv1d": lambda: seq((12, 5), L.DepthwiseConv1D(3, depth_multiplier=2, padding="same")),
        "separable_conv1d": lambda: seq((12, 5), L.SeparableConv1D(6, 3, padding="same", activation="relu")),
        "padding_upsampling_cropping_3d": lambda: seq((3, 4, 4, 2), L.ZeroPadding3D(1), L.UpSampling3D(2), L.Cropping3D(2)),
        "rescaling_center_crop": lambda: seq((8, 9, 3), L.Rescaling(1 / 127.5, offset=-1), L.CenterCrop(6, 5)),
        "activations": lambda: seq((12,), L.Dense(8), L.Activation("silu"), L.Dense(8), L.Activation("mish"), L.Dense(8),
                                   L.Activation("log_softmax")),
        "softmax_axis1": lambda: seq((5, 4), L.Softmax(axis=1)),
        "conv2d_strided_dilated_valid": lambda: seq((13, 11, 3), L.Conv2D(4, 3, strides=(2, 1), padding="valid"), L.Conv2D(5, 2, dilation_rate=2)),
        "flatten_dense_sigmoid": lambda: seq((4, 4, 3), L.Flatten(), L.Dense(3, activation="sigmoid")),
    }


def function_cases(tf, np):
    """TensorFlow functions on float inputs, each `name -> (input shapes, function)`."""
    rng = np.random.default_rng(11)
    w = lambda *s: tf.constant(rng.normal(0, 0.5, size=s).astype(np.float32))
    w44 = w(1, 1, 4, 4)
    return {
        "resize_bilinear": ([(1, 5, 6, 4)], lambda x: tf.image.resize(tf.nn.conv2d(x, w44, 1, "SAME"), (9, 11))),
        "resize_nearest": ([(1, 5, 6, 4)], lambda x: tf.image.resize(tf.nn.conv2d(x, w44, 1, "SAME"), (10, 12), method="nearest")),
        "space_to_depth_and_back": ([(1, 6, 8, 4)], lambda x: tf.nn.depth_to_space(tf.nn.space_to_depth(tf.nn.conv2d(x, w44, 1, "SAME"), 2), 2) + x),
        "gather_tile_split": ([(6, 5)], lambda x: tf.concat(tf.split(tf.tile(tf.gather(x * 1.5, [3, 0, 5, 1]), [2, 1]), 2, axis=0), axis=1)),
        "strided_transpose_reverse": ([(4, 6, 5)], lambda x: tf.reverse(tf.transpose(x[1:, ::2, ::-1] * 2.0, [2, 0, 1]), [1])),
        "mirror_pad": ([(1, 5, 5, 3)], lambda x: tf.pad(x * 0.7, [[0, 0], [2, 1], [1, 2], [0, 0]], mode="REFLECT")),
        "argmax_top_k": ([(3, 10)], lambda x: (tf.cast(tf.argmax(x * 1.2, -1), tf.float32), tf.math.top_k(x * 1.2, 3).values)),
        "softmax_log_softmax": ([(3, 10)], lambda x: (tf.nn.softmax(x * 2.0), tf.nn.log_softmax(x * 2.0))),
        "l2_normalize": ([(3, 10)], lambda x: tf.math.l2_normalize(x * 3.0, axis=-1)),
        "hard_swish_relu6": ([(4, 10)], lambda x: (x * 2 * tf.nn.relu6(x * 2 + 3) / 6, tf.nn.relu6(x * 4))),
        "sigmoid_tanh": ([(4, 10)], lambda x: (tf.sigmoid(x * 3), tf.tanh(x * 3))),
        "exp_log": ([(4, 10)], lambda x: (tf.exp(x), tf.math.log(tf.abs(x) + 0.1))),
        "abs_neg_square": ([(4, 10)], lambda x: (tf.abs(x * 1.5), -x * 1.5, tf.square(x))),
        "sqrt_rsqrt": ([(4, 10)], lambda x: (tf.sqrt(tf.abs(x) + 0.05), tf.math.rsqrt(tf.abs(x) + 0.05))),
        "rsqrt": ([(4, 100)], lambda x: tf.math.rsqrt(tf.abs(x) + 0.1)),
        "squared_difference_minimum_maximum": ([(4, 10), (4, 10)], lambda x, y: (tf.math.squared_difference(x, y), tf.minimum(x, y * 0.5),
                                                                               tf.maximum(x, y * 0.5))),
        "leaky_relu_prelu": ([(4, 10)], lambda x: (tf.nn.leaky_relu(x * 2, 0.1), tf.nn.relu(x) - 0.3 * tf.nn.relu(-x))),
        "select": ([(4, 10), (4, 10)], lambda x, y: tf.where(x > y, x * 2.0, y - 1.0)),
        "comparisons": ([(4, 10), (4, 10)], lambda x, y: tf.cast(tf.logical_and(x > y * 0.5, x <= 1.0), tf.float32) + x),
        "concat_other_scales": ([(2, 5), (2, 5)], lambda x, y: tf.concat([x * 3.0, y * 0.2, x + y], axis=-1)),
        "gather_nd": ([(4, 5, 3)], lambda x: tf.gather_nd(x * 1.3, [[0, 1], [3, 4], [2, 2]])),
        "space_to_batch_and_back": ([(2, 4, 4, 3)], lambda x: tf.compat.v1.batch_to_space_nd(
            tf.compat.v1.space_to_batch_nd(x * 1.1, [2, 2], [[0, 0], [0, 0]]), [2, 2], [[0, 0], [0, 0]])),
        "reductions": ([(2, 6, 5)], lambda x: (tf.reduce_mean(x, 1), tf.reduce_sum(x, -1), tf.reduce_max(x, 0), tf.reduce_min(x, [0, 1]))),
        "reduce_prod": ([(3, 4, 5)], lambda x: tf.reduce_prod(x, axis=-1)),
        "cumsum": ([(3, 6)], lambda x: tf.cumsum(x, axis=1)),
        "elu_gelu": ([(4, 10)], lambda x: (tf.nn.elu(x * 2), tf.nn.gelu(x * 2))),
        "dense_bias_relu": ([(3, 12)], lambda x: tf.nn.relu(tf.matmul(x, w(12, 7)) + w(7))),
        "batch_matmul_3d": ([(2, 3, 4), (2, 4, 5)], lambda x, y: tf.matmul(x, y)),
        "depthwise_multiplier2": ([(1, 7, 7, 3)], lambda x: tf.nn.depthwise_conv2d(x, w(3, 3, 3, 2), [1, 1, 1, 1], "SAME")),
        "transpose_conv": ([(1, 4, 4, 3)], lambda x: tf.nn.conv2d_transpose(x, w(3, 3, 5, 3), (1, 8, 8, 5), 2, "SAME")),
        "pack_unpack": ([(3, 4)], lambda x: tf.stack(tf.unstack(x * 1.4, axis=0)[::-1], axis=1)),
        "div": ([(3, 4), (3, 4)], lambda x, y: x / (tf.abs(y) + 0.5)),
        "floor_ceil_round": ([(3, 4)], lambda x: (tf.floor(x * 3), tf.math.ceil(x * 3), tf.round(x * 3))),
        "pow": ([(3, 4)], lambda x: tf.pow(tf.abs(x) + 0.1, 1.7)),
        "sin_cos": ([(3, 4)], lambda x: (tf.sin(x), tf.cos(x))),
        "mul_add_broadcast": ([(2, 3, 4), (4,)], lambda x, y: x * y + y),
        "pools": ([(1, 8, 8, 3)], lambda x: (tf.nn.avg_pool2d(x, 3, 2, "SAME"), tf.nn.max_pool2d(x, 2, 2, "VALID"))),
        "reshape_squeeze_expand": ([(2, 1, 6)], lambda x: tf.expand_dims(tf.reshape(tf.squeeze(x * 1.5, 1), (3, 4)), 0)),
        "slice_fill": ([(4, 6)], lambda x: tf.slice(x, [1, 2], [2, 3]) + tf.fill([2, 3], 0.5)),
    }


def resized_cases(keras):
    """Keras models with resizable dimensions: `name -> () -> (model, the shapes both runtimes are resized to)`."""
    L = keras.layers

    def model(shape, build, run_shape):
        keras.utils.set_random_seed(4)
        i = keras.Input(shape)
        return keras.Model(i, build(i)), [run_shape]

    return {
        "conv1d_global_pool_any_length": lambda: model((None, 8), lambda i: L.GlobalAveragePooling1D()(L.Conv1D(5, 3, padding="same")(i)), (3, 17, 8)),
        "fully_convolutional_any_size": lambda: model((None, None, 3), lambda i: L.Conv2D(4, 3, strides=2, padding="same")(
            L.Conv2D(6, 3, padding="same", activation="relu")(i)), (1, 13, 9, 3)),
        "dense_any_batch": lambda: model((12,), lambda i: L.Dense(5, activation="softmax")(L.Dense(7)(i)), (9, 12)),
        "mha_len": lambda: model((None, 16), lambda i: L.MultiHeadAttention(2, 8)(i, i), (2, 7, 16)),
        "layer_norm_dense_any_length": lambda: model((None, 6), lambda i: L.Dense(4)(L.LayerNormalization()(i)), (3, 5, 6)),
        "upsample_concat_any_size": lambda: model((None, None, 4), lambda i: L.Concatenate()([L.UpSampling2D()(L.MaxPooling2D()(i)), i]),
                                                  (2, 8, 6, 4)),
        "attention_any_length": lambda: model((None, 8), lambda i: L.Attention()([i, i]), (2, 9, 8)),
        "separable_batchnorm_global_max_any_size": lambda: model((None, None, 3), lambda i: L.GlobalMaxPooling2D()(L.BatchNormalization()(
            L.SeparableConv2D(5, 3, padding="same")(i))), (2, 10, 7, 3)),
        "conv_transpose_any_size": lambda: model((None, None, 3), lambda i: L.Conv2DTranspose(4, 3, strides=2, padding="same")(i), (1, 5, 6, 3)),
        "transformer_block_any_length": lambda: model((None, 8), lambda i: L.Dense(8)(L.Dense(16, activation="gelu")(
            L.LayerNormalization()(i + L.MultiHeadAttention(2, 4)(i, i)))), (1, 11, 8)),
    }


def convert(tf, np, source, shapes, mode, keras_model):
    """The .tflite bytes of `source` (a Keras model, or a function with `shapes`) in `mode`; calibration data uniform
    in [-2, 2] at `shapes` (a resizable dimension calibrated at 7)."""
    if keras_model:
        converter = tf.lite.TFLiteConverter.from_keras_model(source)
    else:
        fn = tf.function(source, input_signature=[tf.TensorSpec(s, tf.float32) for s in shapes], autograph=False)
        converter = tf.lite.TFLiteConverter.from_concrete_functions([fn.get_concrete_function()], fn)
    rng = np.random.default_rng(0)
    calibration = [tuple(7 if d is None else d for d in s) for s in shapes]
    converter_shapes = [((1,) + s) if keras_model else s for s in calibration]
    dataset = lambda: ([rng.uniform(-2, 2, size=s).astype(np.float32) for s in converter_shapes] for _ in range(32))
    if mode != "float":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
    if mode == "float16":
        converter.target_spec.supported_types = [tf.float16]
    elif mode in ("int8", "uint8"):
        converter.representative_dataset = dataset
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = converter.inference_output_type = tf.int8 if mode == "int8" else tf.uint8
    elif mode == "int16":
        converter.representative_dataset = dataset
        converter.target_spec.supported_ops = [tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
    return converter.convert()


def compare(np, litert, cli, model_bytes, run_shapes=None):
    """One status line: LiteRT's built-in kernels against vision-cli on the same random inputs."""
    try:
        interpreter = litert.Interpreter(model_content=model_bytes, experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        for detail, shape in zip(interpreter.get_input_details(), run_shapes or []):
            interpreter.resize_tensor_input(detail["index"], shape)
        interpreter.allocate_tensors()
        rng = np.random.default_rng(1)
        inputs = []
        for detail in interpreter.get_input_details():
            if np.issubdtype(detail["dtype"], np.integer):
                info = np.iinfo(detail["dtype"])
                x = rng.integers(max(info.min, -20000), min(info.max, 20000) + 1, detail["shape"]).astype(detail["dtype"])
            else:
                x = rng.uniform(-2, 2, detail["shape"]).astype(detail["dtype"])
            interpreter.set_tensor(detail["index"], x)
            inputs.append(x)
        interpreter.invoke()
        references = [interpreter.get_tensor(d["index"]) for d in interpreter.get_output_details()]
    except Exception as error:  # LiteRT cannot run it either: nothing to compare
        return "LITERT FAILS " + str(error).splitlines()[0][:160]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.tflite")
        open(path, "wb").write(model_bytes)
        arguments = []
        for i, x in enumerate(inputs):
            np.save(os.path.join(folder, f"input_{i}.npy"), x)
            arguments += ["--input", os.path.join(folder, f"input_{i}.npy")]
        problems = []
        for numerics, threads in [("fast", 1), ("exact", 1), ("fast", 2)]:
            out = os.path.join(folder, f"{numerics}_{threads}")
            run = subprocess.run([cli, "run", path, *arguments, "--output-dir", out, "--numerics", numerics, "--threads", str(threads)],
                                 capture_output=True, text=True)
            if run.returncode:
                return "OURS FAILS " + run.stderr.strip()[:240]
            for i, reference in enumerate(references):
                ours = np.load(os.path.join(out, f"output_{i}.npy"))
                if ours.shape != reference.shape:
                    problems.append(f"{numerics}/{threads} output {i} shape {list(ours.shape)}, LiteRT {list(reference.shape)}")
                elif np.issubdtype(reference.dtype, np.integer) or reference.dtype == bool:
                    differing = int((ours != reference).sum())
                    if differing:
                        problems.append(f"{numerics}/{threads} output {i}: {differing} of {reference.size} values")
                elif reference.size:
                    scale = max(1.0, float(np.nanmax(np.abs(reference))))
                    error = float(np.nanmax(np.abs(ours - reference))) / scale
                    nan_mismatch = int((np.isnan(ours) != np.isnan(reference)).sum())
                    if error > 1e-4 or nan_mismatch:
                        problems.append(f"{numerics}/{threads} output {i}: relative error {error:.1e}, NaN mismatches {nan_mismatch}")
        return "DIFFERS " + "; ".join(problems) if problems else "OK"


def child(suite, name, modes, cli):
    """Runs one case in this process (the parent survives a converter that aborts)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["TF_USE_LEGACY_KERAS"] = "0" if suite == "keras3" else "1"
    import numpy as np
    import tensorflow as tf
    from ai_edge_litert import interpreter as litert
    if suite == "functions":
        shapes, fn = function_cases(tf, np)[name]
        make = lambda: (fn, shapes, None)
        keras_model = False
    else:
        if suite == "keras3":
            import keras
        else:
            import tf_keras as keras
        cases = resized_cases(keras) if suite == "resized" else keras_cases(keras)
        def make():
            model, shapes = cases[name]()
            if suite == "resized":
                return model, [tuple(model.inputs[0].shape[1:])], shapes
            return model, shapes, None
        keras_model = True
    for mode in modes:
        source, shapes, run_shapes = make()
        try:
            model_bytes = convert(tf, np, source, shapes, mode, keras_model)
        except Exception as error:
            status = "CONVERT FAILS " + str(error).strip().splitlines()[0][:160]
        else:
            status = compare(np, litert, cli, model_bytes, run_shapes)
        print(f"RESULT {suite}/{name}/{mode} {status}", flush=True)


def names(suite):
    if suite == "functions":
        import numpy as np
        return list(function_cases(type("tf", (), {"constant": staticmethod(lambda v: v)}), np))
    stub = type("keras", (), {"layers": None})
    return list((resized_cases if suite == "resized" else keras_cases)(stub))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--suite", nargs="+", choices=["keras2", "keras3", "functions", "resized"], default=["keras2", "functions"])
    p.add_argument("--modes", nargs="+", choices=MODES, default=MODES)
    p.add_argument("--only", help="one case name")
    p.add_argument("--cli", default=os.path.join(HERE, "..", "..", ".build", "release", "vision-cli"))
    p.add_argument("--child", nargs=2, metavar=("SUITE", "NAME"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        return child(a.child[0], a.child[1], a.modes, a.cli)
    counts, failing = {}, False
    for suite in a.suite:
        modes = ["float", "dynamic", "int8", "int16"] if suite == "resized" and a.modes == MODES else a.modes
        for name in names(suite):
            if a.only and name != a.only:
                continue
            remaining = list(modes)
            while remaining:
                run = subprocess.run([sys.executable, __file__, "--child", suite, name, "--modes", *remaining, "--cli", a.cli],
                                     capture_output=True, text=True)
                done = [line.split(" ", 2) for line in run.stdout.splitlines() if line.startswith("RESULT ")]
                for _, label, status in done:
                    print(f"{label:60s} {status}", flush=True)
                    kind = status.split(" ")[0] if not status.startswith(("OURS", "CONVERT", "LITERT")) else " ".join(status.split(" ")[:2])
                    counts[kind] = counts.get(kind, 0) + 1
                    failing = failing or status.startswith(("DIFFERS", "OURS FAILS"))
                remaining = remaining[len(done):]
                if remaining:  # the child died on remaining[0] (the converter aborted); go on with the next mode
                    print(f"{suite + '/' + name + '/' + remaining[0]:60s} CRASHED (exit {run.returncode})", flush=True)
                    counts["CRASHED"] = counts.get("CRASHED", 0) + 1
                    remaining = remaining[1:]
    print(", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
