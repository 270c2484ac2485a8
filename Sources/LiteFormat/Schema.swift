/// Element type of a tensor (`TensorType` in schema.fbs).
public enum TensorType: Int8, Sendable, CaseIterable, CustomStringConvertible {
    /// `FLOAT32` (0), `FLOAT16`, `INT32`, `UINT8`, `INT64`, `STRING`, `BOOL`, `INT16`, `COMPLEX64`, `INT8`, `FLOAT64`,
    /// `COMPLEX128` (11), in the schema's order.
    case float32 = 0, float16, int32, uint8, int64, string, bool, int16, complex64, int8, float64, complex128
    /// `UINT64` (12), `RESOURCE`, `VARIANT`, `UINT32`, `UINT16`, `INT4`, `BFLOAT16` (18).
    case uint64, resource, variant, uint32, uint16, int4, bfloat16

    /// Bytes per element; nil for types without a fixed size (string, resource, variant, int4).
    public var byteSize: Int? {
        switch self {
        case .float32, .int32, .uint32: return 4
        case .float16, .int16, .uint16, .bfloat16: return 2
        case .uint8, .int8, .bool: return 1
        case .int64, .uint64, .float64, .complex64: return 8
        case .complex128: return 16
        case .string, .resource, .variant, .int4: return nil
        }
    }

    /// The schema's name in lower case (`float32`, `int8`, ...).
    public var description: String {
        switch self {
        case .float32: return "float32"
        case .float16: return "float16"
        case .int32: return "int32"
        case .uint8: return "uint8"
        case .int64: return "int64"
        case .string: return "string"
        case .bool: return "bool"
        case .int16: return "int16"
        case .complex64: return "complex64"
        case .int8: return "int8"
        case .float64: return "float64"
        case .complex128: return "complex128"
        case .uint64: return "uint64"
        case .resource: return "resource"
        case .variant: return "variant"
        case .uint32: return "uint32"
        case .uint16: return "uint16"
        case .int4: return "int4"
        case .bfloat16: return "bfloat16"
        }
    }
}

/// Affine quantization: `real = scale * (q - zeroPoint)`, per tensor or per channel along `quantizedDimension`.
public struct Quantization: Sendable, Equatable {
    /// The scales: one per tensor, or one per channel.
    public var scale: [Float]
    /// The zero points, as many as the scales.
    public var zeroPoint: [Int64]
    /// The dimension the channels run along for per-channel quantization (`quantized_dimension`).
    public var quantizedDimension: Int
    /// The float range's minimums, when the file records them (often empty).
    public var min: [Float]
    /// The float range's maximums, when the file records them (often empty).
    public var max: [Float]

    /// Quantization parameters from their fields.
    public init(scale: [Float], zeroPoint: [Int64], quantizedDimension: Int = 0, min: [Float] = [], max: [Float] = []) {
        self.scale = scale
        self.zeroPoint = zeroPoint
        self.quantizedDimension = quantizedDimension
        self.min = min
        self.max = max
    }

    /// True when more than one scale is given (per-channel quantization).
    public var isPerChannel: Bool { scale.count > 1 }
}

/// One dimension of a sparse tensor's storage (`DimensionMetadata`).
public struct SparseDimension: Sendable {
    /// `DimensionType`: how the dimension is stored.
    public enum Format: Int8, Sendable {
        /// Every index, `denseSize` of them.
        case dense = 0
        /// Compressed sparse row: `arraySegments` and `arrayIndices`.
        case sparseCSR = 1
    }
    /// Dense or CSR.
    public var format: Format
    /// The dimension's size when dense (`dense_size`).
    public var denseSize: Int
    /// CSR: where each segment starts in ``arrayIndices`` (`array_segments`).
    public var arraySegments: [Int]
    /// CSR: the indices of the stored elements (`array_indices`).
    public var arrayIndices: [Int]
}

/// `SparsityParameters`: TACO-style description of a sparse constant tensor.
public struct Sparsity: Sendable {
    /// The order in which the dimensions, and then the block dimensions, are stored (`traversal_order`).
    public var traversalOrder: [Int]
    /// Which original dimension each block dimension splits (`block_map`).
    public var blockMap: [Int]
    /// How each traversed dimension is stored (`dim_metadata`).
    public var dimensions: [SparseDimension]
}

/// A tensor as the file declares it.
public struct TensorDescription: Sendable {
    /// The tensor's name (may be empty).
    public var name: String
    /// The element type.
    public var type: TensorType
    /// The shape in the file (empty for a scalar).
    public var shape: [Int]
    /// `shape` with -1 where a dimension may be resized; equals `shape` when the file has no signature.
    public var shapeSignature: [Int]
    /// Index of the buffer with its constant data; 0 (the empty buffer) for tensors computed at run time.
    public var buffer: Int
    /// The quantization parameters, if any.
    public var quantization: Quantization?
    /// `is_variable`: state kept across runs (such as an LSTM's).
    public var isVariable: Bool
    /// How a sparse constant is stored, if it is one.
    public var sparsity: Sparsity?

    /// A tensor description from its fields.
    public init(name: String, type: TensorType, shape: [Int], shapeSignature: [Int], buffer: Int, quantization: Quantization?,
                isVariable: Bool, sparsity: Sparsity?) {
        self.name = name
        self.type = type
        self.shape = shape
        self.shapeSignature = shapeSignature
        self.buffer = buffer
        self.quantization = quantization
        self.isVariable = isVariable
        self.sparsity = sparsity
    }
}

/// An operator code: a builtin op (the effective code is `max(builtin_code, deprecated_builtin_code)`) or a custom op by name.
public struct OperatorCode: Sendable, Hashable, CustomStringConvertible {
    /// The builtin op (``BuiltinOperator/custom`` for a custom op).
    public var builtin: BuiltinOperator
    /// A custom op's name (`custom_code`), such as `TFLite_Detection_PostProcess`.
    public var customName: String?
    /// The op's version (the schema's default is 1).
    public var version: Int

    /// An operator code from its fields.
    public init(builtin: BuiltinOperator, customName: String?, version: Int) {
        self.builtin = builtin
        self.customName = customName
        self.version = version
    }

    /// The builtin's schema name, or `CUSTOM(<name>)`.
    public var description: String {
        builtin == .custom ? "CUSTOM(\(customName ?? "?"))" : builtin.description
    }
}

/// One node of a subgraph.
public struct OperatorDescription: @unchecked Sendable {
    /// Index into ``TFLiteModel/operatorCodes``.
    public var opcodeIndex: Int
    /// Tensor indices; -1 marks an omitted optional input.
    public var inputs: [Int]
    /// Tensor indices of the outputs.
    public var outputs: [Int]
    /// Tensor indices of the intermediates (quantization parameters of an integer LSTM's internal steps).
    public var intermediates: [Int]
    /// `BuiltinOptions` union type (0 = none) and its table.
    public var builtinOptionsType: UInt8
    /// The options table, read by the option types such as ``Conv2DOptions``; nil when left out.
    public var builtinOptions: FlatTable?
    /// FlexBuffer bytes of a custom op, in place in the file.
    public var customOptions: UnsafeRawBufferPointer?
}

/// A subgraph: its tensors, inputs, outputs and operators in execution order.
public struct SubGraphDescription: Sendable {
    /// The subgraph's name (may be empty).
    public var name: String
    /// Every tensor of the subgraph.
    public var tensors: [TensorDescription]
    /// Tensor indices of the inputs.
    public var inputs: [Int]
    /// Tensor indices of the outputs.
    public var outputs: [Int]
    /// The nodes, in the order they run.
    public var operators: [OperatorDescription]
}

/// A signature (`SignatureDef`): a named entry point into a subgraph with named inputs and outputs.
public struct SignatureDef: Sendable {
    /// The signature's key (`signature_key`), such as `serving_default` or `train`.
    public var key: String
    /// The subgraph it runs.
    public var subgraphIndex: Int
    /// The inputs: the signature's names and the subgraph's tensor indices.
    public var inputs: [(name: String, tensorIndex: Int)]
    /// The outputs: the signature's names and the subgraph's tensor indices.
    public var outputs: [(name: String, tensorIndex: Int)]
}

/// A named metadata entry (`Model.metadata`), with the bytes of the buffer it points to.
public struct MetadataEntry: Sendable {
    /// The entry's name, such as `TFLITE_METADATA` or `min_runtime_version`.
    public var name: String
    /// The buffer holding the entry's bytes.
    public var bufferIndex: Int
}
