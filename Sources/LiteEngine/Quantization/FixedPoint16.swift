/// gemmlowp's 16-bit fixed-point transcendental functions (fixedpoint/fixedpoint.h, instantiated for
/// `FixedPoint<int16_t, IntegerBits>`), which TensorFlow Lite's integer LSTM applies to its gates
/// (`tensor_utils::ApplySigmoid`, `ApplyTanh`). Bit for bit: every non-saturating add, subtract and negate
/// wraps like C++'s int16 arithmetic, every multiply is `SaturatingRoundingDoublingHighMul`, and the constants
/// are gemmlowp's int32 constants rounded to 16 bits by `RescaleConstantInitializer`.
///
/// A value in format `Fk` (k integer bits) is `raw / 2^(15 - k)`.
enum FixedPoint16 {
    @inline(__always) static func wrap(_ x: Int32) -> Int16 { Int16(truncatingIfNeeded: x) }
    @inline(__always) static func add(_ a: Int16, _ b: Int16) -> Int16 { wrap(Int32(a) + Int32(b)) }
    @inline(__always) static func sub(_ a: Int16, _ b: Int16) -> Int16 { wrap(Int32(a) - Int32(b)) }
    @inline(__always) static func neg(_ a: Int16) -> Int16 { wrap(-Int32(a)) }

    @inline(__always) static func saturatingAdd(_ a: Int16, _ b: Int16) -> Int16 {
        Int16(min(max(Int32(a) + Int32(b), -32768), 32767))
    }

    /// `a·b / 2^15` rounded to nearest (ties toward +infinity, by the ±2^14 nudge and truncating division);
    /// INT16_MIN·INT16_MIN saturates.
    @inline(__always) static func multiply(_ a: Int16, _ b: Int16) -> Int16 {
        if a == b && a == .min { return .max }
        let product = Int32(a) * Int32(b)
        let nudge: Int32 = product >= 0 ? 1 << 14 : 1 - (1 << 14)
        return wrap((product + nudge) / (1 << 15))
    }

    /// `RoundingDivideByPOT` on int16: ties away from zero.
    @inline(__always) static func roundingDivideByPOT(_ x: Int16, _ exponent: Int) -> Int16 {
        let mask = wrap((Int32(1) << Int32(exponent)) - 1)
        let remainder = x & mask
        let threshold = (mask >> 1) &+ (x < 0 ? 1 : 0)
        return (x >> Int16(exponent)) &+ (remainder > threshold ? 1 : 0)
    }

    /// `SaturatingRoundingMultiplyByPOT<exponent>`: a saturating left shift, or a rounding right shift.
    @inline(__always) static func multiplyByPOT(_ x: Int16, _ exponent: Int) -> Int16 {
        if exponent == 0 { return x }
        if exponent < 0 { return roundingDivideByPOT(x, -exponent) }
        let threshold = Int32((1 << (15 - exponent)) - 1)
        if Int32(x) > threshold { return .max }
        if Int32(x) < -threshold { return .min }
        return wrap(Int32(x) << Int32(exponent))
    }

    /// `RescaleConstantInitializer`: a Q31 constant rounded to the int16 raw value.
    static func constant(_ int32Value: Int32) -> Int16 {
        wrap(IntegerArithmetic.roundingDivideByPOT(int32Value, 16))
    }

    // gemmlowp's int32 constants through `constant(_:)`, written out so the hot loops see literals
    // (FixedPoint16Tests checks each against `constant(_:)`).
    static let expMinusOneEighth: Int16 = 28918           // constant(1895147668), exp(-1/8)
    static let oneThird: Int16 = 10923                    // constant(715827883)
    static let fortyEightSeventeenths: Int16 = 23130      // constant(1515870810), F2
    static let minusThirtyTwoSeventeenths: Int16 = -15420 // constant(-1010580540), F2
    static let oneHalf: Int16 = 16384                     // constant(1 << 30)
    /// exp(-2^e) for e = -2...4 (constant(1672461947), (1302514674), (790015084), (290630308), (39332535),
    /// (720401), (242)): the barrel shifter of `exp_on_negative_values`.
    static let expMultipliers: [(exponent: Int, multiplier: Int16)] = [(-2, 25520), (-1, 19875), (0, 12055), (1, 4435), (2, 600), (3, 11), (4, 0)]

    /// exp(a) for a in [-1/4, 0), F0 in and out: Taylor series around -1/8.
    static func expOnIntervalNegativeQuarterToZero(_ a: Int16) -> Int16 {
        let x = add(a, 1 << 12)
        let x2 = multiply(x, x), x3 = multiply(x2, x), x4 = multiply(x2, x2)
        let x4Over4 = multiplyByPOT(x4, -2)
        let series = multiplyByPOT(add(multiply(add(x4Over4, x3), oneThird), x2), -1)
        return saturatingAdd(expMinusOneEighth, multiply(expMinusOneEighth, add(x, series)))
    }

    /// exp(a) for a ≤ 0 in F`integerBits`, result in F0.
    static func expOnNegativeValues(_ a: Int16, integerBits: Int) -> Int16 {
        let fractionalBits = 15 - integerBits
        let oneQuarter = Int16(1) << Int16(fractionalBits - 2)
        let aModQuarterMinusQuarter = sub(a & (oneQuarter - 1), oneQuarter)
        var result = expOnIntervalNegativeQuarterToZero(multiplyByPOT(aModQuarterMinusQuarter, integerBits))
        let remainder = sub(aModQuarterMinusQuarter, a)
        @inline(__always) func barrel(_ exponent: Int, _ multiplier: Int16) {
            guard integerBits > exponent else { return }
            let bit = wrap(Int32(1) << Int32(fractionalBits + exponent))
            if remainder & bit != 0 { result = multiply(result, multiplier) }
        }
        barrel(-2, 25520)
        barrel(-1, 19875)
        barrel(0, 12055)
        barrel(1, 4435)
        barrel(2, 600)
        barrel(3, 11)
        barrel(4, 0)
        if integerBits > 5 {
            let clamp = constant(-(Int32(1) << Int32(36 - integerBits)))
            if a < clamp { result = 0 }
        }
        return a == 0 ? .max : result
    }

    /// 1/(1+a) for a in [0, 1], F0: three Newton-Raphson steps in F2.
    static func oneOverOnePlusX(_ a: Int16) -> Int16 {
        let x = newtonReciprocal(a)
        return multiplyByPOT(x, 1)  // Rescale<0>(ExactMulByPot<-1>(x)): F1 to F0
    }

    /// (1-a)/(1+a) for a in [0, 1], F0.
    static func oneMinusXOverOnePlusX(_ a: Int16) -> Int16 {
        multiplyByPOT(sub(newtonReciprocal(a), 1 << 13), 2)
    }

    /// The F2 value x ≈ 1/half_denominator with half_denominator = (1+a)/2.
    private static func newtonReciprocal(_ a: Int16) -> Int16 {
        let sum = Int32(a) + 32767
        let halfDenominator = wrap((sum + (sum >= 0 ? 1 : -1)) / 2)
        var x = add(fortyEightSeventeenths, multiply(halfDenominator, minusThirtyTwoSeventeenths))
        for _ in 0..<3 {
            let oneMinus = sub(1 << 13, multiply(halfDenominator, x))
            x = add(x, multiplyByPOT(multiply(x, oneMinus), 2))
        }
        return x
    }

    /// `gemmlowp::logistic` from F`integerBits` to F0.
    static func logistic(_ a: Int16, integerBits: Int) -> Int16 {
        if a == 0 { return oneHalf }
        let positive = a > 0
        let absolute = positive ? a : neg(a)
        let ifPositive = oneOverOnePlusX(expOnNegativeValues(neg(absolute), integerBits: integerBits))
        return positive ? ifPositive : sub(.max, ifPositive)
    }

    /// `gemmlowp::tanh` from F`integerBits` to F0.
    static func tanh(_ a: Int16, integerBits: Int) -> Int16 {
        if a == 0 { return 0 }
        let negative = a < 0
        let n = negative ? a : neg(a)
        let t = oneMinusXOverOnePlusX(expOnNegativeValues(n, integerBits: integerBits + 1))
        return negative ? neg(t) : t
    }

    /// All 65,536 results of a function, indexed by the input's bit pattern.
    static func table(_ f: (Int16) -> Int16) -> [Int16] {
        [Int16](unsafeUninitializedCapacity: 65536) { buffer, count in
            for i in 0..<65536 { buffer[i] = f(Int16(truncatingIfNeeded: i)) }
            count = 65536
        }
    }

    /// Sigmoid of a Q3.12 gate, as `ApplySigmoid`.
    static func sigmoid(_ x: Int16) -> Int16 { logistic(x, integerBits: 3) }
}

/// A fixed-point function remembered per input: evaluated the first time an input is seen, looked up after.
/// (Tabulating all 65,536 inputs up front costs more per function than a small LSTM's whole run.)
/// Not thread-safe: one per kernel, like the rest of a kernel's state.
final class MemoizedFixedPointFunction {
    private let function: (Int16) -> Int16
    private var values = [Int16](repeating: 0, count: 65536)
    private var known = [UInt64](repeating: 0, count: 1024)

    init(_ function: @escaping (Int16) -> Int16) {
        self.function = function
    }

    @inline(__always)
    func callAsFunction(_ x: Int16) -> Int16 {
        let i = Int(UInt16(bitPattern: x))
        let bit = UInt64(1) << UInt64(i & 63)
        if known[i >> 6] & bit != 0 { return values[i] }
        let y = function(x)
        values[i] = y
        known[i >> 6] |= bit
        return y
    }
}
