/// SCATTER_ND: zeros of the shape given by the third input (constant), with each slice of `updates` added at the index
/// tuple of `indices` (int32 or int64): duplicates add up, as in TFLite. float32, int32, int64. An index out of range
/// is an error when the node runs.
final class ScatterNd: Kernel {
    override var foldsAtPlanning: Bool { true }

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 3...3, outputs: 1)
    }

    override func prepare() throws {
        let indices = try input(0), updates = try input(1), output = try self.output(0)
        try expectType(indices, .int32, .int64)
        try expectType(updates, .float32, .int32, .int64)
        let shape = try integers(try input(2))
        guard indices.rank >= 1, shape.allSatisfy({ $0 >= 0 }) else { throw KernelError.invalid("SCATTER_ND indices \(indices.shape) into \(shape)") }
        let depth = indices.dim(-1)
        guard depth <= shape.count, updates.shape == Array(indices.shape.dropLast()) + Array(shape[depth...]) else {
            throw KernelError.invalid("SCATTER_ND of updates \(updates.shape) at indices \(indices.shape) into \(shape)")
        }
        output.type = updates.type
        output.shape = shape
    }

    override func run(_ context: RunContext) throws {
        switch node.outputs[0].type {
        case .float32: try scatter(Float.self, +)
        case .int32: try scatter(Int32.self, &+)
        default: try scatter(Int64.self, &+)
        }
    }

    private func scatter<T: Numeric>(_: T.Type, _ add: (T, T) -> T) throws {
        let indices = node.inputs[0]!, updates = node.inputs[1]!, output = node.outputs[0]
        let depth = indices.dim(-1), shape = output.shape
        let slice = shape[depth...].reduce(1, *), tuples = indices.shape.dropLast().reduce(1, *)
        let strides = rowMajorStrides(shape)
        let out = output.pointer(T.self), src = updates.pointer(T.self)
        out.update(repeating: 0, count: output.elementCount)
        for t in 0..<tuples {
            let offset = try indexTupleOffset(indices, tuple: t, shape: shape, strides: strides, op: "SCATTER_ND")
            for k in 0..<slice { out[offset + k] = add(out[offset + k], src[t * slice + k]) }
        }
    }
}
