/// Typed readers for the builtin option tables (schema.fbs). Each takes the operator's options table, or nil
/// when the file left it out, in which case every field has the schema's default.

public enum Padding: Int8, Sendable { case same = 0, valid = 1 }

/// `ActivationFunctionType`, fused into many ops.
public enum FusedActivation: Int8, Sendable { case none = 0, relu, reluN1To1, relu6, tanh, signBit }

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

public struct Conv2DOptions: Sendable {
    public var padding: Padding = .same
    public var strideW = 0, strideH = 0
    public var activation: FusedActivation = .none
    public var dilationW = 1, dilationH = 1

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        padding = try t.padding(0); strideW = try t.int(1); strideH = try t.int(2)
        activation = try t.activation(3); dilationW = try t.int(4, default: 1); dilationH = try t.int(5, default: 1)
    }
}

public struct DepthwiseConv2DOptions: Sendable {
    public var padding: Padding = .same
    public var strideW = 0, strideH = 0
    public var depthMultiplier = 0
    public var activation: FusedActivation = .none
    public var dilationW = 1, dilationH = 1

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        padding = try t.padding(0); strideW = try t.int(1); strideH = try t.int(2); depthMultiplier = try t.int(3)
        activation = try t.activation(4); dilationW = try t.int(5, default: 1); dilationH = try t.int(6, default: 1)
    }
}

public struct TransposeConvOptions: Sendable {
    public var padding: Padding = .same
    public var strideW = 0, strideH = 0
    public var activation: FusedActivation = .none

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        padding = try t.padding(0); strideW = try t.int(1); strideH = try t.int(2); activation = try t.activation(3)
    }
}

public struct Pool2DOptions: Sendable {
    public var padding: Padding = .same
    public var strideW = 0, strideH = 0, filterW = 0, filterH = 0
    public var activation: FusedActivation = .none

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        padding = try t.padding(0); strideW = try t.int(1); strideH = try t.int(2)
        filterW = try t.int(3); filterH = try t.int(4); activation = try t.activation(5)
    }
}

public struct FullyConnectedOptions: Sendable {
    public var activation: FusedActivation = .none
    public var weightsFormat = 0
    public var keepNumDims = false
    public var asymmetricQuantizeInputs = false

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        activation = try t.activation(0); weightsFormat = Int(try t.scalar(1, default: Int8(0)))
        keepNumDims = try t.bool(2); asymmetricQuantizeInputs = try t.bool(3)
    }
}

/// The options of ADD, SUB, MUL and DIV: a fused activation first.
public struct ArithmeticOptions: Sendable {
    public var activation: FusedActivation = .none
    /// ADD and SUB (field 1 of their options; MUL and DIV have none): int16 inputs and output whose scales are powers
    /// of two take TFLite's LSTM-style shift-only path instead of the general rescale. The schema's default is true.
    public var potScaleInt16 = true

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        activation = try t.activation(0)
        potScaleInt16 = try t.bool(1, default: true)
    }
}

public struct SoftmaxOptions: Sendable {
    public var beta: Float = 0

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        beta = try t.float(0, default: 0)
    }
}

public struct ConcatenationOptions: Sendable {
    public var axis = 0
    public var activation: FusedActivation = .none

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        axis = try t.int(0); activation = try t.activation(1)
    }
}

public struct ReshapeOptions: Sendable {
    public var newShape: [Int]?

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        newShape = try t.scalars(0, "new_shape", as: Int32.self)?.map(Int.init)
    }
}

public struct ResizeOptions: Sendable {
    public var alignCorners = false
    public var halfPixelCenters = false

    /// RESIZE_BILINEAR keeps two deprecated fields in front; RESIZE_NEAREST_NEIGHBOR does not.
    public init(_ t: FlatTable?, bilinear: Bool) throws {
        guard let t else { return }
        let first = bilinear ? 2 : 0
        alignCorners = try t.bool(first); halfPixelCenters = try t.bool(first + 1)
    }
}

public struct ReducerOptions: Sendable {
    public var keepDims = false

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        keepDims = try t.bool(0)
    }
}

public struct SqueezeOptions: Sendable {
    public var squeezeDims: [Int] = []

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        squeezeDims = (try t.scalars(0, "squeeze_dims", as: Int32.self) ?? []).map(Int.init)
    }
}

public struct StridedSliceOptions: Sendable {
    public var beginMask = 0, endMask = 0, ellipsisMask = 0, newAxisMask = 0, shrinkAxisMask = 0
    public var offset = false

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        beginMask = try t.int(0); endMask = try t.int(1); ellipsisMask = try t.int(2)
        newAxisMask = try t.int(3); shrinkAxisMask = try t.int(4); offset = try t.bool(5)
    }
}

/// SPLIT and SPLIT_V: the number of outputs.
public struct SplitOptions: Sendable {
    public var numSplits = 0

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        numSplits = try t.int(0)
    }
}

public struct PackOptions: Sendable {
    public var valuesCount = 0, axis = 0

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        valuesCount = try t.int(0); axis = try t.int(1)
    }
}

public struct UnpackOptions: Sendable {
    public var num = 0, axis = 0

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        num = try t.int(0); axis = try t.int(1)
    }
}

public struct GatherOptions: Sendable {
    public var axis = 0, batchDims = 0

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        axis = try t.int(0); batchDims = try t.int(1)
    }
}

/// ARG_MAX and ARG_MIN.
public struct ArgOptions: Sendable {
    public var outputType: TensorType = .int64

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        outputType = try t.tensorType(0, default: .float32)
    }
}

public struct CastOptions: Sendable {
    public var inType: TensorType = .float32, outType: TensorType = .float32

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        inType = try t.tensorType(0); outType = try t.tensorType(1)
    }
}

/// DEPTH_TO_SPACE and SPACE_TO_DEPTH.
public struct BlockSizeOptions: Sendable {
    public var blockSize = 0

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        blockSize = try t.int(0)
    }
}

/// BATCH_MATMUL: whether each operand's last two dimensions are swapped (adj_x, adj_y), and how a hybrid
/// (float times int8) product quantizes its float side.
public struct BatchMatMulOptions: Sendable {
    public var adjointLHS = false, adjointRHS = false
    public var asymmetricQuantizeInputs = false

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        adjointLHS = try t.bool(0); adjointRHS = try t.bool(1); asymmetricQuantizeInputs = try t.bool(2)
    }
}

/// GELU: the tanh approximation or the exact form through erfc.
public struct GeluOptions: Sendable {
    public var approximate = false

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        approximate = try t.bool(0)
    }
}

/// CUMSUM: whether each sum leaves out its own element, and whether it runs from the end.
public struct CumsumOptions: Sendable {
    public var exclusive = false, reverse = false

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        exclusive = try t.bool(0); reverse = try t.bool(1)
    }
}

/// ONE_HOT: the axis of the new dimension (-1: last). The schema's default is 0, so a converter writing axis 0
/// leaves the field out.
public struct OneHotOptions: Sendable {
    public var axis = 0

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        axis = try t.int(0)
    }
}

/// LOCAL_RESPONSE_NORMALIZATION: the window's radius and `bias + alpha · Σ x²` raised to `-beta`.
public struct LocalResponseNormalizationOptions: Sendable {
    public var radius = 0
    public var bias: Float = 0, alpha: Float = 0, beta: Float = 0

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        radius = try t.int(0); bias = try t.float(1, default: 0); alpha = try t.float(2, default: 0); beta = try t.float(3, default: 0)
    }
}

public struct LeakyReluOptions: Sendable {
    public var alpha: Float = 0

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        alpha = try t.float(0, default: 0)
    }
}

public struct MirrorPadOptions: Sendable {
    public enum Mode: Int8, Sendable { case reflect = 0, symmetric = 1 }
    public var mode: Mode = .reflect

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        let raw = try t.scalar(0, default: Int8(0))
        guard let mode = Mode(rawValue: raw) else { throw FormatError.malformed(path: t.path, reason: "unknown mirror pad mode \(raw)") }
        self.mode = mode
    }
}

/// UNIDIRECTIONAL_SEQUENCE_LSTM.
public struct SequenceLSTMOptions: Sendable {
    public var activation: FusedActivation = .none
    public var cellClip: Float = 0, projClip: Float = 0
    public var timeMajor = false
    public var asymmetricQuantizeInputs = false

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        activation = try t.activation(0); cellClip = try t.float(1, default: 0); projClip = try t.float(2, default: 0)
        timeMajor = try t.bool(3); asymmetricQuantizeInputs = try t.bool(4)
    }
}

public struct BidirectionalSequenceLSTMOptions: Sendable {
    public var activation: FusedActivation = .none
    public var cellClip: Float = 0, projClip: Float = 0
    public var mergeOutputs = false
    public var timeMajor = true
    public var asymmetricQuantizeInputs = false

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        activation = try t.activation(0); cellClip = try t.float(1, default: 0); projClip = try t.float(2, default: 0)
        mergeOutputs = try t.bool(3); timeMajor = try t.bool(4, default: true); asymmetricQuantizeInputs = try t.bool(5)
    }
}

/// WHILE: the subgraphs of its condition and its body.
public struct WhileOptions: Sendable {
    public var conditionSubgraph = 0, bodySubgraph = 0

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        conditionSubgraph = try t.int(0); bodySubgraph = try t.int(1)
    }
}

/// IF: the subgraphs of its two branches.
public struct IfOptions: Sendable {
    public var thenSubgraph = 0, elseSubgraph = 0

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        thenSubgraph = try t.int(0); elseSubgraph = try t.int(1)
    }
}

/// REVERSE_SEQUENCE: the axis reversed and the batch axis whose index picks each sequence's length.
public struct ReverseSequenceOptions: Sendable {
    public var sequenceAxis = 0, batchAxis = 0

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        sequenceAxis = try t.int(0); batchAxis = try t.int(1)
    }
}

/// BUCKETIZE: the ascending boundaries between buckets.
public struct BucketizeOptions: Sendable {
    public var boundaries: [Float] = []

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        boundaries = try t.floats(0, "boundaries") ?? []
    }
}

/// CONV_3D and CONV_3D_TRANSPOSE (`Conv3DOptions`).
public struct Conv3DOptions: Sendable {
    public var padding: Padding = .same
    public var strideD = 0, strideW = 0, strideH = 0
    public var activation: FusedActivation = .none
    public var dilationD = 1, dilationW = 1, dilationH = 1

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        padding = try t.padding(0); strideD = try t.int(1); strideW = try t.int(2); strideH = try t.int(3)
        activation = try t.activation(4)
        dilationD = try t.int(5, default: 1); dilationW = try t.int(6, default: 1); dilationH = try t.int(7, default: 1)
    }
}

/// VAR_HANDLE: the resource variable's container and shared name (together its identity).
public struct VarHandleOptions: Sendable {
    public var container = "", sharedName = ""

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        container = try t.string(0, "container") ?? ""; sharedName = try t.string(1, "shared_name") ?? ""
    }
}

/// CALL_ONCE: the subgraph run once, before the first run of the graph it is in.
public struct CallOnceOptions: Sendable {
    public var initSubgraph = 0

    public init(_ t: FlatTable?) throws {
        guard let t else { return }
        initSubgraph = try t.int(0)
    }
}
