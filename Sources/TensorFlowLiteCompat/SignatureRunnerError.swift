import Foundation

/// The errors ``SignatureRunner`` (and ``Interpreter/signatureRunner(with:)``) throw, with TensorFlowLiteSwift's
/// cases and messages.
public enum SignatureRunnerError: Error, Equatable, Hashable {
    /// Data whose byte count is not the tensor's.
    case invalidTensorDataCount(provided: Int, required: Int)
    /// A tensor of a type ``Tensor/DataType`` cannot express.
    case invalidTensorDataType
    /// The model has no signature with this key.
    case failedToCreateSignatureRunner(signatureKey: String)
    /// The signature has no input or output (`tensorType`) of this name.
    case failedToGetTensor(tensorType: String, nameInSignature: String)
    /// The named input cannot take the requested shape.
    case failedToResizeInputTensor(inputName: String)
    /// The data could not be copied into the input tensor.
    case failedToCopyDataToInputTensor
    /// Shapes could not be inferred or memory planned for the current input shapes.
    case failedToAllocateTensors
    /// Running the signature failed (the reason goes to standard error).
    case failedToInvokeSignature(signatureKey: String)
    /// An input was resized and ``SignatureRunner/allocateTensors()`` has not been called since.
    case allocateTensorsRequired
}

extension SignatureRunnerError: LocalizedError {
    /// The error's message, word for word TensorFlowLiteSwift's.
    public var errorDescription: String? {
        switch self {
        case let .invalidTensorDataCount(provided, required):
            return "Provided data count \(provided) must match the required count \(required)."
        case .invalidTensorDataType:
            return "Tensor data type is unsupported or could not be determined due to a model error."
        case let .failedToCreateSignatureRunner(signatureKey):
            return "Failed to create a signature runner. Signature with key (\(signatureKey)) not found."
        case let .failedToGetTensor(tensorType, nameInSignature):
            return "Failed to get \(tensorType) tensor with \(tensorType) name (\(nameInSignature))."
        case let .failedToResizeInputTensor(inputName):
            return "Failed to resize input tensor with input name (\(inputName))."
        case .failedToCopyDataToInputTensor:
            return "Failed to copy data to input tensor."
        case .failedToAllocateTensors:
            return "Failed to allocate memory for input tensors."
        case let .failedToInvokeSignature(signatureKey):
            return "Failed to invoke the signature runner with key (\(signatureKey))."
        case .allocateTensorsRequired:
            return "Must call allocateTensors()."
        }
    }
}

extension SignatureRunnerError: CustomStringConvertible {
    /// The same text as ``errorDescription``.
    public var description: String { errorDescription ?? "Unknown error." }
}
