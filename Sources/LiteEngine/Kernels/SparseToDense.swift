/// SPARSE_TO_DENSE: a tensor of `output_shape` (known when planning) filled with `default_value`, then `values[i]`
/// (or the one scalar value) written at each `indices[i]` (int32/int64, one index per row of `[n, rank]`, or a
/// `[n]` vector of positions along a 1-D output), later duplicates overwriting earlier ones. float32, int32, int64,
/// int8, uint8 values; an index outside the shape is an error when the node runs.
final class SparseToDense: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 4...4, outputs: 1)
    }

    override func prepare() throws {
        let indices = try input(0), values = try input(2), defaultValue = try input(3), output = try self.output(0)
        try expectType(indices, .int32, .int64)
        try expectType(values, .float32, .int32, .int64, .int8, .uint8)
        let shape = try integers(try input(1))
        guard shape.allSatisfy({ $0 >= 0 }), Tensor.checkedCount(shape) != nil else { throw KernelError.invalid("SPARSE_TO_DENSE output shape \(shape)") }
        let count = indices.rank == 0 ? 1 : indices.dim(0), rank = indices.rank < 2 ? 1 : indices.dim(1)
        guard indices.rank <= 2, rank == shape.count || (indices.rank < 2 && shape.count == 1),
              values.elementCount == 1 || values.elementCount == count, defaultValue.type == values.type, defaultValue.elementCount == 1 else {
            throw KernelError.invalid("SPARSE_TO_DENSE of indices \(indices.shape), values \(values.shape) into \(shape)")
        }
        output.type = values.type
        output.shape = shape
    }

    override func run(_ context: RunContext) throws {
        let indices = node.inputs[0]!, values = node.inputs[2]!, output = node.outputs[0]
        let size = output.type.byteSize!, shape = output.shape
        let count = indices.rank == 0 ? 1 : indices.dim(0), rank = shape.count
        let fill = node.inputs[3]!.data!, destination = output.data!
        for i in 0..<output.elementCount { (destination + i * size).copyMemory(from: fill, byteCount: size) }
        for n in 0..<count {
            var offset = 0
            for d in 0..<rank {
                let position = indices.integer(at: n * rank + d)
                guard position >= 0, position < shape[d] else { throw KernelError.invalid("SPARSE_TO_DENSE index \(position) out of range 0..<\(shape[d])") }
                offset = offset * shape[d] + position
            }
            (destination + offset * size).copyMemory(from: values.data! + (values.elementCount == 1 ? 0 : n) * size, byteCount: size)
        }
    }
}
