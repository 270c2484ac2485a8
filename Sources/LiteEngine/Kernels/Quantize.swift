import Foundation
import LiteFormat

/// QUANTIZE: float32 to uint8/int8/int16 (`round(x / scale) + zero_point`, rounded as LiteRT's optimized
/// AffineQuantize rounds, see `affineQuantize`), or uint8/int8/int16 to uint8/int8/int16 (requantize:
/// `MultiplyByQuantizedMultiplier(q - zp_in, input_scale / output_scale) + zp_out`, which for equal scales is a plain
/// shift of the zero point; 16x8 models requantize int16 to int16 where a CONCATENATION's inputs differ in scale).
final class Quantize: Kernel {
    /// How the node runs, chosen in `prepare` by the input's type.
    enum Plan {
        /// float32 in: `round(x / scale) + zeroPoint`, clamped.
        case affine(scale: Double, zeroPoint: Int32)
        /// int16 in or out: the stored value less its zero point, rescaled, plus the output's zero point, clamped.
        case requantize(multiplier: Int32, shift: Int, inputZero: Int32, outputZero: Int32)
        /// 8 bits to 8 bits: the requantization of each of the 256 input values, looked up.
        case table(QuantizedLookupTable)
    }

    private var plan = Plan.affine(scale: 1, zeroPoint: 0)

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32, .uint8, .int8, .int16)
        try expectType(output, .uint8, .int8, .int16)
        let qo = try QuantizedTensorInfo(output)
        guard qo.scales.count == 1 else { throw KernelError.unsupported("per-channel QUANTIZE output") }
        switch input.type {
        case .float32:
            plan = .affine(scale: Double(qo.scale), zeroPoint: qo.zeroPoint)
        default:
            let qi = try QuantizedTensorInfo(input)
            let (m, s) = IntegerArithmetic.quantizeMultiplier(Double(qi.scale) / Double(qo.scale))
            guard s <= 30 else { throw KernelError.unsupported("requantization multiplier too large") }
            if input.type == .int16 || output.type == .int16 {
                plan = .requantize(multiplier: m, shift: s, inputZero: qi.zeroPoint, outputZero: qo.zeroPoint)
            } else {
                let folded = IntegerArithmetic.FoldedMultiplier(multiplier: m, shift: s, roundingUp: false)
                let (low, high) = try quantizedRange(output.type), (inputZero, outputZero) = (qi.zeroPoint, qo.zeroPoint)
                plan = .table(QuantizedLookupTable(signed: input.type == .int8) { x in
                    Int32(min(max(folded.apply(x &- inputZero) &+ Int64(outputZero), Int64(low)), Int64(high)))
                })
            }
        }
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        switch plan {
        case .affine(let scale, let zeroPoint): try runAffine(context, scale: scale, zeroPoint: zeroPoint)
        case .requantize(let multiplier, let shift, let inputZero, let outputZero):
            try runRequantize(context, IntegerArithmetic.FoldedMultiplier(multiplier: multiplier, shift: shift, roundingUp: false),
                              inputZero: inputZero, outputZero: outputZero)
        case .table(let table): table.apply(node.inputs[0]!, node.outputs[0], threads: context.threads)
        }
    }

    private func runAffine(_ context: RunContext, scale: Double, zeroPoint: Int32) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let (low, high) = try quantizedRange(output.type)
        let count = input.elementCount
        // Whole groups of 8 split over threads (each share is whole groups, so every value takes the path it takes
        // in one pass: the same results), then the tail.
        let x = input.floats, groups = count / 8
        @inline(__always) func quantize<Output: FixedWidthInteger>(_ out: UnsafeMutablePointer<Output>) {
            parallelFor(groups, threads: context.threads, minimumChunk: 256, workPerItem: 32) { range in
                Self.affineQuantize(x + 8 * range.lowerBound, count: 8 * range.count, scale: scale, zeroPoint: zeroPoint, low: low, high: high,
                                    into: out + 8 * range.lowerBound)
            }
            Self.affineQuantize(x + 8 * groups, count: count - 8 * groups, scale: scale, zeroPoint: zeroPoint, low: low, high: high,
                                into: out + 8 * groups)
        }
        switch output.type {
        case .int8: quantize(output.pointer(Int8.self))
        case .int16: quantize(output.pointer(Int16.self))
        default: quantize(output.pointer(UInt8.self))
        }
    }

    private func runRequantize(_ context: RunContext, _ folded: IntegerArithmetic.FoldedMultiplier, inputZero: Int32, outputZero: Int32) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let (low, high) = try quantizedRange(output.type)
        let count = input.elementCount
        // Each value on its own, so any split over threads gives the same results.
        @inline(__always) func split<Input: FixedWidthInteger, Output: FixedWidthInteger>(_ x: UnsafePointer<Input>, _ out: UnsafeMutablePointer<Output>) {
            parallelFor(count, threads: context.threads, minimumChunk: 2048, workPerItem: 4) { range in
                Self.requantize(x + range.lowerBound, range.count, folded, inputZero, outputZero, low, high, out + range.lowerBound)
            }
        }
        @inline(__always) func from<Input: FixedWidthInteger>(_ x: UnsafePointer<Input>) {
            switch output.type {
            case .int8: split(x, output.pointer(Int8.self))
            case .int16: split(x, output.pointer(Int16.self))
            default: split(x, output.pointer(UInt8.self))
            }
        }
        switch input.type {
        case .int8: from(input.pointer(Int8.self))
        case .int16: from(input.pointer(Int16.self))
        default: from(input.pointer(UInt8.self))
        }
    }

    /// `clamp(round(x / scale) + zero_point)` as LiteRT's optimized AffineQuantize computes it: each whole group of
    /// 8 values (its vector code) as `x · Float(1 / scale)` in single precision rounded half to even, the values
    /// left over (its scalar loop) as `x / scale` in double rounded half away from zero. The two differ on ties
    /// (`q_quantize_float_ties`) and, through the rounded reciprocal, on values near them (`q_quantize_float_uint8`).
    /// Both loops vectorize: ±0.49999999999999994 (the largest double below 1/2) and a truncation round half away
    /// from zero, and adding 1.5·2^52 (1.5·2^23 in single precision) turns a clamped integer into its bits without a
    /// trapping conversion. NaN quantizes to the zero point.
    @inline(__always)
    static func affineQuantize<Output: FixedWidthInteger>(_ x: UnsafePointer<Float>, count: Int, scale: Double, zeroPoint: Int32, low: Int32,
                                                          high: Int32, into output: UnsafeMutablePointer<Output>) {
        let vectorCount = count / 8 * 8
        let reciprocal = Float(1 / scale)
        let singleMagic: Float = 12_582_912
        let singleMagicBits = Int32(bitPattern: singleMagic.bitPattern)
        let (zeroSingle, lowestSingle, highestSingle) = (Float(zeroPoint), Float(low), Float(high))
        for i in 0..<vectorCount {
            let v = (x[i] * reciprocal).rounded(.toNearestOrEven)
            var r = v.isNaN ? zeroSingle : v + zeroSingle
            r = r < lowestSingle ? lowestSingle : r
            r = r > highestSingle ? highestSingle : r
            output[i] = Output(truncatingIfNeeded: Int32(bitPattern: (r + singleMagic).bitPattern) &- singleMagicBits)
        }
        let half = 0.49999999999999994, magic: Double = 6_755_399_441_055_744
        let magicBits = Int64(bitPattern: magic.bitPattern)
        let (zero, lowest, highest) = (Double(zeroPoint), Double(low), Double(high))
        for i in vectorCount..<count {
            let v = Double(x[i]) / scale
            var r = (v + (v < 0 ? -half : half)).rounded(.towardZero)
            r = r.isNaN ? zero : r + zero
            r = r < lowest ? lowest : r
            r = r > highest ? highest : r
            output[i] = Output(truncatingIfNeeded: Int64(bitPattern: (r + magic).bitPattern) &- magicBits)
        }
    }

    @inline(__always)
    static func requantize<Input: FixedWidthInteger, Output: FixedWidthInteger>(
        _ x: UnsafePointer<Input>, _ count: Int, _ multiplier: IntegerArithmetic.FoldedMultiplier, _ inputZero: Int32, _ outputZero: Int32,
        _ low: Int32, _ high: Int32, _ output: UnsafeMutablePointer<Output>
    ) {
        let (zero, lowest, highest) = (Int64(outputZero), Int64(low), Int64(high))
        for i in 0..<count {
            let value = multiplier.apply(Int32(truncatingIfNeeded: x[i]) &- inputZero) &+ zero
            output[i] = Output(truncatingIfNeeded: min(max(value, lowest), highest))
        }
    }
}
