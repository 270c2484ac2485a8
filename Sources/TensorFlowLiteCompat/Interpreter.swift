import Foundation
import LiteEngine

/// Runs a TensorFlow Lite model with the API of TensorFlowLiteSwift's `Interpreter`, on LiteVision's engine.
///
/// ```swift
/// let interpreter = try Interpreter(modelPath: path)
/// try interpreter.allocateTensors()
/// try interpreter.copy(rgbData, toInputAt: 0)
/// try interpreter.invoke()
/// let scores = try interpreter.output(at: 0)
/// ```
///
/// As in TensorFlowLiteSwift, ``allocateTensors()`` must be called after the interpreter is created and after any
/// input is resized, before inputs are read or written or the model runs (they throw
/// ``InterpreterError/allocateTensorsRequired``, outputs ``InterpreterError/invokeInterpreterRequired``).
///
/// - Note: An interpreter is not thread-safe: use one from one thread at a time.
public final class Interpreter {
    /// The options the interpreter was created with, if any.
    public let options: Options?

    /// The delegates the interpreter was created with, if any. LiteVision keeps them but runs every op itself.
    public let delegates: [Delegate]?

    /// The number of the model's input tensors.
    public var inputTensorCount: Int { engine.inputCount }

    /// The number of the model's output tensors.
    public var outputTensorCount: Int { engine.outputCount }

    /// The keys of the model's signatures (its SignatureDefs), in the model file's order.
    public var signatureKeys: [String] { engine.signatureKeys }

    /// The engine's interpreter of the model's main graph.
    let engine: LiteEngine.Interpreter

    /// Whether ``allocateTensors()`` has not run since the interpreter was made or an input was resized: tensors may
    /// not be read, written or run.
    private var needsAllocation = true

    /// Loads the model at `modelPath`. Call ``allocateTensors()`` before using it.
    ///
    /// - Parameters:
    ///   - modelPath: The path of a `.tflite` file.
    ///   - options: How to run; `nil` (the default) for the default options.
    ///   - delegates: Kept in ``delegates`` and otherwise ignored: LiteVision runs every op on the CPU.
    /// - Throws: ``InterpreterError/failedToLoadModel`` if the file cannot be read or is not a valid model;
    ///   ``InterpreterError/failedToCreateInterpreter`` if the model cannot run here (an op the engine lacks). The
    ///   engine's reason is written to standard error, as TensorFlow Lite's error reporter does.
    public init(modelPath: String, options: Options? = nil, delegates: [Delegate]? = nil) throws {
        self.options = options
        self.delegates = delegates
        var engineOptions = LiteEngine.Interpreter.Options()
        if let threadCount = options?.threadCount, threadCount > 0 { engineOptions.threads = threadCount }
        do {
            engine = try LiteEngine.Interpreter(modelPath: modelPath, options: engineOptions)
        } catch let error as EngineError {
            reportEngineError(error)
            if case .format = error { throw InterpreterError.failedToLoadModel }
            throw InterpreterError.failedToCreateInterpreter
        } catch {
            reportEngineError(error)
            throw InterpreterError.failedToCreateInterpreter
        }
    }

    /// Runs the model on the current contents of its inputs.
    ///
    /// - Throws: ``InterpreterError/allocateTensorsRequired`` before ``allocateTensors()`` (after creation or a
    ///   resize); ``InterpreterError/tensorFlowLiteError(_:)`` with the engine's reason if the run fails.
    public func invoke() throws {
        guard !needsAllocation else { throw InterpreterError.allocateTensorsRequired }
        do {
            try engine.invoke()
        } catch {
            throw InterpreterError.tensorFlowLiteError("\(error)")
        }
    }

    /// The input tensor at `index`, with a copy of its current bytes.
    ///
    /// - Parameter index: The input's position, from 0 to ``inputTensorCount`` - 1.
    /// - Throws: ``InterpreterError/invalidTensorIndex(index:maxIndex:)`` for an index out of range;
    ///   ``InterpreterError/allocateTensorsRequired`` before ``allocateTensors()`` (after creation or a resize);
    ///   ``InterpreterError/invalidTensorDataType`` for a type ``Tensor/DataType`` cannot express.
    /// - Returns: The input tensor.
    public func input(at index: Int) throws -> Tensor {
        try checkIndex(index, count: inputTensorCount)
        guard !needsAllocation else { throw InterpreterError.allocateTensorsRequired }
        let tensor = try engine.input(at: index)
        guard tensor.data != nil || tensor.byteCount == 0 else { throw InterpreterError.allocateTensorsRequired }
        guard let snapshot = Tensor(tensor) else { throw InterpreterError.invalidTensorDataType }
        return snapshot
    }

    /// The output tensor at `index`, with a copy of its current bytes.
    ///
    /// - Parameter index: The output's position, from 0 to ``outputTensorCount`` - 1.
    /// - Throws: ``InterpreterError/invalidTensorIndex(index:maxIndex:)`` for an index out of range;
    ///   ``InterpreterError/invokeInterpreterRequired`` before ``allocateTensors()`` (after creation or a resize) or
    ///   for an output with no bytes yet;
    ///   ``InterpreterError/invalidTensorDataType`` for a type ``Tensor/DataType`` cannot express.
    /// - Returns: The output tensor.
    public func output(at index: Int) throws -> Tensor {
        try checkIndex(index, count: outputTensorCount)
        guard !needsAllocation else { throw InterpreterError.invokeInterpreterRequired }
        let tensor = try engine.output(at: index)
        guard tensor.data != nil || tensor.byteCount == 0 else { throw InterpreterError.invokeInterpreterRequired }
        guard let snapshot = Tensor(tensor) else { throw InterpreterError.invalidTensorDataType }
        return snapshot
    }

    /// Changes the shape of the input at `index`. Call ``allocateTensors()`` before using the interpreter again.
    ///
    /// LiteVision resizes only the dimensions the model marks as resizable (-1 in the file's `shape_signature`),
    /// as TensorFlow Lite's strict resize does.
    ///
    /// - Parameters:
    ///   - index: The input's position, from 0 to ``inputTensorCount`` - 1.
    ///   - shape: The new shape.
    /// - Throws: ``InterpreterError/invalidTensorIndex(index:maxIndex:)`` for an index out of range;
    ///   ``InterpreterError/failedToResizeInputTensor(index:)`` for a shape the input cannot take.
    public func resizeInput(at index: Int, to shape: Tensor.Shape) throws {
        try checkIndex(index, count: inputTensorCount)
        let tensor = try engine.input(at: index)
        guard shape.dimensions != tensor.shape else { return }
        do {
            try engine.resizeInput(at: index, to: shape.dimensions, strict: false)
        } catch {
            reportEngineError(error)
            throw InterpreterError.failedToResizeInputTensor(index: index)
        }
        needsAllocation = true
    }

    /// Copies `data` into the input at `index`.
    ///
    /// - Parameters:
    ///   - data: The input's bytes: little-endian elements of its type, in row-major order, exactly as many bytes
    ///     as the input holds (for a float32 image of 224x224x3, 602,112).
    ///   - index: The input's position, from 0 to ``inputTensorCount`` - 1.
    /// - Throws: ``InterpreterError/invalidTensorIndex(index:maxIndex:)`` for an index out of range;
    ///   ``InterpreterError/allocateTensorsRequired`` before ``allocateTensors()`` (after creation or a resize);
    ///   ``InterpreterError/invalidTensorDataCount(provided:required:)`` for a wrong byte count.
    /// - Returns: The input tensor with its new bytes.
    @discardableResult
    public func copy(_ data: Data, toInputAt index: Int) throws -> Tensor {
        try checkIndex(index, count: inputTensorCount)
        let required = try engine.input(at: index).byteCount
        guard data.count == required else {
            throw InterpreterError.invalidTensorDataCount(provided: data.count, required: required)
        }
        guard !needsAllocation else { throw InterpreterError.allocateTensorsRequired }
        do {
            try data.withUnsafeBytes { try engine.copy($0, toInputAt: index) }
        } catch {
            reportEngineError(error)
            throw InterpreterError.failedToCopyDataToInputTensor
        }
        return try input(at: index)
    }

    /// Infers every tensor's shape and plans memory for the current input shapes. Needed once after the interpreter
    /// is made and again after ``resizeInput(at:to:)``; otherwise cheap.
    ///
    /// - Throws: ``InterpreterError/failedToAllocateTensors`` if the model cannot run at these shapes (the engine's
    ///   reason goes to standard error).
    public func allocateTensors() throws {
        do {
            try engine.allocateTensors()
        } catch {
            reportEngineError(error)
            throw InterpreterError.failedToAllocateTensors
        }
        needsAllocation = false
    }

    /// A runner of the model's signature `key`: its inputs and outputs by the signature's names.
    ///
    /// Runners share the model's resource variables with each other (a `train` signature's updates are what an
    /// `infer` signature reads), but each has tensors of its own, apart from this interpreter's.
    ///
    /// - Parameter key: One of ``signatureKeys``.
    /// - Throws: ``SignatureRunnerError/failedToCreateSignatureRunner(signatureKey:)`` for a key the model lacks or a
    ///   signature that cannot run here.
    /// - Returns: A new runner.
    public func signatureRunner(with key: String) throws -> SignatureRunner {
        guard signatureKeys.contains(key) else {
            throw SignatureRunnerError.failedToCreateSignatureRunner(signatureKey: key)
        }
        return try SignatureRunner(interpreter: self, signatureKey: key)
    }

    private func checkIndex(_ index: Int, count: Int) throws {
        guard (0..<count).contains(index) else {
            throw InterpreterError.invalidTensorIndex(index: index, maxIndex: count - 1)
        }
    }
}
