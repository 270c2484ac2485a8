import LiteFormat

/// EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL (TFLite's comparisons.cc): elementwise with numpy
/// broadcasting, a bool out. float32, int32 and int64; bool for EQUAL and NOT_EQUAL; uint8 and int8 when both
/// inputs share one scale and zero point, where comparing the stored values is comparing the real ones (TFLite
/// rescales both to a common fixed-point scale, which then orders them the same way). These run on loop counters
/// and masks, a handful of values, so one broadcast loop serves every shape.
class Comparison: Kernel {
    /// Whether `a` and `b` are in this op's relation; every subclass overrides it.
    class func holds<T: Comparable>(_ a: T, _ b: T) -> Bool { preconditionFailure("\(Self.self) does not say what it compares") }
    class var comparesBools: Bool { false }

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let a = try input(0), b = try input(1), output = try self.output(0)
        guard a.type == b.type else { throw KernelError.unsupported("compares \(a.type) with \(b.type)") }
        switch a.type {
        case .float32, .int32, .int64: break
        case .bool where Self.comparesBools: break
        case .uint8, .int8:
            guard let qa = a.quantization, let qb = b.quantization, qa.scale.count == 1, qb.scale.count == 1,
                  qa.scale == qb.scale, qa.zeroPoint == qb.zeroPoint else {
                throw KernelError.unsupported("\(a.type) inputs with different quantization (only a shared scale and zero point)")
            }
        default: throw KernelError.unsupported("tensor \(a.index) has type \(a.type)")
        }
        output.type = .bool
        output.shape = try broadcastShape(a.shape, b.shape)
    }

    override func run(_ context: RunContext) throws {
        switch node.inputs[0]!.type {
        case .float32: compare(Float.self)
        case .int32: compare(Int32.self)
        case .int64: compare(Int64.self)
        case .int8: compare(Int8.self)
        default: compare(UInt8.self)  // uint8, and bool (one byte, 0 or 1)
        }
    }

    private func compare<T: Comparable>(_: T.Type) {
        let a = node.inputs[0]!, b = node.inputs[1]!, output = node.outputs[0]
        guard output.elementCount > 0, let pa = a.data, let pb = b.data, let po = output.data else { return }
        let x = pa.assumingMemoryBound(to: T.self), y = pb.assumingMemoryBound(to: T.self), out = po.assumingMemoryBound(to: Bool.self)
        forEachBroadcastPair(aShape: a.shape, bShape: b.shape, outShape: output.shape) { o, i, j in out[o] = Self.holds(x[i], y[j]) }
    }
}

final class Equal: Comparison {
    override class func holds<T: Comparable>(_ a: T, _ b: T) -> Bool { a == b }
    override class var comparesBools: Bool { true }
}

final class NotEqual: Comparison {
    override class func holds<T: Comparable>(_ a: T, _ b: T) -> Bool { a != b }
    override class var comparesBools: Bool { true }
}

final class Less: Comparison {
    override class func holds<T: Comparable>(_ a: T, _ b: T) -> Bool { a < b }
}

final class LessEqual: Comparison {
    override class func holds<T: Comparable>(_ a: T, _ b: T) -> Bool { a <= b }
}

final class Greater: Comparison {
    override class func holds<T: Comparable>(_ a: T, _ b: T) -> Bool { a > b }
}

final class GreaterEqual: Comparison {
    override class func holds<T: Comparable>(_ a: T, _ b: T) -> Bool { a >= b }
}
