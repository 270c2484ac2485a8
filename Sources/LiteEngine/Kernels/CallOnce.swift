import LiteFormat

/// CALL_ONCE: runs its init subgraph (which assigns the model's resource variables their first values) the first
/// time the node runs, and never again in this interpreter or the signature runners sharing its variables (each
/// signature's subgraph has its own CALL_ONCE of the same init subgraph).
final class CallOnce: Kernel {
    let initSubgraph: Int

    required init(_ node: NodeContext) throws {
        initSubgraph = try CallOnceOptions(node.options).initSubgraph
        try super.init(node)
        try expectCounts(inputs: 0...0, outputs: 0)
    }

    override func run(_ context: RunContext) throws {
        guard !node.resources.initializedSubgraphs.contains(initSubgraph) else { return }
        let interpreter = try ControlFlow.interpreter(of: initSubgraph, for: node, role: "init")
        try ControlFlow.nested("the init subgraph") { try interpreter.invoke() }
        node.resources.initializedSubgraphs.insert(initSubgraph)
    }
}
