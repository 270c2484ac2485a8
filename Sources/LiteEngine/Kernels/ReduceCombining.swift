import LiteFormat

/// REDUCE_PROD, REDUCE_MAX and REDUCE_MIN over the axes of the second (constant) input, with keep_dims, for
/// float32, int32 and int64 (TFLite's reference reducer: the identity element, then every input value combined
/// into its output slot in input order). Empty reductions give the identity (1, -inf/lowest, +inf/highest).
class ReduceCombining: Reduce {
    func combine(_ a: Float, _ b: Float) -> Float { fatalError("subclass") }
    func combine(_ a: Int64, _ b: Int64) -> Int64 { fatalError("subclass") }
    var floatIdentity: Float { fatalError("subclass") }
    var integerIdentity: Int64 { fatalError("subclass") }

    override var foldsAtPlanning: Bool { true }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32, .int32, .int64)
        axes = try reducedAxes(of: input)
        output.type = input.type
        output.shape = reducedShape(of: input)
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let count = output.elementCount
        switch input.type {
        case .float32:
            let src = input.floats, dst = output.floats
            dst.update(repeating: floatIdentity, count: count)
            forEachInputElement(input.shape) { i, o in dst[o] = combine(dst[o], src[i]) }
        case .int32:
            let src = input.data!.assumingMemoryBound(to: Int32.self), dst = output.data!.assumingMemoryBound(to: Int32.self)
            var wide = [Int64](repeating: integerIdentity, count: count)
            forEachInputElement(input.shape) { i, o in wide[o] = combine(wide[o], Int64(src[i])) }
            // Wraps as int32 arithmetic does in TFLite's kernel.
            for o in 0..<count { dst[o] = Int32(truncatingIfNeeded: wide[o]) }
        default:
            let src = input.data!.assumingMemoryBound(to: Int64.self), dst = output.data!.assumingMemoryBound(to: Int64.self)
            dst.update(repeating: integerIdentity, count: count)
            forEachInputElement(input.shape) { i, o in dst[o] = combine(dst[o], src[i]) }
        }
    }
}

final class ReduceProd: ReduceCombining {
    override func combine(_ a: Float, _ b: Float) -> Float { a * b }
    override func combine(_ a: Int64, _ b: Int64) -> Int64 { a &* b }
    override var floatIdentity: Float { 1 }
    override var integerIdentity: Int64 { 1 }
}

final class ReduceMax: ReduceCombining {
    override func combine(_ a: Float, _ b: Float) -> Float { a > b ? a : b }
    override func combine(_ a: Int64, _ b: Int64) -> Int64 { max(a, b) }
    override var floatIdentity: Float { -.greatestFiniteMagnitude }
    override var integerIdentity: Int64 { node.inputs[0]?.type == .int32 ? Int64(Int32.min) : .min }
}

final class ReduceMin: ReduceCombining {
    override func combine(_ a: Float, _ b: Float) -> Float { a < b ? a : b }
    override func combine(_ a: Int64, _ b: Int64) -> Int64 { min(a, b) }
    override var floatIdentity: Float { .greatestFiniteMagnitude }
    override var integerIdentity: Int64 { node.inputs[0]?.type == .int32 ? Int64(Int32.max) : .max }
}
