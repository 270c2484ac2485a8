"""GraphBuilder (a .tflite written with the schema's object API) and the model makers built on it."""
from .common import np, rng


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
        """dtype: float32, uint8, int8, int16, int32, int64 or bool; quantization: (scale, zero_point) for a per-tensor quantized one, or
        (scales, zero_points, axis) with lists for a per-channel one."""
        t = self.fb.TensorT()
        types = {np.float32: "FLOAT32", np.uint8: "UINT8", np.int8: "INT8", np.int16: "INT16", np.int32: "INT32", np.int64: "INT64", np.bool_: "BOOL"}
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


def built_float_pool(op, shape, filter_hw, stride_hw, padding, activation="NONE"):
    """A float pooling op (L2_POOL_2D: TensorFlow has no L2 pool, so no converter emits it) with a filter and stride of
    (height, width) and a fused activation."""
    def build():
        g = GraphBuilder()
        geometry = [(n - f) // s + 1 if padding == "VALID" else -(-n // s) for n, f, s in zip(shape[1:3], filter_hw, stride_hw)]
        x = g.tensor("x", shape)
        y = g.tensor("y", [shape[0]] + geometry + [shape[3]])
        o = g.fb.Pool2DOptionsT()
        o.padding = getattr(g.fb.Padding, padding)
        o.strideH, o.strideW = stride_hw
        o.filterHeight, o.filterWidth = filter_hw
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


def built_requantize(input_dtype, output_dtype, shape, input_quantization, output_quantization):
    """QUANTIZE from one 8-bit type to another with the scales given (a rescale, not only a zero-point shift)."""
    def build():
        g = GraphBuilder()
        x = g.tensor("x", shape, dtype=input_dtype, quantization=input_quantization)
        y = g.tensor("y", shape, dtype=output_dtype, quantization=output_quantization)
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


def built_depthwise(dtype, in_shape, kernel, stride=1, dilation=1, padding="SAME", dead_channels=(), amplified_channels=(), relu6=False):
    """An 8-bit DEPTHWISE_CONV_2D (channel multiplier 1) with calibrated-looking scales and full-range weights, plus the
    channels converters leave behind in real models (EfficientDet-Lite's backbone): `dead_channels` have all-zero
    weights, a scale near 1e-8 (so a multiplier near 2^-26) and a bias of ±2^30; `amplified_channels` have an
    effective multiplier above 1 (a left shift). int8 filters are per-channel with zero point 0, uint8 per-tensor."""
    def build():
        g = GraphBuilder()
        signed = dtype == np.int8
        channels = in_shape[-1]
        x_scale, x_zero = 0.05, (-7 if signed else 121)
        y_scale, y_zero = 0.08, (4 if signed else 131)
        w_shape = (1, kernel, kernel, channels)
        if signed:
            w_data = rng.integers(-127, 128, size=w_shape)
            w_scales = list(rng.uniform(0.002, 0.012, size=channels) / kernel)
            for c in amplified_channels:
                w_data[..., c] = rng.integers(-3, 4, size=(1, kernel, kernel))
                w_scales[c] = 2.5
            for c in dead_channels:
                w_data[..., c] = 0
                w_scales[c] = float(rng.uniform(1e-8, 8e-8))
            wq = (w_scales, [0] * channels, 3)
        else:
            w_zero = 119
            w_data = rng.integers(0, 256, size=w_shape)
            w_scales = [0.004 / kernel]
            wq = (w_scales[0], w_zero)
        b_scales = [x_scale * s for s in w_scales]
        bias = np.round(rng.normal(0, 0.5, size=channels) / np.array(b_scales if signed else b_scales * channels)).astype(np.int64)
        for i, c in enumerate(dead_channels):
            bias[c] = 2 ** 30 if i % 2 == 0 else -2 ** 30
        x = g.tensor("x", in_shape, dtype=dtype, quantization=(x_scale, x_zero))
        w = g.tensor("w", w_shape, data=w_data, dtype=dtype, quantization=wq)
        bq = (b_scales, [0] * channels, 0) if signed else (b_scales[0], 0)
        b = g.tensor("b", [channels], data=np.clip(bias, -2 ** 31, 2 ** 31 - 1), dtype=np.int32, quantization=bq)
        span = dilation * (kernel - 1) + 1
        out_hw = [(d + stride - 1) // stride if padding == "SAME" else (d - span) // stride + 1 for d in in_shape[1:3]]
        y = g.tensor("y", [in_shape[0]] + out_hw + [channels], dtype=dtype, quantization=(y_scale, y_zero))
        o = g.fb.DepthwiseConv2DOptionsT()
        o.depthMultiplier = 1
        o.padding = getattr(g.fb.Padding, padding)
        o.strideH = o.strideW = stride
        o.dilationHFactor = o.dilationWFactor = dilation
        o.fusedActivationFunction = g.fb.ActivationFunctionType.RELU6 if relu6 else g.fb.ActivationFunctionType.NONE
        g.operator(g.fb.BuiltinOperator.DEPTHWISE_CONV_2D, [x, w, b], [y], g.fb.BuiltinOptions.DepthwiseConv2DOptions, o)
        return g.build([x], [y])
    return build
