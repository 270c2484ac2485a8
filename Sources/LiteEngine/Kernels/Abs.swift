/// ABS: |x|; int32 and int64 wrap (the most negative value stays). int8 as TFLite's elementwise.cc, tabulated per
/// stored value: `|x − zp_in|`, rescaled by `MultiplyByQuantizedMultiplier` with `in_scale / out_scale` (divided in
/// float) when the two scales differ, plus `zp_out`, clamped.
final class Abs: UnaryElementwise, FloatUnaryOperation {
    override class var integerFunction: ((Int64) -> Int64)? { { $0 < 0 ? 0 &- $0 : $0 } }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        guard input.type == .int8 else { return try super.prepare() }
        guard output.type == .int8 else { throw KernelError.unsupported("ABS of int8 into \(output.type)") }
        let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
        let rescales = qi.scale != qo.scale
        let (multiplier, shift) = IntegerArithmetic.quantizeMultiplier(Double(qi.scale / qo.scale))
        guard !rescales || shift <= 30 else { throw KernelError.unsupported("ABS rescale from scale \(qi.scale) to \(qo.scale)") }
        let (inputZero, outputZero) = (qi.zeroPoint, qo.zeroPoint)
        lookupTable = QuantizedLookupTable(signed: true) { x in
            let magnitude = abs(x - inputZero)
            let value = (rescales ? IntegerArithmetic.multiplyByQuantizedMultiplier(magnitude, multiplier, shift) : magnitude) + outputZero
            return min(max(value, -128), 127)
        }
        output.shape = input.shape
    }

    @inline(__always) static func apply(_ x: Float) -> Float { Swift.abs(x) }

    override func run(_ context: RunContext) throws {
        if runLookupTable() { return }
        compute(context.threads, Abs.self)
    }
}
