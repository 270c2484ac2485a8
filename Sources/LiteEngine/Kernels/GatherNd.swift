/// GATHER_ND: slices of `params` at the index tuples of `indices`' last axis (int32 or int64): the output is
/// `indices.shape[:-1] + params.shape[depth:]` for tuples of `depth` coordinates. An index out of range is an error
/// when the node runs, as in TFLite.
final class GatherNd: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let params = try input(0), indices = try input(1), output = try self.output(0)
        _ = try elementSize(params)
        try expectType(indices, .int32, .int64)
        guard indices.rank >= 1, params.rank >= 1 else { throw KernelError.invalid("GATHER_ND of \(params.shape) at \(indices.shape)") }
        let depth = indices.dim(-1)
        guard depth <= params.rank else { throw KernelError.invalid("GATHER_ND index depth \(depth) for params of rank \(params.rank)") }
        output.type = params.type
        output.shape = Array(indices.shape.dropLast()) + Array(params.shape[depth...])
    }

    override func run(_ context: RunContext) throws {
        let params = node.inputs[0]!, indices = node.inputs[1]!, output = node.outputs[0]
        let depth = indices.dim(-1), size = params.type.byteSize!
        let sliceElements = params.shape[depth...].reduce(1, *), sliceBytes = sliceElements * size
        let strides = rowMajorStrides(params.shape)
        let tuples = indices.shape.dropLast().reduce(1, *)
        for t in 0..<tuples {
            let offset = try indexTupleOffset(indices, tuple: t, shape: params.shape, strides: strides, op: "GATHER_ND")
            (output.data! + t * sliceBytes).copyMemory(from: params.data! + offset * size, byteCount: sliceBytes)
        }
    }
}

/// The element offset, in a tensor of `shape` with row-major `strides`, of index tuple `tuple` of `indices` (int32 or
/// int64, tuples along its last axis): GATHER_ND and SCATTER_ND. An index outside its dimension is an error.
func indexTupleOffset(_ indices: Tensor, tuple: Int, shape: [Int], strides: [Int], op: String) throws -> Int {
    let depth = indices.dim(-1)
    var offset = 0
    for d in 0..<depth {
        let i = tuple * depth + d
        let index = indices.integer(at: i)
        guard index >= 0, index < shape[d] else { throw KernelError.invalid("\(op) index \(index) out of range for dimension \(d) of \(shape)") }
        offset += index * strides[d]
    }
    return offset
}
