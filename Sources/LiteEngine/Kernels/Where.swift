/// WHERE with one input (`tf.where(condition)`): the coordinates of the true (non-zero) elements, in row-major
/// order, as int64 `[count, rank]`. bool, float32, int32, int64, int8 or uint8 conditions. The count is known only
/// when running: the plan holds every element being true, and the output shrinks to the count
/// (``Kernel/shrinksOutputsWhenRunning``).
final class Where: Kernel {
    override var shrinksOutputsWhenRunning: Bool { true }

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let condition = try input(0), output = try self.output(0)
        try expectType(condition, .bool, .float32, .int32, .int64, .int8, .uint8)
        output.type = .int64
        output.shape = [condition.elementCount, condition.rank]
    }

    override func run(_ context: RunContext) throws {
        let condition = node.inputs[0]!, output = node.outputs[0]
        let shape = condition.shape, rank = shape.count
        let out = output.pointer(Int64.self)
        var index = [Int](repeating: 0, count: rank), count = 0
        for flat in 0..<condition.elementCount {
            if isTrue(condition, flat) {
                for d in 0..<rank { out[count * rank + d] = Int64(index[d]) }
                count += 1
            }
            var d = rank - 1
            while d >= 0 {
                index[d] += 1
                if index[d] < shape[d] { break }
                index[d] = 0
                d -= 1
            }
        }
        output.shape = [count, rank]
    }

    private func isTrue(_ tensor: Tensor, _ i: Int) -> Bool {
        switch tensor.type {
        case .float32: return tensor.floats[i] != 0
        case .int32: return tensor.pointer(Int32.self)[i] != 0
        case .int64: return tensor.pointer(Int64.self)[i] != 0
        default: return tensor.pointer(UInt8.self)[i] != 0
        }
    }
}
