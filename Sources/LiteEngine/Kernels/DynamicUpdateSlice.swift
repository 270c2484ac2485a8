/// DYNAMIC_UPDATE_SLICE: the operand with `update` written over it from `start` (int32 or int64, one per axis, read
/// when the node runs); each start is clamped to [0, operand − update] so the update fits, as XLA and TFLite do.
/// Any fixed-size type.
final class DynamicUpdateSlice: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 3...3, outputs: 1)
    }

    override func prepare() throws {
        let operand = try input(0), update = try input(1), start = try input(2), output = try self.output(0)
        _ = try elementSize(operand)
        try expectType(start, .int32, .int64)
        guard update.type == operand.type, update.rank == operand.rank, start.elementCount == operand.rank,
              zip(update.shape, operand.shape).allSatisfy({ $0 <= $1 }) else {
            throw KernelError.invalid("DYNAMIC_UPDATE_SLICE of \(update.shape) into \(operand.shape) from \(start.elementCount) indices")
        }
        output.type = operand.type
        output.shape = operand.shape
    }

    override func run(_ context: RunContext) throws {
        let operand = node.inputs[0]!, update = node.inputs[1]!, start = node.inputs[2]!, output = node.outputs[0]
        let size = operand.type.byteSize!, rank = operand.rank
        if output.data != operand.data { output.data!.copyMemory(from: operand.data!, byteCount: operand.byteCount) }
        guard update.elementCount > 0 else { return }
        let begin = (0..<rank).map { d -> Int in
            let value = start.integer(at: d)
            return min(max(value, 0), operand.dim(d) - update.dim(d))
        }
        guard rank > 0 else { return output.data!.copyMemory(from: update.data!, byteCount: size) }
        let strides = rowMajorStrides(operand.shape)
        let row = update.dim(rank - 1), rows = update.elementCount / row
        var index = [Int](repeating: 0, count: rank)
        for r in 0..<rows {
            var offset = begin[rank - 1]
            for d in 0..<(rank - 1) { offset += (begin[d] + index[d]) * strides[d] }
            (output.data! + offset * size).copyMemory(from: update.data! + r * row * size, byteCount: row * size)
            var d = rank - 2
            while d >= 0 {
                index[d] += 1
                if index[d] < update.dim(d) { break }
                index[d] = 0
                d -= 1
            }
        }
    }
}
