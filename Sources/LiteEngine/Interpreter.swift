import Foundation
import LiteFormat

/// Runs a TensorFlow Lite model: the counterpart of `tflite::Interpreter`.
///
/// ```swift
/// let interpreter = try Interpreter(modelPath: "mobilenet_v2.tflite", options: .init(threads: 1))
/// try interpreter.copy(pixels, toInputAt: 0)
/// try interpreter.invoke()
/// let scores = try interpreter.output(at: 0).toArray(of: Float.self)
/// ```
///
/// Loading builds the whole execution plan: every op is matched with a kernel (an unsupported op, version
/// or type fails here, naming the node), output shapes are inferred, and intermediate tensors are placed in
/// one arena by lifetime; a float RELU, RELU6 or RELU_N1_TO_1 after a convolution, FULLY_CONNECTED or arithmetic
/// node is folded into that node's activation, a float LOGISTIC into the MUL that makes it a swish, a float PAD of
/// zeros into the convolutions that read it, and a float ADD or PRELU into the store of the convolution before it
/// (``Options/fusesActivations``). `invoke()` then only runs kernels.
///
/// This file is the interpreter's surface; the passes that loading runs are in Graph/ (validation, shape preparation,
/// fusions), memory planning in Memory/, and the one loop every `invoke` goes through in Run/.
/// An interpreter is not safe to use from two threads at once; make one per thread (they can share a `TFLiteModel`).
public final class Interpreter: @unchecked Sendable {
    /// How an interpreter runs: threads, numerics, memory limit, activation folding and the WHILE loop bound.
    ///
    /// The defaults suit most uses: one thread, ``Numerics/fast``, a 4 GiB memory limit, activations folded and at
    /// most 2^24 steps a loop.
    public struct Options: Sendable {
        /// Threads for OpenBLAS and the engine's own kernels.
        public var threads: Int
        /// How quantized layers compute: ``Numerics/fast`` (the default) or ``Numerics/exact``; both are bit-exact with
        /// LiteRT on every golden (see <doc:NumericsDispatchAndThreads>).
        public var numerics: Numerics
        /// Most bytes the interpreter may allocate for intermediate, scratch and variable tensors; a model
        /// (or an input resize) that needs more fails with an error instead of exhausting memory.
        public var memoryLimit: Int
        /// Whether a float RELU, RELU6 or RELU_N1_TO_1 whose input only it reads is folded into the node that
        /// writes that input, a LOGISTIC into the MUL of a swish, a zero PAD into the convolutions or ADD that read
        /// it, and an ADD or PRELU into the convolution before it (see ``Interpreter``): the same outputs, one pass over
        /// memory less, but that node's own output tensor then holds clamped (or summed) values, and the LOGISTIC's or
        /// PAD's output is never written. Off to compare every intermediate tensor with another runtime.
        public var fusesActivations: Bool
        /// Most steps a WHILE loop may take in one run; a loop whose condition is still true then fails the run with
        /// an error, so a corrupt or hostile model cannot keep the caller busy for long (16,777,216 steps of a small
        /// body take about a minute). ``Interpreter/cancel()`` bounds a run's time instead.
        public var maximumLoopIterations: Int

        /// Options with the given values; `threads` below 1 counts as 1 and a negative `maximumLoopIterations` as 0.
        ///
        /// - Parameters:
        ///   - threads: Threads for OpenBLAS and the engine's kernels (default 1).
        ///   - numerics: ``Numerics/fast`` (default) or ``Numerics/exact``.
        ///   - memoryLimit: Most bytes for intermediate, scratch and variable tensors (default 4 GiB).
        ///   - fusesActivations: Whether activations are folded into the node before them (default true).
        ///   - maximumLoopIterations: Most steps of a WHILE loop in one run (default 2^24).
        public init(threads: Int = 1, numerics: Numerics = .fast, memoryLimit: Int = 4 << 30, fusesActivations: Bool = true,
                    maximumLoopIterations: Int = 1 << 24) {
            self.threads = max(1, threads)
            self.numerics = numerics
            self.memoryLimit = memoryLimit
            self.fusesActivations = fusesActivations
            self.maximumLoopIterations = max(0, maximumLoopIterations)
        }
    }

    /// The model this interpreter runs (shared with its signature runners and subgraphs).
    public let model: TFLiteModel
    /// The options the interpreter was made with (``Options/threads`` at least 1).
    public let options: Options
    /// Every tensor of the subgraph this interpreter runs, by index as in the file.
    public let tensors: [Tensor]
    let subgraph: SubGraphDescription
    let kernels: [Kernel]
    let nodeCodes: [OperatorCode]
    /// Nodes folded into another node by the fusion passes (``NodeFusion``, ``Options/fusesActivations``): not run.
    let folded: [Bool]
    /// Tensor index -> the tensor whose bytes it shares: a folded clamp's output is its input.
    let aliases: [Int: Int]
    /// Tensors a node reads in place of a folded node's output (``ChannelPadAbsorbing``), with that node: they must
    /// live until it runs.
    let lateReads: [(tensor: Int, node: Int)]

    /// The subgraphs this one runs inside, outermost first, and itself (0 for the model's main graph).
    let enclosingSubgraphs: [Int]
    /// The model's resource variables, shared with the signature runners this interpreter makes.
    let resources: ResourceVariables
    /// Set by ``cancel()``; shared with the subgraphs' interpreters and the signature runners.
    let cancellation: Cancellation
    /// The signature whose subgraph this interpreter runs (names its inputs and outputs), if the model has one.
    public let signature: SignatureDef?

    /// The arena and scratch buffer of the current plan (``planArena()``).
    let memory = ArenaMemory()
    // The planning state skips run-time exclusivity checks, as ``Tensor``'s properties do: a WHILE body plans at
    // every step, and the checks' calls are a sizeable share of a small recurrent model's time.
    /// Whether shapes must be prepared and memory planned again before the next run (after a resize).
    @exclusivity(unchecked) var needsPlan = true
    /// Whether planning reads the inputs' values (see ``planWithInputValues()``).
    @exclusivity(unchecked) var plansWithInputValues = false
    /// Per node, its inputs' ``Tensor/shapeVersion``s when it was last prepared while planning from values (empty:
    /// not yet).
    @exclusivity(unchecked) var preparedShapeVersions: [[Int]] = []
    /// Bytes of the arena holding intermediate tensors, at the current input shapes.
    public var arenaBytes: Int { memory.arenaBytes }
    /// Bytes of the scratch buffer shared by all nodes (im2col, decoded boxes): the largest any kernel needs at the
    /// current input shapes.
    public var scratchBytes: Int { memory.scratchBytes }

    /// Loads the model at `modelPath` (mapped read-only) and builds its execution plan.
    ///
    /// - Throws: ``EngineError/format(_:)`` when the file cannot be read or is not a valid model, and the errors of
    ///   ``init(model:options:)``.
    public convenience init(modelPath: String, options: Options = Options()) throws {
        let model: TFLiteModel
        do { model = try TFLiteModel(path: modelPath) } catch let error as FormatError { throw EngineError.format(error) }
        try self.init(model: model, options: options)
    }

    /// Builds the execution plan of `model`'s main subgraph; several interpreters can share one model.
    ///
    /// - Throws: ``EngineError/unsupportedOperator(node:op:version:)`` for an op or version the engine lacks,
    ///   ``EngineError/unsupported(node:op:reason:)`` or ``EngineError/invalidNode(node:op:reason:)`` for a node a kernel
    ///   cannot take, ``EngineError/invalidArgument(_:)`` for a plan over ``Options/memoryLimit``,
    ///   ``EngineError/instructionSetUnavailable(requested:available:)`` when `LITEVISION_ISA` asks for a level the CPU
    ///   lacks, and ``EngineError/libraryUnavailable(library:package:reason:)`` when OpenBLAS cannot be loaded.
    public convenience init(model: TFLiteModel, options: Options = Options()) throws {
        try self.init(model: model, subgraph: 0, options: options, enclosing: [], budget: SubgraphBudget(), resources: ResourceVariables())
    }

    /// An interpreter of subgraph `index`, built for a control-flow node (WHILE, IF) of the subgraphs in `enclosing`,
    /// outermost first: a subgraph that would run inside itself is an error, not an endless recursion. A WHILE's body
    /// (`loopBody`) has its `TensorListSetItem` slices fused (``TensorListSetItem``).
    init(model: TFLiteModel, subgraph index: Int, options: Options, enclosing: [Int], budget: SubgraphBudget, resources: ResourceVariables,
         cancellation: Cancellation = Cancellation(), loopBody: Bool = false) throws {
        // Before any kernel is prepared: the forced instruction-set level must exist on this CPU, and OpenBLAS must load.
        try KernelConfiguration.validate()
        try BLAS.requireLoaded()
        guard budget.take() else {
            throw EngineError.format(.malformed(path: "subgraphs", reason: "control flow runs more than \(SubgraphBudget.limit) subgraph instances"))
        }
        guard model.subgraphs.indices.contains(index) else {
            throw EngineError.format(.malformed(path: "subgraphs", reason: "no subgraph \(index); the model has \(model.subgraphs.count)"))
        }
        guard !enclosing.contains(index) else {
            throw EngineError.format(.malformed(path: "subgraphs[\(index)]", reason: "runs inside itself (through subgraphs \(enclosing))"))
        }
        self.model = model
        self.options = options
        self.enclosingSubgraphs = enclosing + [index]
        self.resources = resources
        self.cancellation = cancellation
        signature = model.signatureDefs.first { $0.subgraphIndex == index }
        let subgraph = model.subgraphs[index]
        self.subgraph = subgraph
        tensors = subgraph.tensors.enumerated().map { index, description in
            Tensor(index: index, description: description, constant: model.buffers.indices.contains(description.buffer) ? model.buffers[description.buffer] : nil)
        }
        for tensor in tensors where tensor.storage == .constant {
            let description = subgraph.tensors[tensor.index]
            let available = model.buffers[description.buffer].count
            if description.sparsity == nil, tensor.type.byteSize != nil, tensor.byteCount > available {
                throw EngineError.format(.malformed(path: "subgraphs[\(index)].tensors[\(tensor.index)] \(tensor.name)",
                                                   reason: "buffer holds \(available) bytes, shape \(tensor.shape) of \(tensor.type) needs \(tensor.byteCount)"))
            }
        }
        try GraphValidation.validate(subgraph, index: index, tensors: tensors, codes: subgraph.operators.map { model.operatorCodes[$0.opcodeIndex] })
        var kernels: [Kernel] = []
        var codes: [OperatorCode] = []
        let tensors = self.tensors
        for (index, op) in subgraph.operators.enumerated() {
            let code = model.operatorCodes[op.opcodeIndex]
            codes.append(code)
            guard let registration = OpRegistry.registration(for: code) else {
                throw EngineError.unsupportedOperator(node: index, op: code.description, version: code.version)
            }
            guard registration.versions.contains(code.version) else {
                throw EngineError.unsupportedOperator(node: index, op: code.description, version: code.version)
            }
            guard op.outputs.allSatisfy({ $0 >= 0 }) else {
                throw EngineError.invalidNode(node: index, op: code.description, reason: "an output is marked as omitted (-1)")
            }
            let context = NodeContext(
                model: model, index: index, code: code, options: op.builtinOptions, customOptions: op.customOptions,
                inputs: op.inputs.map { $0 < 0 ? nil : tensors[$0] },
                outputs: op.outputs.map { tensors[$0] },
                intermediates: op.intermediates.compactMap { $0 < 0 ? nil : tensors[$0] },
                numerics: options.numerics,
                interpreterOptions: options,
                subgraphs: enclosingSubgraphs,
                subgraphBudget: budget,
                resources: resources,
                cancellation: cancellation
            )
            kernels.append(try Self.nodeStep(index, code) { try registration.kernel.init(context) })
        }
        if loopBody { try Self.fuseTensorListSetItems(&kernels, codes: codes, graph: subgraph) }
        let fusion = options.fusesActivations ? try NodeFusion(&kernels, subgraph) : NodeFusion(unfused: kernels.count)
        self.kernels = kernels
        self.nodeCodes = codes
        (folded, aliases, lateReads) = (fusion.folded, fusion.aliases, fusion.lateReads)
        let variableBytes = tensors.filter(\.isVariable).reduce(0) { $0 + $1.byteCount }
        guard variableBytes <= options.memoryLimit else {
            throw EngineError.invalidArgument("variable tensors need \(variableBytes) bytes, over the memory limit of \(options.memoryLimit)")
        }
        for tensor in tensors where tensor.isVariable {
            tensor.makePersistent(byteCount: tensor.byteCount)
            tensor.resetVariable()
        }
        // A WHILE or IF plans its subgraphs itself, for its own inputs' shapes.
        if enclosing.isEmpty {
            do {
                try allocateTensors()
            } catch where subgraph.inputs.contains(where: { tensors[$0].shapeSignature.contains(-1) }) {
                // A resizable input's shape in the file is a placeholder (a 1x1 image that a pooling layer empties): such
                // a model loads anyway, and the error comes back from allocateTensors() or invoke() unless the inputs are
                // resized first, as in TFLite, which plans only when asked.
            }
        }
    }

    /// `code` is read only for an error: copying it for every node run (its strings retained and released) was a
    /// tenth of a WHILE body's per-node time.
    static func nodeStep<T>(_ index: Int, _ code: @autoclosure () -> OperatorCode, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as KernelError {
            if error.unsupported { throw EngineError.unsupported(node: index, op: code().description, reason: error.reason) }
            throw EngineError.invalidNode(node: index, op: code().description, reason: error.reason)
        } catch let error as FormatError {
            throw EngineError.invalidNode(node: index, op: code().description, reason: error.description)
        }
    }

    // MARK: Inputs and outputs

    /// The number of the subgraph's inputs.
    public var inputCount: Int { subgraph.inputs.count }
    /// The number of the subgraph's outputs.
    public var outputCount: Int { subgraph.outputs.count }

    /// Input `index` of the subgraph; throws ``EngineError/invalidArgument(_:)`` when there is no such input.
    public func input(at index: Int) throws -> Tensor {
        guard subgraph.inputs.indices.contains(index) else {
            throw EngineError.invalidArgument("input \(index) out of range: the model has \(inputCount) inputs")
        }
        return tensors[subgraph.inputs[index]]
    }

    /// Output `index` of the subgraph; throws ``EngineError/invalidArgument(_:)`` when there is no such output. Its
    /// values are those of the last ``invoke()``.
    public func output(at index: Int) throws -> Tensor {
        guard subgraph.outputs.indices.contains(index) else {
            throw EngineError.invalidArgument("output \(index) out of range: the model has \(outputCount) outputs")
        }
        return tensors[subgraph.outputs[index]]
    }

    /// The keys of the model's signatures (TFLite's `get_signature_list()`), in the file's order.
    public var signatureKeys: [String] { model.signatureDefs.map(\.key) }

    /// An interpreter of the subgraph of signature `key` (TFLite's `get_signature_runner(key)`): inputs and outputs by
    /// the signature's names (``input(named:)``, ``output(named:)``), the same options, and this interpreter's resource
    /// variables, so that a `train` signature's assignments are what an `infer` signature reads, and a CALL_ONCE
    /// initialization runs once for all of them.
    public func signatureRunner(_ key: String) throws -> Interpreter {
        guard let signature = model.signatureDefs.first(where: { $0.key == key }) else {
            throw EngineError.invalidArgument("no signature \"\(key)\"; the model has \(signatureKeys.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        return try Interpreter(model: model, subgraph: signature.subgraphIndex, options: options, enclosing: [], budget: SubgraphBudget(),
                               resources: resources, cancellation: cancellation)
    }

    /// The input named `name` in this subgraph's signature, or else by tensor name.
    public func input(named name: String) throws -> Tensor {
        if let entry = signature?.inputs.first(where: { $0.name == name }) { return tensors[entry.tensorIndex] }
        if let index = subgraph.inputs.first(where: { tensors[$0].name == name }) { return tensors[index] }
        throw EngineError.invalidArgument("no input named \"\(name)\"")
    }

    /// The output named `name` in this subgraph's signature, or else by tensor name.
    public func output(named name: String) throws -> Tensor {
        if let entry = signature?.outputs.first(where: { $0.name == name }) { return tensors[entry.tensorIndex] }
        if let index = subgraph.outputs.first(where: { tensors[$0].name == name }) { return tensors[index] }
        throw EngineError.invalidArgument("no output named \"\(name)\"")
    }

    /// Changes the shape of input `index`. The plan is rebuilt at the next ``allocateTensors()`` or ``invoke()``.
    ///
    /// `strict` (the default) is TFLite's `ResizeInputTensorStrict`: only dimensions marked -1 in the file's
    /// shape_signature may change. `strict: false` is its `ResizeInputTensor`, which TensorFlowLiteSwift calls: any
    /// shape of non-negative dimensions (a batch of two on a MobileNet built for one); a shape the graph's ops cannot
    /// take is then an error when the tensors are allocated.
    public func resizeInput(at index: Int, to shape: [Int], strict: Bool = true) throws {
        let tensor = try input(at: index)
        guard shape.allSatisfy({ $0 >= 0 }) else {
            throw EngineError.invalidArgument("input \(index) cannot take shape \(shape): dimensions must not be negative")
        }
        guard !strict || (shape.count == tensor.shapeSignature.count
                          && zip(shape, tensor.shapeSignature).allSatisfy({ $0 == $1 || $1 == -1 }))
        else {
            throw EngineError.invalidArgument("input \(index) cannot take shape \(shape): its signature is \(tensor.shapeSignature) (-1 marks a resizable dimension)")
        }
        var elements = 1
        for d in shape {
            let (product, overflow) = elements.multipliedReportingOverflow(by: d)
            guard !overflow, product <= TFLiteModel.Limits.maxElements else {
                throw EngineError.invalidArgument("input \(index): shape \(shape) is too large")
            }
            elements = product
        }
        if shape != tensor.shape {
            tensor.shape = shape
            needsPlan = true
        }
    }

    /// Copies raw bytes into input `index`; their count must equal the tensor's byte size.
    public func copy(_ bytes: UnsafeRawBufferPointer, toInputAt index: Int) throws {
        try allocateTensors()
        let tensor = try input(at: index)
        guard bytes.count == tensor.byteCount else {
            throw EngineError.invalidArgument("input \(index) (\(tensor)) needs \(tensor.byteCount) bytes, got \(bytes.count)")
        }
        if let base = bytes.baseAddress, let data = tensor.data { data.copyMemory(from: base, byteCount: bytes.count) }
    }

    /// Copies typed values into input `index`; their type must be the tensor's and their count its element count.
    public func copy<T>(_ values: [T], toInputAt index: Int) throws {
        let tensor = try input(at: index)
        guard let expected = Self.swiftType(of: tensor.type), expected == T.self else {
            throw EngineError.invalidArgument("input \(index) is \(tensor.type), got [\(T.self)]")
        }
        try values.withUnsafeBytes { try copy($0, toInputAt: index) }
    }

    static func swiftType(of type: TensorType) -> Any.Type? {
        switch type {
        case .float32: return Float.self
        case .int32: return Int32.self
        case .uint8: return UInt8.self
        case .int8: return Int8.self
        case .int16: return Int16.self
        case .int64: return Int64.self
        case .bool: return Bool.self
        case .float64: return Double.self
        default: return nil
        }
    }

    /// Resets every variable tensor (LSTM state) to zero, or an int8 one to its zero point, as `ResetVariableTensors` does.
    public func resetVariableTensors() {
        for tensor in tensors where tensor.isVariable {
            tensor.resetVariable()
        }
    }

    // MARK: Planning and running

    /// Infers shapes and plans memory. Called by `init` and, after a resize, by `invoke`.
    public func allocateTensors() throws {
        guard needsPlan else { return }
        try prepareNodes()
        try planArena()
        needsPlan = false
    }

    /// Stops an ``invoke()``, ``invoke(observingEachNode:)`` or ``invokeProfiled()`` running on another thread before
    /// its next node, in this interpreter or any subgraph it runs (each step of a WHILE loop, its body's nodes): that
    /// run throws ``EngineError/cancelled(node:)`` (TFLite's `Interpreter::Cancel`). Safe from any thread; a call while
    /// nothing runs has no effect on the next run. A server bounds a model's time with it, whatever loops a model has.
    public func cancel() {
        cancellation.request()
    }

    /// Runs the model once on the current input contents.
    public func invoke() throws {
        try runNodes()
    }

    /// Runs the model and calls `observer` after each node with the node index and its output tensors
    /// (for debugging a model node by node against another runtime).
    public func invoke(observingEachNode observer: (Int, [Tensor]) throws -> Void) throws {
        let kernels = kernels
        try withoutActuallyEscaping(observer) { observer in
            try runNodes(RunOptions(afterEachNode: { node, _ in try observer(node, kernels[node].node.outputs) }))
        }
    }

    /// The shapes of node `node`'s outputs at the current input shapes (for profiles).
    public func nodeOutputShapes(_ node: Int) throws -> [[Int]] {
        guard kernels.indices.contains(node) else { throw EngineError.invalidArgument("no node \(node); the graph has \(kernels.count)") }
        return kernels[node].node.outputs.map(\.shape)
    }

    /// Runs nodes one at a time and reports each one's wall time (for profiling).
    public func invokeProfiled() throws -> [(node: Int, op: String, seconds: Double)] {
        var entries: [(node: Int, op: String, seconds: Double)] = []
        entries.reserveCapacity(kernels.count)
        let codes = nodeCodes
        try runNodes(RunOptions(timesNodes: true, afterEachNode: { node, seconds in entries.append((node, codes[node].description, seconds)) }))
        return entries
    }
}
