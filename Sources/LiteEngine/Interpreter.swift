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
/// node is folded into that node's activation, and a float LOGISTIC into the MUL that makes it a swish
/// (``Options/fusesActivations``). `invoke()` then only runs kernels.
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
        /// writes that input, and a LOGISTIC into the MUL of a swish (see ``Interpreter``): the same outputs, one pass
        /// over memory less, but that node's own output tensor then holds clamped values, and the LOGISTIC's output is
        /// never written. Off to compare every intermediate tensor with another runtime.
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
    /// Nodes folded into the node before them (``Options/fusesActivations``): not run.
    let folded: [Bool]
    /// Tensor index -> the tensor whose bytes it shares: a folded node's output is its input.
    let aliases: [Int: Int]
    /// Tensors a node reads in place of a folded node's output (``Kernel/takeChannelPad(_:of:)``), with that node:
    /// they must live until it runs.
    let lateReads: [(tensor: Int, node: Int)]

    /// The subgraphs this one runs inside, outermost first, and itself (0 for the model's main graph).
    let enclosingSubgraphs: [Int]
    /// The model's resource variables, shared with the signature runners this interpreter makes.
    let resources: ResourceVariables
    /// Set by ``cancel()``; shared with the subgraphs' interpreters and the signature runners.
    let cancellation: Cancellation
    /// The signature whose subgraph this interpreter runs (names its inputs and outputs), if the model has one.
    public let signature: SignatureDef?

    // The planning state skips run-time exclusivity checks, as ``Tensor``'s properties do: a WHILE body plans at
    // every step, and the checks' calls were a sixth of a small recurrent model's time.
    @exclusivity(unchecked) private var arena: UnsafeMutableRawBufferPointer?
    @exclusivity(unchecked) private var scratch: UnsafeMutableRawBufferPointer?
    @exclusivity(unchecked) private var needsPlan = true
    /// Whether planning reads the inputs' values (see ``planWithInputValues()``).
    @exclusivity(unchecked) private(set) var plansWithInputValues = false
    /// Per tensor index, the bytes its arena region was planned with (-1: no region, the tensor has no lifetime). A
    /// subgraph planned from its inputs' values keeps its plan while every tensor still fits its region (see
    /// ``currentPlanFits(neededScratch:)``).
    @exclusivity(unchecked) private var plannedBytes: [Int] = []
    /// Per node, its inputs' ``Tensor/shapeVersion``s when it was last prepared while planning from values (empty:
    /// not yet).
    @exclusivity(unchecked) private var preparedShapeVersions: [[Int]] = []
    /// Bytes of the arena holding intermediate tensors, at the current input shapes.
    public private(set) var arenaBytes = 0
    /// Bytes of the scratch buffer shared by all nodes (im2col, decoded boxes): the largest any kernel needs at the
    /// current input shapes.
    public private(set) var scratchBytes = 0

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
        try Self.validateGraph(subgraph, index: index, tensors: tensors, codes: subgraph.operators.map { model.operatorCodes[$0.opcodeIndex] })
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
        if loopBody {
            for (before, concatenation, after) in TensorListSetItem.candidates(kernels, subgraph) {
                let fused = TensorListSetItem.node(concatenation: kernels[concatenation].node, before: kernels[before].node, after: kernels[after].node)
                kernels[concatenation] = try Self.nodeStep(concatenation, codes[concatenation]) { try TensorListSetItem(fused) }
                kernels[before] = try FusedSlice(kernels[before].node)
                kernels[after] = try FusedSlice(kernels[after].node)
            }
        }
        self.kernels = kernels
        self.nodeCodes = codes
        (folded, aliases, lateReads) = options.fusesActivations ? Self.foldNodes(kernels, subgraph) : (kernels.map { _ in false }, [:], [])
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

    /// Folds nodes into the node that reads or writes their output, when that output is read by nothing else and is
    /// not a graph output:
    /// - a float LOGISTIC whose output only a MUL reads, of the LOGISTIC's own input (swish, as EfficientNet's
    ///   converter writes it): the MUL computes `x · sigmoid(x)` itself (``Kernel/takeSigmoid(of:)``), the same
    ///   arithmetic in one pass, and the LOGISTIC does not run;
    /// - each float clamp node (RELU, RELU6, RELU_N1_TO_1) into the node that writes its input, when the writer takes
    ///   the clamp (``Kernel/takeClamp(_:)``): the writer's output is then already the clamp's, so the clamp's output
    ///   shares its bytes and the clamp node does not run. A convolution followed by a RELU node (the face detector's
    ///   blocks) then writes its output once;
    /// - a float PAD of zeros after the last axis whose output only an ADD reads, into that ADD
    ///   (``Kernel/takeChannelPad(_:of:)``): the ADD reads the PAD's input, which then lives until the ADD runs, and the
    ///   padded copy is never written (the face detector's residual blocks: one pass over each block's output less).
    private static func foldNodes(_ kernels: [Kernel], _ graph: SubGraphDescription) -> ([Bool], [Int: Int], [(tensor: Int, node: Int)]) {
        var readers = [Int: Int](), writer = [Int: Int]()
        for index in graph.outputs { readers[index, default: 0] += 1 }
        for (node, kernel) in kernels.enumerated() {
            for input in kernel.node.inputs { if let input { readers[input.index, default: 0] += 1 } }
            for output in kernel.node.outputs { writer[output.index] = node }
        }
        var folded = kernels.map { _ in false }, aliases = [Int: Int](), lateReads: [(tensor: Int, node: Int)] = []
        for (node, kernel) in kernels.enumerated() where kernel.node.inputs.count == 2 {
            for operand in 0..<2 {
                guard let padded = kernel.node.inputs[operand], padded.storage == .arena, readers[padded.index] == 1,
                      let producer = writer[padded.index], !folded[producer], kernels[producer].isFloatChannelZeroPad,
                      let source = kernels[producer].node.inputs[0], kernel.takeChannelPad(kernels[producer], of: operand)
                else { continue }
                folded[producer] = true
                lateReads.append((source.index, node))
                break
            }
        }
        for kernel in kernels where kernel.node.inputs.count == 2 {
            for (operand, other) in [(0, 1), (1, 0)] {
                guard let sigmoid = kernel.node.inputs[operand], let x = kernel.node.inputs[other], sigmoid.storage == .arena,
                      readers[sigmoid.index] == 1, let producer = writer[sigmoid.index], kernels[producer].isFloatSigmoid,
                      kernels[producer].node.inputs.first??.index == x.index, kernel.takeSigmoid(of: other)
                else { continue }
                folded[producer] = true
                break
            }
        }
        for (node, kernel) in kernels.enumerated() {
            guard let range = kernel.floatClamp, kernel.node.inputs.count == 1, let input = kernel.node.inputs[0],
                  let output = kernel.node.outputs.first, input.storage == .arena, output.storage == .arena,
                  readers[input.index] == 1, aliases[input.index] == nil,
                  let producer = writer[input.index], kernels[producer].node.outputs.count == 1,
                  kernels[producer].takeClamp(range)
            else { continue }
            folded[node] = true
            aliases[output.index] = input.index
        }
        return (folded, aliases, lateReads)
    }

    /// The graph must be a valid dataflow program: every tensor written by at most one node, never a constant
    /// or a graph input, and written before any node reads it. Kernels rely on this (a tensor written twice
    /// with two shapes, or read before its shape is known, would be sized wrongly in the arena).
    private static func validateGraph(_ graph: SubGraphDescription, index graphIndex: Int, tensors: [Tensor], codes: [OperatorCode]) throws {
        var producer: [Int: Int] = [:]
        let inputs = Set(graph.inputs)
        for index in graph.inputs where tensors[index].storage == .constant {
            throw EngineError.format(.malformed(path: "subgraphs[\(graphIndex)].inputs", reason: "input tensor \(index) has constant data"))
        }
        for (node, op) in graph.operators.enumerated() {
            for index in op.outputs where index >= 0 {
                let problem: String?
                // A DEQUANTIZE of a constant may give a variable its first value (the converter's float16 LSTM state);
                // it runs once, as TFLite's does.
                let setsInitialValue = tensors[index].isVariable && codes[node].builtin == .dequantize
                    && op.inputs.count == 1 && op.inputs[0] >= 0 && tensors[op.inputs[0]].storage == .constant
                if tensors[index].storage == .constant || (tensors[index].isVariable && !setsInitialValue) {
                    problem = "writes tensor \(index), which is constant or a variable"
                } else if inputs.contains(index) {
                    problem = "writes tensor \(index), which is a graph input"
                } else if let other = producer[index] {
                    problem = "writes tensor \(index), already written by node \(other)"
                } else {
                    problem = nil
                }
                if let problem { throw EngineError.invalidNode(node: node, op: codes[node].description, reason: problem) }
                producer[index] = node
            }
        }
        for (node, op) in graph.operators.enumerated() {
            for index in op.inputs where index >= 0 {
                if let writer = producer[index], writer >= node {
                    throw EngineError.invalidNode(node: node, op: codes[node].description, reason: "reads tensor \(index) before node \(writer) writes it")
                }
            }
        }
    }

    deinit {
        arena?.deallocate()
        scratch?.deallocate()
    }

    /// `code` is read only for an error: copying it for every node run (its strings retained and released) was a
    /// tenth of a WHILE body's per-node time.
    private static func nodeStep<T>(_ index: Int, _ code: @autoclosure () -> OperatorCode, _ body: () throws -> T) throws -> T {
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

    /// Sets input `index` to `shape` without the signature check of ``resizeInput(at:to:)``: a WHILE gives its
    /// subgraphs the shapes of its own loop variables.
    func setInputShape(_ index: Int, _ shape: [Int]) throws {
        let tensor = tensors[subgraph.inputs[index]]
        if tensor.shape != shape {
            tensor.shape = shape
            if plansWithInputValues { try makeInputsPersistent([tensor]) }
            needsPlan = true
        }
    }

    /// Gives inputs memory of their own (planning from their values), within the memory limit: a loop variable's
    /// hostile shape must be an error, not gigabytes allocated and zeroed.
    private func makeInputsPersistent(_ inputs: [Tensor]) throws {
        let bytes = inputs.reduce(0) { $0 + $1.byteCount }
        guard bytes <= options.memoryLimit else {
            throw EngineError.invalidArgument("subgraph inputs of \(bytes) bytes, over the memory limit of \(options.memoryLimit)")
        }
        for tensor in inputs { tensor.makePersistent(byteCount: tensor.byteCount) }
    }

    /// Makes planning read the inputs' current values: shape arithmetic on them (RESHAPE, ADD, CONCATENATION of int
    /// tensors) folds, so that a SLICE whose bounds depend on them gets its shape. For a WHILE body whose shapes
    /// follow a loop variable (a Keras LSTM writing step i of its output sequence slices its buffer at i): the inputs
    /// keep their own memory, and the caller replans (``replan()``) after every change of their values.
    func planWithInputValues() throws {
        plansWithInputValues = true
        preparedShapeVersions = [[Int]](repeating: [], count: kernels.count)
        try makeInputsPersistent(subgraph.inputs.map { tensors[$0] })
        needsPlan = true
    }

    /// Plans again, for the inputs' current values when ``plansWithInputValues``.
    func replan() throws {
        needsPlan = true
        try allocateTensors()
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
        var known = plansWithInputValues ? Set(subgraph.inputs) : Set<Int>()
        for (index, kernel) in kernels.enumerated() {
            // Planned from the inputs' values (a WHILE body, every step): a kernel whose shapes cannot follow values
            // and whose inputs kept their shapes would prepare to the same state; it is skipped.
            if plansWithInputValues, !kernel.readsValuesWhilePreparing, !kernel.foldsAtPlanning, inputShapesUnchanged(index) { continue }
            try Self.nodeStep(index, nodeCodes[index]) {
                try kernel.prepare()
                for output in kernel.node.outputs where Tensor.checkedCount(output.shape) == nil {
                    throw KernelError.invalid("output \(output.index) would have shape \(output.shape), beyond the size limit")
                }
                if Self.canFold(kernel, known: known) {
                    for output in kernel.node.outputs {
                        output.makePersistent(byteCount: output.byteCount)
                        known.insert(output.index)
                    }
                    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: max(kernel.scratchBytes, ArenaPlanner.alignment), alignment: ArenaPlanner.alignment)
                    defer { scratch.deallocate() }
                    try kernel.run(RunContext(scratch: scratch.baseAddress!, threads: 1))
                }
            }
            if plansWithInputValues { preparedShapeVersions[index] = kernels[index].node.inputs.map { $0?.shapeVersion ?? -1 } }
        }
        try planArena()
        needsPlan = false
    }

    /// Whether node `index`'s inputs have the shapes they had when it was last prepared.
    private func inputShapesUnchanged(_ index: Int) -> Bool {
        guard index < preparedShapeVersions.count else { return false }
        let inputs = kernels[index].node.inputs
        let versions = preparedShapeVersions[index]
        guard versions.count == inputs.count else { return false }
        for (input, version) in zip(inputs, versions) where (input?.shapeVersion ?? -1) != version { return false }
        return true
    }

    /// Whether `kernel` is shape arithmetic that can run now: see ``Kernel/foldsAtPlanning``.
    private static func canFold(_ kernel: Kernel, known: Set<Int>) -> Bool {
        guard kernel.foldsAtPlanning else { return false }
        for output in kernel.node.outputs {
            guard output.type == .int32 || output.type == .int64, output.elementCount <= 4096, !output.isVariable else { return false }
        }
        if kernel is Shape { return true }
        return kernel.node.inputs.allSatisfy { input in
            guard let input else { return true }
            return input.storage == .constant || known.contains(input.index)
        }
    }

    /// Whether the current plan still holds every arena tensor and the scratch at their current sizes: a WHILE body
    /// planned again at every step (its slices follow the loop counter) keeps its plan then, and its tensors' regions
    /// were planned at up to twice the size they grew to (below), so a loop that grows a slice step by step plans
    /// about log2(steps) times in its first run and not at all in the runs after.
    private func currentPlanFits(neededScratch: Int) -> Bool {
        guard plansWithInputValues, arena != nil, neededScratch <= scratchBytes else { return false }
        return tensorsFitTheirRegions()
    }

    /// Whether every arena tensor's bytes fit the region the current plan gave it (the invariant
    /// ``currentPlanFits(neededScratch:)`` keeps; tests check it after loops planned from values).
    func tensorsFitTheirRegions() -> Bool {
        guard plannedBytes.count == tensors.count else { return false }
        for tensor in tensors where tensor.storage == .arena {
            // -1: the tensor had no lifetime in the plan (no node reads or writes it), so it needs no region.
            let planned = plannedBytes[aliases[tensor.index] ?? tensor.index]
            if planned >= 0 && tensor.byteCount > planned { return false }
        }
        return true
    }

    private func planArena() throws {
        let neededScratch = kernels.map(\.scratchBytes).max() ?? 0
        if currentPlanFits(neededScratch: neededScratch) { return }
        let end = kernels.count
        // Per tensor index (arrays, not dictionaries: a WHILE body that follows its loop counter plans every step).
        var first = [Int?](repeating: nil, count: tensors.count)
        var last = [Int?](repeating: nil, count: tensors.count)
        for index in subgraph.inputs { first[index] = -1; last[index] = max(last[index] ?? -1, -1) }
        // The kernels' tensors, not the file's: a fused node (``TensorListSetItem``) reads its parts' inputs.
        for (node, kernel) in kernels.enumerated() {
            for input in kernel.node.inputs { if let index = input?.index { last[index] = max(last[index] ?? node, node) } }
            for index in kernel.node.outputs.map(\.index) {
                if first[index] == nil { first[index] = node }
                last[index] = max(last[index] ?? node, node)
            }
            for index in kernel.node.intermediates.map(\.index) {
                first[index] = min(first[index] ?? node, node); last[index] = max(last[index] ?? node, node)
            }
        }
        // Inputs and outputs are never overwritten (as TFLite's planner): a caller may invoke again on the same
        // input or read an output after another run.
        for index in subgraph.outputs + subgraph.inputs { last[index] = end }
        for (tensor, node) in lateReads { last[tensor] = max(last[tensor] ?? node, node) }
        for (alias, shared) in aliases {
            if let use = last[alias] { last[shared] = max(last[shared] ?? use, use) }
        }
        // A subgraph planned again from its inputs' values keeps each region at least as large as before and doubles
        // one that must grow (headroom), unless that would pass the memory limit.
        let growing = plansWithInputValues && plannedBytes.count == tensors.count
        var plan: (requests: [ArenaPlanner.Request], offsets: [Int?], size: Int)?
        var failure = "the plan needs more than the memory limit of \(options.memoryLimit) bytes"
        for withHeadroom in growing ? [true, false] : [false] {
            var requests: [ArenaPlanner.Request] = []
            for tensor in tensors where tensor.storage == .arena && aliases[tensor.index] == nil {
                guard let firstUse = first[tensor.index] ?? last[tensor.index].map({ _ in -1 }) else { continue }
                var bytes = tensor.byteCount
                if withHeadroom {
                    let before = plannedBytes[tensor.index]
                    bytes = bytes > before && before > 0 ? max(bytes, 2 * before) : max(bytes, before)
                }
                requests.append(.init(id: tensor.index, bytes: bytes, firstUse: firstUse, lastUse: last[tensor.index] ?? firstUse))
            }
            let requested = requests.reduce(0) { $0 + $1.bytes } + neededScratch
            guard requests.allSatisfy({ $0.bytes <= options.memoryLimit }), requested <= options.memoryLimit * 4 else { continue }
            let (offsets, size) = ArenaPlanner.plan(requests)
            guard size + neededScratch <= options.memoryLimit else {
                failure = "the plan needs \(size) arena + \(neededScratch) scratch bytes, over the memory limit of \(options.memoryLimit)"
                continue
            }
            plan = (requests, offsets, size)
            break
        }
        guard let (requests, offsets, size) = plan else { throw EngineError.invalidArgument(failure) }
        plannedBytes = [Int](repeating: -1, count: tensors.count)
        for request in requests { plannedBytes[request.id] = request.id < offsets.count && offsets[request.id] != nil ? request.bytes : 0 }
        arena?.deallocate()
        // Not zeroed: every intermediate is written before it is read, and touching 6 MB here costs load time.
        arena = UnsafeMutableRawBufferPointer.allocate(byteCount: max(size, ArenaPlanner.alignment), alignment: ArenaPlanner.alignment)
        arenaBytes = size
        for tensor in tensors where tensor.storage == .arena {
            let id = aliases[tensor.index] ?? tensor.index
            if id < offsets.count, let offset = offsets[id] {
                tensor.arenaOffset = offset
                tensor.data = arena!.baseAddress! + offset
            } else {
                tensor.data = nil
            }
        }
        if neededScratch > scratchBytes || scratch == nil {
            scratch?.deallocate()
            scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: max(neededScratch, ArenaPlanner.alignment), alignment: ArenaPlanner.alignment)
            scratchBytes = neededScratch
        }
    }

    /// Stops an ``invoke()`` running on another thread before its next node, in this interpreter or any subgraph it
    /// runs (each step of a WHILE loop, its body's nodes): that `invoke()` throws ``EngineError/cancelled(node:)``
    /// (TFLite's `Interpreter::Cancel`). Safe from any thread; a call while no `invoke()` runs has no effect on the
    /// next one. A server bounds a model's time with it, whatever loops a model has.
    public func cancel() {
        cancellation.request()
    }

    /// Runs the model once on the current input contents.
    public func invoke() throws {
        // A request made while nothing ran does not stop this run (as TFLite's Invoke clears it); a nested subgraph's
        // run (a WHILE body) keeps the request of the run it is part of.
        if enclosingSubgraphs.count == 1 { cancellation.clear() }
        try allocateTensors()
        let context = RunContext(scratch: scratch!.baseAddress!, threads: options.threads)
        var shrunk = false
        let cancellation = cancellation
        for (index, kernel) in kernels.enumerated() {
            if cancellation.isRequested { throw EngineError.cancelled(node: index) }
            if shrunk { try prepareAgain(index) }
            guard !folded[index] else { continue }
            try Self.nodeStep(index, nodeCodes[index]) { try kernel.run(context) }
            shrunk = shrunk || kernel.shrinksOutputsWhenRunning
        }
    }

    /// Prepares node `index` again after a node before it shrank an output (``Kernel/shrinksOutputsWhenRunning``):
    /// its shapes follow the smaller ones, and must still fit the memory the plan gave them.
    private func prepareAgain(_ index: Int) throws {
        let kernel = kernels[index]
        try Self.nodeStep(index, nodeCodes[index]) {
            try kernel.prepare()
            guard kernel.scratchBytes <= scratchBytes, tensorsFitTheirRegions() else {
                throw KernelError.unsupported("shapes after a value-dependent output grew beyond the memory planned for them")
            }
        }
    }

    /// Runs the model and calls `observer` after each node with the node index and its output tensors
    /// (for debugging a model node by node against another runtime).
    public func invoke(observingEachNode observer: (Int, [Tensor]) throws -> Void) throws {
        try allocateTensors()
        let context = RunContext(scratch: scratch!.baseAddress!, threads: options.threads)
        var shrunk = false
        for (index, kernel) in kernels.enumerated() {
            if shrunk { try prepareAgain(index) }
            if !folded[index] { try Self.nodeStep(index, nodeCodes[index]) { try kernel.run(context) } }
            shrunk = shrunk || kernel.shrinksOutputsWhenRunning
            try observer(index, kernel.node.outputs)
        }
    }

    /// The shapes of node `node`'s outputs at the current input shapes (for profiles).
    public func nodeOutputShapes(_ node: Int) throws -> [[Int]] {
        guard kernels.indices.contains(node) else { throw EngineError.invalidArgument("no node \(node); the graph has \(kernels.count)") }
        return kernels[node].node.outputs.map(\.shape)
    }

    /// Runs nodes one at a time and reports each one's wall time (for profiling).
    public func invokeProfiled() throws -> [(node: Int, op: String, seconds: Double)] {
        try allocateTensors()
        let context = RunContext(scratch: scratch!.baseAddress!, threads: options.threads)
        var shrunk = false
        return try kernels.enumerated().map { index, kernel in
            let start = DispatchTime.now().uptimeNanoseconds
            if shrunk { try prepareAgain(index) }
            if !folded[index] { try Self.nodeStep(index, nodeCodes[index]) { try kernel.run(context) } }
            shrunk = shrunk || kernel.shrinksOutputsWhenRunning
            return (index, nodeCodes[index].description, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
    }
}
