import Foundation
import LiteEngine

/// An input or output tensor of a model: a snapshot of its name, type, shape and bytes, taken when
/// ``Interpreter/input(at:)``, ``Interpreter/output(at:)`` or a ``SignatureRunner`` returned it.
///
/// ``data`` is a copy: it does not change when the interpreter runs again, and changing it does not reach the model
/// (copy input data in with ``Interpreter/copy(_:toInputAt:)``).
public struct Tensor: Equatable, Hashable, Sendable {
    /// The tensor's name in the model file.
    public let name: String

    /// The type of the tensor's elements.
    public let dataType: DataType

    /// The tensor's current shape.
    public let shape: Shape

    /// The tensor's bytes, little-endian elements in row-major order, copied from the interpreter.
    public let data: Data

    /// The mapping of the tensor's integers to real numbers, for a tensor quantized with one scale; otherwise `nil`.
    public let quantizationParameters: QuantizationParameters?

    /// A tensor with the given values (made by the interpreter only, as in TensorFlowLiteSwift).
    init(name: String, dataType: DataType, shape: Shape, data: Data, quantizationParameters: QuantizationParameters? = nil) {
        self.name = name
        self.dataType = dataType
        self.shape = shape
        self.data = data
        self.quantizationParameters = quantizationParameters
    }

    /// A snapshot of the engine's tensor, or `nil` when its type has no ``DataType``. The caller has checked that the
    /// tensor's bytes are planned for its current shape.
    init?(_ tensor: LiteEngine.Tensor) {
        guard let dataType = DataType(of: tensor) else { return nil }
        let byteCount = tensor.byteCount
        let data: Data
        if let bytes = tensor.data, byteCount > 0 {
            data = Data(bytes: bytes, count: byteCount)
        } else {
            data = Data(count: byteCount)
        }
        var parameters: QuantizationParameters?
        // One scale for the whole tensor, as TfLiteTensorQuantizationParams reports it; a zero scale means none.
        if let quantization = tensor.quantization, quantization.scale.count == 1, quantization.scale[0] != 0 {
            parameters = QuantizationParameters(scale: quantization.scale[0], zeroPoint: Int(quantization.zeroPoint.first ?? 0))
        }
        self.init(name: tensor.name, dataType: dataType, shape: Shape(tensor.shape), data: data, quantizationParameters: parameters)
    }
}

extension Tensor {
    /// The element types a ``Tensor`` can have.
    public enum DataType: Equatable, Hashable, Sendable {
        /// A Boolean, one byte each.
        case bool
        /// An 8-bit unsigned integer.
        case uInt8
        /// An 8-bit signed integer (not in TensorFlowLiteSwift, which cannot read int8 tensors).
        case int8
        /// A 16-bit signed integer.
        case int16
        /// A 32-bit signed integer.
        case int32
        /// A 64-bit signed integer.
        case int64
        /// A 16-bit IEEE half-precision float.
        case float16
        /// A 32-bit IEEE single-precision float.
        case float32
        /// A 64-bit IEEE double-precision float.
        case float64

        /// The type of an engine tensor's elements, or `nil` for types with no case here (strings, complex numbers,
        /// resources).
        init?(of tensor: LiteEngine.Tensor) {
            switch tensor.type {
            case .bool: self = .bool
            case .uint8: self = .uInt8
            case .int8: self = .int8
            case .int16: self = .int16
            case .int32: self = .int32
            case .int64: self = .int64
            case .float16: self = .float16
            case .float32: self = .float32
            case .float64: self = .float64
            default: return nil
            }
        }
    }
}

extension Tensor {
    /// The dimensions of a ``Tensor``, outermost first.
    public struct Shape: Equatable, Hashable, Sendable {
        /// The number of dimensions.
        public let rank: Int

        /// The size of each dimension, outermost first.
        public let dimensions: [Int]

        /// A shape with the given dimensions.
        ///
        /// - Parameter dimensions: The size of each dimension, outermost first.
        public init(_ dimensions: [Int]) {
            rank = dimensions.count
            self.dimensions = dimensions
        }

        /// A shape with the given dimensions, as a list: `Tensor.Shape(1, 224, 224, 3)`.
        ///
        /// - Parameter elements: The size of each dimension, outermost first.
        public init(_ elements: Int...) {
            self.init(elements)
        }
    }
}

extension Tensor.Shape: ExpressibleByArrayLiteral {
    /// A shape written as an array literal: `let shape: Tensor.Shape = [1, 224, 224, 3]`.
    ///
    /// - Parameter arrayLiteral: The size of each dimension, outermost first.
    public init(arrayLiteral: Int...) {
        self.init(arrayLiteral)
    }
}
