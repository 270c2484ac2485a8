/// Typed readers for the builtin option tables (schema.fbs). Each takes the operator's options table, or nil
/// when the file left it out, in which case every field has the schema's default.

/// `Padding` of convolutions and pools.
public enum Padding: Int8, Sendable {
    /// Output size `ceil(input / stride)`, the input padded evenly (the extra row or column at the end).
    case same = 0
    /// No padding: output size `ceil((input - (filter - 1) * dilation) / stride)`.
    case valid = 1
}

/// `ActivationFunctionType`, fused into many ops.
public enum FusedActivation: Int8, Sendable {
    /// No activation.
    case none = 0
    /// max(x, 0).
    case relu
    /// Clamp to [-1, 1].
    case reluN1To1
    /// Clamp to [0, 6].
    case relu6
    /// tanh(x).
    case tanh
    /// `SIGN_BIT` (schema value 5).
    case signBit
}

extension FlatTable {
    fileprivate func padding(_ index: Int) throws -> Padding {
        let raw = try scalar(index, default: Int8(0))
        guard let value = Padding(rawValue: raw) else { throw FormatError.malformed(path: path, reason: "unknown padding \(raw)") }
        return value
    }

    fileprivate func activation(_ index: Int) throws -> FusedActivation {
        let raw = try scalar(index, default: Int8(0))
        guard let value = FusedActivation(rawValue: raw) else { throw FormatError.malformed(path: path, reason: "unknown fused activation \(raw)") }
        return value
    }

    fileprivate func int(_ index: Int, default value: Int32 = 0) throws -> Int {
        Int(try scalar(index, default: value))
    }

    fileprivate func tensorType(_ index: Int, default value: TensorType = .float32) throws -> TensorType {
        let raw = try scalar(index, default: value.rawValue)
        guard let type = TensorType(rawValue: raw) else { throw FormatError.malformed(path: path, reason: "unknown tensor type \(raw)") }
        return type
    }
}

/// CONV_2D's options (`Conv2DOptions`).
public struct Conv2DOptions: Sendable {
    /// `padding` (default `same`).
    public var padding: Padding = .same
    /// `stride_w`, `stride_h`: steps between output pixels, in input pixels.
    public var strideW = 0, strideH = 0
    /// The fused activation (`fused_activation_function`).
    public var activation: FusedActivation = .none
    /// `dilation_w_factor`, `dilation_h_factor` (default 1).
    public var dilationW = 1, dilationH = 1

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        padding = try t.padding(0); strideW = try t.int(1); strideH = try t.int(2)
        activation = try t.activation(3); dilationW = try t.int(4, default: 1); dilationH = try t.int(5, default: 1)
    }
}

/// DEPTHWISE_CONV_2D's options (`DepthwiseConv2DOptions`).
public struct DepthwiseConv2DOptions: Sendable {
    /// `padding` (default `same`).
    public var padding: Padding = .same
    /// `stride_w`, `stride_h`: steps between output pixels, in input pixels.
    public var strideW = 0, strideH = 0
    /// `depth_multiplier`: output channels per input channel.
    public var depthMultiplier = 0
    /// The fused activation (`fused_activation_function`).
    public var activation: FusedActivation = .none
    /// `dilation_w_factor`, `dilation_h_factor` (default 1).
    public var dilationW = 1, dilationH = 1

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        padding = try t.padding(0); strideW = try t.int(1); strideH = try t.int(2); depthMultiplier = try t.int(3)
        activation = try t.activation(4); dilationW = try t.int(5, default: 1); dilationH = try t.int(6, default: 1)
    }
}

/// TRANSPOSE_CONV's options (`TransposeConvOptions`).
public struct TransposeConvOptions: Sendable {
    /// `padding` (default `same`).
    public var padding: Padding = .same
    /// `stride_w`, `stride_h`: steps between input pixels, in output pixels.
    public var strideW = 0, strideH = 0
    /// The fused activation (`fused_activation_function`).
    public var activation: FusedActivation = .none

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        padding = try t.padding(0); strideW = try t.int(1); strideH = try t.int(2); activation = try t.activation(3)
    }
}

/// AVERAGE_POOL_2D's and MAX_POOL_2D's options (`Pool2DOptions`).
public struct Pool2DOptions: Sendable {
    /// `padding` (default `same`).
    public var padding: Padding = .same
    /// `stride_w`, `stride_h`, `filter_width`, `filter_height`, in input pixels.
    public var strideW = 0, strideH = 0, filterW = 0, filterH = 0
    /// The fused activation (`fused_activation_function`).
    public var activation: FusedActivation = .none

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        padding = try t.padding(0); strideW = try t.int(1); strideH = try t.int(2)
        filterW = try t.int(3); filterH = try t.int(4); activation = try t.activation(5)
    }
}

/// FULLY_CONNECTED's options (`FullyConnectedOptions`).
public struct FullyConnectedOptions: Sendable {
    /// The fused activation (`fused_activation_function`).
    public var activation: FusedActivation = .none
    /// `weights_format`: 0 is `DEFAULT`, 1 `SHUFFLED4x16INT8`.
    public var weightsFormat = 0
    /// `keep_num_dims`: keep the input's leading dimensions instead of flattening them into one batch dimension.
    public var keepNumDims = false
    /// `asymmetric_quantize_inputs`: hybrid kernels quantize the float input with a zero point (else symmetrically).
    public var asymmetricQuantizeInputs = false

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        activation = try t.activation(0); weightsFormat = Int(try t.scalar(1, default: Int8(0)))
        keepNumDims = try t.bool(2); asymmetricQuantizeInputs = try t.bool(3)
    }
}

/// The options of ADD, SUB, MUL and DIV: a fused activation first.
public struct ArithmeticOptions: Sendable {
    /// The fused activation (`fused_activation_function`).
    public var activation: FusedActivation = .none
    /// ADD and SUB (field 1 of their options; MUL and DIV have none): int16 inputs and output whose scales are powers
    /// of two take TFLite's LSTM-style shift-only path instead of the general rescale. The schema's default is true.
    public var potScaleInt16 = true

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        activation = try t.activation(0)
        potScaleInt16 = try t.bool(1, default: true)
    }
}

/// SOFTMAX's options: `softmax(beta * x)`.
public struct SoftmaxOptions: Sendable {
    /// `beta`, the input's multiplier.
    public var beta: Float = 0

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        beta = try t.float(0, default: 0)
    }
}

/// CONCATENATION's options.
public struct ConcatenationOptions: Sendable {
    /// `axis`: the dimension joined (negative counts from the end).
    public var axis = 0
    /// The fused activation (`fused_activation_function`).
    public var activation: FusedActivation = .none

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        axis = try t.int(0); activation = try t.activation(1)
    }
}

/// RESHAPE's options.
public struct ReshapeOptions: Sendable {
    /// `new_shape`, or nil when the options leave it out.
    public var newShape: [Int]?

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        newShape = try t.scalars(0, "new_shape", as: Int32.self)?.map(Int.init)
    }
}

/// RESIZE_BILINEAR's and RESIZE_NEAREST_NEIGHBOR's options.
public struct ResizeOptions: Sendable {
    /// `align_corners`: the corner pixels of input and output are aligned.
    public var alignCorners = false
    /// `half_pixel_centers`: pixels are sampled at their centres.
    public var halfPixelCenters = false

    /// RESIZE_BILINEAR keeps two deprecated fields in front; RESIZE_NEAREST_NEIGHBOR does not.
    public init(_ t: FlatTable?, bilinear: Bool) throws {
        guard let t else { return }
        let first = bilinear ? 2 : 0
        alignCorners = try t.bool(first); halfPixelCenters = try t.bool(first + 1)
    }
}

/// The options of MEAN, SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN, REDUCE_ANY and REDUCE_ALL.
public struct ReducerOptions: Sendable {
    /// `keep_dims`: reduced dimensions stay, with size 1.
    public var keepDims = false

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        keepDims = try t.bool(0)
    }
}

/// SQUEEZE's options.
public struct SqueezeOptions: Sendable {
    /// `squeeze_dims`: the size-1 dimensions to remove (empty: all of them).
    public var squeezeDims: [Int] = []

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        squeezeDims = (try t.scalars(0, "squeeze_dims", as: Int32.self) ?? []).map(Int.init)
    }
}

/// STRIDED_SLICE's options: bit masks over the dimensions, as `tf.strided_slice`'s.
public struct StridedSliceOptions: Sendable {
    /// `begin_mask`, `end_mask`, `ellipsis_mask`, `new_axis_mask`, `shrink_axis_mask`: bit `i` applies to dimension `i`.
    public var beginMask = 0, endMask = 0, ellipsisMask = 0, newAxisMask = 0, shrinkAxisMask = 0
    /// `offset`: `end` is relative to `begin`.
    public var offset = false

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        beginMask = try t.int(0); endMask = try t.int(1); ellipsisMask = try t.int(2)
        newAxisMask = try t.int(3); shrinkAxisMask = try t.int(4); offset = try t.bool(5)
    }
}

/// SPLIT and SPLIT_V: the number of outputs.
public struct SplitOptions: Sendable {
    /// `num_splits`: how many outputs.
    public var numSplits = 0

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        numSplits = try t.int(0)
    }
}

/// PACK's options.
public struct PackOptions: Sendable {
    /// `values_count` (the number of inputs) and `axis` (where the new dimension goes).
    public var valuesCount = 0, axis = 0

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        valuesCount = try t.int(0); axis = try t.int(1)
    }
}

/// UNPACK's options.
public struct UnpackOptions: Sendable {
    /// `num` (the number of outputs) and `axis` (the dimension removed).
    public var num = 0, axis = 0

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        num = try t.int(0); axis = try t.int(1)
    }
}

/// GATHER's options.
public struct GatherOptions: Sendable {
    /// `axis` (the dimension indexed) and `batch_dims` (leading dimensions shared by params and indices).
    public var axis = 0, batchDims = 0

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        axis = try t.int(0); batchDims = try t.int(1)
    }
}

/// ARG_MAX and ARG_MIN.
public struct ArgOptions: Sendable {
    /// `output_type`: the type of the indices written.
    public var outputType: TensorType = .int64

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        outputType = try t.tensorType(0, default: .float32)
    }
}

/// CAST's options.
public struct CastOptions: Sendable {
    /// `in_data_type` and `out_data_type`.
    public var inType: TensorType = .float32, outType: TensorType = .float32

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        inType = try t.tensorType(0); outType = try t.tensorType(1)
    }
}

/// DEPTH_TO_SPACE and SPACE_TO_DEPTH.
public struct BlockSizeOptions: Sendable {
    /// `block_size`.
    public var blockSize = 0

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        blockSize = try t.int(0)
    }
}

/// BATCH_MATMUL: whether each operand's last two dimensions are swapped (adj_x, adj_y), and how a hybrid
/// (float times int8) product quantizes its float side.
public struct BatchMatMulOptions: Sendable {
    /// `adj_x`, `adj_y`: swap the last two dimensions of the left or right operand.
    public var adjointLHS = false, adjointRHS = false
    /// `asymmetric_quantize_inputs`: a hybrid product quantizes the float operand with a zero point.
    public var asymmetricQuantizeInputs = false

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        adjointLHS = try t.bool(0); adjointRHS = try t.bool(1); asymmetricQuantizeInputs = try t.bool(2)
    }
}

/// GELU: the tanh approximation or the exact form through erfc.
public struct GeluOptions: Sendable {
    /// `approximate`: the tanh approximation instead of the exact form.
    public var approximate = false

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        approximate = try t.bool(0)
    }
}

/// CUMSUM: whether each sum leaves out its own element, and whether it runs from the end.
public struct CumsumOptions: Sendable {
    /// `exclusive` (each sum leaves out its own element) and `reverse` (sums run from the end).
    public var exclusive = false, reverse = false

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        exclusive = try t.bool(0); reverse = try t.bool(1)
    }
}

/// ONE_HOT: the axis of the new dimension (-1: last). The schema's default is 0, so a converter writing axis 0
/// leaves the field out.
public struct OneHotOptions: Sendable {
    /// `axis`: where the one-hot dimension goes (-1: last).
    public var axis = 0

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        axis = try t.int(0)
    }
}

/// LOCAL_RESPONSE_NORMALIZATION: the window's radius and `bias + alpha · Σ x²` raised to `-beta`.
public struct LocalResponseNormalizationOptions: Sendable {
    /// `radius`: elements on each side of the window's centre.
    public var radius = 0
    /// `bias`, `alpha`, `beta` of `x / (bias + alpha · Σ x²)^beta`.
    public var bias: Float = 0, alpha: Float = 0, beta: Float = 0

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        radius = try t.int(0); bias = try t.float(1, default: 0); alpha = try t.float(2, default: 0); beta = try t.float(3, default: 0)
    }
}

/// LEAKY_RELU's options: `x` for positive inputs, `alpha · x` otherwise.
public struct LeakyReluOptions: Sendable {
    /// `alpha`, the slope below zero.
    public var alpha: Float = 0

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        alpha = try t.float(0, default: 0)
    }
}

/// MIRROR_PAD's options.
public struct MirrorPadOptions: Sendable {
    /// How the border is mirrored.
    public enum Mode: Int8, Sendable {
        /// Mirror without repeating the edge element (`[1, 2, 3]` padded by 2: `3 2 1 2 3 2 1`).
        case reflect = 0
        /// Mirror repeating the edge element (`2 1 1 2 3 3 2`).
        case symmetric = 1
    }
    /// `mode` (default `reflect`).
    public var mode: Mode = .reflect

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        let raw = try t.scalar(0, default: Int8(0))
        guard let mode = Mode(rawValue: raw) else { throw FormatError.malformed(path: t.path, reason: "unknown mirror pad mode \(raw)") }
        self.mode = mode
    }
}

/// UNIDIRECTIONAL_SEQUENCE_LSTM.
public struct SequenceLSTMOptions: Sendable {
    /// The cell's activation (`fused_activation_function`).
    public var activation: FusedActivation = .none
    /// `cell_clip`, `proj_clip`: bounds on the cell state and the projection (0: none).
    public var cellClip: Float = 0, projClip: Float = 0
    /// `time_major`: inputs are `[time, batch, features]` (else `[batch, time, features]`).
    public var timeMajor = false
    /// `asymmetric_quantize_inputs`: hybrid kernels quantize float inputs with a zero point.
    public var asymmetricQuantizeInputs = false

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        activation = try t.activation(0); cellClip = try t.float(1, default: 0); projClip = try t.float(2, default: 0)
        timeMajor = try t.bool(3); asymmetricQuantizeInputs = try t.bool(4)
    }
}

/// BIDIRECTIONAL_SEQUENCE_LSTM's options.
public struct BidirectionalSequenceLSTMOptions: Sendable {
    /// The cells' activation (`fused_activation_function`).
    public var activation: FusedActivation = .none
    /// `cell_clip`, `proj_clip`: bounds on the cell states and projections (0: none).
    public var cellClip: Float = 0, projClip: Float = 0
    /// `merge_outputs`: one output with the forward and backward features concatenated (else two outputs).
    public var mergeOutputs = false
    /// `time_major` (the schema's default is true).
    public var timeMajor = true
    /// `asymmetric_quantize_inputs`: hybrid kernels quantize float inputs with a zero point.
    public var asymmetricQuantizeInputs = false

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        activation = try t.activation(0); cellClip = try t.float(1, default: 0); projClip = try t.float(2, default: 0)
        mergeOutputs = try t.bool(3); timeMajor = try t.bool(4, default: true); asymmetricQuantizeInputs = try t.bool(5)
    }
}

/// WHILE: the subgraphs of its condition and its body.
public struct WhileOptions: Sendable {
    /// `cond_subgraph_index`, `body_subgraph_index`.
    public var conditionSubgraph = 0, bodySubgraph = 0

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        conditionSubgraph = try t.int(0); bodySubgraph = try t.int(1)
    }
}

/// IF: the subgraphs of its two branches.
public struct IfOptions: Sendable {
    /// `then_subgraph_index`, `else_subgraph_index`.
    public var thenSubgraph = 0, elseSubgraph = 0

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        thenSubgraph = try t.int(0); elseSubgraph = try t.int(1)
    }
}

/// REVERSE_SEQUENCE: the axis reversed and the batch axis whose index picks each sequence's length.
public struct ReverseSequenceOptions: Sendable {
    /// `seq_dim`, `batch_dim`.
    public var sequenceAxis = 0, batchAxis = 0

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        sequenceAxis = try t.int(0); batchAxis = try t.int(1)
    }
}

/// BUCKETIZE: the ascending boundaries between buckets.
public struct BucketizeOptions: Sendable {
    /// `boundaries`, ascending.
    public var boundaries: [Float] = []

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        boundaries = try t.floats(0, "boundaries") ?? []
    }
}

/// CONV_3D and CONV_3D_TRANSPOSE (`Conv3DOptions`).
public struct Conv3DOptions: Sendable {
    /// `padding` (default `same`).
    public var padding: Padding = .same
    /// `stride_d`, `stride_w`, `stride_h`.
    public var strideD = 0, strideW = 0, strideH = 0
    /// The fused activation (`fused_activation_function`).
    public var activation: FusedActivation = .none
    /// `dilation_d_factor`, `dilation_w_factor`, `dilation_h_factor` (default 1).
    public var dilationD = 1, dilationW = 1, dilationH = 1

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        padding = try t.padding(0); strideD = try t.int(1); strideW = try t.int(2); strideH = try t.int(3)
        activation = try t.activation(4)
        dilationD = try t.int(5, default: 1); dilationW = try t.int(6, default: 1); dilationH = try t.int(7, default: 1)
    }
}

/// VAR_HANDLE: the resource variable's container and shared name (together its identity).
public struct VarHandleOptions: Sendable {
    /// `container`, `shared_name`.
    public var container = "", sharedName = ""

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        container = try t.string(0, "container") ?? ""; sharedName = try t.string(1, "shared_name") ?? ""
    }
}

/// CALL_ONCE: the subgraph run once, before the first run of the graph it is in.
public struct CallOnceOptions: Sendable {
    /// `init_subgraph_index`.
    public var initSubgraph = 0

    /// Reads the operator's options table `t`; nil (the file left it out) keeps every field at the schema's default.
    /// Throws ``FormatError`` for a malformed table or an unknown enum value.
    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        initSubgraph = try t.int(0)
    }
}
