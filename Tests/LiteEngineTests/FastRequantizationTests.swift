@testable import LiteEngine
import LiteFormat
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

    /// A convolution's per-channel requantization with symmetric filters, one filter scale per channel.
    func channelRequantization(inputScale: Float, inputZero: Int32, filterScales: [Float], outputScale: Float, outputZero: Int32,
                               activation: FusedActivation, outputType: TensorType) throws -> ChannelRequantization {
        try ChannelRequantization(
            input: QuantizedTensorInfo(scales: [inputScale], zeroPoints: [inputZero]),
            filter: QuantizedTensorInfo(scales: filterScales, zeroPoints: [Int32](repeating: 0, count: filterScales.count)),
            output: QuantizedTensorInfo(scales: [outputScale], zeroPoints: [outputZero]), channels: filterScales.count, activation: activation,
            outputType: outputType)
    }

    /// The row requantization of the VNNI kernels (AVX-512 at the avx512vnni level, AVX2 at avx2 and avx512, plain Swift at baseline)
    /// equals the scalar integer one on every channel: both roundings, multipliers above one (left shifts), per-channel
    /// and uniform row-sum factors, channel counts that leave a partial vector.
    ///
    /// Also with every multiplier below one half (no left shift, right shifts 1 to 31): AVX2 builds then shift the
    /// high 32 bits of each 64-bit sum instead of the sum, and right shifts past 22 leave the zero point out of the
    /// addend.
    func testExactRowRequantizationEqualsTheScalarOne() throws {
        var generator = SystemRandomNumberGenerator()
        for (channels, rightShiftsOnly) in [(1, false), (7, false), (16, false), (21, false), (40, false), (1, true), (13, true), (32, true)] {
            for outputType in [TensorType.int8, .uint8] {
                let filterScales = (0..<channels).map { c in
                    rightShiftsOnly ? Float(pow(2, Double.random(in: -31...(-2), using: &generator)))
                        : c % 5 == 0 ? Float.random(in: 3...40, using: &generator) : Float.random(in: 0.0005...0.02, using: &generator)
                }
                let outputZero: Int32 = outputType == .int8 ? -5 : 120
                let requantization = try channelRequantization(inputScale: 0.05, inputZero: 3, filterScales: filterScales, outputScale: 0.1,
                                                               outputZero: outputZero, activation: .relu6, outputType: outputType)
                XCTAssertEqual(requantization.shifts.contains { $0 > 0 }, !rightShiftsOnly, "the case should include left shifts, or not")
                let padded = (channels + 15) & ~15
                for uniform in [false, true] {
                    let factors = (0..<padded).map { _ in uniform ? Int32(128) : Int32.random(in: 0...255, using: &generator) }
                    let rowRequantization = ExactRequantization(requantization, paddedChannels: padded, rowSumFactors: factors)
                    for _ in 0..<50 {
                        let accumulators = (0..<padded).map { _ in Int32.random(in: -(1 << 22)...(1 << 22), using: &generator) }
                        let constants = (0..<padded).map { _ in Int32.random(in: -(1 << 20)...(1 << 20), using: &generator) }
                        let rowSum = Int32.random(in: -5000...5000, using: &generator)
                        for roundingUp in [true, false] {
                            var output = [UInt8](repeating: 0, count: channels)
                            output.withUnsafeMutableBytes { out in
                                rowRequantization.requantizeRow(accumulators, constants: constants, rowSumFactors: factors, rowSum: rowSum,
                                                                channels: channels, into: out.baseAddress!, roundingUp: roundingUp)
                            }
                            for c in 0..<channels {
                                let x = accumulators[c] &+ constants[c] &- factors[c] &* rowSum
                                let expected = roundingUp ? requantization.applyRoundingUp(x, channel: c) : requantization.apply(x, channel: c)
                                XCTAssertEqual(output[c], UInt8(truncatingIfNeeded: expected), "channel \(c) of \(channels), x \(x), up \(roundingUp)")
                            }
                        }
                    }
                }
            }
        }
    }

    /// The AVX2 block requantization (GEMM and depthwise) against the scalar one on exact ties (power-of-two scales,
    /// so one value in eight is a tie), asked to round away from zero with the first `upwardChannels` rounding up:
    /// blocks of 8 channels that round alike go sixteen at a time, and a pair that does not must not.
    func testBlockRequantizationFollowsEachChannelsRounding() throws {
        guard QuantizedGEMMAVX2.isUsed else { return }
        var generator = SystemRandomNumberGenerator()
        for (channels, upward) in [(16, 0), (16, 8), (32, 8), (40, 24), (40, 16), (21, 16), (48, 40)] {
            for outputType in [TensorType.int8, .uint8] {
                let filterScales = (0..<channels).map { c in Float(pow(2, -Double(2 + c % 5))) }
                let outputZero: Int32 = outputType == .int8 ? -3 : 131
                var requantization = try channelRequantization(inputScale: 1, inputZero: 0, filterScales: filterScales, outputScale: 1,
                                                               outputZero: outputZero, activation: .none, outputType: outputType)
                requantization.upwardChannels = upward
                let padded = (channels + 15) & ~15, rows = 3
                let block = ExactRequantization(requantization, paddedChannels: padded)
                let accumulators = (0..<rows * padded).map { _ in Int32.random(in: -900...900, using: &generator) }
                let zeros = [Int32](repeating: 0, count: padded)
                var output = [UInt8](repeating: 0, count: rows * channels)
                output.withUnsafeMutableBytes { out in
                    block.requantizeBlock8(accumulators, accumulatorStride: padded, rows: rows, constants: zeros, channels: 0..<channels,
                                           into: out.baseAddress!, outputStride: channels, roundingUp: false)
                }
                for r in 0..<rows {
                    for c in 0..<channels {
                        let expected = requantization.apply(accumulators[r * padded + c], channel: c)
                        XCTAssertEqual(output[r * channels + c], UInt8(truncatingIfNeeded: expected),
                                       "\(outputType) channel \(c) of \(channels), \(upward) rounding up, x \(accumulators[r * padded + c])")
                    }
                }
            }
        }
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
