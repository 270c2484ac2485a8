@testable import LiteEngine
import XCTest

/// `fast` numerics replays TFLite's fixed-point rescale in double precision (vectorizable without 64-bit integer
/// multiplies). Against the integer primitives: every result within one step, and differences only where the
/// 62-bit product x·m loses bits in a double, which needs x·m / 2^31 within 2^-21 of a half.
final class FastRequantizationTests: XCTestCase {
    typealias IA = IntegerArithmetic

    func fast(_ x: Int32, _ multiplier: Int32, _ shift: Int, roundingUp: Bool) -> Int32 {
        let left = shift > 0 ? Double(sign: .plus, exponent: shift, significand: 1) : 1
        let right = shift > 0 ? 1 : Double(sign: .plus, exponent: shift, significand: 1)
        let high = highMultiplyInDouble(Double(x) * left, Double(multiplier))
        let y = high * right
        return Int32(roundingUp ? (y + 0.5).rounded(.down) : divideByPowerOfTwoInDouble(high, scale: right))
    }

    func testMatchesTheIntegerRescaleOnRandomAccumulators() {
        var generator = SystemRandomNumberGenerator()
        var differences = 0, cases = 0
        for _ in 0..<200_000 {
            let x = Int32.random(in: -(1 << 22)...(1 << 22), using: &generator)
            let multiplier = Int32.random(in: (1 << 30)...Int32.max, using: &generator)
            let shift = Int.random(in: -14...1, using: &generator)
            for roundingUp in [false, true] {
                let exact = roundingUp ? IA.multiplyByQuantizedMultiplierRoundingUp(x, multiplier, shift) : IA.multiplyByQuantizedMultiplier(x, multiplier, shift)
                let replayed = fast(x, multiplier, shift, roundingUp: roundingUp)
                XCTAssertLessThanOrEqual(abs(Int(exact) - Int(replayed)), 1, "x \(x) m \(multiplier) shift \(shift)")
                if exact != replayed { differences += 1 }
                cases += 1
            }
        }
        XCTAssertLessThanOrEqual(differences, cases / 100_000, "\(differences) of \(cases) differ")
    }

    /// Exact ties of both roundings, where the rounding direction is all that matters.
    func testTiesRoundAsTFLite() {
        let multiplier = Int32(1 << 30)  // x·m / 2^31 = x / 2: every odd x is a tie of the high multiply
        for shift in -6...0 {
            for x in Int32(-300)...300 {
                XCTAssertEqual(fast(x, multiplier, shift, roundingUp: false), IA.multiplyByQuantizedMultiplier(x, multiplier, shift), "x \(x) shift \(shift)")
                XCTAssertEqual(fast(x, multiplier, shift, roundingUp: true), IA.multiplyByQuantizedMultiplierRoundingUp(x, multiplier, shift), "x \(x) shift \(shift)")
            }
        }
    }
}
