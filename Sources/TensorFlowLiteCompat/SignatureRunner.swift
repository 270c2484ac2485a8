import Foundation
import LiteEngine

/// Runs one of a model's signatures (SignatureDefs), its inputs and outputs named as the signature names them.
/// Made by ``Interpreter/signatureRunner(with:)``.
///
/// ```swift
/// let train = try interpreter.signatureRunner(with: "train")
/// try train.invoke(with: ["x": xData, "target": targetData])
/// let loss = try train.output(named: "loss")
/// ```
///
/// - Note: A runner is not thread-safe. It keeps its ``Interpreter`` alive.
public final class SignatureRunner {
    /// The key of the signature this runner runs.
    public let signatureKey: String

    /// The signature's input names, sorted (the order TensorFlow Lite lists them in).
    public let inputs: [String]

    /// The signature's output names, sorted (the order TensorFlow Lite lists them in).
    public let outputs: [String]

    /// The interpreter the runner came from, kept alive as long as the runner.
    private let interpreter: Interpreter

    /// The engine's interpreter of the signature's subgraph.
    private let engine: LiteEngine.Interpreter

    /// Signature input name -> the input's position in the subgraph's inputs.
    private let inputPositions: [String: Int]

    /// Signature output name -> the output's position in the subgraph's outputs.
    private let outputPositions: [String: Int]

    /// Whether memory must be planned (after a resize) before tensors are read, written or run.
    private var isTensorsAllocationNeeded = true

    /// A runner of signature `signatureKey` of `interpreter`'s model, with its memory planned.
    init(interpreter: Interpreter, signatureKey: String) throws {
        let engine: LiteEngine.Interpreter
        do {
            engine = try interpreter.engine.signatureRunner(signatureKey)
        } catch {
            reportEngineError(error)
            throw SignatureRunnerError.failedToCreateSignatureRunner(signatureKey: signatureKey)
        }
        guard let signature = engine.signature else {
            throw SignatureRunnerError.failedToCreateSignatureRunner(signatureKey: signatureKey)
        }
        func positions(_ entries: [(name: String, tensorIndex: Int)], count: Int,
                       tensor: (Int) throws -> LiteEngine.Tensor) -> [String: Int] {
            var positions: [String: Int] = [:]
            for entry in entries {
                if let position = (0..<count).first(where: { (try? tensor($0).index) == entry.tensorIndex }) {
                    positions[entry.name] = position
                }
            }
            return positions
        }
        self.signatureKey = signatureKey
        self.interpreter = interpreter
        self.engine = engine
        inputs = signature.inputs.map(\.name).sorted()
        outputs = signature.outputs.map(\.name).sorted()
        inputPositions = positions(signature.inputs, count: engine.inputCount, tensor: engine.input(at:))
        outputPositions = positions(signature.outputs, count: engine.outputCount, tensor: engine.output(at:))
        // Planned now when it can be, as TensorFlowLiteSwift does; a signature whose placeholder shapes cannot be
        // planned (resizable inputs that only make sense once resized) is planned at the first allocateTensors() or
        // invoke(with:) instead, after resizeInput(named:toShape:).
        do {
            try engine.allocateTensors()
            isTensorsAllocationNeeded = false
        } catch {}
    }

    /// Copies each input's data into it and runs the signature.
    ///
    /// - Parameter inputs: Input name -> the input's bytes (exactly as many as the input holds). Inputs left out
    ///   keep their current contents.
    /// - Throws: A ``SignatureRunnerError``: for an unknown input name, a wrong byte count, or a failed run (whose
    ///   reason goes to standard error).
    public func invoke(with inputs: [String: Data]) throws {
        try allocateTensors()
        for (name, data) in inputs {
            try copy(data, toInputNamed: name)
        }
        do {
            try engine.invoke()
        } catch {
            reportEngineError(error)
            throw SignatureRunnerError.failedToInvokeSignature(signatureKey: signatureKey)
        }
    }

    /// The signature's input named `name`, with a copy of its current bytes.
    ///
    /// - Parameter name: One of ``inputs``.
    /// - Throws: ``SignatureRunnerError/failedToGetTensor(tensorType:nameInSignature:)`` for an unknown name;
    ///   ``SignatureRunnerError/allocateTensorsRequired`` after a resize without ``allocateTensors()``;
    ///   ``SignatureRunnerError/invalidTensorDataType`` for a type ``Tensor/DataType`` cannot express.
    /// - Returns: The input tensor.
    public func input(named name: String) throws -> Tensor {
        guard let position = inputPositions[name] else {
            throw SignatureRunnerError.failedToGetTensor(tensorType: "input", nameInSignature: name)
        }
        return try snapshot(engine.input(at: position))
    }

    /// The signature's output named `name`, with a copy of its current bytes.
    ///
    /// - Parameter name: One of ``outputs``.
    /// - Throws: ``SignatureRunnerError/failedToGetTensor(tensorType:nameInSignature:)`` for an unknown name;
    ///   ``SignatureRunnerError/allocateTensorsRequired`` after a resize without ``allocateTensors()``;
    ///   ``SignatureRunnerError/invalidTensorDataType`` for a type ``Tensor/DataType`` cannot express.
    /// - Returns: The output tensor.
    public func output(named name: String) throws -> Tensor {
        guard let position = outputPositions[name] else {
            throw SignatureRunnerError.failedToGetTensor(tensorType: "output", nameInSignature: name)
        }
        return try snapshot(engine.output(at: position))
    }

    /// Changes the shape of the input named `name`. Memory is planned again at the next ``allocateTensors()`` or
    /// ``invoke(with:)``; until then the runner's tensors cannot be read or written.
    ///
    /// LiteVision resizes only the dimensions the model marks as resizable (-1 in the file's `shape_signature`).
    ///
    /// - Parameters:
    ///   - name: One of ``inputs``.
    ///   - shape: The new shape.
    /// - Throws: ``SignatureRunnerError/failedToResizeInputTensor(inputName:)`` for an unknown name or a shape the
    ///   input cannot take.
    public func resizeInput(named name: String, toShape shape: Tensor.Shape) throws {
        guard let position = inputPositions[name] else {
            throw SignatureRunnerError.failedToResizeInputTensor(inputName: name)
        }
        do {
            try engine.resizeInput(at: position, to: shape.dimensions, strict: false)
        } catch {
            reportEngineError(error)
            throw SignatureRunnerError.failedToResizeInputTensor(inputName: name)
        }
        isTensorsAllocationNeeded = true
    }

    /// Copies `data` into the input named `name`.
    ///
    /// - Parameters:
    ///   - data: The input's bytes: little-endian elements of its type, in row-major order, exactly as many bytes as
    ///     the input holds.
    ///   - name: One of ``inputs``.
    /// - Throws: ``SignatureRunnerError/failedToGetTensor(tensorType:nameInSignature:)`` for an unknown name;
    ///   ``SignatureRunnerError/allocateTensorsRequired`` after a resize without ``allocateTensors()``;
    ///   ``SignatureRunnerError/invalidTensorDataCount(provided:required:)`` for a wrong byte count.
    public func copy(_ data: Data, toInputNamed name: String) throws {
        guard let position = inputPositions[name] else {
            throw SignatureRunnerError.failedToGetTensor(tensorType: "input", nameInSignature: name)
        }
        let required = try engine.input(at: position).byteCount
        guard data.count == required else {
            throw SignatureRunnerError.invalidTensorDataCount(provided: data.count, required: required)
        }
        guard !isTensorsAllocationNeeded else { throw SignatureRunnerError.allocateTensorsRequired }
        do {
            try data.withUnsafeBytes { try engine.copy($0, toInputAt: position) }
        } catch {
            reportEngineError(error)
            throw SignatureRunnerError.failedToCopyDataToInputTensor
        }
    }

    /// Plans memory for the current input shapes. Optional: ``invoke(with:)`` plans when it must.
    ///
    /// - Throws: ``SignatureRunnerError/failedToAllocateTensors`` if the signature cannot run at these shapes (the
    ///   engine's reason goes to standard error).
    public func allocateTensors() throws {
        guard isTensorsAllocationNeeded else { return }
        do {
            try engine.allocateTensors()
        } catch {
            reportEngineError(error)
            throw SignatureRunnerError.failedToAllocateTensors
        }
        isTensorsAllocationNeeded = false
    }

    private func snapshot(_ tensor: LiteEngine.Tensor) throws -> Tensor {
        guard !isTensorsAllocationNeeded, tensor.data != nil || tensor.byteCount == 0 else {
            throw SignatureRunnerError.allocateTensorsRequired
        }
        guard let snapshot = Tensor(tensor) else { throw SignatureRunnerError.invalidTensorDataType }
        return snapshot
    }
}
