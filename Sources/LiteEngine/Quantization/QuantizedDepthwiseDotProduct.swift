import CLiteKernels
import LiteFormat

/// int8 and uint8 DEPTHWISE_CONV_2D on AVX-512 VNNI (`fast` numerics; bit-exact with TFLite's integer kernel, like
/// the int32 SIMD kernel it replaces for the filters it takes: channel multiplier 1, int8 filters with zero point 0).
/// `vpdpbusd` adds four products of an unsigned and a signed byte into each int32 lane, so the four bytes of a
/// channel's lane hold one input column's taps from four filter rows: for every input column an output row touches,
/// the bytes `x[iy0 + ky·dh, ix, c]` for the four rows of each group (ky = 4g ... 4g + 3) are interleaved once (two
/// shuffles per 16 channels), and each output pixel is then one `vpdpbusd` per filter column and row group (two for
/// uint8) instead of one multiply per tap. Filters up to four rows high (3x3) take one group, 5x5 and 7x7 two.
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
/// The brackets are one constant per channel. Layers are taken only when every sum, ours and TFLite's, fits int32
/// (|constant| or |bias|, plus 255·Σ|w| for int8 or 128·Σ|w - w_zero| for uint8, below 2^31; checked at load), so
/// both are the same number: real layers are far inside, even the "dead" channels converters leave with all-zero
/// weights, a bias of ±2^30 and a multiplier near 2^-27.
///
/// Requantization is the GEMM's (``ExactRequantization``, `MultiplyByQuantizedMultiplier`'s two roundings folded
/// into one 64-bit multiply, add and shift), in registers right after each pixel's dot products.
///
/// The kernel is C (`lite_qs8_dwconv__avx512vnni`), made only when ``KernelConfiguration/current`` selected the
/// `avx512vnni` level (``QuantizedGEMM/isUsed``).
final class QuantizedDepthwiseDotProduct {
    static let lanes = 16
    /// Filter rows one interleaved column holds (the four bytes of a `vpdpbusd` lane).
    static let rowsPerGroup = 4

    let channels: Int
    let blocks: Int
    let rowGroups: Int
    let inputZeroPoint: Int8
    /// uint8 (the filter is the unsigned operand) rather than int8 (the input is).
    let isUInt8: Bool
    /// Per 16-channel block, per row group, per filter column: 16 lanes of [w(4g, kx), w(4g+1, kx), w(4g+2, kx),
    /// w(4g+3, kx)], rows past the filter 0. 64-byte aligned.
    let weights: UnsafeMutableRawPointer
    /// uint8 only, per 16-channel block and row group: 16 lanes of the channel's filter zero point in each filter
    /// row's byte (0 past the filter).
    let weightZeroPoints: UnsafeMutableRawPointer
    /// Per channel (padded to blocks): the start value of the accumulator (see the type's documentation).
    let constants: UnsafeMutablePointer<Int32>
    let requantization: ExactRequantization
    /// The configuration's VNNI kernels when this kernel was made.
    private let kernels: QuantizedDotProductKernels?

    /// The kernel for a layer it can run exactly, or nil.
    static func make(input: Tensor, filter: Tensor, bias: Tensor?, filterZeroPoints: [Int32], inputZeroPoint: Int32,
                     requantization: ChannelRequantization) -> QuantizedDepthwiseDotProduct? {
        guard QuantizedGEMM.isUsed, input.type == .int8 || input.type == .uint8, filter.type == input.type,
              filter.dim(3) == input.dim(3), input.type == .uint8 || filterZeroPoints.allSatisfy({ $0 == 0 }),
              requantization.shifts.allSatisfy({ $0 >= -31 }),
              sumsFitInt32(filter: filter, bias: bias, filterZeroPoints: filterZeroPoints, inputZeroPoint: inputZeroPoint) else { return nil }
        return QuantizedDepthwiseDotProduct(filter: filter, bias: bias, filterZeroPoints: filterZeroPoints, inputZeroPoint: inputZeroPoint,
                                            requantization: requantization)
    }

    /// Whether every channel's accumulators, ours and TFLite's, stay inside int32 (see the type's documentation).
    private static func sumsFitInt32(filter: Tensor, bias: Tensor?, filterZeroPoints: [Int32], inputZeroPoint: Int32) -> Bool {
        let channels = filter.dim(3), taps = filter.dim(1) * filter.dim(2), isUInt8 = filter.type == .uint8
        let source = UnsafeRawPointer(filter.data!)
        return (0..<channels).allSatisfy { c in
            let weightZero = isUInt8 ? Int64(filterZeroPoints.count == 1 ? filterZeroPoints[0] : filterZeroPoints[c]) : 0
            var offsetSum: Int64 = 0, magnitude: Int64 = 0
            for tap in 0..<taps {
                let w = Int64(loadQuantized(source, tap * channels + c, signed: !isUInt8)) - weightZero
                offsetSum += w
                magnitude += abs(w)
            }
            let biasValue = Int64(bias.map { $0.pointer(Int32.self)[c] } ?? 0)
            let start = startValue(bias: biasValue, offsetSum: offsetSum, inputZeroPoint: inputZeroPoint, isUInt8: isUInt8)
            let products = (isUInt8 ? 128 : 255) * magnitude
            return max(abs(start), abs(biasValue)) + products < 1 << 31
        }
    }

    /// A channel's accumulator start value (see the type's documentation).
    private static func startValue(bias: Int64, offsetSum: Int64, inputZeroPoint: Int32, isUInt8: Bool) -> Int64 {
        isUInt8 ? bias + (128 - Int64(inputZeroPoint)) * offsetSum : bias - (Int64(inputZeroPoint) + 128) * offsetSum
    }

    private init(filter: Tensor, bias: Tensor?, filterZeroPoints: [Int32], inputZeroPoint: Int32, requantization: ChannelRequantization) {
        kernels = KernelConfiguration.current.quantizedDotProducts
        channels = filter.dim(3)
        blocks = (channels + Self.lanes - 1) / Self.lanes
        let kernelH = filter.dim(1), kernelW = filter.dim(2)
        rowGroups = (kernelH + Self.rowsPerGroup - 1) / Self.rowsPerGroup
        isUInt8 = filter.type == .uint8
        self.inputZeroPoint = Int8(truncatingIfNeeded: inputZeroPoint)
        let padded = blocks * Self.lanes
        let weightBytes = max(blocks * rowGroups * kernelW * 64, 64), zeroPointBytes = max(blocks * rowGroups * 64, 64)
        weights = .allocate(byteCount: weightBytes, alignment: 64)
        weights.initializeMemory(as: Int8.self, repeating: 0, count: weightBytes)
        weightZeroPoints = .allocate(byteCount: zeroPointBytes, alignment: 64)
        weightZeroPoints.initializeMemory(as: Int8.self, repeating: 0, count: zeroPointBytes)
        constants = allocateAligned(Int32.self, count: padded)
        constants.initialize(repeating: 0, count: padded)
        self.requantization = ExactRequantization(requantization, paddedChannels: padded)
        let source = UnsafeRawPointer(filter.data!)
        for c in 0..<channels {
            let weightZero = isUInt8 ? Int64(filterZeroPoints.count == 1 ? filterZeroPoints[0] : filterZeroPoints[c]) : 0
            let block = c / Self.lanes, lane = c % Self.lanes
            var offsetSum: Int64 = 0
            for ky in 0..<kernelH {
                let group = ky / Self.rowsPerGroup, byte = lane * 4 + ky % Self.rowsPerGroup
                weightZeroPoints.storeBytes(of: UInt8(truncatingIfNeeded: weightZero), toByteOffset: (block * rowGroups + group) * 64 + byte,
                                            as: UInt8.self)
                for kx in 0..<kernelW {
                    let w = Int64(loadQuantized(source, (ky * kernelW + kx) * channels + c, signed: !isUInt8))
                    offsetSum += w - weightZero
                    weights.storeBytes(of: UInt8(truncatingIfNeeded: w), toByteOffset: ((block * rowGroups + group) * kernelW + kx) * 64 + byte,
                                       as: UInt8.self)
                }
            }
            let biasValue = Int64(bias.map { $0.pointer(Int32.self)[c] } ?? 0)
            constants[c] = Int32(Self.startValue(bias: biasValue, offsetSum: offsetSum, inputZeroPoint: inputZeroPoint, isUInt8: isUInt8))
        }
    }

    deinit {
        weights.deallocate()
        weightZeroPoints.deallocate()
        deallocateAligned(constants)
    }

    /// Input columns an output row reads, from the first column's left padding to the last one's last tap.
    private static func columns(_ g: DepthwiseConv2D.Geometry) -> Int {
        let (span, overflow) = ((g.outW - 1) * g.strideW).addingReportingOverflow((g.kw - 1).multipliedReportingOverflow(by: g.dilationW).partialValue)
        return overflow ? .max : span + 1
    }

    /// Bytes of interleaved columns each thread holds for a layer of this geometry.
    func scratchBytes(_ g: DepthwiseConv2D.Geometry) -> Int {
        saturatingProduct(saturatingProduct(Self.columns(g), 64), rowGroups)
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
        guard let requantizationParameters = requantization.vnniKernelParameters else {
            preconditionFailure("QuantizedDepthwiseDotProduct.run needs the avx512vnni kernel configuration")
        }
        var parameters = lite_qs8_dwconv_vnni(
            weights: UnsafeRawPointer(weights), weight_zero_points: UnsafeRawPointer(weightZeroPoints), constants: UnsafePointer(constants),
            requantization: requantizationParameters, channels: channels, blocks: blocks, row_groups: rowGroups, is_uint8: isUInt8 ? 1 : 0,
            input_zero_point: inputZeroPoint)
        var geometry = lite_qs8_dwconv_geometry(
            in_h: g.inH, in_w: g.inW, in_c: g.inC, kh: g.kh, kw: g.kw, out_h: g.outH, out_w: g.outW, stride_h: g.strideH,
            stride_w: g.strideW, dilation_h: g.dilationH, dilation_w: g.dilationW, pad_h: g.padH, pad_w: g.padW)
        withUnsafePointer(to: &parameters) { parameters in
            withUnsafePointer(to: &geometry) { geometry in
                parallelFor(g.batches * g.outH, threads: threads, workPerItem: g.outW * g.outC * g.kh * g.kw) { range in
                    // Per output row and 16-channel block: the row's input columns interleaved four filter rows deep
                    // per row group, then each pixel's dot products and requantization.
                    let interleaved = UnsafeMutableRawPointer.allocate(byteCount: columns * 64 * rowGroups, alignment: 64)
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
