import LiteFormat
#if LITE_AVX2
import _Builtin_intrinsics.intel
#endif

/// The 8-bit GEMM of quantized CONV_2D in `fast` numerics on AVX2 CPUs without AVX-512 VNNI (where ``QuantizedGEMM``
/// runs instead). AVX2 has no byte dot product that cannot saturate (`vpmaddubsw` adds two u8·s8 products into int16,
/// and 2·255·127 does not fit), so operands are widened to int16 and multiplied with `vpmaddwd`, which adds each
/// pair of int16·int16 products into an int32 lane exactly, as XNNPACK's AVX2 kernels do.
///
/// Both operands are stored with their zero points taken off: activations `x - x_zero` (widened a block of rows at
/// a time, in im2col order for non-pointwise filters), weights `w - w_zero[c]` (packed once). So each accumulator
/// is TFLite's `Σ (x - x_zero)(w - w_zero[c])` in int32, with no row-sum correction; padding taps and the depth
/// padding hold 0, contributing nothing as TFLite's skipped taps do. Every |product| ≤ 255·255, so sums fit int32
/// for depths below 33,000 (``supports(depth:signed:inputZeroPoint:filterZeroPoints:requantization:)``). The
/// requantization is TFLite's integer one
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
        let zeroPoints = (0..<channels).map { filterZeroPoints.count == 1 ? filterZeroPoints[0] : filterZeroPoints[$0] }
        if filter.type == .int8 {
            Self.pack(UnsafeRawPointer(filter.data!).assumingMemoryBound(to: Int8.self), channels: channels, depth: depth, zeroPoints: zeroPoints,
                      into: weights, paddedChannels: paddedChannels, paddedDepth: paddedDepth)
        } else {
            Self.pack(UnsafeRawPointer(filter.data!).assumingMemoryBound(to: UInt8.self), channels: channels, depth: depth, zeroPoints: zeroPoints,
                      into: weights, paddedChannels: paddedChannels, paddedDepth: paddedDepth)
        }
        biases = allocateAligned(Int32.self, count: paddedChannels)
        for c in 0..<paddedChannels { biases[c] = c < channels ? bias.map { $0.pointer(Int32.self)[c] } ?? 0 : 0 }
        self.requantization = ExactRequantization(requantization, paddedChannels: paddedChannels)
    }

    /// Writes the packed weights in the order they are stored (block pair, step, block, channel, the step's two
    /// depths), reading the step's two bytes of each of the pair's 16 filter rows. A channel at a time, every write
    /// landed on another cache line; with checked arithmetic, the packing took about 13 ms of uint8 MobileNetV2's
    /// load on an AVX2 EPYC. Padded channels and the depth padding are 0. `supports(...)` keeps every difference
    /// within ±255, so the wrapping arithmetic is exact.
    private static func pack<Byte: BinaryInteger>(_ source: UnsafePointer<Byte>, channels: Int, depth: Int, zeroPoints: [Int32],
                                                  into weights: UnsafeMutablePointer<Int16>, paddedChannels: Int, paddedDepth: Int) {
        let blocks = paddedChannels / lanes, fullSteps = depth / 2
        var out = weights
        zeroPoints.withUnsafeBufferPointer { zeroPoints in
            for pairFirst in stride(from: 0, to: blocks, by: 2) {
                let first = pairFirst * lanes, pairChannels = min(2, blocks - pairFirst) * lanes
                let real = max(0, min(pairChannels, channels - first))
                for step in 0..<(paddedDepth / 2) {
                    let k = 2 * step
                    var row = source + first * depth + k
                    if step < fullSteps {
                        for c in 0..<real {
                            let zero = zeroPoints[first + c]
                            out[2 * c] = Int16(truncatingIfNeeded: Int32(truncatingIfNeeded: row[0]) &- zero)
                            out[2 * c + 1] = Int16(truncatingIfNeeded: Int32(truncatingIfNeeded: row[1]) &- zero)
                            row += depth
                        }
                    } else {
                        // The last step of an odd depth: one weight and a zero.
                        for c in 0..<real {
                            out[2 * c] = Int16(truncatingIfNeeded: Int32(truncatingIfNeeded: row[0]) &- zeroPoints[first + c])
                            out[2 * c + 1] = 0
                            row += depth
                        }
                    }
                    for c in real..<pairChannels {
                        out[2 * c] = 0
                        out[2 * c + 1] = 0
                    }
                    out += 2 * pairChannels
                }
            }
        }
    }

    deinit {
        deallocateAligned(weights)
        deallocateAligned(biases)
    }

    /// The GEMM's rows, `x - x_zero` widened to int16, written a block at a time just before they are multiplied
    /// (so they are read back from L1, not from a matrix of the whole input in memory).
    struct Rows {
        let source: UnsafePointer<UInt8>
        let depth: Int
        let paddedDepth: Int
        let signed: Bool
        let zero: Int32
        /// For a convolution that is not pointwise: its geometry, to gather each row's taps (im2col).
        let convolution: Convolution?

        struct Convolution {
            let inH: Int, inW: Int, channels: Int, outH: Int, outW: Int, kh: Int, kw: Int
            let geometryH: SpatialGeometry, geometryW: SpatialGeometry
            let options: Conv2DOptions
            /// Output columns whose taps are all inside the input's width (each filter row then is one run of bytes).
            let interior: Range<Int>
        }

        /// Rows of `depth` bytes one after another: a pointwise convolution's pixels or a fully connected layer's rows.
        init(contiguous source: UnsafePointer<UInt8>, depth: Int, signed: Bool, zero: Int32) {
            self.source = source
            self.depth = depth
            paddedDepth = (depth + 1) & ~1
            self.signed = signed
            self.zero = zero
            convolution = nil
        }

        /// The im2col rows of a convolution's input, one per output pixel.
        init(input: Tensor, kernelH kh: Int, kernelW kw: Int, geometryH: SpatialGeometry, geometryW: SpatialGeometry, options: Conv2DOptions,
             zero: Int32) {
            let (inH, inW, channels) = (input.dim(1), input.dim(2), input.dim(3))
            source = UnsafePointer(OpaquePointer(input.data!))
            depth = kh * kw * channels
            paddedDepth = (depth + 1) & ~1
            signed = input.type == .int8
            self.zero = zero
            let interior = options.dilationW == 1
                ? interiorOutputs(output: geometryW.output, input: inW, filter: kw, stride: options.strideW, dilation: 1, padBefore: geometryW.padBefore)
                : 0..<0
            convolution = Convolution(inH: inH, inW: inW, channels: channels, outH: geometryH.output, outW: geometryW.output, kh: kh, kw: kw,
                                      geometryH: geometryH, geometryW: geometryW, options: options, interior: interior)
        }

        /// Writes rows `rows` into `destination`, each `paddedDepth` long (padding taps and the depth's padding 0).
        @inline(__always)
        func write(_ rows: Range<Int>, into destination: UnsafeMutablePointer<Int16>) {
            guard let c = convolution else {
                if depth == paddedDepth {
                    QuantizedGEMMAVX2.widen(source + rows.lowerBound * depth, count: rows.count * depth, zero: zero, signed: signed, into: destination)
                } else {
                    for (i, r) in rows.enumerated() {
                        QuantizedGEMMAVX2.widen(source + r * depth, count: depth, zero: zero, signed: signed, into: destination + i * paddedDepth)
                        destination[i * paddedDepth + depth] = 0
                    }
                }
                return
            }
            let span = c.kw * c.channels
            for (i, r) in rows.enumerated() {
                let b = r / (c.outH * c.outW), oy = r / c.outW % c.outH, ox = r % c.outW
                let row = destination + i * paddedDepth
                let ix0 = ox * c.options.strideW - c.geometryW.padBefore
                var dst = 0
                for ky in 0..<c.kh {
                    let iy = oy * c.options.strideH - c.geometryH.padBefore + ky * c.options.dilationH
                    let rowInside = iy >= 0 && iy < c.inH
                    if rowInside && c.interior.contains(ox) {
                        QuantizedGEMMAVX2.widen(source + ((b * c.inH + iy) * c.inW + ix0) * c.channels, count: span, zero: zero, signed: signed,
                                                into: row + dst)
                        dst += span
                        continue
                    }
                    for kx in 0..<c.kw {
                        let ix = ix0 + kx * c.options.dilationW
                        if rowInside && ix >= 0 && ix < c.inW {
                            QuantizedGEMMAVX2.widen(source + ((b * c.inH + iy) * c.inW + ix) * c.channels, count: c.channels, zero: zero, signed: signed,
                                                    into: row + dst)
                        } else {
                            (row + dst).update(repeating: 0, count: c.channels)
                        }
                        dst += c.channels
                    }
                }
                if depth < paddedDepth { row[depth] = 0 }
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

    /// `output[r, c] = requantize(Σ_k row_r[k]·w[c, k] + bias[c])` for `rowCount` rows, in blocks of `rowsPerBlock`:
    /// each block's rows are widened into a buffer of the thread's, the microkernels fill the block's accumulators
    /// four rows at a time, then each channel block's requantization data is loaded once for all of the block's rows.
    /// Threads split the blocks, or, when there is only one (a fully connected layer, a classifier's last 1x1
    /// convolution), the channels.
    func run(rows: Rows, rowCount: Int, output: UnsafeMutableRawPointer, threads: Int) {
        #if LITE_AVX2
        precondition(rows.depth == depth, "rows of depth \(rows.depth) for a GEMM of depth \(depth)")
        let blocks = (rowCount + Self.rowsPerBlock - 1) / Self.rowsPerBlock
        let channelBlocks = paddedChannels / Self.lanes
        // Each thread's buffers: one block of widened rows and its accumulators.
        @inline(__always) func withBuffers(_ body: (UnsafeMutablePointer<Int16>, UnsafeMutablePointer<Int32>) -> Void) {
            let widened = allocateAligned(Int16.self, count: Self.rowsPerBlock * paddedDepth)
            let accumulators = allocateAligned(Int32.self, count: Self.rowsPerBlock * paddedChannels)
            defer { deallocateAligned(accumulators); deallocateAligned(widened) }
            body(widened, accumulators)
        }
        @inline(__always) func multiply(_ rowRange: Range<Int>, channelBlocks: Range<Int>, widened: UnsafeMutablePointer<Int16>,
                                        accumulators: UnsafeMutablePointer<Int32>) {
            rows.write(rowRange, into: widened)
            multiplyBlock(widened, count: rowRange.count, rowStride: paddedDepth, channelBlocks: channelBlocks, into: accumulators)
            requantization.requantizeBlock8(accumulators, accumulatorStride: paddedChannels, rows: rowRange.count, constants: biases,
                                            channels: channelBlocks.lowerBound * Self.lanes ..< min(channelBlocks.upperBound * Self.lanes, channels),
                                            into: output + rowRange.lowerBound * channels, outputStride: channels)
        }
        if blocks == 1 {
            // Pairs of channel blocks, as the filter is stored.
            parallelFor((channelBlocks + 1) / 2, threads: threads, workPerItem: 2 * Self.lanes * rowCount * depth) { pairs in
                withBuffers { widened, accumulators in
                    multiply(0..<rowCount, channelBlocks: pairs.lowerBound * 2 ..< min(pairs.upperBound * 2, channelBlocks), widened: widened,
                             accumulators: accumulators)
                }
            }
            return
        }
        // Blocks of 8 rows when there are few rows to share between threads (as QuantizedGEMM's): in blocks of 16, a 7x7
        // layer's 49 rows went 32 to one thread and 17 to the other.
        let blockRows = threads > 1 && rowCount < 256 ? 8 : Self.rowsPerBlock
        parallelFor((rowCount + blockRows - 1) / blockRows, threads: threads, minimumChunk: blockRows == Self.rowsPerBlock ? 2 : 1,
                    workPerItem: blockRows * paddedChannels * depth) { range in
            withBuffers { widened, accumulators in
                for block in range {
                    let first = block * blockRows
                    multiply(first..<min(first + blockRows, rowCount), channelBlocks: 0..<channelBlocks, widened: widened,
                             accumulators: accumulators)
                }
            }
        }
        #else
        preconditionFailure("QuantizedGEMMAVX2.run needs a build with LITE_AVX2")
        #endif
    }

    #if LITE_AVX2
    /// `count` (at most 16) rows against the channel blocks `channelBlocks` (starting at an even block), four rows at
    /// a time (rows past `count` repeat the last one; their accumulators are written but not used), or one row
    /// alone.
    @inline(__always)
    private func multiplyBlock(_ rows: UnsafePointer<Int16>, count: Int, rowStride: Int, channelBlocks: Range<Int>,
                               into accumulators: UnsafeMutablePointer<Int32>) {
        let steps = paddedDepth / 2
        if count == 1 {
            var block = channelBlocks.lowerBound
            while block < channelBlocks.upperBound {
                let filter = UnsafeRawPointer(weights + block * Self.lanes * paddedDepth)
                let pair = block + 2 <= channelBlocks.upperBound
                Self.kernel1x16(UnsafeRawPointer(rows), filter: filter, steps: steps, pair: pair, out: accumulators + block * Self.lanes)
                block += pair ? 2 : 1
            }
            return
        }
        let last = count - 1
        @inline(__always) func row(_ i: Int) -> UnsafeRawPointer { UnsafeRawPointer(rows + min(i, last) * rowStride) }
        var tile = 0
        while tile < count {
            let r = (row(tile), row(tile + 1), row(tile + 2), row(tile + 3))
            let out = accumulators + tile * paddedChannels
            var block = channelBlocks.lowerBound
            while block < channelBlocks.upperBound {
                let filter = UnsafeRawPointer(weights + block * Self.lanes * paddedDepth)
                if block + 2 <= channelBlocks.upperBound {
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

    /// One row x 16 channels (a block pair) or 8 (a last block alone): the matrix-vector product of a fully connected
    /// layer, a quarter of the multiplies the 4-row kernels would spend on it.
    @inline(never)
    private static func kernel1x16(_ row: UnsafeRawPointer, filter: UnsafeRawPointer, steps: Int, pair: Bool, out: UnsafeMutablePointer<Int32>) {
        var c0 = _mm256_setzero_si256(), c1 = c0
        var w = filter
        if pair {
            for s in 0..<steps {
                let x = broadcast(row, s)
                c0 = multiplyAdd(c0, x, _mm256_loadu_si256(w.assumingMemoryBound(to: __m256i_u.self)))
                c1 = multiplyAdd(c1, x, _mm256_loadu_si256((w + 32).assumingMemoryBound(to: __m256i_u.self)))
                w += 64
            }
        } else {
            for s in 0..<steps {
                c0 = multiplyAdd(c0, broadcast(row, s), _mm256_loadu_si256(w.assumingMemoryBound(to: __m256i_u.self)))
                w += 32
            }
        }
        let o = UnsafeMutableRawPointer(out)
        _mm256_storeu_si256(o.assumingMemoryBound(to: __m256i_u.self), c0)
        if pair { _mm256_storeu_si256((o + 32).assumingMemoryBound(to: __m256i_u.self), c1) }
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
