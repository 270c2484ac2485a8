import CLiteKernels
import Foundation
import LiteFormat

/// Hybrid kernels: constant int8 weights, float activations (dynamic-range quantization). Each batch row of the
/// input is quantized to int8 on the fly, multiplied with the int8 weights in int32 (exact), and the sums are
/// scaled back to float: `out = bias + float(Σ q·w − offset · Σ w) · (input_scale · weight_scale[channel])`, as
/// TFLite's hybrid FULLY_CONNECTED (`MatrixBatchVectorMultiplyAccumulate`) and per-channel hybrid CONV_2D
/// (`HybridConvPerChannel`).
struct HybridWeights {
    /// [channels, depth] weights.
    let values: [Int8]
    let channels: Int
    let depth: Int
    /// One scale per channel (a per-tensor scale repeated).
    let scales: [Float]

    init(_ tensor: Tensor, channels: Int) throws {
        guard tensor.type == .int8, tensor.storage != .arena, let data = tensor.data else {
            throw KernelError.unsupported("hybrid weights must be a constant int8 tensor")
        }
        let info = try QuantizedTensorInfo(tensor)
        guard info.zeroPoints.allSatisfy({ $0 == 0 }) else { throw KernelError.unsupported("hybrid weights must be symmetric (zero point 0)") }
        guard info.scales.count == 1 || info.scales.count == channels else {
            throw KernelError.invalid("\(info.scales.count) weight scales for \(channels) channels")
        }
        self.channels = channels
        depth = tensor.elementCount / max(channels, 1)
        values = Array(UnsafeBufferPointer(start: data.assumingMemoryBound(to: Int8.self), count: tensor.elementCount))
        scales = info.scales.count == 1 ? Array(repeating: info.scales[0], count: channels) : info.scales
    }
}

/// `Σ_k a[r, k] · w[c, k]` of integer-valued rows (quantized inputs less their offset: |a| ≤ 255) and a hybrid kernel's
/// int8 weights, exact: the packed float GEMM on slices of the weight rows under 518 values (every product and partial
/// sum of a slice is then an integer below 2^24, exact in float), the slices' sums added in int32; in builds without
/// the packed GEMM, dgemm on doubles. Each sum is returned as `Float(Int32)`, TFLite's `float(acc)`.
final class HybridMatrixProduct {
    struct Slice {
        let columns: Range<Int>
        let gemm: PackedFilterGEMM
    }

    let channels: Int
    let depth: Int
    private var slices: [Slice] = []
    private var doubleWeights: [Double] = []

    convenience init(_ weights: HybridWeights) {
        self.init(values: weights.values, channels: weights.channels, depth: weights.depth)
    }

    /// `values`: `channels` rows of `depth` int8 weights.
    init(values weights: [Int8], channels: Int, depth: Int) {
        self.channels = channels
        self.depth = depth
        let count = (depth + 516) / 517
        slices = weights.map { Float($0) }.withUnsafeBufferPointer { values in
            (0..<count).compactMap { s -> Slice? in
                let columns = (s * depth / count)..<((s + 1) * depth / count)
                let slice = (0..<channels).flatMap { c in values[(c * depth + columns.lowerBound)..<(c * depth + columns.upperBound)] }
                return slice.withUnsafeBufferPointer { PackedFilterGEMM.make(filter: $0.baseAddress!, n: channels, k: columns.count, bias: nil) }
                    .map { Slice(columns: columns, gemm: $0) }
            }
        }
        if slices.count < count {
            slices = []
            doubleWeights = weights.map { Double($0) }
        }
    }

    /// Whether each sum is exact as a float whatever the values (the packed GEMM on one slice: under 518 products of
    /// at most 255·127).
    var sumsAreExactFloats: Bool { slices.count == 1 }

    /// Scratch bytes `run` needs for `rows` rows besides the rows themselves.
    func scratchBytes(rows: Int) -> Int {
        slices.isEmpty ? saturatingProduct(rows, depth + channels, 8) : saturatingProduct(max(slices.count - 1, 0), rows, channels, 4)
    }

    /// `sums[r · channels + c]` for `rows` rows of `a`, `depth` apart.
    func run(_ a: UnsafePointer<Float>, rows: Int, into sums: UnsafeMutablePointer<Float>, scratch: UnsafeMutableRawPointer, threads: Int) {
        let outputs = rows * channels
        if outputs == 0 { return }
        if depth == 0 { return sums.update(repeating: 0, count: outputs) }
        if slices.isEmpty {
            let doubles = scratch.assumingMemoryBound(to: Double.self), products = doubles + rows * depth
            for i in 0..<(rows * depth) { doubles[i] = Double(a[i]) }
            doubleWeights.withUnsafeBufferPointer { w in
                BLAS.dgemmTransposedB(m: rows, n: channels, k: depth, a: doubles, b: w.baseAddress!, c: products, threads: threads)
            }
            for i in 0..<outputs { sums[i] = Float(Int32(products[i])) }
            return
        }
        let partials = scratch.assumingMemoryBound(to: Float.self)
        for (s, slice) in slices.enumerated() {
            slice.gemm.run(a: a + slice.columns.lowerBound, lda: depth, rows: rows, c: s == 0 ? sums : partials + (s - 1) * outputs,
                           ldc: channels, activation: (-.infinity, .infinity), threads: threads)
        }
        for s in 1..<max(1, slices.count) {
            let partial = partials + (s - 1) * outputs
            for i in 0..<outputs { sums[i] = Float(Int32(sums[i]) &+ Int32(partial[i])) }
        }
    }
}

enum HybridQuantization {
    #if arch(x86_64)
    /// The vector quantization kernels of ``KernelConfiguration/current`` (nil at baseline).
    private static let kernels = KernelConfiguration.current.elementwise
    #endif

    /// The hybrid kernels' last step: `sums[i, r, c] · (weightScale[c] · imageScale[i]) + bias[c]`, clamped to
    /// `activation`, in place, for `images` images of `rows` rows of `channels` sums (TFLite's `float(acc) · scale +
    /// bias`; a FULLY_CONNECTED row is an image of one row). Rows are split over `threads`.
    ///
    /// `depthwiseOrder`: the two scales applied one after the other, as LiteRT's hybrid DEPTHWISE_CONV_2D does: its
    /// vector loop (channels in whole groups of four) `(sum · weightScale) · imageScale`, its scalar loop for the
    /// channels left over `(sum · imageScale) · weightScale`.
    static func rescale(_ sums: UnsafeMutablePointer<Float>, images: Int, rows: Int, channels: Int, imageScales: [Float], weightScales: [Float],
                        bias: Tensor?, activation: (Float, Float), depthwiseOrder: Bool = false, threads: Int) {
        // A bias of zeros when there is none: an optional read per value compiled to masked loads, which dominated
        // a FULLY_CONNECTED layer's time.
        let bias = bias.map { Array(UnsafeBufferPointer(start: $0.floats, count: channels)) } ?? [Float](repeating: 0, count: channels)
        let (low, high) = activation
        bias.withUnsafeBufferPointer { bias in
            weightScales.withUnsafeBufferPointer { weightScales in
                for image in 0..<images {
                    let imageScale = imageScales[image], first = sums + image * rows * channels
                    parallelFor(rows, threads: threads, workPerItem: 2 * channels) { range in
                        for r in range {
                            let row = first + r * channels
                            if depthwiseOrder {
                                let grouped = channels - channels % 4
                                for c in 0..<grouped { row[c] = Swift.min(Swift.max(row[c] * weightScales[c] * imageScale + bias[c], low), high) }
                                for c in grouped..<channels { row[c] = Swift.min(Swift.max(row[c] * imageScale * weightScales[c] + bias[c], low), high) }
                                continue
                            }
                            for c in 0..<channels { row[c] = Swift.min(Swift.max(row[c] * (weightScales[c] * imageScale) + bias[c], low), high) }
                        }
                    }
                }
            }
        }
    }

    /// The hybrid convolutions' input (TFLite's EvalHybrid of CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV): each batch
    /// image of a float tensor quantized to int8 as a whole, asymmetrically or (per-tensor CONV_2D) symmetrically, and
    /// written as `q − offset` (padding 0 then contributes what TFLite's zero-point padding does). Returns each image's
    /// scale.
    static func quantizeImages<Value: ExactAccumulator>(_ input: Tensor, asymmetric: Bool = true, offsets: UnsafeMutablePointer<Value>,
                                                        threads: Int = 1) -> [Float] {
        let batches = input.dim(0)
        return quantizeRows(input.floats, rows: batches, length: input.elementCount / max(batches, 1), asymmetric: asymmetric, offsets: offsets,
                            threads: threads)
    }

    /// Each of `rows` rows of `length` floats quantized on its own (`BatchQuantizeFloats`), written as `q − offset`;
    /// returns each row's scale. A long row (an image) is split over `threads`: its range from the pieces' ranges
    /// (minima and maxima, so the same in any split), then its values.
    static func quantizeRows<Value: ExactAccumulator>(_ values: UnsafePointer<Float>, rows: Int, length: Int, asymmetric: Bool,
                                                      offsets: UnsafeMutablePointer<Value>, threads: Int = 1) -> [Float] {
        (0..<rows).map { b in
            let image = values + b * length
            let pieces = threads > 1 && length >= 1 << 15 ? threads : 1
            var (smallest, largest) = range(image, count: pieces == 1 ? length : 0)
            if pieces > 1 {
                var lows = [Float](repeating: 0, count: pieces), highs = lows
                lows.withUnsafeMutableBufferPointer { lows in
                    highs.withUnsafeMutableBufferPointer { highs in
                        parallelFor(pieces, threads: pieces) { range in
                            for p in range { (lows[p], highs[p]) = self.range(image + length * p / pieces, count: length * (p + 1) / pieces - length * p / pieces) }
                        }
                    }
                }
                (smallest, largest) = (lows.min()!, highs.max()!)
            }
            let (scale, inverse, offset) = asymmetric ? asymmetricParameters(low: smallest, high: largest)
                : symmetricParameters(low: smallest, high: largest)
            let low: Float = asymmetric ? -128 : -127
            let target = offsets + b * length
            // The row's first `length & ~7` values round as LiteRT's eight-lane loop rounds them, the rest as its
            // remainder loop (see `quantizedValues`): each piece is told how many of its values lie in the first part.
            let laneEnd = length & ~7
            if Value.self == Float.self {
                let floats = UnsafeMutableRawPointer(target).assumingMemoryBound(to: Float.self)
                parallelFor(length, threads: pieces, minimumChunk: 4096) { range in
                    quantizedValues(image + range.lowerBound, count: range.count, laneCount: min(max(laneEnd - range.lowerBound, 0), range.count),
                                    inverse: inverse, zeroPoint: offset, low: low, into: floats + range.lowerBound)
                }
            } else {
                withUnsafeTemporaryAllocation(of: Float.self, capacity: 1024) { block in
                    for start in stride(from: 0, to: length, by: 1024) {
                        let count = min(1024, length - start)
                        quantizedValues(image + start, count: count, laneCount: min(max(laneEnd - start, 0), count), inverse: inverse,
                                        zeroPoint: offset, low: low, into: block.baseAddress!)
                        for i in 0..<count { target[start + i] = Value(exactly: Int32(block[i])) }
                    }
                }
            }
            return scale
        }
    }

    /// `q − zeroPoint` as floats for each x, where q = clamp(zeroPoint + round(x · inverse), low, 127), as LiteRT's
    /// x86 build quantizes (`NeonAsymmetricQuantizeFloats` and `NeonSymmetricQuantizeFloats` through NEON_2_SSE): the
    /// product rounded on its own and the zero point added after, the first `laneCount` values rounded as its
    /// eight-lane loop rounds (``roundedInLanes(_:)``), the rest as its remainder loop (``roundedHalfAway(_:)``).
    /// Eight lanes at a time where the configuration has the kernel.
    @inline(__always)
    private static func quantizedValues(_ values: UnsafePointer<Float>, count: Int, laneCount: Int, inverse: Float, zeroPoint: Float,
                                        low: Float, into output: UnsafeMutablePointer<Float>) {
        var i = 0
        #if arch(x86_64)
        if let kernels { i = kernels.quantizeOffsetF32(values, laneCount, inverse, zeroPoint, low, output) }
        #endif
        while i < laneCount {
            output[i] = clamped(zeroPoint + roundedInLanes(values[i] * inverse), low: low) - zeroPoint
            i += 1
        }
        while i < count {
            output[i] = clamped(zeroPoint + roundedHalfAway(values[i] * inverse), low: low) - zeroPoint
            i += 1
        }
    }

    /// `tensor_utils::AsymmetricQuantizeFloats` as LiteRT's x86 build runs it (`NeonAsymmetricQuantizeFloats`): the
    /// range [min(0, min x), max(0, max x)] mapped onto [-128, 127] with a nudged zero point, in double; each value
    /// times the float inverse scale, rounded (``quantizedValues``), plus the zero point.
    static func quantizeAsymmetric(_ values: UnsafePointer<Float>, count: Int, into output: UnsafeMutablePointer<Int8>) -> (scale: Float, offset: Int32) {
        let (low, high) = range(values, count: count)
        let (scale, inverse, zeroPoint) = asymmetricParameters(low: low, high: high)
        quantizedInt8(values, count: count, inverse: inverse, zeroPoint: zeroPoint, low: -128, into: output)
        return (scale, Int32(zeroPoint))
    }

    /// `count` values quantized as ``quantizedValues`` quantizes one row, stored as the int8 q.
    private static func quantizedInt8(_ values: UnsafePointer<Float>, count: Int, inverse: Float, zeroPoint: Float, low: Float,
                                      into output: UnsafeMutablePointer<Int8>) {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 1024) { block in
            for start in stride(from: 0, to: count, by: 1024) {
                let n = min(1024, count - start)
                quantizedValues(values + start, count: n, laneCount: min(max((count & ~7) - start, 0), n), inverse: inverse,
                                zeroPoint: zeroPoint, low: low, into: block.baseAddress!)
                for i in 0..<n { output[start + i] = Int8(block[i] + zeroPoint) }
            }
        }
    }

    /// The scale, its float inverse and the zero point of `AsymmetricQuantizeFloats` (scale 1 and inverse 0 for a
    /// constant range, so every value quantizes to 0).
    ///
    /// `rmax − rmin` is taken in single precision and then divided in double, as in the tensor_utils quantization
    /// LiteRT's hybrid kernels call (its minimum and maximum are floats): in double the scale is one bit off for about
    /// one row in five (`hybrid_batch_matmul`, `hybrid_depthwise_batch2_valid`, `hybrid_conv_float_width`, compared
    /// bit for bit).
    private static func asymmetricParameters(low: Float, high: Float) -> (scale: Float, inverse: Float, zeroPoint: Float) {
        let rmin = Double(low), rmax = Double(high)
        if rmin == rmax { return (1, 0, 0) }
        let qmin = -128.0, qmax = 127.0
        let scale = Double(high - low) / (qmax - qmin)
        let fromMin = qmin - rmin / scale, fromMax = qmax - rmax / scale
        let errorMin = abs(qmin) + abs(rmin / scale), errorMax = abs(qmax) + abs(rmax / scale)
        let zero = errorMin < errorMax ? fromMin : fromMax
        // An infinite input makes the zero point NaN (inf / inf); TFLite's cast of it is undefined (0 on x86): 0 here.
        let offset: Int32 = zero.isNaN ? 0 : zero <= qmin ? -128 : (zero >= qmax ? 127 : Int32(zero.rounded(.toNearestOrAwayFromZero)))
        // The inverse as LiteRT computes it: 1.0 / scale in double, then rounded to float (once in a while one bit
        // from the float division).
        let floatScale = Float(scale)
        return (floatScale, Float(1.0 / Double(floatScale)), Float(offset))
    }

    /// The smallest and largest value, and 0: eight lanes of running minima and maxima, then the lanes and the rest.
    @inline(__always)
    private static func range(_ values: UnsafePointer<Float>, count: Int) -> (Float, Float) {
        var low: Float = 0, high: Float = 0
        var i = 0
        #if arch(x86_64)
        if let kernels { i = kernels.rangeF32(values, count, &low, &high) }
        #endif
        while i < count {
            let v = values[i]
            low = v < low ? v : low
            high = v > high ? v : high
            i += 1
        }
        return (low, high)
    }

    /// LiteRT's rounding in the eight-lane loop of its quantizers (NEON_2_SSE's `RoundToNearest` without
    /// `vcvtaq`): p ± 1/2, truncated. It differs from rounding half away from zero only at |p| = 1/2 − 2^-25, where
    /// p + 1/2 rounds up to 1.
    @inline(__always)
    static func roundedInLanes(_ p: Float) -> Float {
        (p + (p < 0 ? -0.5 : 0.5)).rounded(.towardZero)
    }

    /// `std::round` (TfLiteRound) of the quantizers' remainder loop: half away from zero. Adding ±(1/2 − 2^-25) and
    /// truncating is exact for |p| < 2^22 and vectorizes where `rounded(.toNearestOrAwayFromZero)` calls libm.
    @inline(__always)
    static func roundedHalfAway(_ p: Float) -> Float {
        let half: Float = 0.49999997
        return (p + (p < 0 ? -half : half)).rounded(.towardZero)
    }

    /// `q` clamped to [low, 127]; NaN becomes `low`, as in the eight-lane kernel.
    @inline(__always)
    private static func clamped(_ q: Float, low: Float) -> Float {
        let above = q >= low ? q : low
        return above <= 127 ? above : 127
    }

    /// `tensor_utils::SymmetricQuantizeFloats` as LiteRT's x86 build runs it (`NeonSymmetricQuantizeFloats`): scale
    /// max|x| / 127, each value times 127 / max|x| rounded (``quantizedValues``) into [-127, 127].
    static func quantizeSymmetric(_ values: UnsafePointer<Float>, count: Int, into output: UnsafeMutablePointer<Int8>) -> Float {
        let (low, high) = range(values, count: count)
        let (scale, inverse, _) = symmetricParameters(low: low, high: high)
        quantizedInt8(values, count: count, inverse: inverse, zeroPoint: 0, low: -127, into: output)
        return scale
    }

    private static func symmetricParameters(low: Float, high: Float) -> (scale: Float, inverse: Float, zeroPoint: Float) {
        let range = Swift.max(abs(low), abs(high))
        if range == 0 { return (1, 0, 0) }
        return (range / 127, 127 / range, 0)
    }
}
