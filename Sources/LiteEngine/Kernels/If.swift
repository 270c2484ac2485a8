import LiteFormat

/// IF (TFLite's if.cc): input 0 is one bool; the other inputs go to the `then` subgraph when it is true and to the
/// `else` subgraph otherwise, and the chosen subgraph's outputs are the node's. Both branches run in interpreters
/// of their own, planned for the node's input shapes; they must agree on their outputs' types and shapes (TFLite
/// makes the outputs dynamic when they do not, which is refused here).
final class If: Kernel {
    let thenBranch: Interpreter
    let elseBranch: Interpreter

    required init(_ node: NodeContext) throws {
        let options = try IfOptions(node.options)
        thenBranch = try ControlFlow.interpreter(of: options.thenSubgraph, for: node, role: "then")
        elseBranch = try ControlFlow.interpreter(of: options.elseSubgraph, for: node, role: "else")
        try super.init(node)
        let count = node.inputs.count - 1
        for (role, branch) in [("then", thenBranch), ("else", elseBranch)] {
            guard count >= 0, branch.inputCount == count, branch.outputCount == node.outputs.count else {
                throw KernelError.invalid("\(count) branch inputs and \(node.outputs.count) outputs, but the \(role) subgraph takes "
                                          + "\(branch.inputCount) and gives \(branch.outputCount)")
            }
        }
    }

    override func prepare() throws {
        let condition = try input(0)
        guard condition.type == .bool, condition.elementCount == 1 else { throw KernelError.invalid("the condition is \(condition), not one bool") }
        for (role, branch) in [("then", thenBranch), ("else", elseBranch)] {
            for i in 1..<node.inputs.count {
                let value = try input(i), slot = try ControlFlow.nested("the \(role) subgraph") { try branch.input(at: i - 1) }
                guard slot.type == value.type else { throw KernelError.invalid("input \(i) is \(value.type), the \(role) subgraph takes \(slot.type)") }
                try ControlFlow.nested("the \(role) subgraph") { try branch.setInputShape(i - 1, value.shape) }
            }
            try ControlFlow.nested("the \(role) subgraph") { try branch.allocateTensors() }
        }
        for (i, output) in node.outputs.enumerated() {
            let a = try thenBranch.output(at: i), b = try elseBranch.output(at: i)
            guard a.type == b.type, a.shape == b.shape else {
                throw KernelError.unsupported("the branches give output \(i) as \(a.type)\(a.shape) and \(b.type)\(b.shape) "
                                              + "(branches whose outputs differ are not supported)")
            }
            output.type = a.type
            output.shape = a.shape
        }
    }

    override func run(_ context: RunContext) throws {
        guard let flag = node.inputs[0]!.data else { throw KernelError.invalid("the condition has no value") }
        let (branch, role) = flag.load(as: UInt8.self) != 0 ? (thenBranch, "then") : (elseBranch, "else")
        for i in 1..<node.inputs.count { ControlFlow.copy(node.inputs[i]!, to: try branch.input(at: i - 1)) }
        try ControlFlow.nested("the \(role) subgraph") { try branch.invoke() }
        for (i, output) in node.outputs.enumerated() { ControlFlow.copy(try branch.output(at: i), to: output) }
    }
}
