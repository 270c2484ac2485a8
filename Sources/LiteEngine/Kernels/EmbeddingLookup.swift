/// EMBEDDING_LOOKUP: rows of `value` at the int32 ids of a rank-1 input: [ids] + value.shape[1...]. Any fixed-size
/// type (not the hybrid int8 table with float output). An id out of range is an error when the node runs.
final class EmbeddingLookup: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let ids = try input(0), value = try input(1), output = try self.output(0)
        try expectType(ids, .int32)
        _ = try elementSize(value)
        guard ids.rank == 1, value.rank >= 1 else { throw KernelError.invalid("EMBEDDING_LOOKUP of ids \(ids.shape) in \(value.shape)") }
        guard value.type == .float32 || output.type == value.type else {
            throw KernelError.unsupported("EMBEDDING_LOOKUP of \(value.type) rows into \(output.type) (hybrid tables)")
        }
        output.type = value.type
        output.shape = [ids.dim(0)] + Array(value.shape.dropFirst())
    }

    override func run(_ context: RunContext) throws {
        let ids = node.inputs[0]!, value = node.inputs[1]!, output = node.outputs[0]
        let rowBytes = value.dim(0) == 0 ? 0 : value.byteCount / value.dim(0)
        for i in 0..<ids.dim(0) {
            let id = Int(ids.pointer(Int32.self)[i])
            guard id >= 0, id < value.dim(0) else { throw KernelError.invalid("EMBEDDING_LOOKUP id \(id) out of range for \(value.dim(0)) rows") }
            (output.data! + i * rowBytes).copyMemory(from: value.data! + id * rowBytes, byteCount: rowBytes)
        }
    }
}
