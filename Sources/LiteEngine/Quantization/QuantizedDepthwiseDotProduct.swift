import CLiteKernels
import LiteFormat

/// int8 and uint8 DEPTHWISE_CONV_2D on AVX-512 VNNI (`fast` numerics; bit-exact with TFLite's integer kernel, like
/// the int32 SIMD kernel it replaces for the filters it takes: channel multiplier 1, at most four rows high, int8
/// filters with zero point 0). `vpdpbusd` adds four products of an unsigned and a signed byte into each int32 lane,
/// so the four bytes of a channel's lane hold one input column's taps from four filter rows: for every input column
/// an output row touches, the bytes `x[iy0 + ky·dh, ix, c]` for ky = 0...3 are interleaved once (two shuffles per 16
/// channels), and each output pixel is then one `vpdpbusd` per filter column (two for uint8) instead of one
/// multiply per tap.
///
/// Operands. The input bytes are flipped (`x ^ 0x80`). Taps outside the input hold `x = x_zero` (contributing
/// nothing, as TFLite skips them) and filter rows past the filter's height hold weight 0 (and for uint8 a zero point
/// of 0), so sums over the whole filter (`Σ_all`) can replace TFLite's sums over the taps inside:
///
/// - int8: the unsigned side is `u = x + 128`, the signed side the filter, and
///   `bias + Σ_inside (x - x_zero)·w = Σ_all u·w + (bias - (x_zero + 128)·Σw)`.
/// - uint8: the signed side is `d = x - 128`, the unsigned side the filter w, whose offset `w - w_zero` would not fit
///   a byte, so a second `vpdpbusd` against `w_zero` takes it off:
///   `bias + Σ_inside (x - x_zero)(w - w_zero) = Σ_all d·w - Σ_all d·w_zero + (bias + (128 - x_zero)·Σ(w - w_zero))`.
///
/// The brackets are one constant per channel. The dot products stay below 16·255·128 in magnitude, far inside int32.
///
/// Requantization (`MultiplyByQuantizedMultiplier`: a doubling high multiply that rounds half away from zero, then
/// a right shift by r rounding half away from zero, then the output zero point) is done in registers. The high
/// product is `h = floor((x·m + 2^30) / 2^31)` (this equals the rounding of both signs) and the result
/// `floor((h + 2^(r-1) - [h < 0]) / 2^r) + zero = floor((h + K - [h < 0]) / 2^r)` with `K = 2^(r-1) + zero·2^r`
/// (no 2^(r-1) when r = 0, nor the sign term, which then adds nothing). So the 64-bit lanes compute
/// `t = h + K = (x·m + 2^30 + K·2^31) >> 31` in one add and one shift, `h < 0` is `t < K`, and one variable shift
/// of the 32-bit lanes finishes. That needs `t` to fit int32: layers are taken only when every accumulator is
/// below 2^30 in magnitude after the left shift (|constant| + 255·Σ|w| or 128·Σ|w - w_zero|, checked at load; then |h| < 2^30 and
/// |K| < 2^30 for r ≤ 22), which real layers are by far; the others keep the int32 kernel.
///
/// The kernel is C (`lite_qs8_dwconv__avx512vnni`), made only when ``KernelConfiguration/current`` selected the
/// `avx512vnni` level (``QuantizedGEMM/isUsed``).
final class QuantizedDepthwiseDotProduct {
    static let lanes = 16

    let channels: Int
    let blocks: Int
    let inputZeroPoint: Int8
    /// uint8 (the filter is the unsigned operand) rather than int8 (the input is).
    let isUInt8: Bool
    /// Per 16-channel block, per filter column: 16 lanes of [w(0, kx), w(1, kx), w(2, kx), w(3, kx)], rows past the
    /// filter 0. 64-byte aligned.
    let weights: UnsafeMutableRawPointer
    /// uint8 only, per 16-channel block: 16 lanes of the channel's filter zero point in each filter row's byte (0
    /// past the filter).
    let weightZeroPoints: UnsafeMutableRawPointer
    /// Per channel (padded to blocks): the start value of the accumulator (see the type's documentation).
    let constants: UnsafeMutablePointer<Int32>
    let multipliers: UnsafeMutablePointer<Int32>
    let leftShifts: UnsafeMutablePointer<Int32>
    let rightShifts: UnsafeMutablePointer<Int32>
    /// `K` per channel.
    let offsets: UnsafeMutablePointer<Int32>
    /// `2^30 + K·2^31` per channel as 64-bit values, per block the 8 even channels, then the 8 odd ones.
    let nudges: UnsafeMutablePointer<Int64>
    /// 1 for channels that shift right (and so round ties away from zero), else 0.
    let roundsAway: UnsafeMutablePointer<Int32>
    let hasLeftShifts: Bool
    let low: Int32, high: Int32
    /// Whether every accumulator fits the requantization's 32-bit lanes (see the type's documentation).
    private let isBounded: Bool
    /// The configuration's VNNI kernels when this kernel was made.
    private let kernels: QuantizedDotProductKernels?

    /// The kernel for a layer it can run exactly, or nil.
    static func make(input: Tensor, filter: Tensor, bias: Tensor?, filterZeroPoints: [Int32], inputZeroPoint: Int32,
                     requantization: ChannelRequantization) -> QuantizedDepthwiseDotProduct? {
        guard QuantizedGEMM.isUsed, input.type == .int8 || input.type == .uint8, filter.type == input.type,
              filter.dim(3) == input.dim(3), filter.dim(1) <= 4,
              input.type == .uint8 || filterZeroPoints.allSatisfy({ $0 == 0 }),
              requantization.shifts.allSatisfy({ $0 >= -22 }) else { return nil }
        let kernel = QuantizedDepthwiseDotProduct(filter: filter, bias: bias, filterZeroPoints: filterZeroPoints, inputZeroPoint: inputZeroPoint,
                                                  requantization: requantization)
        return kernel.isBounded ? kernel : nil
    }

    private init(filter: Tensor, bias: Tensor?, filterZeroPoints: [Int32], inputZeroPoint: Int32, requantization: ChannelRequantization) {
        kernels = KernelConfiguration.current.quantizedDotProducts
        channels = filter.dim(3)
        blocks = (channels + Self.lanes - 1) / Self.lanes
        let kernelH = filter.dim(1), kernelW = filter.dim(2)
        isUInt8 = filter.type == .uint8
        self.inputZeroPoint = Int8(truncatingIfNeeded: inputZeroPoint)
        let padded = blocks * Self.lanes
        weights = .allocate(byteCount: max(blocks * kernelW * 64, 64), alignment: 64)
        weights.initializeMemory(as: Int8.self, repeating: 0, count: max(blocks * kernelW * 64, 64))
        weightZeroPoints = .allocate(byteCount: max(blocks * 64, 64), alignment: 64)
        weightZeroPoints.initializeMemory(as: Int8.self, repeating: 0, count: max(blocks * 64, 64))
        constants = allocateAligned(Int32.self, count: padded)
        multipliers = allocateAligned(Int32.self, count: padded)
        leftShifts = allocateAligned(Int32.self, count: padded)
        rightShifts = allocateAligned(Int32.self, count: padded)
        offsets = allocateAligned(Int32.self, count: padded)
        roundsAway = allocateAligned(Int32.self, count: padded)
        nudges = allocateAligned(Int64.self, count: padded)
        for array in [constants, multipliers, leftShifts, rightShifts, offsets, roundsAway] { array.initialize(repeating: 0, count: padded) }
        nudges.initialize(repeating: 1 << 30, count: padded)
        var bounded = true
        let source = UnsafeRawPointer(filter.data!), zero = Int64(requantization.outputZeroPoint)
        for c in 0..<channels {
            let weightZero = isUInt8 ? Int64(filterZeroPoints.count == 1 ? filterZeroPoints[0] : filterZeroPoints[c]) : 0
            var offsetSum: Int64 = 0, magnitude: Int64 = 0
            for ky in 0..<kernelH {
                let lane = (c / Self.lanes) * 64 + (c % Self.lanes) * 4 + ky
                weightZeroPoints.storeBytes(of: UInt8(truncatingIfNeeded: weightZero), toByteOffset: lane, as: UInt8.self)
                for kx in 0..<kernelW {
                    let w = Int64(loadQuantized(source, (ky * kernelW + kx) * channels + c, signed: !isUInt8))
                    offsetSum += w - weightZero
                    magnitude += abs(w - weightZero)
                    weights.storeBytes(of: UInt8(truncatingIfNeeded: w), toByteOffset: ((c / Self.lanes) * kernelW + kx) * 64 + (c % Self.lanes) * 4 + ky,
                                       as: UInt8.self)
                }
            }
            let biasValue = Int64(bias.map { $0.pointer(Int32.self)[c] } ?? 0)
            let start = isUInt8 ? biasValue + (128 - Int64(inputZeroPoint)) * offsetSum : biasValue - (Int64(inputZeroPoint) + 128) * offsetSum
            let shift = requantization.shifts[c]
            let left = max(shift, 0), right = max(-shift, 0)
            // Every accumulator lies within start ± 255·Σ|w| (int8: u ≤ 255) or start ± 128·Σ|w - w_zero| (uint8:
            // |d| ≤ 128); after the left shift it must stay below 2^30.
            bounded = bounded && (abs(start) + (isUInt8 ? 128 : 255) * magnitude) << left < 1 << 30
            constants[c] = Int32(truncatingIfNeeded: start)
            multipliers[c] = requantization.multipliers[c]
            leftShifts[c] = Int32(left)
            rightShifts[c] = Int32(right)
            let k = (right > 0 ? Int64(1) << (right - 1) : 0) + zero << right
            offsets[c] = Int32(truncatingIfNeeded: k)
            nudges[ExactRequantization.slot(c)] = (1 << 30) + k << 31
            roundsAway[c] = right > 0 && !requantization.roundsUp(c, kernelRoundsUp: false) ? 1 : 0
        }
        isBounded = bounded
        hasLeftShifts = requantization.shifts.contains { $0 > 0 }
        low = requantization.low
        high = requantization.high
    }

    deinit {
        weights.deallocate()
        weightZeroPoints.deallocate()
        for array in [constants, multipliers, leftShifts, rightShifts, offsets, roundsAway] { deallocateAligned(array) }
        deallocateAligned(nudges)
    }

    /// Input columns an output row reads, from the first column's left padding to the last one's last tap.
    private static func columns(_ g: DepthwiseConv2D.Geometry) -> Int {
        let (span, overflow) = ((g.outW - 1) * g.strideW).addingReportingOverflow((g.kw - 1).multipliedReportingOverflow(by: g.dilationW).partialValue)
        return overflow ? .max : span + 1
    }

    /// Bytes of interleaved columns each thread holds for a layer of this geometry.
    func scratchBytes(_ g: DepthwiseConv2D.Geometry) -> Int {
        saturatingProduct(Self.columns(g), 64)
    }

    /// Beyond this (a filter dilated across thousands of columns, say) the layer takes the int32 kernel, which needs
    /// no buffer.
    static let maximumScratchBytes = 4 << 20

    func run(input: Tensor, output: Tensor, geometry g: DepthwiseConv2D.Geometry, threads: Int) {
        #if arch(x86_64)
        guard let kernels else { preconditionFailure("QuantizedDepthwiseDotProduct.run needs the avx512vnni kernel configuration") }
        guard g.batches > 0, g.outH > 0, g.outW > 0 else { return }
        let source = UnsafePointer<Int8>(OpaquePointer(input.data!)), destination = output.data!.assumingMemoryBound(to: Int8.self)
        let columns = Self.columns(g)
        var parameters = lite_qs8_dwconv_vnni(
            weights: UnsafeRawPointer(weights), weight_zero_points: UnsafeRawPointer(weightZeroPoints), constants: UnsafePointer(constants),
            multipliers: UnsafePointer(multipliers), left_shifts: UnsafePointer(leftShifts), right_shifts: UnsafePointer(rightShifts),
            offsets: UnsafePointer(offsets), rounds_away: UnsafePointer(roundsAway), nudges: UnsafePointer(nudges), channels: channels,
            blocks: blocks, low: low, high: high, has_left_shifts: hasLeftShifts ? 1 : 0, is_uint8: isUInt8 ? 1 : 0,
            input_zero_point: inputZeroPoint)
        var geometry = lite_qs8_dwconv_geometry(
            in_h: g.inH, in_w: g.inW, in_c: g.inC, kh: g.kh, kw: g.kw, out_h: g.outH, out_w: g.outW, stride_h: g.strideH,
            stride_w: g.strideW, dilation_h: g.dilationH, dilation_w: g.dilationW, pad_h: g.padH, pad_w: g.padW)
        withUnsafePointer(to: &parameters) { parameters in
            withUnsafePointer(to: &geometry) { geometry in
                parallelFor(g.batches * g.outH, threads: threads, workPerItem: g.outW * g.outC * g.kh * g.kw) { range in
                    // Per output row and 16-channel block: the row's input columns interleaved four filter rows deep,
                    // then each pixel's dot products and requantization.
                    let interleaved = UnsafeMutableRawPointer.allocate(byteCount: columns * 64, alignment: 64)
                    defer { interleaved.deallocate() }
                    kernels.depthwise(parameters, geometry, source, destination, range.lowerBound, range.upperBound, columns, interleaved)
                }
            }
        }
        #else
        preconditionFailure("QuantizedDepthwiseDotProduct.run needs the avx512vnni kernel configuration")
        #endif
    }
}
