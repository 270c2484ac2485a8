/// READ_VARIABLE: the current value of the resource variable its input names. The output has the type and shape the
/// file gives it (or the variable's, when it already has a value while planning); a variable read before any
/// assignment, or assigned another type or size, is an error when the node runs.
final class ReadVariable: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let output = try self.output(0)
        if let value = node.resources.value(try resourceIdentity(try input(0))) {
            output.type = value.type
            output.shape = value.shape
        }
        _ = try elementSize(output)
    }

    override func run(_ context: RunContext) throws {
        let output = node.outputs[0], identity = try resourceIdentity(try input(0))
        guard let value = node.resources.value(identity) else { throw KernelError.invalid("resource variable \(identity) read before it was assigned") }
        guard value.type == output.type, value.bytes.count == output.byteCount else {
            throw KernelError.unsupported("resource variable \(identity) holds \(value.type) \(value.shape), planned as \(output.type) \(output.shape)")
        }
        if let data = output.data { value.bytes.withUnsafeBytes { data.copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
    }
}
