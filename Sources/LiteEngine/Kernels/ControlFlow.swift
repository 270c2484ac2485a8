import LiteFormat

/// What WHILE and IF share: interpreters of other subgraphs of the same model, whose errors become the node's.
enum ControlFlow {
    /// An interpreter of subgraph `index`, for the control-flow node `node` (named `role` in errors); planned by
    /// the node itself, for its own inputs' shapes.
    static func interpreter(of index: Int, for node: NodeContext, role: String) throws -> Interpreter {
        try nested("the \(role) subgraph \(index)") {
            try Interpreter(model: node.model, subgraph: index, options: node.interpreterOptions, enclosing: node.subgraphs,
                            budget: node.subgraphBudget, resources: node.resources, cancellation: node.cancellation, loopBody: role == "body")
        }
    }

    /// Runs `work` on a nested interpreter, its errors reported as the node's.
    static func nested<T>(_ what: String, _ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch let error as EngineError {
            switch error {
            case .cancelled: throw error
            case .unsupportedOperator, .unsupported: throw KernelError.unsupported("\(what): \(error)")
            default: throw KernelError.invalid("\(what): \(error)")
            }
        }
    }

    /// Copies a tensor's bytes into another of the same size.
    static func copy(_ source: Tensor, to destination: Tensor) {
        guard source.byteCount > 0, let from = source.data, let to = destination.data, from != to else { return }
        to.copyMemory(from: from, byteCount: source.byteCount)
    }
}
