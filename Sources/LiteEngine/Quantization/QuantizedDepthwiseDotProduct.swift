import LiteFormat
#if LITE_AVX512_VNNI
import _Builtin_intrinsics.intel
#endif

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
        #if LITE_AVX512_VNNI
        guard g.batches > 0, g.outH > 0, g.outW > 0 else { return }
        let source = UnsafePointer<Int8>(OpaquePointer(input.data!)), destination = output.data!.assumingMemoryBound(to: Int8.self)
        let columns = Self.columns(g)
        parallelFor(g.batches * g.outH, threads: threads, workPerItem: g.outW * g.outC * g.kh * g.kw) { range in
            let interleaved = UnsafeMutableRawPointer.allocate(byteCount: columns * 64, alignment: 64)
            defer { interleaved.deallocate() }
            for row in range {
                let b = row / g.outH, oy = row % g.outH
                for block in 0..<blocks {
                    interleave(source, g, b: b, oy: oy, block: block, columns: columns, into: interleaved)
                    convolve(interleaved, g, block: block,
                             into: destination + ((b * g.outH + oy) * g.outW) * channels + block * Self.lanes)
                }
            }
        }
        #else
        preconditionFailure("QuantizedDepthwiseDotProduct.run needs a build with LITE_AVX512_VNNI")
        #endif
    }

    #if LITE_AVX512_VNNI
    /// For each input column `-padW ..< columns - padW` of output row `oy`, one 64-byte vector: channel i of the block
    /// in lane i, its four bytes the column's inputs in filter rows 0...3 (flipped; padding holds `x_zero`).
    @inline(__always)
    private func interleave(_ source: UnsafePointer<Int8>, _ g: DepthwiseConv2D.Geometry, b: Int, oy: Int, block: Int, columns: Int,
                            into interleaved: UnsafeMutableRawPointer) {
        let first = block * Self.lanes
        let width = min(Self.lanes, channels - first)
        let loadMask = UInt16(truncatingIfNeeded: (1 << width) - 1)
        let pad = _mm_set1_epi8(CChar(truncatingIfNeeded: inputZeroPoint))
        let flip = _mm512_set1_epi32(Int32(bitPattern: 0x8080_8080))
        // [r0 | r1 | r2 | r3] -> lane L holds dword L of each row (vpermd), then each lane's bytes go from
        // [r0 a b c d, r1 a b c d, ...] to [r0 a, r1 a, r2 a, r3 a, r0 b, ...] (vpshufb).
        let gather = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0)
        let transpose = _mm512_set_epi64(0x0F0B_0703_0E0A_0602, 0x0D09_0501_0C08_0400, 0x0F0B_0703_0E0A_0602, 0x0D09_0501_0C08_0400,
                                         0x0F0B_0703_0E0A_0602, 0x0D09_0501_0C08_0400, 0x0F0B_0703_0E0A_0602, 0x0D09_0501_0C08_0400)
        let iy0 = oy * g.strideH - g.padH
        // Where each filter row's input row starts (at this block's first channel), or nil for a row of padding.
        func rowStart(_ ky: Int) -> UnsafePointer<Int8>? {
            let iy = iy0 + ky * g.dilationH
            return ky < g.kh && iy >= 0 && iy < g.inH ? source + ((b * g.inH + iy) * g.inW) * g.inC + first : nil
        }
        let (row0, row1, row2, row3) = (rowStart(0), rowStart(1), rowStart(2), rowStart(3))
        let step = g.inC
        @inline(__always) func load(_ row: UnsafePointer<Int8>?, _ offset: Int) -> __m128i {
            guard let row else { return pad }
            return _mm_maskz_loadu_epi8(loadMask, UnsafeRawPointer(row + offset))
        }
        @inline(__always) func store(_ column: Int, _ r0: __m128i, _ r1: __m128i, _ r2: __m128i, _ r3: __m128i) {
            var rows = _mm512_castsi128_si512(r0)
            rows = _mm512_mask_broadcast_i32x4(rows, 0x00F0, r1)
            rows = _mm512_mask_broadcast_i32x4(rows, 0x0F00, r2)
            rows = _mm512_mask_broadcast_i32x4(rows, 0xF000, r3)
            let lanes = _mm512_shuffle_epi8(_mm512_permutexvar_epi32(gather, rows), transpose)
            _mm512_store_si512(interleaved + column &* 64, _mm512_xor_si512(lanes, flip))
        }
        let insideFirst = min(g.padW, columns), insideEnd = min(max(g.inW + g.padW, insideFirst), columns)
        for column in 0..<insideFirst { store(column, pad, pad, pad, pad) }
        for column in insideFirst..<insideEnd {
            let offset = (column &- g.padW) &* step
            store(column, load(row0, offset), load(row1, offset), load(row2, offset), load(row3, offset))
        }
        for column in insideEnd..<columns { store(column, pad, pad, pad, pad) }
    }

    /// One block of 16 channels of every pixel of an output row: the dot products, then the requantization.
    @inline(__always)
    private func convolve(_ interleaved: UnsafeMutableRawPointer, _ g: DepthwiseConv2D.Geometry, block: Int,
                          into output: UnsafeMutablePointer<Int8>) {
        let c = block * Self.lanes
        let width = min(Self.lanes, channels - c)
        let storeMask = UInt16(truncatingIfNeeded: (1 << width) - 1)
        func load(_ pointer: UnsafeRawPointer) -> __m512i { _mm512_loadu_si512(pointer) }
        let start = load(constants + c)
        let multiplier = load(multipliers + c), oddMultiplier = _mm512_srli_epi64(multiplier, 32)
        let left = load(leftShifts + c), right = load(rightShifts + c)
        let offset = UnsafeRawPointer(offsets + c).loadUnaligned(as: SIMD16<Int32>.self), awayOnes = UnsafeRawPointer(roundsAway + c).loadUnaligned(as: SIMD16<Int32>.self)
        let evenNudge = load(nudges + c), oddNudge = load(nudges + c + 8)
        let lowest = _mm512_set1_epi32(low), highest = _mm512_set1_epi32(high)
        let filter = UnsafeRawPointer(weights + block * g.kw * 64)
        let weightZero = load(weightZeroPoints + block * 64)
        let columnStep = g.dilationW * 64, pixelStep = g.strideW * 64
        var pixel = UnsafeRawPointer(interleaved)
        for ox in 0..<g.outW {
            var acc = start
            if isUInt8 {
                // d·w on the unsigned filter, less d·w_zero.
                var correction = _mm512_setzero_si512()
                if g.kw == 3 {
                    let d0 = load(pixel), d1 = load(pixel + columnStep), d2 = load(pixel + 2 &* columnStep)
                    acc = _mm512_dpbusd_epi32(acc, load(filter), d0)
                    correction = _mm512_dpbusd_epi32(correction, weightZero, d0)
                    acc = _mm512_dpbusd_epi32(acc, load(filter + 64), d1)
                    correction = _mm512_dpbusd_epi32(correction, weightZero, d1)
                    acc = _mm512_dpbusd_epi32(acc, load(filter + 128), d2)
                    correction = _mm512_dpbusd_epi32(correction, weightZero, d2)
                } else {
                    var column = pixel, w = filter
                    for _ in 0..<g.kw {
                        let d = load(column)
                        acc = _mm512_dpbusd_epi32(acc, load(w), d)
                        correction = _mm512_dpbusd_epi32(correction, weightZero, d)
                        column += columnStep
                        w += 64
                    }
                }
                acc = _mm512_sub_epi32(acc, correction)
            } else if g.kw == 3 {
                acc = _mm512_dpbusd_epi32(acc, load(pixel), load(filter))
                acc = _mm512_dpbusd_epi32(acc, load(pixel + columnStep), load(filter + 64))
                acc = _mm512_dpbusd_epi32(acc, load(pixel + 2 &* columnStep), load(filter + 128))
            } else {
                var column = pixel, w = filter
                for _ in 0..<g.kw {
                    acc = _mm512_dpbusd_epi32(acc, load(column), load(w))
                    column += columnStep
                    w += 64
                }
            }
            if hasLeftShifts { acc = _mm512_sllv_epi32(acc, left) }
            let even = _mm512_srai_epi64(_mm512_add_epi64(_mm512_mul_epi32(acc, multiplier), evenNudge), 31)
            let odd = _mm512_srai_epi64(_mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(acc, 32), oddMultiplier), oddNudge), 31)
            // t < K (h < 0): one less where ties round away from zero.
            var t = unsafeBitCast(joinEvenOddLanes(even, odd), to: SIMD16<Int32>.self)
            t.replace(with: t &- awayOnes, where: t .< offset)
            let v = _mm512_min_epi32(_mm512_max_epi32(_mm512_srav_epi32(unsafeBitCast(t, to: __m512i.self), right), lowest), highest)
            let bytes = _mm512_cvtepi32_epi8(v)
            // A full block is a plain store: the masked form of the narrowing store is slow on some CPUs.
            if width == Self.lanes {
                _mm_storeu_si128(UnsafeMutableRawPointer(output + ox &* channels).assumingMemoryBound(to: __m128i_u.self), bytes)
            } else {
                _mm_mask_storeu_epi8(UnsafeMutableRawPointer(output + ox &* channels), storeMask, bytes)
            }
            pixel += pixelStep
        }
    }
    #endif
}
