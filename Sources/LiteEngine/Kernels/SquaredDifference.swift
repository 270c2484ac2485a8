/// SQUARED_DIFFERENCE: (a - b)² with broadcasting; float32, or int8 with TFLite's integer arithmetic
/// (squared_difference.cc): each input, less its zero point and shifted left by 7, is rescaled to twice the larger
/// input scale, the difference squared in int32, and the square rescaled to the output by
/// `(2·max_scale)² / (2^14 · output_scale)`; every rescale is `MultiplyByQuantizedMultiplier` with a multiplier below one.
final class SquaredDifference: BinaryElementwise, FloatBinaryOperation {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { (a - b) * (a - b) }

    struct QuantizedParameters {
        let offset1: Int32, offset2: Int32, outputOffset: Int32
        let multiplier1: Int32, shift1: Int, multiplier2: Int32, shift2: Int
        let outputMultiplier: Int32, outputShift: Int
    }

    var quantized: QuantizedParameters?

    /// The left shift that makes room below the rescaled inputs' integer part (7 for int8, as TFLite's kernel).
    static let leftShift = 7

    override func prepare() throws {
        let a = try input(0), b = try input(1), output = try self.output(0)
        guard a.type == .int8 else { return try super.prepare() }
        guard b.type == .int8, output.type == .int8 else { throw KernelError.unsupported("SQUARED_DIFFERENCE of \(a.type) and \(b.type) into \(output.type)") }
        let qa = try QuantizedTensorInfo(a), qb = try QuantizedTensorInfo(b), qo = try QuantizedTensorInfo(output)
        for zero in [qa.zeroPoint, qb.zeroPoint, qo.zeroPoint] where !(-128...127).contains(zero) {
            throw KernelError.invalid("int8 zero point \(zero) out of range")
        }
        let twiceMaximumScale = 2 * Double(max(qa.scale, qb.scale))
        let (m1, s1) = IntegerArithmetic.quantizeMultiplier(Double(qa.scale) / twiceMaximumScale)
        let (m2, s2) = IntegerArithmetic.quantizeMultiplier(Double(qb.scale) / twiceMaximumScale)
        let (mo, so) = IntegerArithmetic.quantizeMultiplier(twiceMaximumScale * twiceMaximumScale / (Double(1 << (2 * Self.leftShift)) * Double(qo.scale)))
        guard so <= 0 else { throw KernelError.unsupported("SQUARED_DIFFERENCE output rescale above one (output scale \(qo.scale))") }
        quantized = QuantizedParameters(offset1: -qa.zeroPoint, offset2: -qb.zeroPoint, outputOffset: qo.zeroPoint,
                                        multiplier1: m1, shift1: s1, multiplier2: m2, shift2: s2, outputMultiplier: mo, outputShift: so)
        output.shape = try broadcastShape(a.shape, b.shape)
    }

    override func run(_ context: RunContext) throws {
        guard let q = quantized else { return compute(context.threads, SquaredDifference.self) }
        let a = node.inputs[0]!, b = node.inputs[1]!, output = node.outputs[0]
        let pa = UnsafeRawPointer(a.data!), pb = UnsafeRawPointer(b.data!), out = output.data!
        forEachBroadcastPair(aShape: a.shape, bShape: b.shape, outShape: output.shape) { i, ia, ib in
            let x = (loadQuantized(pa, ia, signed: true) + q.offset1) << Int32(Self.leftShift)
            let y = (loadQuantized(pb, ib, signed: true) + q.offset2) << Int32(Self.leftShift)
            // Each rescaled input is below 2^15 in magnitude (half of 255·2^7), so the square fits in int32.
            let difference = IntegerArithmetic.multiplyByQuantizedMultiplier(x, q.multiplier1, q.shift1)
                - IntegerArithmetic.multiplyByQuantizedMultiplier(y, q.multiplier2, q.shift2)
            let value = IntegerArithmetic.multiplyByQuantizedMultiplier(difference * difference, q.outputMultiplier, q.outputShift) + q.outputOffset
            storeQuantized(out, i, min(max(value, -128), 127), signed: true)
        }
    }
}
