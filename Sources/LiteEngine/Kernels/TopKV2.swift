/// TOPK_V2: the `k` largest values along the last axis (k a constant int32 scalar, at most that axis' length) in
/// descending order, and their int32 positions; equal values keep their order (the lower position first, as TFLite's
/// TopContainer). float32, int32, int64, uint8, int8 (8-bit values compared as stored).
final class TopKV2: Kernel {
    var k = 0

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 2)
    }

    override func prepare() throws {
        let input = try self.input(0), values = try output(0), positions = try output(1)
        try expectType(input, .float32, .int32, .int64, .uint8, .int8)
        guard input.rank >= 1 else { throw KernelError.invalid("TOPK_V2 needs rank >= 1") }
        let ks = try integers(try self.input(1))
        guard ks.count == 1, ks[0] >= 0, ks[0] <= input.dim(-1) else { throw KernelError.invalid("TOPK_V2 k \(ks) for a last axis of \(input.dim(-1))") }
        k = ks[0]
        values.type = input.type
        values.shape = Array(input.shape.dropLast()) + [k]
        positions.type = .int32
        positions.shape = values.shape
    }

    override func run(_ context: RunContext) throws {
        switch node.inputs[0]!.type {
        case .float32: select(Float.self)
        case .int32: select(Int32.self)
        case .int64: select(Int64.self)
        case .uint8: select(UInt8.self)
        default: select(Int8.self)
        }
    }

    private func select<T: Comparable>(_: T.Type) {
        let input = node.inputs[0]!, length = input.dim(-1)
        guard length > 0 else { return }
        let src = input.pointer(T.self), values = node.outputs[0].pointer(T.self), positions = node.outputs[1].pointer(Int32.self)
        var order = [Int](repeating: 0, count: length)
        for r in 0..<(input.elementCount / length) {
            let row = src + r * length
            for i in 0..<length { order[i] = i }
            // A stable order: larger first, then the lower position.
            order.sort { row[$0] != row[$1] ? row[$0] > row[$1] : $0 < $1 }
            for j in 0..<k {
                values[r * k + j] = row[order[j]]
                positions[r * k + j] = Int32(order[j])
            }
        }
    }
}
