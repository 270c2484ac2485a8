import Foundation
import LiteEngine
import XCTest

/// TFLite's requantization primitives against oracles written here from their mathematical definitions in
/// 128-bit arithmetic (not from TFLite's formulas), over the edge cases and every rounding tie.
final class IntegerArithmeticTests: XCTestCase {
    typealias IA = IntegerArithmetic

    /// floor(n / d) for d > 0.
    func floorDivide(_ n: Int128, _ d: Int128) -> Int128 {
        let q = n / d
        return (n % d != 0 && n < 0) ? q - 1 : q
    }

    /// a·b / 2^31 rounded to nearest, ties toward +infinity, saturated to int32.
    func oracleHighMul(_ a: Int32, _ b: Int32) -> Int32 {
        let exact = floorDivide(Int128(a) * Int128(b) + (1 << 30), 1 << 31)
        return exact > Int128(Int32.max) ? .max : Int32(exact)
    }

    /// x / 2^e rounded to nearest, ties away from zero.
    func oracleDivideByPOT(_ x: Int32, _ e: Int) -> Int32 {
        let d = Int128(1) << e
        let magnitude = (abs(Int128(x)) * 2 + d) / (2 * d)
        return Int32(x < 0 ? -magnitude : magnitude)
    }

    func edgeValues() -> [Int32] {
        var values: [Int32] = [.min, .min + 1, -1 << 30, -65536, -257, -2, -1, 0, 1, 2, 3, 255, 1 << 15, (1 << 30) - 1, 1 << 30, .max - 1, .max]
        var generator = SystemRandomNumberGenerator()
        values += (0..<200).map { _ in Int32.random(in: .min ... .max, using: &generator) }
        return values
    }

    func testSaturatingRoundingDoublingHighMulOnEdgesAndRandom() {
        let values = edgeValues()
        for a in values {
            for b in values {
                XCTAssertEqual(IA.saturatingRoundingDoublingHighMul(a, b), oracleHighMul(a, b), "\(a) * \(b)")
            }
        }
        XCTAssertEqual(IA.saturatingRoundingDoublingHighMul(.min, .min), .max)
    }

    func testSaturatingRoundingDoublingHighMulTies() {
        // a·b = (2k + 1) · 2^30 is exactly halfway between two results, for both signs.
        for k in Int32(-1000)...1000 {
            let a = 2 * k + 1
            XCTAssertEqual(IA.saturatingRoundingDoublingHighMul(a, 1 << 30), oracleHighMul(a, 1 << 30), "tie \(a)/2")
        }
        XCTAssertEqual(IA.saturatingRoundingDoublingHighMul(-3, 1 << 30), -1, "-1.5 rounds toward +infinity")
        XCTAssertEqual(IA.saturatingRoundingDoublingHighMul(3, 1 << 30), 2)
    }

    func testRoundingDivideByPOTEveryExponentAndTie() {
        for e in 0...31 {
            for x in edgeValues() {
                XCTAssertEqual(IA.roundingDivideByPOT(x, e), oracleDivideByPOT(x, e), "\(x) >> \(e)")
            }
            guard e > 0 else { continue }
            // Exact ties: (2k + 1) · 2^(e-1), positive and negative.
            for k in Int64(-64)...64 {
                let tie = (2 * k + 1) << (e - 1)
                guard let x = Int32(exactly: tie) else { continue }
                XCTAssertEqual(IA.roundingDivideByPOT(x, e), oracleDivideByPOT(x, e), "tie \(x) >> \(e)")
            }
        }
        XCTAssertEqual(IA.roundingDivideByPOT(-3, 1), -2, "-1.5 rounds away from zero")
        XCTAssertEqual(IA.roundingDivideByPOT(3, 1), 2)
    }

    func testMultiplyByQuantizedMultiplierEveryShift() {
        let multipliers: [Int32] = [0, 1, 1 << 30, (1 << 30) + 1, 1_518_500_250, .max - 1, .max]
        for shift in -31...30 {
            for m in multipliers {
                for x in edgeValues() {
                    let left = max(shift, 0), right = max(-shift, 0)
                    // TFLite shifts left in int32 (wrapping), then rounds twice.
                    let shifted = Int32(truncatingIfNeeded: Int64(x) << left)
                    let expected = oracleDivideByPOT(oracleHighMul(shifted, m), right)
                    XCTAssertEqual(IA.multiplyByQuantizedMultiplier(x, m, shift), expected, "\(x) * \(m) shift \(shift)")
                }
            }
        }
    }

    func testRoundingUpVariantEveryShift() {
        for shift in -31...30 {
            for m: Int32 in [1 << 30, 1_363_945_730, .max] {
                for x in edgeValues() {
                    let left = max(shift, 0), right = max(-shift, 0)
                    let high = Int128(oracleHighMul(Int32(truncatingIfNeeded: Int64(x) << left), m))
                    // Ties toward +infinity: floor(high / 2^right + 1/2).
                    let expected = right == 0 ? high : floorDivide(2 * high + (Int128(1) << right), Int128(1) << (right + 1))
                    XCTAssertEqual(Int128(IA.multiplyByQuantizedMultiplierRoundingUp(x, m, shift)), expected, "\(x) * \(m) shift \(shift)")
                }
            }
        }
        XCTAssertEqual(IA.roundingDivideByPOT(-3200, 8), -13)
        XCTAssertEqual(IA.multiplyByQuantizedMultiplierRoundingUp(-3200, 1 << 30, -7), -12, "-12.5 rounds up")
    }

    /// The one-shift form used by the vectorized requantizations equals both two-step roundings everywhere,
    /// including every exact tie of the final shift (x = (2j+1)·2^r with m = 2^30 puts h on a tie at shift -r).
    func testFoldedMultiplierEqualsTwoStepRounding() {
        var inputs = edgeValues()
        for r in 1...29 { for j in -2...2 where abs(2 * j + 1) << r <= Int(Int32.max) { inputs.append(Int32((2 * j + 1) << r)) } }
        for shift in -31...30 {
            for m: Int32 in [0, 1, 1 << 30, (1 << 30) + 1, 1_363_945_730, 1_518_500_250, .max] {
                let away = IA.FoldedMultiplier(multiplier: m, shift: shift, roundingUp: false)
                let up = IA.FoldedMultiplier(multiplier: m, shift: shift, roundingUp: true)
                for x in inputs {
                    XCTAssertEqual(away.apply(x), Int64(IA.multiplyByQuantizedMultiplier(x, m, shift)), "\(x) * \(m) shift \(shift)")
                    XCTAssertEqual(up.apply(x), Int64(IA.multiplyByQuantizedMultiplierRoundingUp(x, m, shift)), "\(x) * \(m) shift \(shift) up")
                }
            }
        }
    }

    func testQuantizeMultiplierAgainstFrexp() {
        var generator = SystemRandomNumberGenerator()
        var cases: [Double] = [1, 0.5, 0.25, 2, 3, 1e-3, 1e-9, 1.0 / 3, 0.9999999999, 0.99999999999999, Double(Float.leastNormalMagnitude),
                               0x1p-31, 0x1p-32, 0x1p-31 * 0.9999999, 1e5]
        cases += (0..<5000).map { _ in Foundation.pow(2.0, Double.random(in: -40...20, using: &generator)) }
        for value in cases {
            var exponent: Int32 = 0
            let fraction = frexp(value, &exponent)
            var fixed = Int64((fraction * 2147483648.0).rounded(.toNearestOrAwayFromZero))
            var shift = Int(exponent)
            if fixed == 1 << 31 { fixed /= 2; shift += 1 }
            if shift < -31 { fixed = 0; shift = 0 }
            let (m, s) = IA.quantizeMultiplier(value)
            XCTAssertEqual(Int64(m), fixed, "\(value)")
            XCTAssertEqual(s, shift, "\(value)")
            if m != 0 { XCTAssert(m >= 1 << 30, "\(value) normalised") }
        }
        // q rounds up to exactly 2^31: the fix-up halves it and bumps the exponent.
        let nearlyOne = 1 - 0x1p-33
        XCTAssertEqual(IA.quantizeMultiplier(nearlyOne).multiplier, 1 << 30)
        XCTAssertEqual(IA.quantizeMultiplier(nearlyOne).shift, 1)
        XCTAssertEqual(IA.quantizeMultiplier(0).multiplier, 0)
    }

    func testQuantizedActivationRanges() throws {
        XCTAssertEqual(try IA.activationRange(.none, scale: 0.1, zeroPoint: 10, typeMin: 0, typeMax: 255).0, 0)
        XCTAssertEqual(try IA.activationRange(.relu, scale: 0.1, zeroPoint: 10, typeMin: 0, typeMax: 255).0, 10)
        let relu6 = try IA.activationRange(.relu6, scale: 0.0235, zeroPoint: 0, typeMin: 0, typeMax: 255)
        XCTAssertEqual(relu6.0, 0)
        XCTAssertEqual(relu6.1, 255)  // round(6 / 0.0235) = 255
        let int8 = try IA.activationRange(.reluN1To1, scale: 0.01, zeroPoint: -5, typeMin: -128, typeMax: 127)
        XCTAssertEqual(int8.0, -105)
        XCTAssertEqual(int8.1, 95)
    }
}
