import Foundation
import LiteFormat

/// TensorFlow Lite's fixed-point requantization, bit for bit (tensorflow/lite/kernels/internal/common.h,
/// quantization_util.cc and gemmlowp's fixedpoint.h). Every quantized kernel rescales its int32 accumulators
/// with these functions and nothing else, so bit-exactness with TFLite is decided in this one file.
///
/// A real multiplier `M` (for example `input_scale * filter_scale / output_scale`) is stored as a Q31 integer
/// `m` in [2^30, 2^31) and a power-of-two exponent `e`: `M ≈ m * 2^(e - 31)`.
public enum IntegerArithmetic {
    /// `QuantizeMultiplier`: `frexp` splits M into q in [0.5, 1) and e; `m = round(q * 2^31)` with ties away
    /// from zero. Rounding can reach exactly 2^31 (q close to 1), which does not fit int32: then m is halved
    /// and e incremented. Multipliers below 2^-31 (e < -31) flush to zero, as TFLite does.
    public static func quantizeMultiplier(_ multiplier: Double) -> (multiplier: Int32, shift: Int) {
        guard multiplier != 0, multiplier.isFinite else { return (0, 0) }
        let q = multiplier.significand / 2  // frexp: q in [0.5, 1)
        var shift = Int(multiplier.exponent) + 1
        var fixed = Int64((q * Double(1 << 31)).rounded(.toNearestOrAwayFromZero))
        if fixed == 1 << 31 {
            fixed /= 2
            shift += 1
        }
        if shift < -31 {
            return (0, 0)
        }
        // A multiplier of 2^31 or more (shift > 30) is outside what the kernels accept; callers check the range.
        return (Int32(truncatingIfNeeded: fixed), shift)
    }

    /// `SaturatingRoundingDoublingHighMul`: `a·b / 2^31` rounded to nearest. The ±2^30 nudge followed by C's
    /// truncating division makes ties round toward +infinity for both signs (-1.5 becomes -1). The only
    /// overflow, INT32_MIN · INT32_MIN, saturates to INT32_MAX.
    @inline(__always)
    public static func saturatingRoundingDoublingHighMul(_ a: Int32, _ b: Int32) -> Int32 {
        if a == b && a == .min { return .max }
        let product = Int64(a) * Int64(b)
        let nudge: Int64 = product >= 0 ? 1 << 30 : 1 - (1 << 30)
        // Swift's `/` truncates toward zero, like C++'s.
        return Int32(truncatingIfNeeded: (product + nudge) / (1 << 31))
    }

    /// `RoundingDivideByPOT`: `x / 2^exponent` rounded to nearest, ties away from zero. `exponent` in 0...31.
    @inline(__always)
    public static func roundingDivideByPOT(_ x: Int32, _ exponent: Int) -> Int32 {
        let mask = Int32(truncatingIfNeeded: (Int64(1) << exponent) - 1)
        let remainder = x & mask
        let threshold = (mask >> 1) + (x < 0 ? 1 : 0)
        return (x >> Int32(exponent)) + (remainder > threshold ? 1 : 0)
    }

    /// `MultiplyByQuantizedMultiplier` with TFLite's default double rounding: shift left first (for
    /// multipliers above 1), high-multiply with rounding, then rounding right shift. The left shift wraps on
    /// overflow like the int32 arithmetic of TFLite's builds.
    @inline(__always)
    public static func multiplyByQuantizedMultiplier(_ x: Int32, _ multiplier: Int32, _ shift: Int) -> Int32 {
        let left = shift > 0 ? shift : 0
        let right = shift > 0 ? 0 : -shift
        return roundingDivideByPOT(saturatingRoundingDoublingHighMul(x &* (1 << Int32(left)), multiplier), right)
    }

    /// The rescale of TFLite's GEMM-based kernels (CONV_2D, FULLY_CONNECTED through cpu_backend_gemm/ruy):
    /// the same high multiply, but the final right shift rounds ties toward +infinity,
    /// `(x + 2^(right - 1)) >> right`, instead of away from zero. The two differ only on negative exact ties;
    /// on MobileNetV2's first 1x1 projection that is 425 of 200,704 outputs, one step apart.
    @inline(__always)
    public static func multiplyByQuantizedMultiplierRoundingUp(_ x: Int32, _ multiplier: Int32, _ shift: Int) -> Int32 {
        let left = shift > 0 ? shift : 0
        let right = shift > 0 ? 0 : -shift
        let high = saturatingRoundingDoublingHighMul(x &* (1 << Int32(left)), multiplier)
        guard right > 0 else { return high }
        return Int32(truncatingIfNeeded: (Int64(high) + (Int64(1) << (right - 1))) >> Int64(right))
    }

    /// `MultiplyByQuantizedMultiplier` (or, with `roundingUp`, the GEMM kernels' variant) as one 64-bit multiply,
    /// add and shift, which vectorizes: the high multiply is `h = ⌊(P + 2^30) / 2^31⌋` with `P = (x·2^left)·m`, and
    /// both final roundings are floors of `h` plus a constant (ties up: `⌊(h + 2^(r-1)) / 2^r⌋`; ties away from
    /// zero: `⌊(h + 2^(r-1) - [h < 0]) / 2^r⌋` for r > 0), so by `⌊⌊z / A⌋ / B⌋ = ⌊z / AB⌋` the result is
    /// `(P + 2^30 + (2^(r-1) - [h < 0])·2^31) >> (31 + r)`, where `h < 0` exactly when `P + 2^30 < 0`. Equal to the
    /// two-step functions for every input (IntegerArithmeticTests) except the saturating case m = INT32_MIN, which
    /// `quantizeMultiplier` never produces.
    public struct FoldedMultiplier: Sendable {
        /// The quantized multiplier `m` (a Q31 fixed-point value), widened.
        public let multiplier: Int64
        /// The left shift applied to `x` before the multiply (the positive part of the shift).
        public let leftShift: Int32
        /// The final right shift, `31 + r` for the right shift `r` (the negative part of the shift).
        public let totalShift: Int64
        /// The rounding constants added before the final shift: `2^30 + 2^(r+30)` when r > 0, else `2^30`.
        public let addend: Int64
        /// 2^31 when negative high products round away from zero (r > 0, not `roundingUp`), else 0.
        public let negativeCorrection: Int64

        /// Folds `multiplier` and `shift` (as from ``IntegerArithmetic/quantizeMultiplier(_:)``); `roundingUp` selects the
        /// ties-up rounding of ``IntegerArithmetic/multiplyByQuantizedMultiplierRoundingUp(_:_:_:)`` instead of
        /// ties away from zero (``IntegerArithmetic/multiplyByQuantizedMultiplier(_:_:_:)``).
        public init(multiplier: Int32, shift: Int, roundingUp: Bool) {
            let right = Int64(max(-shift, 0))
            self.multiplier = Int64(multiplier)
            leftShift = Int32(max(shift, 0))
            totalShift = 31 + right
            addend = (1 << 30) + (right > 0 ? Int64(1) << (right + 30) : 0)
            negativeCorrection = right > 0 && !roundingUp ? 1 << 31 : 0
        }

        /// `x` times the multiplier, shifted and rounded, in one multiply, add and shift (not yet clamped to a type).
        @inline(__always)
        public func apply(_ x: Int32) -> Int64 {
            // x·2^left wraps in int32 like TFLite's `x * (1 << left_shift)`.
            let product = Int64(x &<< leftShift) &* multiplier
            return (product &+ addend &- (((product &+ (1 << 30)) &>> 63) & negativeCorrection)) &>> totalShift
        }
    }

    /// The quantized clamp range of a fused activation (`CalculateActivationRangeQuantized`): the type's range
    /// intersected with the quantized 0, 6 or ±1, where `quantize(f) = zero_point + round(f / scale)`.
    public static func activationRange(_ activation: FusedActivation, scale: Float, zeroPoint: Int32,
                                       typeMin: Int32, typeMax: Int32) throws -> (Int32, Int32) {
        func quantize(_ value: Float) -> Int32 {
            let scaled = (value / scale).rounded(.toNearestOrAwayFromZero)
            guard scaled.isFinite, abs(scaled) < 1e9 else { return scaled > 0 ? typeMax : typeMin }
            return zeroPoint + Int32(scaled)
        }
        switch activation {
        case .none: return (typeMin, typeMax)
        case .relu: return (max(typeMin, quantize(0)), typeMax)
        case .relu6: return (max(typeMin, quantize(0)), min(typeMax, quantize(6)))
        case .reluN1To1: return (max(typeMin, quantize(-1)), min(typeMax, quantize(1)))
        case .tanh, .signBit: throw KernelError.unsupported("fused activation \(activation) on quantized tensors")
        }
    }

    // MARK: gemmlowp's 32-bit fixed point, for TFLite's `GetReciprocal` (quantized DIV)

    /// `RoundingHalfSum`: (a + b) / 2 in 64 bits, rounded half away from zero.
    @inline(__always)
    static func roundingHalfSum(_ a: Int32, _ b: Int32) -> Int32 {
        let sum = Int64(a) + Int64(b)
        return Int32(truncatingIfNeeded: (sum + (sum >= 0 ? 1 : -1)) / 2)
    }

    /// `SaturatingRoundingMultiplyByPOT<exponent>` for exponent > 0: x · 2^exponent, saturated to int32.
    @inline(__always)
    static func saturatingMultiplyByPOT(_ x: Int32, _ exponent: Int) -> Int32 {
        let threshold = Int32((1 << (31 - exponent)) - 1)
        if x > threshold { return .max }
        if x < -threshold { return .min }
        return x << Int32(exponent)
    }

    /// gemmlowp's `one_over_one_plus_x_for_x_in_0_1` on raw Q0.31 values: 1 / (1 + a) as Q0.31, from a half
    /// denominator in Q0.31 and three Newton-Raphson steps in Q2.29 (products of a Q0 and a Q2 value are Q2, of two
    /// Q2 values Q4, rescaled to Q2 by a saturating ×4); additions wrap as gemmlowp's raw int32 adds.
    static func oneOverOnePlusX(_ a: Int32) -> Int32 {
        let halfDenominator = roundingHalfSum(a, .max)
        var x = 1_515_870_810 &+ saturatingRoundingDoublingHighMul(halfDenominator, -1_010_580_540)  // 48/17 − 32/17 · d in Q2.29
        for _ in 0..<3 {
            let oneMinusHalfDenominatorTimesX = (Int32(1) << 29) &- saturatingRoundingDoublingHighMul(halfDenominator, x)
            x = x &+ saturatingMultiplyByPOT(saturatingRoundingDoublingHighMul(x, oneMinusHalfDenominatorTimesX), 2)
        }
        // ExactMulByPot<-1> reads the Q2.29 raw value as Q1.30; Rescale<0> doubles it into Q0.31.
        return saturatingMultiplyByPOT(x, 1)
    }

    /// `GetReciprocal(x, 31, &shift)` for x > 0: 1/x as a Q0.31 multiplier and the shift that goes with it
    /// (1/x = multiplier · 2^-31 · 2^-shift).
    static func reciprocal(_ x: Int32) -> (multiplier: Int32, shift: Int) {
        let headroomPlusOne = UInt32(bitPattern: x).leadingZeroBitCount
        let shiftedSumMinusOne = Int32(bitPattern: (UInt32(bitPattern: x) << UInt32(headroomPlusOne)) &- (1 << 31))
        return (oneOverOnePlusX(shiftedSumMinusOne), 31 - headroomPlusOne)
    }

    /// `CountLeadingSignBits`: how far x can be shifted left without changing its sign (31 for 0).
    @inline(__always)
    static func countLeadingSignBits(_ x: Int32) -> Int {
        x >= 0 ? x.leadingZeroBitCount - 1 : (~x).leadingZeroBitCount - 1
    }
}
