/// ZEROS_LIKE: zeros of the input's shape and type (float32, int32, int64). (TensorFlow's ones_like converts to
/// BROADCAST_TO or FILL; TFLite has no ONES_LIKE.)
final class ZerosLike: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32, .int32, .int64)
        output.type = input.type
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        let output = node.outputs[0], count = output.elementCount
        switch output.type {
        case .float32: output.pointer(Float.self).update(repeating: 0, count: count)
        case .int32: output.pointer(Int32.self).update(repeating: 0, count: count)
        default: output.pointer(Int64.self).update(repeating: 0, count: count)
        }
    }
}
