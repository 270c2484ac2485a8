import LiteFormat

/// MUL: a * b with broadcasting and a fused activation; float32, or uint8/int8 with TFLite's integer arithmetic
/// (mul.cc, MulElementwise): `clamp(zp_out + MultiplyByQuantizedMultiplier((x - zp_a)·(y - zp_b), M))` with
/// `M = scale_a · scale_b / scale_out` computed in double.
final class Mul: BinaryElementwise, FloatBinaryOperation {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a * b }

    override class var hasFusedActivation: Bool { true }

    struct QuantizedParameters {
        let offset1: Int32, offset2: Int32, outputOffset: Int32
        let multiplier: Int32, shift: Int
        let low: Int32, high: Int32
    }

    var quantized: QuantizedParameters?

    override func prepare() throws {
        let a = try input(0), b = try input(1), output = try self.output(0)
        guard a.type == .uint8 || a.type == .int8 else { return try super.prepare() }
        guard b.type == a.type, output.type == a.type else { throw KernelError.unsupported("MUL of \(a.type) and \(b.type) into \(output.type)") }
        let qa = try QuantizedTensorInfo(a), qb = try QuantizedTensorInfo(b), qo = try QuantizedTensorInfo(output)
        let (multiplier, shift) = IntegerArithmetic.quantizeMultiplier(Double(qa.scale) * Double(qb.scale) / Double(qo.scale))
        guard shift <= 30 else { throw KernelError.unsupported("MUL rescaling multiplier out of range") }
        let (typeMin, typeMax) = try quantizedRange(output.type)
        let (low, high) = try IntegerArithmetic.activationRange(try ArithmeticOptions(node.options).activation, scale: qo.scale,
                                                                zeroPoint: qo.zeroPoint, typeMin: typeMin, typeMax: typeMax)
        quantized = QuantizedParameters(offset1: -qa.zeroPoint, offset2: -qb.zeroPoint, outputOffset: qo.zeroPoint,
                                        multiplier: multiplier, shift: shift, low: low, high: high)
        output.shape = try broadcastShape(a.shape, b.shape)
    }

    override func run(_ context: RunContext) throws {
        guard let q = quantized else { return compute(context.threads, Mul.self) }
        let a = node.inputs[0]!, b = node.inputs[1]!, output = node.outputs[0]
        let signed = a.type == .int8
        let pa = UnsafeRawPointer(a.data!), pb = UnsafeRawPointer(b.data!), out = output.data!
        forEachBroadcastPair(aShape: a.shape, bShape: b.shape, outShape: output.shape) { i, ia, ib in
            // (x - zp) is at most 9 bits, so the product fits easily in int32.
            let product = (loadQuantized(pa, ia, signed: signed) + q.offset1) * (loadQuantized(pb, ib, signed: signed) + q.offset2)
            let value = IntegerArithmetic.multiplyByQuantizedMultiplier(product, q.multiplier, q.shift) + q.outputOffset
            storeQuantized(out, i, min(max(value, q.low), q.high), signed: signed)
        }
    }
}
