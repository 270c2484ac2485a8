#!/usr/bin/env python3
"""Builds small models of MediaPipe's custom ops and records MediaPipe's own outputs on them; records whole-model
outputs of the MediaPipe models that need those ops.

    tools/setup.sh --mediapipe                                        # .venv-mediapipe: mediapipe==0.10.14
    .venv-mediapipe/bin/python tools/make_mediapipe_op_goldens.py     # op goldens and model goldens
    .venv-mediapipe/bin/python tools/make_mediapipe_op_goldens.py ops # op goldens only (committed)
    .venv-mediapipe/bin/python tools/make_mediapipe_op_goldens.py models

Op goldens: Tests/LiteEngineTests/Goldens/mediapipe_ops/<case>/{model.tflite,input_<i>.npy,output_<i>.npy} and a
manifest.json (committed; MediaPipeOpGoldenTests reads them and needs nothing else). Model goldens: the selfie
segmenters and the face mesh with attention, as the mediapipe wheel ships them, on photos from ../shared/images, under
.goldens/mediapipe/<model>/<image>/ with a manifest.json naming each model's path in the wheel (not committed, as
tools/make_model_goldens.py's; MediaPipeModelGoldenTests skips without them).

Reference: MediaPipe's CPU inference, run from Python as a CalculatorGraph: TfLiteCustomOpResolverCalculator makes
MediaPipe's CPU op resolver (TFLite's built-in ops plus MediaPipe_RegisterTfLiteOpResolver's custom ops, the kernels
of mediapipe/util/tflite/operations/) and hands it to InferenceCalculator (delegate: tflite, no XNNPACK) as its
OP_RESOLVER side packet; that is how MediaPipe's own selfie segmentation and face landmark graphs run these models.
Each input tensor goes in as a one-channel float ImageFrame through TensorConverterCalculator with an output range of
[0, 255] (a scale of exactly 1, so the values pass unchanged; InferenceCalculator copies tensors by their byte size),
and each output comes back through SplitTensorVectorCalculator and TensorsToFloatsCalculator as a flat float list,
shaped as the model declares it.

The models are written here with the TFLite schema's object API from ai_edge_litert (tools/make_op_goldens.py's
GraphBuilder needs TensorFlow, which neither .venv nor .venv-mediapipe has).
"""
import json
import os
import shutil
import sys
import zlib

import numpy as np
from flatbuffers import flexbuffers
from ai_edge_litert import schema_py_generated as fb

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
OPS_OUT = os.path.join(ROOT, "Tests", "LiteEngineTests", "Goldens", "mediapipe_ops")
MODELS_OUT = os.path.join(ROOT, ".goldens", "mediapipe")

rng = np.random.default_rng(0)  # reseeded from each case's name before it is built


class CustomOpGraph:
    """A one-subgraph .tflite of float tensors and custom ops, written with the schema's object API."""

    def __init__(self):
        self.model = fb.ModelT()
        self.model.version = 3
        self.model.description = "tools/make_mediapipe_op_goldens.py"
        self.model.buffers = [fb.BufferT()]
        self.model.operatorCodes = []
        self.graph = fb.SubGraphT()
        self.graph.tensors, self.graph.operators = [], []
        self.model.subgraphs = [self.graph]
        self.shapes = []

    def tensor(self, name, shape, data=None):
        t = fb.TensorT()
        t.name, t.shape, t.type = name, list(shape), fb.TensorType.FLOAT32
        buffer = fb.BufferT()
        if data is not None:
            buffer.data = np.frombuffer(np.asarray(data, np.float32).tobytes(), dtype=np.uint8)
        self.model.buffers.append(buffer)
        t.buffer = len(self.model.buffers) - 1
        self.graph.tensors.append(t)
        self.shapes.append(list(shape))
        return len(self.graph.tensors) - 1

    def custom(self, name, inputs, outputs, options=b"", version=1):
        code = fb.OperatorCodeT()
        code.builtinCode, code.deprecatedBuiltinCode, code.customCode, code.version = fb.BuiltinOperator.CUSTOM, fb.BuiltinOperator.CUSTOM, name, version
        self.model.operatorCodes.append(code)
        op = fb.OperatorT()
        op.opcodeIndex, op.inputs, op.outputs = len(self.model.operatorCodes) - 1, inputs, outputs
        op.customOptions = np.frombuffer(bytes(options), dtype=np.uint8) if options else None
        op.customOptionsFormat = fb.CustomOptionsFormat.FLEXBUFFERS
        self.graph.operators.append(op)

    def build(self, inputs, outputs):
        import flatbuffers
        self.graph.inputs, self.graph.outputs = inputs, outputs
        builder = flatbuffers.Builder(1024)
        builder.Finish(self.model.Pack(builder), file_identifier=b"TFL3")
        return bytes(builder.Output())


# Raw option structs, as MediaPipe's kernels reinterpret_cast their custom options.
PADDING = {"SAME": 1, "VALID": 2}
ACTIVATION = {"NONE": 0, "RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3}


def transpose_conv_params(padding, stride_h, stride_w):
    """TfLiteTransposeConvParams: padding, stride_width, stride_height."""
    return np.array([PADDING[padding], stride_w, stride_h], np.int32).tobytes()


def pool_params(padding, stride_h, stride_w, filter_h, filter_w, activation="NONE"):
    """TfLitePoolParams: padding, stride_width, stride_height, filter_width, filter_height, activation, then the
    computed padding (width, height, width_offset, height_offset), which the kernels recompute."""
    return np.array([PADDING[padding], stride_w, stride_h, filter_w, filter_h, ACTIVATION[activation], 0, 0, 0, 0], np.int32).tobytes()


def flex_map(**entries):
    """A FlexBuffer map; lists become typed int vectors, as MediaPipe's parsers read them (AsTypedVector)."""
    builder = flexbuffers.Builder()
    with builder.Map():
        for key, value in sorted(entries.items()):
            if isinstance(value, list):
                builder.TypedVectorFromElements(key, value)
            elif isinstance(value, float):
                builder.Float(key, value)
            else:
                builder.Int(key, value)
    return bytes(builder.Finish())


CASES = []


def case(name):
    """Registers fn() -> (model bytes, [input arrays], [output shapes])."""
    def register(fn):
        CASES.append((name, fn))
        return fn
    return register


def transpose_conv_bias_case(name, input_shape, out_channels, kernel, strides, padding):
    @case(name)
    def build():
        g = CustomOpGraph()
        n, h, w, c = input_shape
        (kh, kw), (sh, sw) = kernel, strides
        total_h = max(0, kh - (h - 1) % sh - 1) if padding == "SAME" else 0
        total_w = max(0, kw - (w - 1) % sw - 1) if padding == "SAME" else 0
        x = g.tensor("input", input_shape)
        weights = g.tensor("weights", [out_channels, kh, kw, c], rng.normal(0, 0.5, (out_channels, kh, kw, c)))
        bias = g.tensor("bias", [out_channels], rng.normal(0, 0.3, out_channels))
        y = g.tensor("output", [n, sh * (h - 1) + kh - total_h, sw * (w - 1) + kw - total_w, out_channels])
        g.custom("Convolution2DTransposeBias", [x, weights, bias], [y], transpose_conv_params(padding, sh, sw))
        return g.build([x], [y]), [rng.uniform(-2, 2, input_shape)], [g.shapes[y]]


# The selfie segmenters' last layer: 2×2, stride 2, SAME, 16 channels to 1.
transpose_conv_bias_case("transpose_conv_bias_selfie_2x2_s2_same", [1, 6, 5, 16], 1, (2, 2), (2, 2), "SAME")
transpose_conv_bias_case("transpose_conv_bias_3x3_s2_same", [1, 4, 5, 3], 2, (3, 3), (2, 2), "SAME")
transpose_conv_bias_case("transpose_conv_bias_4x3_s2x1_same", [1, 5, 4, 3], 3, (4, 3), (2, 1), "SAME")
transpose_conv_bias_case("transpose_conv_bias_3x2_s1x2_valid_batch2", [2, 3, 4, 2], 3, (3, 2), (1, 2), "VALID")
transpose_conv_bias_case("transpose_conv_bias_2x2_s3_same", [1, 3, 3, 2], 2, (2, 2), (3, 3), "SAME")


def pool_argmax_case(name, input_shape, filt, strides, padding, activation="NONE", grid=None, low=-2.0, high=2.0):
    @case(name)
    def build():
        g = CustomOpGraph()
        n, h, w, c = input_shape
        (fh, fw), (sh, sw) = filt, strides
        out_h, out_w = ((h + sh - 1) // sh, (w + sw - 1) // sw) if padding == "SAME" else ((h - fh + sh) // sh, (w - fw + sw) // sw)
        x = g.tensor("input", input_shape)
        values = g.tensor("values", [n, out_h, out_w, c])
        positions = g.tensor("positions", [n, out_h, out_w, c])
        g.custom("MaxPoolingWithArgmax2D", [x], [values, positions], pool_params(padding, sh, sw, fh, fw, activation))
        data = rng.uniform(low, high, input_shape)
        if grid:  # values on a coarse grid, so that windows hold equal maxima (the first one wins)
            data = np.round(data / grid) * grid
        return g.build([x], [values, positions]), [data], [g.shapes[values], g.shapes[positions]]


pool_argmax_case("max_pool_argmax_2x2_s2_same", [1, 5, 7, 3], (2, 2), (2, 2), "SAME")
pool_argmax_case("max_pool_argmax_3x3_s2_valid_batch2", [2, 7, 6, 2], (3, 3), (2, 2), "VALID")
pool_argmax_case("max_pool_argmax_3x2_s1_same_relu6", [1, 5, 4, 2], (3, 2), (1, 1), "SAME", activation="RELU6", low=-8, high=8)
pool_argmax_case("max_pool_argmax_3x3_s2_same_ties", [1, 6, 6, 2], (3, 3), (2, 2), "SAME", grid=1.0)


def unpooling_case(name, input_shape, filt, strides, padding="SAME"):
    @case(name)
    def build():
        g = CustomOpGraph()
        n, h, w, c = input_shape
        (fh, fw), (sh, sw) = filt, strides
        x = g.tensor("values", input_shape)
        positions = g.tensor("positions", input_shape)
        y = g.tensor("output", [n, h * fh, w * fw, c])
        g.custom("MaxUnpooling2D", [x, positions], [y], pool_params(padding, sh, sw, fh, fw))
        # Positions as the pooling op writes them: an integer in the window plus 0.1.
        where = rng.integers(0, fh * fw, input_shape) + 0.1
        return g.build([x, positions], [y]), [rng.uniform(-2, 2, input_shape), where], [g.shapes[y]]


unpooling_case("max_unpooling_2x2_s2", [1, 3, 4, 2], (2, 2), (2, 2))
# Windows that overlap (3×3 windows two apart): later pixels overwrite earlier ones.
unpooling_case("max_unpooling_3x3_s2_overlapping", [1, 3, 3, 2], (3, 3), (2, 2))
unpooling_case("max_unpooling_2x3_s2x3_batch2", [2, 2, 3, 3], (2, 3), (2, 3))


@case("max_pool_argmax_then_unpooling")
def pool_then_unpool():
    """The encoder-decoder pair the ops exist for: pool 2×2 with positions, then put the maxima back."""
    g = CustomOpGraph()
    x = g.tensor("input", [1, 6, 8, 3])
    values = g.tensor("values", [1, 3, 4, 3])
    positions = g.tensor("positions", [1, 3, 4, 3])
    y = g.tensor("output", [1, 6, 8, 3])
    params = pool_params("SAME", 2, 2, 2, 2)
    g.custom("MaxPoolingWithArgmax2D", [x], [values, positions], params)
    g.custom("MaxUnpooling2D", [values, positions], [y], params)
    return g.build([x], [y]), [rng.uniform(-2, 2, [1, 6, 8, 3])], [[1, 6, 8, 3]]


def landmarks_to_matrix_case(name, landmarks, subset, left, right, target_rotation=0.0, size=(16, 16), scale=(1.5, 1.5), spread=60.0):
    @case(name)
    def build():
        g = CustomOpGraph()
        x = g.tensor("landmarks", [1, landmarks, 3])
        y = g.tensor("matrix", [1, 4, 4])
        options = flex_map(subset_idxs=subset, left_rotation_idx=left, right_rotation_idx=right, target_rotation_radians=float(target_rotation),
                           output_height=size[0], output_width=size[1], scale_x=float(scale[0]), scale_y=float(scale[1]))
        g.custom("Landmarks2TransformMatrix", [x], [y], options, version=2)
        points = np.concatenate([rng.uniform(96 - spread, 96 + spread, (1, landmarks, 2)), rng.uniform(-10, 10, (1, landmarks, 1))], axis=2)
        return g.build([x], [y]), [points], [[1, 4, 4]]


landmarks_to_matrix_case("landmarks_to_matrix_lips_like", 40, [3, 17, 5, 22, 9, 30, 11, 2, 25, 38], 3, 11)
landmarks_to_matrix_case("landmarks_to_matrix_odd_subset_rotated", 24, [0, 5, 7, 12, 19, 23, 8], 4, 20, target_rotation=0.4, size=(12, 20), scale=(2.0, 1.25))
landmarks_to_matrix_case("landmarks_to_matrix_narrow", 10, [1, 2, 3, 4], 0, 9, target_rotation=-1.2, size=(8, 8), scale=(1.0, 3.0), spread=5.0)


def rotation_matrix(angle, scale, shift):
    """A [1, 4, 4] affine matrix: rotation by `angle`, scaling, then a shift."""
    c, s = np.cos(angle) * scale[0], np.sin(angle) * scale[1]
    return np.array([[[c, -s, 0, shift[0]], [s, c, 0, shift[1]], [0, 0, 1, 0], [0, 0, 0, 1]]], np.float32)


def transform_tensor_case(name, input_shape, size, matrix):
    @case(name)
    def build():
        g = CustomOpGraph()
        x = g.tensor("features", input_shape)
        m = g.tensor("matrix", [1, 4, 4])
        y = g.tensor("output", [1, size[0], size[1], input_shape[3]])
        g.custom("TransformTensorBilinear", [x, m], [y], flex_map(output_height=size[0], output_width=size[1]), version=2)
        return g.build([x, m], [y]), [rng.uniform(-2, 2, input_shape), matrix], [g.shapes[y]]


# Rotated and scaled so that some samples fall outside the input (zeros) and most between pixels.
transform_tensor_case("transform_tensor_bilinear_rotated", [1, 12, 10, 3], (6, 5), rotation_matrix(0.5, (1.7, 1.7), (4.0, -1.5)))
# Whole-pixel steps onto the last row and column (the neighbour past the edge reads 0 with weight 0).
transform_tensor_case("transform_tensor_bilinear_edges", [1, 5, 4, 2], (5, 4), rotation_matrix(0.0, (1.0, 1.0), (0.0, 0.0)))
transform_tensor_case("transform_tensor_bilinear_upsampled", [1, 6, 6, 4], (9, 7), rotation_matrix(-0.3, (0.6, 0.45), (1.2, 2.1)))


def transform_landmarks_case(name, shape, matrix):
    @case(name)
    def build():
        g = CustomOpGraph()
        x = g.tensor("landmarks", shape)
        m = g.tensor("matrix", [1, 4, 4])
        y = g.tensor("output", shape)
        g.custom("TransformLandmarks", [x, m], [y], version=2)
        return g.build([x, m], [y]), [rng.uniform(0, 16, shape), matrix], [shape]


transform_landmarks_case("transform_landmarks_2d", [1, 7, 2], rotation_matrix(0.7, (3.1, 2.9), (80.0, 61.0)))
transform_landmarks_case("transform_landmarks_3d", [1, 5, 3], rotation_matrix(-2.2, (0.5, 0.8), (-3.0, 12.0)))


@case("landmarks_to_matrix_then_transforms")
def attention_chain():
    """The face mesh with attention's region refinement: a crop matrix from the mesh, the feature map sampled through
    it, and the region's landmarks mapped back."""
    g = CustomOpGraph()
    mesh = g.tensor("mesh", [1, 30, 3])
    features = g.tensor("features", [1, 24, 24, 8])
    region = g.tensor("region_landmarks", [1, 6, 2])
    matrix = g.tensor("matrix", [1, 4, 4])
    crop = g.tensor("crop", [1, 8, 8, 8])
    mapped = g.tensor("mapped", [1, 6, 2])
    g.custom("Landmarks2TransformMatrix", [mesh], [matrix],
             flex_map(subset_idxs=[2, 7, 11, 13, 17, 21, 25, 29], left_rotation_idx=2, right_rotation_idx=21, target_rotation_radians=0.0,
                      output_height=8, output_width=8, scale_x=1.5, scale_y=1.5), version=2)
    g.custom("TransformTensorBilinear", [features, matrix], [crop], flex_map(output_height=8, output_width=8), version=2)
    g.custom("TransformLandmarks", [region, matrix], [mapped], version=2)
    points = np.concatenate([rng.uniform(4, 20, (1, 30, 2)), rng.uniform(-1, 1, (1, 30, 1))], axis=2)
    inputs = [points, rng.uniform(-2, 2, [1, 24, 24, 8]), rng.uniform(0, 8, [1, 6, 2])]
    return g.build([mesh, features, region], [crop, mapped, matrix]), inputs, [[1, 8, 8, 8], [1, 6, 2], [1, 4, 4]]


def run_mediapipe(model_path, inputs, output_shapes):
    """Runs a .tflite through MediaPipe's CPU inference with its custom op resolver (see the module doc) and returns
    the outputs, shaped as given."""
    import mediapipe as mp
    from google.protobuf import text_format
    from mediapipe.calculators.core import concatenate_vector_calculator_pb2, split_vector_calculator_pb2  # noqa: F401 (option extensions)
    from mediapipe.calculators.tensor import inference_calculator_pb2, tensor_converter_calculator_pb2  # noqa: F401
    from mediapipe.framework import calculator_pb2
    from mediapipe.python import packet_creator, packet_getter

    nodes = ['node { calculator: "TfLiteCustomOpResolverCalculator" output_side_packet: "OP_RESOLVER:op_resolver" }']
    for i in range(len(inputs)):
        tensors = "tensors" if len(inputs) == 1 else f"tensor{i}"
        nodes.append(f'''node {{ calculator: "TensorConverterCalculator" input_stream: "IMAGE:in{i}" output_stream: "TENSORS:{tensors}"
            options {{ [mediapipe.TensorConverterCalculatorOptions.ext] {{ zero_center: false output_tensor_float_range {{ min: 0 max: 255 }} }} }} }}''')
    if len(inputs) > 1:
        streams = " ".join(f'input_stream: "tensor{i}"' for i in range(len(inputs)))
        nodes.append(f'node {{ calculator: "ConcatenateTensorVectorCalculator" {streams} output_stream: "tensors" }}')
    nodes.append(f'''node {{ calculator: "InferenceCalculator" input_stream: "TENSORS:tensors" output_stream: "TENSORS:results"
        input_side_packet: "OP_RESOLVER:op_resolver"
        options {{ [mediapipe.InferenceCalculatorOptions.ext] {{ model_path: "{model_path}" delegate {{ tflite {{}} }} }} }} }}''')
    if len(output_shapes) > 1:
        # One splitter for all outputs: it moves the tensors out of the packet, which it must be the only reader of.
        streams = " ".join(f'output_stream: "result{i}"' for i in range(len(output_shapes)))
        ranges = " ".join(f"ranges: {{ begin: {i} end: {i + 1} }}" for i in range(len(output_shapes)))
        nodes.append(f'''node {{ calculator: "SplitTensorVectorCalculator" input_stream: "results" {streams}
            options {{ [mediapipe.SplitVectorCalculatorOptions.ext] {{ {ranges} }} }} }}''')
    for i in range(len(output_shapes)):
        # TensorsToFloatsCalculator reads the first tensor of its vector.
        source = f"result{i}" if len(output_shapes) > 1 else "results"
        nodes.append(f'node {{ calculator: "TensorsToFloatsCalculator" input_stream: "TENSORS:{source}" output_stream: "FLOATS:out{i}" }}')
    text = "\n".join([f'input_stream: "in{i}"' for i in range(len(inputs))] + [f'output_stream: "out{i}"' for i in range(len(output_shapes))] + nodes)
    graph = mp.CalculatorGraph(graph_config=text_format.Parse(text, calculator_pb2.CalculatorGraphConfig()))
    results = {}
    for i in range(len(output_shapes)):
        graph.observe_output_stream(f"out{i}", lambda stream, packet: results.__setitem__(stream, np.array(packet_getter.get_float_list(packet), np.float32)))
    graph.start_run()
    for i, x in enumerate(inputs):
        # One float channel, rows of the last axis: the byte layout of the tensor. (packet_creator.create_matrix
        # crashes with NumPy 2.)
        x = np.ascontiguousarray(np.asarray(x, np.float32))
        image = x.reshape(-1, x.shape[-1]) if x.ndim > 1 else x.reshape(1, -1)
        frame = mp.ImageFrame(image_format=mp.ImageFormat.VEC32F1, data=image)
        graph.add_packet_to_input_stream(f"in{i}", packet_creator.create_image_frame(frame).at(0))
    graph.close()
    outputs = []
    for i, shape in enumerate(output_shapes):
        values = results[f"out{i}"]
        assert values.size == int(np.prod(shape)), f"output {i}: {values.size} values for shape {shape}"
        outputs.append(values.reshape(shape))
    return outputs


def check_harness(scratch):
    """The harness must hand values through unchanged: a model of built-in ops only (face detection, no custom op)
    run through it gives LiteRT's outputs."""
    from ai_edge_litert import interpreter as litert
    path = os.path.join(SHARED, "models", "detection", "face_detection_short_range.tflite")
    if not os.path.exists(path):
        print("harness check skipped: no ../shared/models/detection/face_detection_short_range.tflite")
        return
    interp = litert.Interpreter(model_path=path, experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    interp.allocate_tensors()
    x = np.random.default_rng(5).uniform(-1, 1, interp.get_input_details()[0]["shape"]).astype(np.float32)
    interp.set_tensor(interp.get_input_details()[0]["index"], x)
    interp.invoke()
    expected = [interp.get_tensor(d["index"]) for d in interp.get_output_details()]
    ours = run_mediapipe(path, [x], [list(e.shape) for e in expected])
    for e, o in zip(expected, ours):
        error = float(np.max(np.abs(e - o)))
        assert error <= 1e-4 * max(1.0, float(np.max(np.abs(e)))), f"harness changes values: max error {error}"
    print("harness check: MediaPipe gives LiteRT's outputs on face_detection_short_range")


def make_op_goldens(selected):
    os.makedirs(OPS_OUT, exist_ok=True)
    manifest_path = os.path.join(OPS_OUT, "manifest.json")
    manifest = json.load(open(manifest_path)) if selected and os.path.exists(manifest_path) else {}
    for name, build in CASES:
        if selected and not any(s in name for s in selected):
            continue
        global rng
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        model, inputs, output_shapes = build()
        inputs = [np.asarray(x, np.float32) for x in inputs]
        folder = os.path.join(OPS_OUT, name)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        path = os.path.join(folder, "model.tflite")
        with open(path, "wb") as f:
            f.write(model)
        outputs = run_mediapipe(path, inputs, output_shapes)
        for i, x in enumerate(inputs):
            np.save(os.path.join(folder, f"input_{i}.npy"), x)
        for i, y in enumerate(outputs):
            np.save(os.path.join(folder, f"output_{i}.npy"), y)
        ops = sorted({c.customCode.decode() for c in fb.ModelT.InitFromObj(fb.Model.GetRootAsModel(model, 0)).operatorCodes})
        manifest[name] = {"ops": ops, "inputs": len(inputs), "outputs": len(outputs)}
        print(f"{name}: {', '.join(ops)}")
    json.dump(dict(sorted(manifest.items())), open(manifest_path, "w"), indent=1)


def wheel_model(relative):
    import mediapipe as mp
    return os.path.join(os.path.dirname(mp.__file__), "modules", relative)


# model in the wheel's mediapipe/modules/ -> images; inputs are RGB scaled to [0, 1], as MediaPipe's graphs feed them
# (TensorConverterCalculator with zero_center: false).
WHEEL_MODELS = {
    "selfie_segmentation/selfie_segmentation.tflite": ["face.jpg", "grace_hopper.bmp", "kite_and_cold.jpg"],
    "selfie_segmentation/selfie_segmentation_landscape.tflite": ["face.jpg", "kite_and_cold.jpg"],
    "face_landmark/face_landmark_with_attention.tflite": ["face.jpg", "grace_hopper.bmp"],
}


def make_model_goldens():
    from PIL import Image
    from ai_edge_litert import schema_py_generated as schema
    manifest = {}
    for relative, images in WHEEL_MODELS.items():
        path = wheel_model(relative)
        model = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(open(path, "rb").read(), 0))
        graph = model.subgraphs[0]
        _, h, w, _ = [int(d) for d in graph.tensors[graph.inputs[0]].shape]
        output_shapes = [[int(d) for d in graph.tensors[i].shape] for i in graph.outputs]
        name = os.path.splitext(os.path.basename(relative))[0]
        for image in images:
            pixels = np.asarray(Image.open(os.path.join(SHARED, "images", image)).convert("RGB").resize((w, h), Image.BILINEAR), dtype=np.float32)
            x = (pixels / 255.0).astype(np.float32)[np.newaxis]
            outputs = run_mediapipe(path, [x], output_shapes)
            folder = os.path.join(MODELS_OUT, name, os.path.splitext(image)[0])
            os.makedirs(folder, exist_ok=True)
            np.save(os.path.join(folder, "input_0.npy"), x)
            for i, y in enumerate(outputs):
                np.save(os.path.join(folder, f"output_{i}.npy"), y)
        manifest[name] = {"model": path, "images": [os.path.splitext(i)[0] for i in images], "outputs": len(output_shapes)}
        print(f"{name}: {len(images)} images")
    os.makedirs(MODELS_OUT, exist_ok=True)
    json.dump(manifest, open(os.path.join(MODELS_OUT, "manifest.json"), "w"), indent=1)


def main():
    args = sys.argv[1:]
    what = args[0] if args and args[0] in ("ops", "models") else None
    selected = args[1:] if what else args
    check_harness(OPS_OUT)
    if what in (None, "ops"):
        make_op_goldens(selected)
    if what in (None, "models"):
        make_model_goldens()


if __name__ == "__main__":
    sys.exit(main())
