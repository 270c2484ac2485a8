import LiteFormat

/// EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL (TFLite's comparisons.cc): elementwise with numpy
/// broadcasting, a bool out. float32, int32 and int64; bool for EQUAL and NOT_EQUAL; uint8 and int8 as TFLite
/// compares them: when both inputs share one scale and zero point, the stored values (the rescale below orders them
/// the same way); otherwise each value less its zero point, times 2^8, rescaled by its input's scale as a fixed-point
/// multiplier below 1 (`ComparisonWithScaling`), so two values that round to the same fixed point compare equal.
/// These run on loop counters and masks, a handful of values, so one broadcast loop serves every shape.
class Comparison: Kernel {
    /// Whether `a` and `b` are in this op's relation; every subclass overrides it.
    class func holds<T: Comparable>(_ a: T, _ b: T) -> Bool { preconditionFailure("\(Self.self) does not say what it compares") }
    class var comparesBools: Bool { false }

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    /// Each input's fixed-point multiplier and shift and its offset (minus its zero point).
    struct Scaling {
        let a: (Int32, Int), b: (Int32, Int)
        let offsetA: Int32, offsetB: Int32
    }

    /// How the node compares, chosen in `prepare` by the inputs' type and quantizations.
    enum Plan {
        case float, int32, int64
        /// uint8/int8 inputs of one quantization, or bools (one byte, 0 or 1): the stored bytes, as signed or unsigned.
        case storedBytes(signed: Bool)
        /// uint8/int8 inputs of different quantizations: each rescaled as TFLite's `ComparisonWithScaling`.
        case rescaled(signed: Bool, Scaling)
    }

    private var plan = Plan.float

    override func prepare() throws {
        let a = try input(0), b = try input(1), output = try self.output(0)
        guard a.type == b.type else { throw KernelError.unsupported("compares \(a.type) with \(b.type)") }
        plan = switch a.type {
        case .float32: .float
        case .int32: .int32
        case .int64: .int64
        case .bool where Self.comparesBools: .storedBytes(signed: false)
        case .uint8, .int8: try quantizedPlan(a, b)
        default: throw KernelError.unsupported("tensor \(a.index) has type \(a.type)")
        }
        output.type = .bool
        output.shape = try broadcastShape(a.shape, b.shape)
    }

    private func quantizedPlan(_ a: Tensor, _ b: Tensor) throws -> Plan {
        guard let qa = a.quantization, let qb = b.quantization, qa.scale.count == 1, qb.scale.count == 1 else {
            throw KernelError.unsupported("\(a.type) inputs need one scale each")
        }
        let signed = a.type == .int8
        guard qa.scale != qb.scale || qa.zeroPoint != qb.zeroPoint else { return .storedBytes(signed: signed) }
        let range: ClosedRange<Int64> = signed ? -128...127 : 0...255
        guard qa.zeroPoint.count == 1, qb.zeroPoint.count == 1, range.contains(qa.zeroPoint[0]), range.contains(qb.zeroPoint[0]) else {
            throw KernelError.unsupported("\(a.type) inputs need one zero point each, within the type")
        }
        // QuantizeMultiplierSmallerThanOneExp: TFLite checks 0 < scale < 1 (and aborts otherwise).
        func multiplier(_ scale: Float) throws -> (Int32, Int) {
            guard scale > 0, scale < 1 else { throw KernelError.unsupported("\(a.type) comparison of inputs with scale \(scale), not in (0, 1)") }
            return IntegerArithmetic.quantizeMultiplier(Double(scale))
        }
        return .rescaled(signed: signed, Scaling(a: try multiplier(qa.scale[0]), b: try multiplier(qb.scale[0]),
                                                 offsetA: -Int32(qa.zeroPoint[0]), offsetB: -Int32(qb.zeroPoint[0])))
    }

    override func run(_ context: RunContext) throws {
        switch plan {
        case .float: compare(Float.self)
        case .int32: compare(Int32.self)
        case .int64: compare(Int64.self)
        case .storedBytes(let signed): signed ? compare(Int8.self) : compare(UInt8.self)
        case .rescaled(let signed, let scaling): signed ? compareScaled(Int8.self, scaling) : compareScaled(UInt8.self, scaling)
        }
    }

    private func compare<T: Comparable>(_: T.Type) {
        let a = node.inputs[0]!, b = node.inputs[1]!, output = node.outputs[0]
        guard output.elementCount > 0, let pa = a.data, let pb = b.data, let po = output.data else { return }
        let x = pa.assumingMemoryBound(to: T.self), y = pb.assumingMemoryBound(to: T.self), out = po.assumingMemoryBound(to: Bool.self)
        forEachBroadcastPair(aShape: a.shape, bShape: b.shape, outShape: output.shape) { o, i, j in out[o] = Self.holds(x[i], y[j]) }
    }

    private func compareScaled<T: FixedWidthInteger>(_: T.Type, _ scaling: Scaling) {
        let a = node.inputs[0]!, b = node.inputs[1]!, output = node.outputs[0]
        guard output.elementCount > 0, let pa = a.data, let pb = b.data, let po = output.data else { return }
        let x = pa.assumingMemoryBound(to: T.self), y = pb.assumingMemoryBound(to: T.self), out = po.assumingMemoryBound(to: Bool.self)
        // An 8-bit value less its zero point, times 2^8, is at most 2^16 in magnitude: no overflow before the rescale.
        func scaled(_ value: T, _ offset: Int32, _ multiplier: (Int32, Int)) -> Int32 {
            IntegerArithmetic.multiplyByQuantizedMultiplier((offset + Int32(value)) * 256, multiplier.0, multiplier.1)
        }
        forEachBroadcastPair(aShape: a.shape, bShape: b.shape, outShape: output.shape) { o, i, j in
            out[o] = Self.holds(scaled(x[i], scaling.offsetA, scaling.a), scaled(y[j], scaling.offsetB, scaling.b))
        }
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
