/// ABS: |x|; int32 and int64 wrap (the most negative value stays). int8 and int16 (16x8, zero points 0) as TFLite's
/// elementwise.cc, tabulated per stored value: `|x − zp_in|`, rescaled by `MultiplyByQuantizedMultiplier` with
/// `in_scale / out_scale` (divided in float) when the two scales differ, plus `zp_out`, clamped.
final class Abs: UnaryElementwise, FloatUnaryOperation {
    override class var integerFunction: ((Int64) -> Int64)? { { $0 < 0 ? 0 &- $0 : $0 } }

    override func makePlan(input: Tensor, output: Tensor) throws -> Plan {
        guard input.type == .int8 || input.type == .int16 else { return try super.makePlan(input: input, output: output) }
        guard output.type == input.type else { throw KernelError.unsupported("ABS of \(input.type) into \(output.type)") }
        if input.type == .int16 { try Int16Activations.expectSymmetric(input, output) }
        let (low, high): (Int32, Int32) = input.type == .int8 ? (-128, 127) : (-32768, 32767)
        let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
        let rescales = qi.scale != qo.scale
        let (multiplier, shift) = IntegerArithmetic.quantizeMultiplier(Double(qi.scale / qo.scale))
        guard !rescales || shift <= 30 else { throw KernelError.unsupported("ABS rescale from scale \(qi.scale) to \(qo.scale)") }
        let (inputZero, outputZero) = (qi.zeroPoint, qo.zeroPoint)
        return .table(QuantizedLookupTable(type: input.type) { x in
            let magnitude = abs(x - inputZero)
            let value = (rescales ? IntegerArithmetic.multiplyByQuantizedMultiplier(magnitude, multiplier, shift) : magnitude) + outputZero
            return min(max(value, low), high)
        })
    }

    @inline(__always) static func apply(_ x: Float) -> Float { Swift.abs(x) }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, Abs.self)
    }
}
