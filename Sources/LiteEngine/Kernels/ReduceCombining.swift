import LiteFormat

/// REDUCE_PROD, REDUCE_MAX and REDUCE_MIN over the axes of the second (constant) input, with keep_dims, for
/// float32, int32 and int64, and REDUCE_MAX/MIN also for uint8/int8/int16 stored values (TFLite's reference reducer: the identity element, then every input value combined
/// into its output slot in input order). Empty reductions give the identity (1, -inf/lowest, +inf/highest).
class ReduceCombining: Reduce {
    func combine(_ a: Float, _ b: Float) -> Float { fatalError("subclass") }
    func combine(_ a: Int64, _ b: Int64) -> Int64 { fatalError("subclass") }
    var floatIdentity: Float { fatalError("subclass") }
    var integerIdentity: Int64 { fatalError("subclass") }

    override var foldsAtPlanning: Bool { true }

    /// Whether uint8/int8/int16 stored values are combined as they are (REDUCE_MAX and REDUCE_MIN, whose input and
    /// output share one scale and zero point, as TFLite requires).
    var comparesStoredValues: Bool { false }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        if comparesStoredValues, input.type == .int8 || input.type == .uint8 || input.type == .int16 {
            let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
            guard output.type == input.type, qi.scale == qo.scale, qi.zeroPoint == qo.zeroPoint else {
                throw KernelError.unsupported("\(node.code) of \(input.type) into another type or quantization")
            }
        } else {
            try expectType(input, .float32, .int32, .int64)
        }
        axes = try reducedAxes(of: input)
        output.type = input.type
        output.shape = reducedShape(of: input)
    }

    /// The identity for stored values: the type's lowest (REDUCE_MAX) or highest (REDUCE_MIN) value.
    func storedIdentity(_ range: (Int32, Int32)) -> Int64 { fatalError("subclass") }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let count = output.elementCount
        switch input.type {
        case .int16:
            let src = input.pointer(Int16.self), dst = output.pointer(Int16.self)
            var wide = [Int64](repeating: storedIdentity((-32768, 32767)), count: count)
            forEachInputElement(input.shape) { i, o in wide[o] = combine(wide[o], Int64(src[i])) }
            for o in 0..<count { dst[o] = Int16(truncatingIfNeeded: wide[o]) }
        case .int8, .uint8:
            let signed = input.type == .int8, src = UnsafeRawPointer(input.data!), dst = output.data!
            var wide = [Int64](repeating: storedIdentity(signed ? (-128, 127) : (0, 255)), count: count)
            forEachInputElement(input.shape) { i, o in wide[o] = combine(wide[o], Int64(loadQuantized(src, i, signed: signed))) }
            for o in 0..<count { storeQuantized(dst, o, Int32(wide[o]), signed: signed) }
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
    override var comparesStoredValues: Bool { true }
    override func storedIdentity(_ range: (Int32, Int32)) -> Int64 { Int64(range.0) }
    override func combine(_ a: Float, _ b: Float) -> Float { a > b ? a : b }
    override func combine(_ a: Int64, _ b: Int64) -> Int64 { max(a, b) }
    override var floatIdentity: Float { -.greatestFiniteMagnitude }
    override var integerIdentity: Int64 { node.inputs[0]?.type == .int32 ? Int64(Int32.min) : .min }
}

final class ReduceMin: ReduceCombining {
    override var comparesStoredValues: Bool { true }
    override func storedIdentity(_ range: (Int32, Int32)) -> Int64 { Int64(range.1) }
    override func combine(_ a: Float, _ b: Float) -> Float { a < b ? a : b }
    override func combine(_ a: Int64, _ b: Int64) -> Int64 { min(a, b) }
    override var floatIdentity: Float { .greatestFiniteMagnitude }
    override var integerIdentity: Int64 { node.inputs[0]?.type == .int32 ? Int64(Int32.max) : .max }
}
