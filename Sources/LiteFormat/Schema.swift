/// Element type of a tensor (`TensorType` in schema.fbs).
public enum TensorType: Int8, Sendable, CaseIterable, CustomStringConvertible {
    case float32 = 0, float16, int32, uint8, int64, string, bool, int16, complex64, int8, float64, complex128
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
    public var scale: [Float]
    public var zeroPoint: [Int64]
    public var quantizedDimension: Int
    public var min: [Float]
    public var max: [Float]

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
    public enum Format: Int8, Sendable { case dense = 0, sparseCSR = 1 }
    public var format: Format
    public var denseSize: Int
    public var arraySegments: [Int]
    public var arrayIndices: [Int]
}

/// `SparsityParameters`: TACO-style description of a sparse constant tensor.
public struct Sparsity: Sendable {
    public var traversalOrder: [Int]
    public var blockMap: [Int]
    public var dimensions: [SparseDimension]
}

/// A tensor as the file declares it.
public struct TensorDescription: Sendable {
    public var name: String
    public var type: TensorType
    public var shape: [Int]
    /// `shape` with -1 where a dimension may be resized; equals `shape` when the file has no signature.
    public var shapeSignature: [Int]
    public var buffer: Int
    public var quantization: Quantization?
    public var isVariable: Bool
    public var sparsity: Sparsity?

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
    public var builtin: BuiltinOperator
    public var customName: String?
    public var version: Int

    public init(builtin: BuiltinOperator, customName: String?, version: Int) {
        self.builtin = builtin
        self.customName = customName
        self.version = version
    }

    public var description: String {
        builtin == .custom ? "CUSTOM(\(customName ?? "?"))" : builtin.description
    }
}

/// One node of a subgraph.
public struct OperatorDescription: @unchecked Sendable {
    public var opcodeIndex: Int
    /// Tensor indices; -1 marks an omitted optional input.
    public var inputs: [Int]
    public var outputs: [Int]
    public var intermediates: [Int]
    /// `BuiltinOptions` union type (0 = none) and its table.
    public var builtinOptionsType: UInt8
    public var builtinOptions: FlatTable?
    /// FlexBuffer bytes of a custom op, in place in the file.
    public var customOptions: UnsafeRawBufferPointer?
}

public struct SubGraphDescription: Sendable {
    public var name: String
    public var tensors: [TensorDescription]
    public var inputs: [Int]
    public var outputs: [Int]
    public var operators: [OperatorDescription]
}

public struct SignatureDef: Sendable {
    public var key: String
    public var subgraphIndex: Int
    public var inputs: [(name: String, tensorIndex: Int)]
    public var outputs: [(name: String, tensorIndex: Int)]
}

/// A named metadata entry (`Model.metadata`), with the bytes of the buffer it points to.
public struct MetadataEntry: Sendable {
    public var name: String
    public var bufferIndex: Int
}
