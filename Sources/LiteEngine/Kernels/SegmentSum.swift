/// SEGMENT_SUM: rows of `data` (float32 or int32) summed into the output row their sorted segment id names; the
/// output has `last id + 1` rows. The ids (int32, one per row) must be known when planning and, as TFLite checks,
/// start at 0 and grow by 0 or 1 from row to row.
final class SegmentSum: Kernel {
    /// Integer results may be shape arithmetic, which folds while planning (``Kernel/foldsAtPlanning``).
    override var foldsAtPlanning: Bool { node.outputs.allSatisfy { $0.type == .int32 || $0.type == .int64 } }

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let data = try input(0), ids = try input(1), output = try self.output(0)
        try expectType(data, .float32, .int32)
        try expectType(ids, .int32)
        guard data.rank >= 1, ids.shape == [data.dim(0)] else { throw KernelError.invalid("segment ids \(ids.shape) for data \(data.shape)") }
        let values = try integers(ids)
        guard values.first.map({ $0 == 0 }) ?? true, zip(values, values.dropFirst()).allSatisfy({ $1 - $0 == 0 || $1 - $0 == 1 }) else {
            throw KernelError.invalid("SEGMENT_SUM ids must start at 0 and grow by 0 or 1, are \(values)")
        }
        guard (values.last ?? 0) < 1 << 24 else { throw KernelError.unsupported("SEGMENT_SUM of \(values.last!) segments") }
        output.type = data.type
        output.shape = [(values.last ?? -1) + 1] + data.shape.dropFirst()
    }

    override func run(_ context: RunContext) throws {
        let data = node.inputs[0]!, output = node.outputs[0]
        let ids = node.inputs[1]!.pointer(Int32.self), rows = data.dim(0)
        let width = rows == 0 ? 0 : data.elementCount / rows
        if data.type == .float32 {
            let source = data.floats, destination = output.floats
            destination.update(repeating: 0, count: output.elementCount)
            for r in 0..<rows {
                let to = destination + Int(ids[r]) * width, from = source + r * width
                for j in 0..<width { to[j] += from[j] }
            }
        } else {
            let source = data.pointer(Int32.self), destination = output.pointer(Int32.self)
            destination.update(repeating: 0, count: output.elementCount)
            for r in 0..<rows {
                let to = destination + Int(ids[r]) * width, from = source + r * width
                for j in 0..<width { to[j] &+= from[j] }
            }
        }
    }
}
