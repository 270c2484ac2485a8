import LiteFormat
#if LITE_AVX2
import _Builtin_intrinsics.intel
#endif

/// The 8-bit GEMM of quantized CONV_2D in `fast` numerics on AVX2 CPUs without AVX-512 VNNI (where ``QuantizedGEMM``
/// runs instead). AVX2 has no byte dot product that cannot saturate (`vpmaddubsw` adds two u8·s8 products into int16,
/// and 2·255·127 does not fit), so operands are widened to int16 and multiplied with `vpmaddwd`, which adds each
/// pair of int16·int16 products into an int32 lane exactly, as XNNPACK's AVX2 kernels do.
///
/// Both operands are stored with their zero points taken off: activations `x - x_zero` (packed per call, in im2col
/// order for non-pointwise filters), weights `w - w_zero[c]` (packed once). So each accumulator is TFLite's
/// `Σ (x - x_zero)(w - w_zero[c])` in int32, with no row-sum correction; padding taps and the depth padding hold 0,
/// contributing nothing as TFLite's skipped taps do. Every |product| ≤ 255·255, so sums fit int32 for depths below
/// 33,000 (``supports(depth:requantization:)``). The requantization is TFLite's integer one
/// (``ExactRequantization/requantizeBlock8(_:accumulatorStride:rows:constants:channels:into:outputStride:)``): the
/// result is bit-exact, like `exact` numerics.
///
/// Layout. Output channels are padded to blocks of 8 (one ymm register of int32 lanes), blocks go two at a time,
/// and a pair's filter is stored step by step: for each two-deep slice of the depth, each block's 8 channels' two
/// int16 weights, so the microkernel reads 64 consecutive bytes per step and broadcasts one 32-bit pair of a row's
/// activations against them.
final class QuantizedGEMMAVX2 {
    /// Whether this build has the kernel (compiled with `-DLITE_AVX2` and `-mavx2` by tools/swift-flags.sh).
    static var isAvailable: Bool {
        #if LITE_AVX2
        return true
        #else
        return false
        #endif
    }

    /// Whether `fast` numerics take this kernel when available and ``QuantizedGEMM`` is not used. Tests turn it off
    /// to check the portable route in the same build.
    nonisolated(unsafe) static var isEnabled = true

    static var isUsed: Bool { isAvailable && isEnabled && !QuantizedGEMM.isUsed }

    static let lanes = 8
    static let rowsPerTile = 4
    static let rowsPerBlock = 16

    /// Whether every offset fits int16 and every int32 sum stays exact (zero points inside the type's range, so
    /// |x - x_zero|, |w - w_zero| ≤ 255 and 255·255·depth < 2^31), and every right shift fits the 64-bit rounding.
    static func supports(depth: Int, signed: Bool, inputZeroPoint: Int32, filterZeroPoints: [Int32], requantization: ChannelRequantization) -> Bool {
        let range: ClosedRange<Int32> = signed ? -128...127 : 0...255
        return depth < 33_000 && range.contains(inputZeroPoint) && filterZeroPoints.allSatisfy { range.contains($0) }
            && requantization.shifts.allSatisfy { $0 >= -31 }
    }

    let channels: Int
    let depth: Int
    /// Depth rounded up to a multiple of 2.
    let paddedDepth: Int
    /// Channels rounded up to a multiple of 8.
    let paddedChannels: Int
    let signedInput: Bool
    let inputZeroPoint: Int32
    /// Packed `w - w_zero` (layout in the type's documentation), 64-byte aligned.
    let weights: UnsafeMutablePointer<Int16>
    /// Per channel: the bias (padded channels 0).
    let biases: UnsafeMutablePointer<Int32>
    let requantization: ExactRequantization

    init(filter: Tensor, filterZeroPoints: [Int32], bias: Tensor?, inputZeroPoint: Int32, signed: Bool,
         requantization: ChannelRequantization) {
        channels = filter.dim(0)
        depth = filter.elementCount / max(channels, 1)
        paddedDepth = (depth + 1) & ~1
        paddedChannels = (channels + Self.lanes - 1) / Self.lanes * Self.lanes
        signedInput = signed
        self.inputZeroPoint = inputZeroPoint
        weights = allocateAligned(Int16.self, count: paddedChannels * paddedDepth)
        let source = UnsafeRawPointer(filter.data!)
        let signedFilter = filter.type == .int8
        let blocks = paddedChannels / Self.lanes
        // Padded channels and depth stay 0; channel c's weight k goes to its block pair's step k/2, its block's lane.
        weights.initialize(repeating: 0, count: paddedChannels * paddedDepth)
        for c in 0..<channels {
            let block = c / Self.lanes, pairFirst = block & ~1
            let pairBlocks = min(2, blocks - pairFirst)
            let base = pairFirst * Self.lanes * paddedDepth + (block - pairFirst) * 2 * Self.lanes + (c % Self.lanes) * 2
            let stepStride = pairBlocks * 2 * Self.lanes
            let zero = filterZeroPoints.count == 1 ? filterZeroPoints[0] : filterZeroPoints[c]
            let row = source + c * depth
            if signedFilter {
                let bytes = row.assumingMemoryBound(to: Int8.self)
                for k in 0..<depth { weights[base + (k / 2) * stepStride + k % 2] = Int16(Int32(bytes[k]) - zero) }
            } else {
                let bytes = row.assumingMemoryBound(to: UInt8.self)
                for k in 0..<depth { weights[base + (k / 2) * stepStride + k % 2] = Int16(Int32(bytes[k]) - zero) }
            }
        }
        biases = allocateAligned(Int32.self, count: paddedChannels)
        for c in 0..<paddedChannels { biases[c] = c < channels ? bias.map { $0.pointer(Int32.self)[c] } ?? 0 : 0 }
        self.requantization = ExactRequantization(requantization, paddedChannels: paddedChannels)
    }

    deinit {
        deallocateAligned(weights)
        deallocateAligned(biases)
    }

    /// Scratch bytes for `pack` and `run`: the widened activation rows.
    static func scratchBytes(rows: Int, depth: Int) -> Int {
        saturatingProduct(rows, (depth + 1) & ~1, 2)
    }

    /// Writes the rows `x - x_zero` as int16 (im2col for non-pointwise filters) into `rows`, each `paddedDepth` long.
    func pack(input: Tensor, kernelH kh: Int, kernelW kw: Int, geometryH: SpatialGeometry, geometryW: SpatialGeometry, options: Conv2DOptions,
              into rows: UnsafeMutablePointer<Int16>, threads: Int) {
        let (batches, inH, inW, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (geometryH.output, geometryW.output)
        let source = UnsafePointer<UInt8>(OpaquePointer(input.data!))
        let rowLength = paddedDepth, depth = self.depth, signed = signedInput, zero = inputZeroPoint
        let span = kw * channels
        let interior = options.dilationW == 1
            ? interiorOutputs(output: outW, input: inW, filter: kw, stride: options.strideW, dilation: 1, padBefore: geometryW.padBefore) : 0..<0
        parallelFor(batches * outH, threads: threads, workPerItem: outW * rowLength) { range in
            for by in range {
                let b = by / outH, oy = by % outH
                let outputRow = rows + (b * outH + oy) * outW * rowLength
                for ox in 0..<outW {
                    let row = outputRow + ox * rowLength
                    let ix0 = ox * options.strideW - geometryW.padBefore
                    var dst = 0
                    for ky in 0..<kh {
                        let iy = oy * options.strideH - geometryH.padBefore + ky * options.dilationH
                        let rowInside = iy >= 0 && iy < inH
                        if rowInside && interior.contains(ox) {
                            Self.widen(source + ((b * inH + iy) * inW + ix0) * channels, count: span, zero: zero, signed: signed, into: row + dst)
                            dst += span
                            continue
                        }
                        for kx in 0..<kw {
                            let ix = ix0 + kx * options.dilationW
                            if rowInside && ix >= 0 && ix < inW {
                                Self.widen(source + ((b * inH + iy) * inW + ix) * channels, count: channels, zero: zero, signed: signed, into: row + dst)
                            } else {
                                (row + dst).update(repeating: 0, count: channels)
                            }
                            dst += channels
                        }
                    }
                    if depth < rowLength { (row + depth).update(repeating: 0, count: rowLength - depth) }
                }
            }
        }
    }

    /// `x - zero` for `count` bytes (int8 or uint8) as int16, sixteen at a time.
    @inline(__always)
    static func widen(_ source: UnsafePointer<UInt8>, count: Int, zero: Int32, signed: Bool, into destination: UnsafeMutablePointer<Int16>) {
        var i = 0
        #if LITE_AVX2
        let zeros = _mm256_set1_epi16(Int16(truncatingIfNeeded: zero))
        while i + 16 <= count {
            let bytes = _mm_loadu_si128(UnsafeRawPointer(source + i).assumingMemoryBound(to: __m128i_u.self))
            let wide = signed ? _mm256_cvtepi8_epi16(bytes) : _mm256_cvtepu8_epi16(bytes)
            _mm256_storeu_si256(UnsafeMutableRawPointer(destination + i).assumingMemoryBound(to: __m256i_u.self), _mm256_sub_epi16(wide, zeros))
            i += 16
        }
        #endif
        while i < count {
            let x = signed ? Int32(Int8(bitPattern: source[i])) : Int32(source[i])
            destination[i] = Int16(truncatingIfNeeded: x - zero)
            i += 1
        }
    }

    /// `output[r, c] = requantize(Σ_k rows[r, k]·w[c, k] + bias[c])` for `rowCount` int16 rows `rowStride` values
    /// apart, in blocks of `rowsPerBlock` rows: the microkernels fill the block's accumulators four rows at a time,
    /// then each channel block's requantization data is loaded once for all of the block's rows.
    func run(rows: UnsafePointer<Int16>, rowCount: Int, rowStride: Int, output: UnsafeMutableRawPointer, threads: Int) {
        #if LITE_AVX2
        let blocks = (rowCount + Self.rowsPerBlock - 1) / Self.rowsPerBlock
        parallelFor(blocks, threads: threads, minimumChunk: 2, workPerItem: Self.rowsPerBlock * paddedChannels * depth) { range in
            let accumulators = allocateAligned(Int32.self, count: Self.rowsPerBlock * paddedChannels)
            defer { deallocateAligned(accumulators) }
            for block in range {
                let first = block * Self.rowsPerBlock
                let count = min(Self.rowsPerBlock, rowCount - first)
                multiplyBlock(rows + first * rowStride, count: count, rowStride: rowStride, into: accumulators)
                requantization.requantizeBlock8(accumulators, accumulatorStride: paddedChannels, rows: count, constants: biases,
                                                channels: channels, into: output + first * channels, outputStride: channels)
            }
        }
        #else
        preconditionFailure("QuantizedGEMMAVX2.run needs a build with LITE_AVX2")
        #endif
    }

    #if LITE_AVX2
    /// `count` (at most 16) rows against every channel block, four rows at a time; rows past `count` repeat the last
    /// one (their accumulators are written but not used).
    @inline(__always)
    private func multiplyBlock(_ rows: UnsafePointer<Int16>, count: Int, rowStride: Int, into accumulators: UnsafeMutablePointer<Int32>) {
        let last = count - 1
        @inline(__always) func row(_ i: Int) -> UnsafeRawPointer { UnsafeRawPointer(rows + min(i, last) * rowStride) }
        let blocks = paddedChannels / Self.lanes, steps = paddedDepth / 2
        var tile = 0
        while tile < count {
            let r = (row(tile), row(tile + 1), row(tile + 2), row(tile + 3))
            let out = accumulators + tile * paddedChannels
            var block = 0
            while block < blocks {
                let filter = UnsafeRawPointer(weights + block * Self.lanes * paddedDepth)
                if block + 2 <= blocks {
                    Self.kernel4x16(r, filter: filter, steps: steps, out: out + block * Self.lanes, stride: paddedChannels)
                    block += 2
                } else {
                    Self.kernel4x8(r, filter: filter, steps: steps, out: out + block * Self.lanes, stride: paddedChannels)
                    block += 1
                }
            }
            tile += Self.rowsPerTile
        }
    }

    typealias FourRows = (UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer)

    /// One row's activations at depth 2·step and 2·step + 1, in every 32-bit lane.
    @inline(__always)
    private static func broadcast(_ row: UnsafeRawPointer, _ step: Int) -> __m256i {
        _mm256_set1_epi32(row.loadUnaligned(fromByteOffset: step &* 4, as: Int32.self))
    }

    @inline(__always)
    private static func multiplyAdd(_ accumulator: __m256i, _ activations: __m256i, _ filter: __m256i) -> __m256i {
        _mm256_add_epi32(accumulator, _mm256_madd_epi16(activations, filter))
    }

    /// 4 rows x 16 channels: 8 ymm accumulators, two filter loads and four broadcasts per step.
    @inline(never)
    private static func kernel4x16(_ r: FourRows, filter: UnsafeRawPointer, steps: Int, out: UnsafeMutablePointer<Int32>, stride: Int) {
        var c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00
        var w = filter
        for s in 0..<steps {
            let w0 = _mm256_loadu_si256(w.assumingMemoryBound(to: __m256i_u.self))
            let w1 = _mm256_loadu_si256((w + 32).assumingMemoryBound(to: __m256i_u.self))
            var x = broadcast(r.0, s)
            c00 = multiplyAdd(c00, x, w0); c01 = multiplyAdd(c01, x, w1)
            x = broadcast(r.1, s)
            c10 = multiplyAdd(c10, x, w0); c11 = multiplyAdd(c11, x, w1)
            x = broadcast(r.2, s)
            c20 = multiplyAdd(c20, x, w0); c21 = multiplyAdd(c21, x, w1)
            x = broadcast(r.3, s)
            c30 = multiplyAdd(c30, x, w0); c31 = multiplyAdd(c31, x, w1)
            w += 64
        }
        @inline(__always) func store(_ i: Int, _ low: __m256i, _ high: __m256i) {
            let o = UnsafeMutableRawPointer(out + i * stride)
            _mm256_storeu_si256(o.assumingMemoryBound(to: __m256i_u.self), low)
            _mm256_storeu_si256((o + 32).assumingMemoryBound(to: __m256i_u.self), high)
        }
        store(0, c00, c01); store(1, c10, c11); store(2, c20, c21); store(3, c30, c31)
    }

    /// 4 rows x 8 channels, for a last block that has no pair.
    @inline(never)
    private static func kernel4x8(_ r: FourRows, filter: UnsafeRawPointer, steps: Int, out: UnsafeMutablePointer<Int32>, stride: Int) {
        var c0 = _mm256_setzero_si256(), c1 = c0, c2 = c0, c3 = c0
        var w = filter
        for s in 0..<steps {
            let w0 = _mm256_loadu_si256(w.assumingMemoryBound(to: __m256i_u.self))
            c0 = multiplyAdd(c0, broadcast(r.0, s), w0)
            c1 = multiplyAdd(c1, broadcast(r.1, s), w0)
            c2 = multiplyAdd(c2, broadcast(r.2, s), w0)
            c3 = multiplyAdd(c3, broadcast(r.3, s), w0)
            w += 32
        }
        @inline(__always) func store(_ i: Int, _ c: __m256i) {
            _mm256_storeu_si256(UnsafeMutableRawPointer(out + i * stride).assumingMemoryBound(to: __m256i_u.self), c)
        }
        store(0, c0); store(1, c1); store(2, c2); store(3, c3)
    }
    #endif
}
