import LiteFormat

/// When each tensor of a graph must hold its value, in node indices: from the node that writes it (-1 for a graph
/// input) to the last node that reads it, both inclusive. Arrays, not dictionaries: a WHILE body that follows its
/// loop counter is planned at every step.
struct TensorLifetimes {
    /// Per tensor index, the first node that uses it (nil: none writes it).
    private(set) var first: [Int?]
    /// Per tensor index, the last node that uses it (nil: none uses it).
    private(set) var last: [Int?]

    /// The lifetimes of `tensorCount` tensors under `kernels`, the nodes of `graph` in order, with the fusion passes'
    /// `lateReads` (a tensor read in place of a folded node's output) and `aliases` (a tensor sharing another's bytes,
    /// which must then live as long as both).
    init(kernels: [Kernel], graph: SubGraphDescription, tensorCount: Int, lateReads: [(tensor: Int, node: Int)], aliases: [Int: Int]) {
        let end = kernels.count
        var first = [Int?](repeating: nil, count: tensorCount)
        var last = [Int?](repeating: nil, count: tensorCount)
        for index in graph.inputs { first[index] = -1; last[index] = max(last[index] ?? -1, -1) }
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
        for index in graph.outputs + graph.inputs { last[index] = end }
        for (tensor, node) in lateReads { last[tensor] = max(last[tensor] ?? node, node) }
        for (alias, shared) in aliases {
            if let use = last[alias] { last[shared] = max(last[shared] ?? use, use) }
        }
        self.first = first
        self.last = last
    }
}
