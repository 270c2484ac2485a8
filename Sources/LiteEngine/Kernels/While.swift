import LiteFormat

/// WHILE (TFLite's while.cc): runs the body subgraph on the loop variables for as long as the condition subgraph
/// returns true, and outputs the loop variables. The node's inputs and outputs, the condition's inputs and the
/// body's inputs and outputs are the loop variables, in the same order; both subgraphs run in interpreters of
/// their own, built with this one's options.
///
/// Between iterations the loop variables live in this node's outputs: each iteration copies the ones the condition
/// reads into its inputs, then the ones the body changes into the body's inputs, and its outputs back. A body must
/// give every loop variable back in the shape it took: TFLite lets shapes change from
/// one iteration to the next (dynamic tensors), which is refused here. Inside a subgraph, shapes may depend on the
/// loop variables' values (a Keras LSTM that returns its sequences writes step i by slicing its buffer at i): a
/// subgraph whose plan cannot be built from shapes alone is planned again before every run from the values it is
/// given (``Interpreter/planWithInputValues()``). A loop whose condition stays true for the interpreter's
/// ``Interpreter/Options/maximumLoopIterations`` iterations is an error, so a hostile model cannot hang a caller.
final class While: Kernel {
    let condition: Interpreter
    let body: Interpreter
    /// Whether each subgraph is planned from its inputs' values before every run.
    private(set) var replansCondition = false, replansBody = false
    /// Per loop variable: whether the condition reads it (the others are not copied into it), and whether the body
    /// gives it back as it got it (its output is its input: copied in once a run, never back). A Keras LSTM's loop
    /// carries its whole input sequence this way, and copying it three times a step took most of the loop's time.
    private var conditionReads: [Bool] = [], passesThrough: [Bool] = []
    /// Fixed from `prepare` on, so that a run allocates nothing: the subgraphs' input and output tensors, the
    /// condition's inputs it reads, the variables the body changes, and whether they must be staged (see `run`).
    private var bodyInputs: [Tensor] = [], bodyOutputs: [Tensor] = [], conditionInputs: [(Int, Tensor)] = []
    private var carried: [Int] = [], staged = false

    required init(_ node: NodeContext) throws {
        let options = try WhileOptions(node.options)
        condition = try ControlFlow.interpreter(of: options.conditionSubgraph, for: node, role: "condition")
        body = try ControlFlow.interpreter(of: options.bodySubgraph, for: node, role: "body")
        try super.init(node)
        let count = node.inputs.count
        guard count > 0, node.outputs.count == count, condition.inputCount == count, body.inputCount == count, body.outputCount == count else {
            throw KernelError.invalid("\(count) loop variables, \(node.outputs.count) outputs, a condition taking \(condition.inputCount) "
                                      + "and a body taking \(body.inputCount) and giving \(body.outputCount)")
        }
        guard condition.outputCount == 1 else { throw KernelError.invalid("the condition subgraph gives \(condition.outputCount) outputs, not 1") }
    }

    override func prepare() throws {
        for i in node.inputs.indices {
            let value = try input(i)
            for (role, interpreter) in [("condition", condition), ("body", body)] {
                let slot = try ControlFlow.nested("the \(role) subgraph") { try interpreter.input(at: i) }
                guard slot.type == value.type else {
                    throw KernelError.invalid("loop variable \(i) is \(value.type), the \(role) subgraph takes \(slot.type)")
                }
                try ControlFlow.nested("the \(role) subgraph") { try interpreter.setInputShape(i, value.shape) }
            }
            node.outputs[i].type = value.type
            node.outputs[i].shape = value.shape
        }
        replansCondition = try Self.plan(condition, "condition")
        replansBody = try Self.plan(body, "body")
        if !replansCondition { try checkCondition() }
        if !replansBody { try checkBody() }
        let (cond, loop) = (condition.subgraph, body.subgraph)
        conditionReads = cond.inputs.map { t in cond.outputs.contains(t) || cond.operators.contains { $0.inputs.contains(t) } }
        passesThrough = zip(loop.inputs, loop.outputs).map { $0 == $1 }
        bodyInputs = try node.inputs.indices.map { try body.input(at: $0) }
        bodyOutputs = try node.inputs.indices.map { try body.output(at: $0) }
        conditionInputs = try node.inputs.indices.filter { conditionReads[$0] }.map { ($0, try condition.input(at: $0)) }
        carried = node.inputs.indices.filter { !passesThrough[$0] }
        // A body output that is another variable's input (a body that swaps two variables) would be overwritten by
        // the copies into the body's inputs, so such a body's values go through this node's outputs.
        staged = carried.contains { i in loop.inputs.contains(loop.outputs[i]) }
    }

    /// Plans `interpreter` from shapes, or else readies it to be planned from its inputs' values at every run;
    /// returns whether it will be. An op without a kernel fails here either way.
    private static func plan(_ interpreter: Interpreter, _ role: String) throws -> Bool {
        do {
            try interpreter.allocateTensors()
            return false
        } catch let error as EngineError {
            if case .unsupportedOperator = error { throw KernelError.unsupported("the \(role) subgraph: \(error)") }
            try ControlFlow.nested("the \(role) subgraph") { try interpreter.planWithInputValues() }
            return true
        }
    }

    private func checkCondition() throws {
        let flag = try ControlFlow.nested("the condition subgraph") { try condition.output(at: 0) }
        guard flag.type == .bool, flag.elementCount == 1 else { throw KernelError.invalid("the condition gives \(flag), not one bool") }
    }

    private func checkBody() throws {
        for i in node.inputs.indices {
            let value = node.outputs[i], next = try ControlFlow.nested("the body subgraph") { try body.output(at: i) }
            guard next.type == value.type, next.shape == value.shape else {
                throw KernelError.unsupported("the body turns loop variable \(i) from \(value.type)\(value.shape) into \(next.type)\(next.shape) "
                                              + "(loop variables that change shape are not supported)")
            }
        }
    }

    override func run(_ context: RunContext) throws {
        // Locals, not the class's properties: each property read in the loop would be a runtime exclusivity check.
        let (condition, body, limit) = (condition, body, node.interpreterOptions.maximumLoopIterations)
        let (replansCondition, replansBody) = (replansCondition, replansBody)
        let variables = node.outputs
        let (bodyInputs, bodyOutputs, conditionInputs, carried, staged) = (bodyInputs, bodyOutputs, conditionInputs, carried, staged)
        let passesThrough = passesThrough
        // As TFLite's static WHILE: after the first step the newest values are the body's outputs, copied straight into
        // its inputs for the next step (once, not out to this node's outputs and back), and out to this node's outputs
        // when the loop ends; `staged` bodies keep them in this node's outputs instead.
        for i in variables.indices where passesThrough[i] || !staged { ControlFlow.copy(node.inputs[i]!, to: bodyInputs[i]) }
        if staged { for (i, variable) in variables.enumerated() { ControlFlow.copy(node.inputs[i]!, to: variable) } }
        let flag = try condition.output(at: 0)
        var iterations = 0
        let cancellation = node.cancellation
        while true {
            if cancellation.isRequested { throw EngineError.cancelled(node: node.index) }
            for (i, input) in conditionInputs {
                ControlFlow.copy(staged ? variables[i] : iterations == 0 ? node.inputs[i]! : bodyOutputs[i], to: input)
            }
            if replansCondition {
                try ControlFlow.nested("the condition subgraph") { try condition.replan() }
                try checkCondition()
            }
            try ControlFlow.nested("the condition subgraph") { try condition.invoke() }
            guard let value = flag.data, value.load(as: UInt8.self) != 0 else { break }
            guard iterations < limit else { throw KernelError.invalid("the condition was still true after \(limit) iterations") }
            if staged {
                for i in carried { ControlFlow.copy(variables[i], to: bodyInputs[i]) }
            } else if iterations > 0 {
                for i in carried { ControlFlow.copy(bodyOutputs[i], to: bodyInputs[i]) }
            }
            iterations += 1
            if replansBody {
                try ControlFlow.nested("the body subgraph") { try body.replan() }
                try checkBody()
            }
            try ControlFlow.nested("the body subgraph") { try body.invoke() }
            if staged { for i in carried { ControlFlow.copy(bodyOutputs[i], to: variables[i]) } }
        }
        guard !staged else { return }
        for (i, variable) in variables.enumerated() { ControlFlow.copy(iterations == 0 ? node.inputs[i]! : bodyOutputs[i], to: variable) }
    }
}
