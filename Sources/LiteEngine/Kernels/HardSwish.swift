import LiteFormat

/// HARD_SWISH: x * relu6(x + 3) / 6, float rounded as LiteRT's kernel rounds it: its vector loops (all but the last
/// `count % 4` values) compute `(x · (1/6)) · relu6(x + 3)`, so 3e38 stays finite, and its scalar tail
/// `x · relu6(x + 3) / 6`; the two differ in the last bit for a third of all inputs. uint8/int8 with TFLite's 16-bit fixed-point arithmetic
/// (reference_ops::HardSwish); being a function of one 8-bit value, it is evaluated once per possible input into
/// a 256-entry table.
final class HardSwish: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { (x * (1 / 6 as Float)) * Swift.min(Swift.max(x + 3, 0), 6) }

    /// The scalar tail's order of operations.
    enum Tail: FloatUnaryOperation {
        @inline(__always) static func apply(_ x: Float) -> Float { x * Swift.min(Swift.max(x + 3, 0), 6) / 6 }
    }

    override func makePlan(input: Tensor, output: Tensor) throws -> Plan {
        guard input.type == .uint8 || input.type == .int8 else { return try super.makePlan(input: input, output: output) }
        guard output.type == input.type else { throw KernelError.unsupported("HARD_SWISH of \(input.type) into \(output.type)") }
        let parameters = try Parameters(input: try QuantizedTensorInfo(input), output: try QuantizedTensorInfo(output))
        let signed = input.type == .int8
        let (low, high): (Int32, Int32) = signed ? (-128, 127) : (0, 255)
        return .table(QuantizedLookupTable(signed: signed) { min(max(parameters.apply($0), low), high) })
    }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, HardSwish.self)
        let count = node.inputs[0]!.elementCount, input = node.inputs[0]!.floats, output = node.outputs[0].floats
        for i in count - count % 4..<count { output[i] = Tail.apply(input[i]) }
    }

    /// `HardSwishParams` as activations.cc prepares them: scales in float, multipliers quantized to Q31 and then
    /// rounded down to 16 bits.
    struct Parameters {
        let inputZeroPoint: Int32, outputZeroPoint: Int32
        let reluishMultiplier: Int16, reluishExponent: Int
        let outputMultiplier: Int16, outputExponent: Int

        init(input: QuantizedTensorInfo, output: QuantizedTensorInfo) throws {
            inputZeroPoint = input.zeroPoint
            outputZeroPoint = output.zeroPoint
            let hiresInputScale = (1.0 as Float / 128.0) * input.scale
            let reluishScale: Float = 3.0 / 32768.0
            let (om, oe) = IntegerArithmetic.quantizeMultiplier(Double(hiresInputScale / output.scale))
            let (rm, re) = IntegerArithmetic.quantizeMultiplier(Double(hiresInputScale / reluishScale))
            guard oe <= 0 else { throw KernelError.unsupported("HARD_SWISH output multiplier above 1") }
            outputMultiplier = Self.downScale(om)
            outputExponent = oe
            reluishMultiplier = Self.downScale(rm)
            reluishExponent = re
        }

        /// `DownScaleInt32ToInt16Multiplier`: round a Q31 multiplier to Q15, saturating.
        static func downScale(_ multiplier: Int32) -> Int16 {
            if multiplier >= Int32.max - (1 << 15) { return Int16.max }
            return Int16(truncatingIfNeeded: (multiplier + (1 << 15)) >> 16)
        }

        /// gemmlowp's 16-bit `SaturatingRoundingDoublingHighMul`.
        static func roundingHighMul(_ a: Int16, _ b: Int16) -> Int16 {
            if a == b && a == Int16.min { return Int16.max }
            let product = Int32(a) * Int32(b)
            let nudge: Int32 = product >= 0 ? 1 << 14 : 1 - (1 << 14)
            return Int16(truncatingIfNeeded: (product + nudge) / (1 << 15))
        }

        /// hard_swish.h's `SaturatingDoublingHighMul`: the same without rounding (C division truncates).
        static func highMul(_ a: Int16, _ b: Int16) -> Int16 {
            if a == b && a == Int16.min { return Int16.max }
            return Int16(truncatingIfNeeded: (Int32(a) * Int32(b)) / (1 << 15))
        }

        /// hard_swish.h's `SaturatingLeftShift`, in 64 bits (shifts past 40 saturate as 40 does).
        static func saturatingLeftShift(_ value: Int16, _ amount: Int) -> Int16 {
            Int16(clamping: Int64(value) << Int64(min(amount, 40)))
        }

        /// gemmlowp's `RoundingDivideByPOT` on 16 bits: ties away from zero. From exponent 16 on its mask,
        /// `Dup<int16_t>((1 << exponent) - 1)`, truncates to all ones and the value shifts as an int (a model whose
        /// output scale is 2^16 times the input's finer one gets there: it trapped here before); past 31 the result
        /// no longer changes.
        static func roundingDivideByPOT(_ x: Int16, _ exponent: Int) -> Int16 {
            guard exponent > 0 else { return x }
            let e = min(exponent, 31)
            let mask = Int16(truncatingIfNeeded: (Int64(1) << e) - 1)
            let remainder = x & mask
            let threshold = (mask >> 1) &+ (x < 0 ? 1 : 0)
            return Int16(truncatingIfNeeded: Int32(x) >> Int32(e)) &+ (remainder > threshold ? 1 : 0)
        }

        func apply(_ stored: Int32) -> Int32 {
            let inputValue = Int16(truncatingIfNeeded: stored - inputZeroPoint)
            // The input on a scale 128 times finer, then on the output scale before the final shift.
            let hires = Int16(truncatingIfNeeded: Int32(inputValue) * (1 << 7))
            let preshiftOutput = Self.roundingHighMul(hires, outputMultiplier)
            // relu6(x + 3) / 6 as a 16-bit fixed-point value in [-1, 1], then mapped to [0, 1].
            var reluish = hires
            if reluishExponent > 0 { reluish = Self.saturatingLeftShift(reluish, reluishExponent - 1) }
            reluish = Self.roundingHighMul(reluish, reluishMultiplier)
            if reluishExponent > 0 { reluish = Self.saturatingLeftShift(reluish, 1) }
            if reluishExponent < 0 { reluish = Self.roundingDivideByPOT(reluish, -reluishExponent) }
            reluish = Int16(truncatingIfNeeded: (Int32(reluish) + (1 << 15)) >> 1)
            let preshift = Self.highMul(reluish, preshiftOutput)
            return Int32(Self.roundingDivideByPOT(preshift, -outputExponent)) + outputZeroPoint
        }
    }
}
