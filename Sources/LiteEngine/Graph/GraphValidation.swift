import LiteFormat

/// The first graph pass: the file's operators must form a valid dataflow program before any kernel is built.
enum GraphValidation {
    /// Checks that every tensor is written by at most one node, never a constant or a graph input, and before any
    /// node reads it. Kernels rely on this (a tensor written twice with two shapes, or read before its shape is
    /// known, would be sized wrongly in the arena).
    static func validate(_ graph: SubGraphDescription, index graphIndex: Int, tensors: [Tensor], codes: [OperatorCode]) throws {
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
}
