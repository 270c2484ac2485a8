import LiteFormat

/// DIV: a / b with broadcasting and a fused activation. float32 (IEEE division clamped to ±FLT_MAX as every fused
/// activation of LiteRT's built-in kernels is, so x / 0 reads ±3.4e38); uint8, int8 and int16 as TFLite's div.cc and
/// reference `DivElementwise`: `(a − zp_a)` times the fixed-point reciprocal of `(b − zp_b)` (``IntegerArithmetic/reciprocal(_:)``,
/// gemmlowp's Newton-Raphson), then rescaled by `M = scale_a / (scale_b · scale_out)` (computed in single precision, as div.cc does).
///
/// As in LiteRT (div.cc's `CheckNonZero`), a divisor whose real value is 0 (a stored value equal to its zero point)
/// is an error.
final class Div: BinaryElementwise, FloatBinaryOperation {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a / b }

    override class var hasFusedActivation: Bool { true }

    /// The path `run` takes, chosen by `prepare` from the inputs' type.
    enum Plan {
        /// float32 (and the other types ``BinaryElementwise`` divides), element by element.
        case elementwise
        /// uint8/int8/int16: div.cc's fixed-point reciprocal and rescale.
        case quantized(QuantizedBinaryParameters)
    }

    /// The path `run` takes (nil before `prepare`).
    private(set) var plan: Plan?

    override func prepare() throws {
        let a = try input(0), b = try input(1), output = try self.output(0)
        guard a.type == .uint8 || a.type == .int8 || a.type == .int16 else {
            plan = .elementwise
            return try super.prepare()
        }
        guard b.type == a.type, output.type == a.type else { throw KernelError.unsupported("DIV of \(a.type) and \(b.type) into \(output.type)") }
        let qa = try QuantizedTensorInfo(a), qb = try QuantizedTensorInfo(b), qo = try QuantizedTensorInfo(output)
        // div.cc's `input1->params.scale / (input2->params.scale * output->params.scale)` is float arithmetic, widened
        // to double only when stored: 0.1 / (0.02 · 0.2) is 25 in single precision and 25.0000006 in double, which
        // moves quotients that are ties in real numbers (62.5) to the other side.
        let (multiplier, shift) = IntegerArithmetic.quantizeMultiplier(Double(qa.scale / (qb.scale * qo.scale)))
        // The rescale's right shift is `recip_shift + headroom − shift` with a headroom of at least 14 for 16-bit values:
        // a shift above that would make it a left shift, outside what TFLite's arithmetic handles.
        guard shift <= 14 else { throw KernelError.unsupported("DIV rescaling multiplier \(qa.scale / (qb.scale * qo.scale)) out of range") }
        let (typeMin, typeMax) = try quantizedRange(output.type)
        let (low, high) = try IntegerArithmetic.activationRange(try ArithmeticOptions(node.options).activation, scale: qo.scale,
                                                                zeroPoint: qo.zeroPoint, typeMin: typeMin, typeMax: typeMax)
        plan = .quantized(QuantizedBinaryParameters(offset1: -qa.zeroPoint, offset2: -qb.zeroPoint, outputOffset: qo.zeroPoint,
                                                    multiplier: multiplier, shift: shift, low: low, high: high))
        output.shape = try broadcastShape(a.shape, b.shape)
    }

    override func run(_ context: RunContext) throws {
        switch plan {
        case .elementwise?:
            compute(context.threads, Div.self)
        case .quantized(let parameters)?:
            switch node.inputs[0]!.type {
            case .uint8: try divide(UInt8.self, parameters)
            case .int8: try divide(Int8.self, parameters)
            default: try divide(Int16.self, parameters)
            }
        case nil:
            throw KernelError.invalid("DIV ran before it was prepared")
        }
    }

    private func divide<T: FixedWidthInteger>(_: T.Type, _ p: QuantizedBinaryParameters) throws {
        let a = node.inputs[0]!, b = node.inputs[1]!, output = node.outputs[0]
        guard output.elementCount > 0, let pa = a.data, let pb = b.data, let po = output.data else { return }
        let x = pa.assumingMemoryBound(to: T.self), y = pb.assumingMemoryBound(to: T.self), out = po.assumingMemoryBound(to: T.self)
        for i in 0..<b.elementCount where p.offset2 + Int32(y[i]) == 0 {
            throw KernelError.invalid("division by 0 (element \(i) of the divisor is its zero point, \(-p.offset2))")
        }
        forEachBroadcastPair(aShape: a.shape, bShape: b.shape, outShape: output.shape) { o, i, j in
            var numerator = p.offset1 + Int32(x[i]), denominator = p.offset2 + Int32(y[j])
            // The reciprocal is a positive multiplier: the signs move to the numerator.
            if denominator < 0 { numerator = -numerator; denominator = -denominator }
            let (inverse, reciprocalShift) = IntegerArithmetic.reciprocal(denominator)
            let headroom = IntegerArithmetic.countLeadingSignBits(numerator)
            // MultiplyByQuantizedMultiplierGreaterThanOne: the numerator shifted up by its headroom (no overflow).
            let quotient = IntegerArithmetic.saturatingRoundingDoublingHighMul(numerator &<< Int32(headroom), inverse)
            let rightShift = reciprocalShift + headroom - p.shift
            let scaled = Self.roundingDivideByPOT(IntegerArithmetic.saturatingRoundingDoublingHighMul(quotient, p.multiplier), rightShift)
            out[o] = T(truncatingIfNeeded: min(p.high, max(p.low, p.outputOffset &+ scaled)))
        }
    }

    /// gemmlowp's `RoundingDivideByPOT` as LiteRT's x86 build computes it for every exponent: past 31 its mask
    /// `(1 << exponent) − 1` truncates to int32 (all ones) and the shift count is taken modulo 32, as the
    /// shift instructions do. A small numerator (headroom 30) over a divisor of 100 already asks for 36.
    @inline(__always)
    static func roundingDivideByPOT(_ x: Int32, _ exponent: Int) -> Int32 {
        guard exponent > 31 else { return IntegerArithmetic.roundingDivideByPOT(x, exponent) }
        let threshold: Int32 = -1 + (x < 0 ? 1 : 0)
        return (x >> Int32(exponent & 31)) &+ (x > threshold ? 1 : 0)
    }
}
