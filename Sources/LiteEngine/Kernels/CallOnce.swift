import LiteFormat

/// CALL_ONCE: runs its init subgraph (which assigns the model's resource variables their first values) the first
/// time the node runs, and never again in this interpreter.
final class CallOnce: Kernel {
    let initSubgraph: Int
    private var done = false

    required init(_ node: NodeContext) throws {
        initSubgraph = try CallOnceOptions(node.options).initSubgraph
        try super.init(node)
        try expectCounts(inputs: 0...0, outputs: 0)
    }

    override func run(_ context: RunContext) throws {
        guard !done else { return }
        let interpreter = try ControlFlow.interpreter(of: initSubgraph, for: node, role: "init")
        try ControlFlow.nested("the init subgraph") { try interpreter.invoke() }
        done = true
    }
}
