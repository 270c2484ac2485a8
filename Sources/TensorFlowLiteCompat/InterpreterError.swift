import Foundation

/// The errors ``Interpreter`` throws, with TensorFlowLiteSwift's cases and messages.
public enum InterpreterError: Error, Equatable, Hashable {
    /// A tensor index outside `0...maxIndex`.
    case invalidTensorIndex(index: Int, maxIndex: Int)
    /// Data whose byte count is not the tensor's.
    case invalidTensorDataCount(provided: Int, required: Int)
    /// A tensor of a type ``Tensor/DataType`` cannot express (a string, complex or resource tensor).
    case invalidTensorDataType
    /// The model file could not be read or is not a valid TensorFlow Lite model.
    case failedToLoadModel
    /// The model was read but cannot run here (an op LiteVision does not implement, for example).
    case failedToCreateInterpreter
    /// The input at `index` cannot take the requested shape.
    case failedToResizeInputTensor(index: Int)
    /// The data could not be copied into the input tensor.
    case failedToCopyDataToInputTensor
    /// Shapes could not be inferred or memory planned for the current input shapes.
    case failedToAllocateTensors
    /// An input was resized and ``Interpreter/allocateTensors()`` has not been called since.
    case allocateTensorsRequired
    /// An output has no data until ``Interpreter/invoke()`` has run.
    case invokeInterpreterRequired
    /// An error reported by the runtime, with its message.
    case tensorFlowLiteError(String)
}

extension InterpreterError: LocalizedError {
    /// The error's message, word for word TensorFlowLiteSwift's.
    public var errorDescription: String? {
        switch self {
        case let .invalidTensorIndex(index, maxIndex):
            return "Invalid tensor index \(index), max index is \(maxIndex)."
        case let .invalidTensorDataCount(provided, required):
            return "Provided data count \(provided) must match the required count \(required)."
        case .invalidTensorDataType:
            return "Tensor data type is unsupported or could not be determined due to a model error."
        case .failedToLoadModel:
            return "Failed to load the given model."
        case .failedToCreateInterpreter:
            return "Failed to create the interpreter."
        case let .failedToResizeInputTensor(index):
            return "Failed to resize input tensor at index \(index)."
        case .failedToCopyDataToInputTensor:
            return "Failed to copy data to input tensor."
        case .failedToAllocateTensors:
            return "Failed to allocate memory for input tensors."
        case .allocateTensorsRequired:
            return "Must call allocateTensors()."
        case .invokeInterpreterRequired:
            return "Must call invoke()."
        case let .tensorFlowLiteError(message):
            return "TensorFlow Lite Error: \(message)"
        }
    }
}

extension InterpreterError: CustomStringConvertible {
    /// The same text as ``errorDescription``.
    public var description: String { errorDescription ?? "Unknown error." }
}

/// Writes the engine's reason for a failure to standard error, as TensorFlow Lite's error reporter does, since the
/// thrown case (kept as TensorFlowLiteSwift has it) does not carry it.
func reportEngineError(_ error: Error) {
    FileHandle.standardError.write(Data("\(InterpreterError.tensorFlowLiteError("\(error)"))\n".utf8))
}
