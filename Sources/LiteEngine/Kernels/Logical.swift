import LiteFormat

/// LOGICAL_AND and LOGICAL_OR (numpy broadcasting) and LOGICAL_NOT, on bool tensors (TFLite's logical.cc).
class LogicalBinary: Kernel {
    class func apply(_ a: Bool, _ b: Bool) -> Bool { preconditionFailure("\(Self.self) does not say what it computes") }

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let a = try input(0), b = try input(1), output = try self.output(0)
        try expectType(a, .bool)
        try expectType(b, .bool)
        output.type = .bool
        output.shape = try broadcastShape(a.shape, b.shape)
    }

    override func run(_ context: RunContext) throws {
        let a = node.inputs[0]!, b = node.inputs[1]!, output = node.outputs[0]
        guard output.elementCount > 0, let pa = a.data, let pb = b.data, let po = output.data else { return }
        // Stored bytes are 0 or 1; any nonzero byte reads as true.
        let x = pa.assumingMemoryBound(to: UInt8.self), y = pb.assumingMemoryBound(to: UInt8.self), out = po.assumingMemoryBound(to: Bool.self)
        forEachBroadcastPair(aShape: a.shape, bShape: b.shape, outShape: output.shape) { o, i, j in out[o] = Self.apply(x[i] != 0, y[j] != 0) }
    }
}

final class LogicalAnd: LogicalBinary {
    override class func apply(_ a: Bool, _ b: Bool) -> Bool { a && b }
}

final class LogicalOr: LogicalBinary {
    override class func apply(_ a: Bool, _ b: Bool) -> Bool { a || b }
}

final class LogicalNot: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .bool)
        output.type = .bool
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        guard output.elementCount > 0, let source = input.data, let destination = output.data else { return }
        let x = source.assumingMemoryBound(to: UInt8.self), out = destination.assumingMemoryBound(to: Bool.self)
        for i in 0..<output.elementCount { out[i] = x[i] == 0 }
    }
}
