import LiteFormat

/// ARG_MAX and ARG_MIN along the axis given by the second (constant) input; ties go to the first index.
/// The output is int32 or int64, as the output tensor declares.
class ArgMax: Kernel {
    var axis = 0
    var isMinimum: Bool { false }

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32, .uint8, .int8, .int32)
        guard let raw = try integers(try self.input(1)).first else { throw KernelError.invalid("empty axis") }
        axis = try normalizedAxis(raw, rank: input.rank)
        guard output.type == .int32 || output.type == .int64 else { throw KernelError.unsupported("output type \(output.type)") }
        var shape = input.shape
        shape.remove(at: axis)
        // No element to choose along an empty axis (LiteRT reads the first one regardless, out of bounds).
        guard input.shape[axis] > 0 || shape.contains(0) else {
            throw KernelError.invalid("\(node.code) along axis \(axis) of \(input.shape), which has no elements")
        }
        output.shape = shape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let outer = input.shape[..<axis].reduce(1, *), count = input.shape[axis], inner = input.shape[(axis + 1)...].reduce(1, *)
        let value: (Int) -> Float
        switch input.type {
        case .uint8: let p = input.pointer(UInt8.self); value = { Float(p[$0]) }
        case .int8: let p = input.pointer(Int8.self); value = { Float(p[$0]) }
        case .int32: let p = input.pointer(Int32.self); value = { Float(p[$0]) }
        default: let p = input.floats; value = { p[$0] }
        }
        let minimum = isMinimum
        for o in 0..<outer {
            for i in 0..<inner {
                var best = 0
                var bestValue = value(o * count * inner + i)
                for k in 1..<max(count, 1) {
                    let v = value((o * count + k) * inner + i)
                    if minimum ? v < bestValue : v > bestValue { best = k; bestValue = v }
                }
                if output.type == .int32 {
                    output.pointer(Int32.self)[o * inner + i] = Int32(best)
                } else {
                    output.pointer(Int64.self)[o * inner + i] = Int64(best)
                }
            }
        }
    }
}

/// ARG_MIN: see ``ArgMax``.
final class ArgMin: ArgMax {
    override var isMinimum: Bool { true }
}
