import LiteFormat

/// `CONCATENATION(axis 0)` of `SLICE(x, beginA, sizeA)`, `item` and `SLICE(x, beginB, sizeB)` in a WHILE body, run as
/// one node: TensorFlow's converter lowers `TensorListSetItem` (a Keras RNN writing step i of the sequences it
/// returns) to these three ops, the slices' bounds computed from the loop counter. Run separately, the slices' shapes
/// follow the counter, so the body had to be planned again at every step (a large share of a Keras LSTM's time) and the
/// buffer was copied twice. Here the result's shape is `x`'s, fixed, and the slices' bounds are read when the node runs.
///
/// The interpreter fuses only where the unfused ops could give nothing else: the concatenation's output is the body's
/// output for the loop variable whose input is `x`, and the WHILE refuses a body that changes a loop variable's shape.
/// So a step whose bounds would not give back `x`'s shape is the same error here; bounds out of range are SLICE's
/// error. Each slice's node stays in the graph as a ``FusedSlice`` that prepares an empty output and never runs.
final class TensorListSetItem: Kernel {
    /// Inputs: x, beginA, sizeA, item, beginB, sizeB.
    static func node(concatenation: NodeContext, before: NodeContext, after: NodeContext) -> NodeContext {
        NodeContext(model: concatenation.model, index: concatenation.index, code: concatenation.code, options: concatenation.options,
                    customOptions: concatenation.customOptions,
                    inputs: [before.inputs[0], before.inputs[1], before.inputs[2], concatenation.inputs[1], after.inputs[1], after.inputs[2]],
                    outputs: concatenation.outputs, intermediates: [], numerics: concatenation.numerics,
                    interpreterOptions: concatenation.interpreterOptions, subgraphs: concatenation.subgraphs,
                    subgraphBudget: concatenation.subgraphBudget, resources: concatenation.resources)
    }

    /// The nodes of `kernels` to fuse, as (slice before, concatenation, slice after): see the type's description.
    /// `graph` is a WHILE body.
    static func candidates(_ kernels: [Kernel], _ graph: SubGraphDescription) -> [(before: Int, concatenation: Int, after: Int)] {
        var readers = [Int](repeating: 0, count: graph.tensors.count), writer = [Int?](repeating: nil, count: graph.tensors.count)
        for index in graph.outputs where readers.indices.contains(index) { readers[index] += 1 }
        for (node, kernel) in kernels.enumerated() {
            for input in kernel.node.inputs { if let input { readers[input.index] += 1 } }
            for output in kernel.node.outputs { writer[output.index] = node }
        }
        var found: [(Int, Int, Int)] = []
        for (node, kernel) in kernels.enumerated() {
            guard let concatenation = kernel as? Concatenation, concatenation.options.axis == 0, concatenation.options.activation == .none,
                  kernel.node.inputs.count == 3, kernel.node.outputs.count == 1,
                  let first = kernel.node.inputs[0], let last = kernel.node.inputs[2], kernel.node.inputs[1] != nil,
                  readers[first.index] == 1, readers[last.index] == 1,
                  let before = writer[first.index], let after = writer[last.index], before != after,
                  kernels[before] is Slice, kernels[after] is Slice,
                  let x = kernels[before].node.inputs[0], kernels[after].node.inputs[0]?.index == x.index,
                  [.float32, .int32, .int64, .bool].contains(x.type), x.quantization == nil,
                  zip(graph.inputs, graph.outputs).contains(where: { $0 == x.index && $1 == kernel.node.outputs[0].index })
            else { continue }
            found.append((before, node, after))
        }
        return found
    }

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 6...6, outputs: 1)
    }

    override func prepare() throws {
        let x = try input(0), item = try input(3), output = try self.output(0)
        guard x.rank >= 1, item.type == x.type, item.rank == x.rank, item.shape.dropFirst() == x.shape.dropFirst(), item.shape[0] <= x.shape[0] else {
            throw KernelError.invalid("input 1 \(item.type)\(item.shape) does not fit \(x.type)\(x.shape) along axis 0")
        }
        _ = try elementSize(x)
        for i in [1, 2, 4, 5] {
            let bounds = try input(i)
            try expectType(bounds, .int32, .int64)
            guard bounds.shape == [x.rank] else { throw KernelError.invalid("slice bounds of shape \(bounds.shape) for rank \(x.rank)") }
        }
        output.type = x.type
        output.shape = x.shape
    }

    /// Rows `first..<first + count` of `x` that a SLICE with these bounds takes, checked as SLICE checks them; every
    /// other axis must be taken whole, or the concatenation could not have `x`'s shape.
    private func rows(_ begin: Tensor, _ size: Tensor, of x: Tensor) throws -> (first: Int, count: Int) {
        var taken: (Int, Int) = (0, 0)
        for d in 0..<x.rank {
            let start = begin.integer(at: d), requested = size.integer(at: d)
            let extent = requested == -1 ? x.shape[d] - start : requested
            guard start >= 0, extent >= 0, extent <= x.shape[d] - start else {
                throw KernelError.invalid("slice begin \((0..<x.rank).map { begin.integer(at: $0) }) size \((0..<x.rank).map { size.integer(at: $0) }) out of range for \(x.shape)")
            }
            if d == 0 { taken = (start, extent) } else if extent != x.shape[d] { return (0, -1) }
        }
        return taken
    }

    override func run(_ context: RunContext) throws {
        let x = node.inputs[0]!, item = node.inputs[3]!, output = node.outputs[0]
        let before = try rows(node.inputs[1]!, node.inputs[2]!, of: x), after = try rows(node.inputs[4]!, node.inputs[5]!, of: x)
        guard before.count >= 0, after.count >= 0, before.count + item.shape[0] + after.count == x.shape[0] else {
            throw KernelError.unsupported("the body turns a loop variable \(x.shape) into another shape (loop variables that change shape are not supported)")
        }
        let rowBytes = x.shape.dropFirst().reduce(x.type.byteSize!, *)
        guard rowBytes > 0, let source = x.data, let destination = output.data else { return }
        destination.copyMemory(from: source + before.first * rowBytes, byteCount: before.count * rowBytes)
        if let values = item.data { (destination + before.count * rowBytes).copyMemory(from: values, byteCount: item.shape[0] * rowBytes) }
        (destination + (before.count + item.shape[0]) * rowBytes).copyMemory(from: source + after.first * rowBytes, byteCount: after.count * rowBytes)
    }
}

/// A SLICE fused into a ``TensorListSetItem``: its output is read by nothing else, so it is given no elements and
/// the node never runs.
final class FusedSlice: Kernel {
    override func prepare() throws {
        let x = try input(0), output = try self.output(0)
        output.type = x.type
        output.shape = [Int](repeating: 0, count: max(x.rank, 1))
    }
}
