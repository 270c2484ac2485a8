import CLiteKernels
import LiteFormat
#if LITE_AVX512_VNNI
import _Builtin_intrinsics.intel
#endif

/// The 8-bit GEMM of quantized CONV_2D in `fast` numerics on CPUs with AVX-512 VNNI: `vpdpbusd` multiplies 64
/// unsigned by 64 signed bytes and adds each group of four products to an int32 lane, so the accumulators are
/// TFLite's int32 sums exactly, and the requantization after it is TFLite's integer one (`requantizeExact`).
/// The result is therefore bit-exact, like `exact` numerics, at int8 speed.
///
/// Operands. The instruction multiplies unsigned bytes of one operand by signed bytes of the other. The activations
/// are taken as they are, so the convolution can read a pointwise layer's input in place: int8 models give the
/// instruction signed activations and unsigned weights `w' = w + 128`; uint8 models give it unsigned activations
/// and signed weights `w' = w - 128` (both are the weight byte with its top bit flipped). With `q[c] = w_zero[c] ± 128`
/// and `p = x_zero`:
///
///     Σ (x - x_zero)(w - w_zero[c]) = Σ x·w' - q[c]·Σx - p·Σw'[c] + K·p·q[c]
///
/// `Σx` is one sum per output pixel (`rowSums`), `Σw'[c]` and the last term are folded with the bias into a
/// per-channel constant at load. Taps in the padding hold `x = p` (contributing nothing, as TFLite skips them); the
/// depth is padded to a multiple of four with `x = w' = 0`, which adds nothing to any term. Every product sum fits
/// int32: |Σ x·w'| ≤ K·255·128 < 2^31 for K < 65,000 (checked at load).
///
/// Layout. Output channels are padded to blocks of 16 (one zmm register of int32 lanes); blocks are grouped four
/// at a time, and a group's filter is stored step by step: for each four-deep slice of the depth, the four
/// blocks' 16 lanes x 4 bytes, so the microkernel reads 256 consecutive bytes per step.
final class QuantizedGEMM {
    /// Whether this build has the VNNI kernel (compiled with `-DLITE_AVX512_VNNI` and AVX-512 target features
    /// by tools/swift-flags.sh on CPUs that have them); otherwise `fast` numerics keep the sgemm route.
    static var isAvailable: Bool {
        #if LITE_AVX512_VNNI
        return true
        #else
        return false
        #endif
    }

    /// Whether `fast` numerics take this kernel (and the int32 depthwise kernel beside it) when available. Tests
    /// turn it off to check, in the same build, the portable route that builds without VNNI take.
    nonisolated(unsafe) static var isEnabled = true

    /// `isAvailable && isEnabled`, read when a model's kernels are prepared.
    static var isUsed: Bool { isAvailable && isEnabled }

    static let lanes = 16
    static let blocksPerGroup = 4
    static let rowsPerTile = 4
    static let rowsPerBlock = 16

    let channels: Int
    let depth: Int
    /// Depth rounded up to a multiple of 4.
    let paddedDepth: Int
    /// Channels rounded up to a multiple of 16.
    let paddedChannels: Int
    /// Whether `vpdpbusd` takes the activations as its unsigned operand (uint8 models) rather than the filter (int8).
    let activationsUnsigned: Bool
    /// `p`: the input zero point (its byte), which padding taps hold.
    let shiftedInputZero: Int8
    /// Packed filter (layout in the type's documentation), 64-byte aligned.
    let weights: UnsafeMutableRawPointer
    /// Per channel: `bias + K·p·q - p·Σw'` (padded channels 0), 64-byte aligned.
    let channelConstants: UnsafeMutablePointer<Int32>
    /// Per channel: `q`, the multiplier of the row sum, 64-byte aligned.
    let rowSumFactors: UnsafeMutablePointer<Int32>
    let requantization: ExactRequantization

    init(filter: Tensor, filterZeroPoints: [Int32], bias: Tensor?, inputZeroPoint: Int32, signed: Bool,
         requantization: ChannelRequantization) throws {
        channels = filter.dim(0)
        depth = filter.elementCount / max(channels, 1)
        guard depth < 65_000 else { throw KernelError.unsupported("quantized convolution depth \(depth) could overflow int32") }
        paddedDepth = (depth + 3) & ~3
        paddedChannels = (channels + Self.lanes - 1) / Self.lanes * Self.lanes
        activationsUnsigned = !signed
        let weightShift: Int32 = signed ? 128 : -128
        let p = inputZeroPoint
        shiftedInputZero = Int8(truncatingIfNeeded: p)
        // Every byte is written by `pack`.
        weights = .allocate(byteCount: max(paddedChannels * paddedDepth, 1), alignment: 64)
        let source = UnsafeRawPointer(filter.data!).assumingMemoryBound(to: UInt8.self)
        let blocks = paddedChannels / Self.lanes
        // w' = w + 128 (int8 weights, read unsigned) or w - 128 (uint8 weights, read signed): either way the byte with
        // its top bit flipped.
        let weightFlip: UInt8 = 0x80
        Self.pack(source, channels: channels, depth: depth, flip: weightFlip, blocks: blocks, paddedDepth: paddedDepth, into: weights)
        var constants = [Int32](repeating: 0, count: paddedChannels), factors = [Int32](repeating: 0, count: paddedChannels)
        for c in 0..<channels {
            var columnSum: Int32 = 0
            let row = source + c * depth
            for k in 0..<depth { columnSum &+= signed ? Int32(row[k] ^ weightFlip) : Int32(Int8(bitPattern: row[k] ^ weightFlip)) }
            let zero = filterZeroPoints.count == 1 ? filterZeroPoints[0] : filterZeroPoints[c]
            let q = zero + weightShift
            let biasValue = bias.map { $0.pointer(Int32.self)[c] } ?? 0
            // K·p·q and p·Σw' are each below 65,000·255·128 < 2^31; wrapping arithmetic is exact modulo 2^32 and the
            // true value of every sum fits int32.
            constants[c] = biasValue &+ Int32(depth) &* p &* q &- p &* columnSum
            factors[c] = q
        }
        channelConstants = allocateAligned(Int32.self, count: paddedChannels)
        channelConstants.initialize(from: constants, count: paddedChannels)
        rowSumFactors = allocateAligned(Int32.self, count: paddedChannels)
        rowSumFactors.initialize(from: factors, count: paddedChannels)
        self.requantization = ExactRequantization(requantization, paddedChannels: paddedChannels, rowSumFactors: factors)
    }

    /// Writes the filter in the microkernels' order (see the type's documentation): per group of four 16-channel
    /// blocks, per four-deep step of the depth, each block's 16 channels' four bytes, XOR `flip`; the depth past
    /// `depth` and the channels past `channels` stay 0. The output is written in order, four bytes at a time.
    private static func pack(_ source: UnsafePointer<UInt8>, channels: Int, depth: Int, flip: UInt8, blocks: Int, paddedDepth: Int,
                             into weights: UnsafeMutableRawPointer) {
        let flipWord = UInt32(flip) &* 0x0101_0101
        let fullSteps = depth / 4, steps = paddedDepth / 4
        var offset = 0
        var firstBlock = 0
        while firstBlock < blocks {
            let groupBlocks = min(blocksPerGroup, blocks - firstBlock)
            for step in 0..<steps {
                for block in firstBlock..<firstBlock + groupBlocks {
                    for lane in 0..<lanes {
                        let c = block &* lanes &+ lane
                        var word: UInt32 = 0
                        if c < channels {
                            let row = source + (c &* depth &+ step &* 4)
                            if step < fullSteps {
                                word = UnsafeRawPointer(row).loadUnaligned(as: UInt32.self) ^ flipWord
                            } else {
                                for i in 0..<(depth &- step &* 4) { word |= UInt32(row[i] ^ flip) << (8 &* UInt32(i)) }
                            }
                        }
                        weights.storeBytes(of: word, toByteOffset: offset, as: UInt32.self)
                        offset &+= 4
                    }
                }
            }
            firstBlock += groupBlocks
        }
    }

    deinit {
        weights.deallocate()
        deallocateAligned(channelConstants)
        deallocateAligned(rowSumFactors)
    }

    /// Scratch bytes for `run`: the shifted, depth-padded activation rows when they cannot be read in place.
    static func scratchBytes(rows: Int, depth: Int) -> Int {
        saturatingProduct(rows, (depth + 3) & ~3)
    }

    /// Whether the input can be read in place: 1x1 stride-1 convolution with a depth that is a multiple of 4.
    func readsInPlace(pointwise: Bool) -> Bool {
        pointwise && depth == paddedDepth
    }

    /// Writes the shifted activation rows (im2col for non-pointwise filters) into `rows`, each `paddedDepth` long.
    func pack(input: Tensor, kernelH kh: Int, kernelW kw: Int, geometryH: SpatialGeometry, geometryW: SpatialGeometry, options: Conv2DOptions,
              into rows: UnsafeMutablePointer<Int8>, threads: Int) {
        let (batches, inH, inW, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (geometryH.output, geometryW.output)
        let source = UnsafePointer<UInt8>(OpaquePointer(input.data!))
        let padValue = shiftedInputZero, rowLength = paddedDepth, depth = self.depth
        let span = kw * channels
        // Output columns whose taps are all inside the input (dilation 1): each filter row is `span` contiguous bytes.
        let interior = options.dilationW == 1
            ? interiorOutputs(output: outW, input: inW, filter: kw, stride: options.strideW, dilation: 1, padBefore: geometryW.padBefore) : 0..<0
        parallelFor(batches * outH, threads: threads, workPerItem: outW * rowLength) { range in
            for by in range {
                let b = by / outH, oy = by % outH
                let outputRow = rows + (b * outH + oy) * outW * rowLength
                /// Row `ox` of this output row, tap by tap (any dilation, any padding).
                func packByTap(_ ox: Int) {
                    let row = outputRow + ox * rowLength
                    let bytes = UnsafeMutablePointer<UInt8>(OpaquePointer(row))
                    var dst = 0
                    for ky in 0..<kh {
                        let iy = oy * options.strideH - geometryH.padBefore + ky * options.dilationH
                        for kx in 0..<kw {
                            let ix = ox * options.strideW - geometryW.padBefore + kx * options.dilationW
                            if iy >= 0 && iy < inH && ix >= 0 && ix < inW {
                                let src = source + ((b * inH + iy) * inW + ix) * channels
                                for i in 0..<channels { bytes[dst + i] = src[i] }
                            } else {
                                (row + dst).update(repeating: padValue, count: channels)
                            }
                            dst += channels
                        }
                    }
                    if depth < rowLength { (row + depth).update(repeating: 0, count: rowLength - depth) }
                }
                for ox in 0..<outW where !interior.contains(ox) { packByTap(ox) }
                if interior.isEmpty { continue }
                #if LITE_AVX512_VNNI
                // Filter rows of at most 16 bytes (a first layer's 3x3 taps of 3 channels: 9) go one 16-byte store each.
                if span <= 16 {
                    packShortSpans(source: source, end: source + input.elementCount, outputRow: outputRow, columns: interior,
                                   sourceRow: { ky in
                                       let iy = oy * options.strideH - geometryH.padBefore + ky * options.dilationH
                                       return iy >= 0 && iy < inH ? ((b * inH + iy) * inW) * channels : nil
                                   },
                                   kernelH: kh, span: span, step: options.strideW * channels,
                                   firstColumn: (interior.lowerBound * options.strideW - geometryW.padBefore) * channels)
                    continue
                }
                #endif
                for ox in interior {
                    let row = outputRow + ox * rowLength
                    let ix0 = ox * options.strideW - geometryW.padBefore
                    var dst = 0
                    for ky in 0..<kh {
                        let iy = oy * options.strideH - geometryH.padBefore + ky * options.dilationH
                        if iy >= 0 && iy < inH {
                            Self.copy(source + ((b * inH + iy) * inW + ix0) * channels, to: UnsafeMutablePointer(OpaquePointer(row + dst)), count: span)
                        } else {
                            (row + dst).update(repeating: padValue, count: span)
                        }
                        dst += span
                    }
                    if depth < rowLength { (row + depth).update(repeating: 0, count: rowLength - depth) }
                }
            }
        }
    }

    #if LITE_AVX512_VNNI
    /// The interior `columns` of one output row when a filter row is `span` ≤ 16 bytes: filter row by filter row, each
    /// column's span is one 16-byte load (the bytes past the span cleared; a masked load where 16 bytes would read
    /// past `end`) and one store at its place in the column's row, whose bytes past the span are zeros that the
    /// next filter row overwrites or that remain as the depth padding. A store that would reach past its row is
    /// masked to it. `sourceRow(ky)` is the byte offset of input row ky's first pixel, nil above or below the image.
    @inline(__always)
    private func packShortSpans(source: UnsafePointer<UInt8>, end: UnsafePointer<UInt8>, outputRow: UnsafeMutablePointer<Int8>,
                                columns: Range<Int>, sourceRow: (Int) -> Int?, kernelH kh: Int, span: Int, step: Int, firstColumn: Int) {
        let rowLength = paddedDepth
        let spanMask = UInt16(truncatingIfNeeded: (1 << span) - 1)
        let spanBytes = _mm_maskz_mov_epi8(spanMask, _mm_set1_epi8(-1))
        for ky in 0..<kh {
            let offset = ky * span
            let storeMask = UInt16(truncatingIfNeeded: (1 << min(rowLength - offset, 16)) - 1)
            let masked = offset + 16 > rowLength
            var destination = UnsafeMutableRawPointer(outputRow + columns.lowerBound * rowLength + offset)
            guard let start = sourceRow(ky) else {
                let padding = _mm_maskz_mov_epi8(spanMask, _mm_set1_epi8(shiftedInputZero))
                for _ in columns {
                    _mm_mask_storeu_epi8(destination, storeMask, padding)
                    destination += rowLength
                }
                continue
            }
            var pointer = source + start + firstColumn
            for _ in columns {
                let bytes = pointer + 16 <= end
                    ? _mm_and_si128(_mm_loadu_si128(UnsafeRawPointer(pointer).assumingMemoryBound(to: __m128i_u.self)), spanBytes)
                    : _mm_maskz_loadu_epi8(spanMask, UnsafeRawPointer(pointer))
                if masked {
                    _mm_mask_storeu_epi8(destination, storeMask, bytes)
                } else {
                    _mm_storeu_si128(destination.assumingMemoryBound(to: __m128i_u.self), bytes)
                }
                pointer += step
                destination += rowLength
            }
        }
        // The depth padding, where the last filter row's store did not reach it (span + padding > 16).
        let tail = kh * span
        if tail < rowLength && (kh - 1) * span + 16 < rowLength {
            for column in columns { (outputRow + column * rowLength + tail).update(repeating: 0, count: rowLength - tail) }
        }
    }
    #endif

    /// `count` bytes, sixteen at a time (no reads or writes past `count`: the last bytes by masked loads and stores
    /// in AVX-512 builds, else a plain copy).
    @inline(__always)
    static func copy(_ source: UnsafePointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>, count: Int) {
        #if LITE_AVX512_VNNI
        var offset = 0
        while offset < count {
            let mask = UInt16(truncatingIfNeeded: count - offset >= 16 ? 0xFFFF : (1 << (count - offset)) - 1)
            _mm_mask_storeu_epi8(UnsafeMutableRawPointer(destination + offset), mask, _mm_maskz_loadu_epi8(mask, UnsafeRawPointer(source + offset)))
            offset += 16
        }
        #else
        destination.update(from: source, count: count)
        #endif
    }

    /// `output[r, c] = requantize(Σ_k rows[r, k]·w'[c, k] + constant[c] - q[c]·Σ_k rows[r, k])` for `rowCount` rows
    /// `rowStride` bytes apart. Rows go in blocks of `rowsPerBlock`: the microkernels fill the block's accumulators four
    /// rows at a time, then each 16-channel block's requantization data is loaded once for all of its rows (narrow
    /// layers, one or two channel blocks wide, spent most of their time setting that up for every four rows).
    func run(rows: UnsafePointer<Int8>, rowCount: Int, rowStride: Int, output: UnsafeMutableRawPointer, threads: Int) {
        #if LITE_AVX512_VNNI
        // Blocks of 8 rows when there are few rows to share between threads: in blocks of 16, a 7x7 layer's 49 rows
        // went 32 to one thread and 17 to the other.
        let blockRows = threads > 1 && rowCount < 256 ? 8 : Self.rowsPerBlock
        let blocks = (rowCount + blockRows - 1) / blockRows
        parallelFor(blocks, threads: threads, minimumChunk: blockRows == Self.rowsPerBlock ? 2 : 1,
                    workPerItem: blockRows * paddedChannels * depth) { range in
            let accumulators = allocateAligned(Int32.self, count: Self.rowsPerBlock * paddedChannels)
            let rowSums = allocateAligned(Int32.self, count: Self.rowsPerBlock)
            defer {
                deallocateAligned(accumulators)
                deallocateAligned(rowSums)
            }
            for block in range {
                let first = block * blockRows
                let count = min(blockRows, rowCount - first)
                let blockRows = rows + first * rowStride
                if activationsUnsigned {
                    multiplyBlock(UnsignedActivations.self, blockRows, count: count, rowStride: rowStride, into: accumulators)
                } else {
                    multiplyBlock(UnsignedFilter.self, blockRows, count: count, rowStride: rowStride, into: accumulators)
                }
                rowSums16(blockRows, rowStride: rowStride, count: count, into: rowSums)
                requantization.requantizeBlock(accumulators, accumulatorStride: paddedChannels, rows: count, constants: channelConstants,
                                               rowSumFactors: rowSumFactors, rowSums: rowSums, channels: channels,
                                               into: output + first * channels, outputStride: channels)
            }
        }
        #else
        preconditionFailure("QuantizedGEMM.run needs a build with LITE_AVX512_VNNI")
        #endif
    }

    #if LITE_AVX512_VNNI
    /// `Σ_k row[k]` over the padded depth for `count` (at most 16) rows `rowStride` apart, into `sums[0..<16]` (the
    /// lanes past `count` repeat the last row). Each row's bytes are summed 64 at a time with `vpdpbusd` against
    /// ones into 16 partial sums, and the 16 rows' partial sums are added across lanes together: pairs of rows
    /// interleave and add within 128-bit lanes (32-bit, then 64-bit unpacks), then the four 128-bit lanes fold
    /// in two permutes, leaving row i's sum in lane i (45 operations for 16 rows, not a reduction of 9 per row).
    @inline(__always)
    private func rowSums16(_ rows: UnsafePointer<Int8>, rowStride: Int, count: Int, into sums: UnsafeMutablePointer<Int32>) {
        let ones = _mm512_set1_epi8(1)
        let tailMask: UInt64 = paddedDepth % 64 == 0 ? ~0 : (1 << UInt64(paddedDepth % 64)) &- 1
        @inline(__always) func partial(_ i: Int) -> __m512i {
            let row = UnsafeRawPointer(rows + min(i, count - 1) * rowStride)
            var sum = _mm512_setzero_si512()
            var k = 0
            while k + 64 <= paddedDepth {
                let bytes = _mm512_loadu_si512(row + k)
                sum = activationsUnsigned ? _mm512_dpbusd_epi32(sum, bytes, ones) : _mm512_dpbusd_epi32(sum, ones, bytes)
                k += 64
            }
            if k < paddedDepth {
                let bytes = _mm512_maskz_loadu_epi8(tailMask, row + k)
                sum = activationsUnsigned ? _mm512_dpbusd_epi32(sum, bytes, ones) : _mm512_dpbusd_epi32(sum, ones, bytes)
            }
            return sum
        }
        // Two rows a and b -> per 128-bit lane [a0+a2, b0+b2, a1+a3, b1+b3].
        @inline(__always) func pair(_ a: __m512i, _ b: __m512i) -> __m512i {
            _mm512_add_epi32(_mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b))
        }
        // Two pairs (rows a, b and c, d) -> per 128-bit lane that lane's [Σa, Σb, Σc, Σd].
        @inline(__always) func quad(_ ab: __m512i, _ cd: __m512i) -> __m512i {
            _mm512_add_epi32(_mm512_unpacklo_epi64(ab, cd), _mm512_unpackhi_epi64(ab, cd))
        }
        let q0 = quad(pair(partial(0), partial(1)), pair(partial(2), partial(3)))
        let q1 = quad(pair(partial(4), partial(5)), pair(partial(6), partial(7)))
        let q2 = quad(pair(partial(8), partial(9)), pair(partial(10), partial(11)))
        let q3 = quad(pair(partial(12), partial(13)), pair(partial(14), partial(15)))
        // 128-bit lanes [x.L0, x.L2, y.L0, y.L2] + [x.L1, x.L3, y.L1, y.L3]: applied twice, lane group g of the
        // result is the sum of the four lanes of q_g.
        let evenLanes = _mm512_set_epi64(13, 12, 9, 8, 5, 4, 1, 0), oddLanes = _mm512_set_epi64(15, 14, 11, 10, 7, 6, 3, 2)
        @inline(__always) func fold(_ x: __m512i, _ y: __m512i) -> __m512i {
            _mm512_add_epi32(_mm512_permutex2var_epi64(x, evenLanes, y), _mm512_permutex2var_epi64(x, oddLanes, y))
        }
        _mm512_storeu_si512(UnsafeMutableRawPointer(sums), fold(fold(q0, q1), fold(q2, q3)))
    }

    /// `count` (at most 16) rows against every channel block: `accumulators[i, c] = Σ_k row_i[k]·w'[c, k]`. Layers of
    /// one or two channel blocks take eight rows a call (16 accumulators, as the four-row tiles of four blocks do),
    /// wider ones four. Rows past `count` repeat the last one; their accumulators are written but not used.
    @inline(__always)
    private func multiplyBlock<Order: DotOperandOrder>(_ order: Order.Type, _ rows: UnsafePointer<Int8>, count: Int, rowStride: Int,
                                                       into accumulators: UnsafeMutablePointer<Int32>) {
        let last = count - 1
        @inline(__always) func row(_ i: Int) -> UnsafePointer<Int8> { rows + min(i, last) * rowStride }
        let blocks = paddedChannels / Self.lanes
        var tile = 0
        if blocks <= 2 {
            let filter = UnsafeRawPointer(weights), steps = paddedDepth / 4
            while tile < count {
                let out = accumulators + tile * paddedChannels
                let r = (row(tile), row(tile + 1), row(tile + 2), row(tile + 3), row(tile + 4), row(tile + 5), row(tile + 6), row(tile + 7))
                if blocks == 2 {
                    Self.kernel8x2(order, r, filter: filter, steps: steps, out: out, stride: paddedChannels)
                } else {
                    Self.kernel8x1(order, r, filter: filter, steps: steps, out: out, stride: paddedChannels)
                }
                tile += 8
            }
            return
        }
        while tile < count {
            multiplyTile(order, row(tile), row(tile + 1), row(tile + 2), row(tile + 3), into: accumulators + tile * paddedChannels)
            tile += Self.rowsPerTile
        }
    }

    typealias EightRows = (UnsafePointer<Int8>, UnsafePointer<Int8>, UnsafePointer<Int8>, UnsafePointer<Int8>,
                           UnsafePointer<Int8>, UnsafePointer<Int8>, UnsafePointer<Int8>, UnsafePointer<Int8>)

    /// 8 rows x 16 channels (a layer of one channel block).
    @inline(never)
    private static func kernel8x1<Order: DotOperandOrder>(_ order: Order.Type, _ r: EightRows, filter: UnsafeRawPointer, steps: Int,
                                                          out: UnsafeMutablePointer<Int32>, stride: Int) {
        var c0 = _mm512_setzero_si512(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0
        var w = filter
        for s in 0..<steps {
            let w0 = _mm512_loadu_si512(w)
            c0 = Order.dot(c0, w0, broadcast(r.0, s)); c1 = Order.dot(c1, w0, broadcast(r.1, s))
            c2 = Order.dot(c2, w0, broadcast(r.2, s)); c3 = Order.dot(c3, w0, broadcast(r.3, s))
            c4 = Order.dot(c4, w0, broadcast(r.4, s)); c5 = Order.dot(c5, w0, broadcast(r.5, s))
            c6 = Order.dot(c6, w0, broadcast(r.6, s)); c7 = Order.dot(c7, w0, broadcast(r.7, s))
            w += 64
        }
        @inline(__always) func store(_ i: Int, _ c: __m512i) { _mm512_storeu_si512(UnsafeMutableRawPointer(out + i * stride), c) }
        store(0, c0); store(1, c1); store(2, c2); store(3, c3); store(4, c4); store(5, c5); store(6, c6); store(7, c7)
    }

    /// 8 rows x 32 channels (a layer of two channel blocks).
    @inline(never)
    private static func kernel8x2<Order: DotOperandOrder>(_ order: Order.Type, _ r: EightRows, filter: UnsafeRawPointer, steps: Int,
                                                          out: UnsafeMutablePointer<Int32>, stride: Int) {
        var c00 = _mm512_setzero_si512(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00
        var c40 = c00, c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00, c70 = c00, c71 = c00
        var w = filter
        for s in 0..<steps {
            let w0 = _mm512_loadu_si512(w), w1 = _mm512_loadu_si512(w + 64)
            var x = broadcast(r.0, s)
            c00 = Order.dot(c00, w0, x); c01 = Order.dot(c01, w1, x)
            x = broadcast(r.1, s)
            c10 = Order.dot(c10, w0, x); c11 = Order.dot(c11, w1, x)
            x = broadcast(r.2, s)
            c20 = Order.dot(c20, w0, x); c21 = Order.dot(c21, w1, x)
            x = broadcast(r.3, s)
            c30 = Order.dot(c30, w0, x); c31 = Order.dot(c31, w1, x)
            x = broadcast(r.4, s)
            c40 = Order.dot(c40, w0, x); c41 = Order.dot(c41, w1, x)
            x = broadcast(r.5, s)
            c50 = Order.dot(c50, w0, x); c51 = Order.dot(c51, w1, x)
            x = broadcast(r.6, s)
            c60 = Order.dot(c60, w0, x); c61 = Order.dot(c61, w1, x)
            x = broadcast(r.7, s)
            c70 = Order.dot(c70, w0, x); c71 = Order.dot(c71, w1, x)
            w += 128
        }
        @inline(__always) func store(_ i: Int, _ low: __m512i, _ high: __m512i) {
            let o = UnsafeMutableRawPointer(out + i * stride)
            _mm512_storeu_si512(o, low)
            _mm512_storeu_si512(o + 64, high)
        }
        store(0, c00, c01); store(1, c10, c11); store(2, c20, c21); store(3, c30, c31)
        store(4, c40, c41); store(5, c50, c51); store(6, c60, c61); store(7, c70, c71)
    }

    /// Four rows against every channel block: `accumulators[i, c] = Σ_k row_i[k]·w'[c, k]`.
    @inline(__always)
    private func multiplyTile<Order: DotOperandOrder>(_ order: Order.Type, _ r0: UnsafePointer<Int8>, _ r1: UnsafePointer<Int8>,
                                                      _ r2: UnsafePointer<Int8>, _ r3: UnsafePointer<Int8>,
                                                      into accumulators: UnsafeMutablePointer<Int32>) {
        let steps = paddedDepth / 4
        let blocks = paddedChannels / Self.lanes
        let stride = paddedChannels
        var block = 0
        while block < blocks {
            let groupBlocks = min(Self.blocksPerGroup, blocks - block)
            let filter = UnsafeRawPointer(weights + block * Self.lanes * paddedDepth)
            let out = accumulators + block * Self.lanes
            if groupBlocks == 4 {
                Self.kernel4x4(order, r0, r1, r2, r3, filter: filter, steps: steps, out: out, stride: stride)
            } else {
                var j = 0
                if groupBlocks >= 2 {
                    Self.kernel4x2(order, r0, r1, r2, r3, filter: filter, filterStep: groupBlocks * 64, steps: steps, out: out, stride: stride)
                    j = 2
                }
                if j < groupBlocks {
                    Self.kernel4x1(order, r0, r1, r2, r3, filter: filter + j * 64, filterStep: groupBlocks * 64, steps: steps,
                                   out: out + j * Self.lanes, stride: stride)
                }
            }
            block += groupBlocks
        }
    }

    /// Which operand `vpdpbusd` reads as unsigned: the filter (int8 models) or the activations (uint8 models).
    private protocol DotOperandOrder {
        static func dot(_ accumulator: __m512i, _ filter: __m512i, _ activations: __m512i) -> __m512i
    }
    private enum UnsignedFilter: DotOperandOrder {
        @inline(__always) static func dot(_ accumulator: __m512i, _ filter: __m512i, _ activations: __m512i) -> __m512i {
            _mm512_dpbusd_epi32(accumulator, filter, activations)
        }
    }
    private enum UnsignedActivations: DotOperandOrder {
        @inline(__always) static func dot(_ accumulator: __m512i, _ filter: __m512i, _ activations: __m512i) -> __m512i {
            _mm512_dpbusd_epi32(accumulator, activations, filter)
        }
    }

    @inline(__always)
    private static func broadcast(_ row: UnsafePointer<Int8>, _ step: Int) -> __m512i {
        _mm512_set1_epi32(UnsafeRawPointer(row).loadUnaligned(fromByteOffset: step * 4, as: Int32.self))
    }

    /// 4 rows x 64 channels: 16 zmm accumulators, four filter loads and four broadcasts per step.
    @inline(never)
    private static func kernel4x4<Order: DotOperandOrder>(_ order: Order.Type, _ r0: UnsafePointer<Int8>, _ r1: UnsafePointer<Int8>, _ r2: UnsafePointer<Int8>, _ r3: UnsafePointer<Int8>,
                                  filter: UnsafeRawPointer, steps: Int, out: UnsafeMutablePointer<Int32>, stride: Int) {
        var c00 = _mm512_setzero_si512(), c01 = c00, c02 = c00, c03 = c00
        var c10 = c00, c11 = c00, c12 = c00, c13 = c00
        var c20 = c00, c21 = c00, c22 = c00, c23 = c00
        var c30 = c00, c31 = c00, c32 = c00, c33 = c00
        var w = filter
        for s in 0..<steps {
            let w0 = _mm512_loadu_si512(w), w1 = _mm512_loadu_si512(w + 64)
            let w2 = _mm512_loadu_si512(w + 128), w3 = _mm512_loadu_si512(w + 192)
            let x0 = broadcast(r0, s)
            c00 = Order.dot(c00, w0, x0); c01 = Order.dot(c01, w1, x0)
            c02 = Order.dot(c02, w2, x0); c03 = Order.dot(c03, w3, x0)
            let x1 = broadcast(r1, s)
            c10 = Order.dot(c10, w0, x1); c11 = Order.dot(c11, w1, x1)
            c12 = Order.dot(c12, w2, x1); c13 = Order.dot(c13, w3, x1)
            let x2 = broadcast(r2, s)
            c20 = Order.dot(c20, w0, x2); c21 = Order.dot(c21, w1, x2)
            c22 = Order.dot(c22, w2, x2); c23 = Order.dot(c23, w3, x2)
            let x3 = broadcast(r3, s)
            c30 = Order.dot(c30, w0, x3); c31 = Order.dot(c31, w1, x3)
            c32 = Order.dot(c32, w2, x3); c33 = Order.dot(c33, w3, x3)
            w += 256
        }
        let o0 = UnsafeMutableRawPointer(out), o1 = UnsafeMutableRawPointer(out + stride)
        let o2 = UnsafeMutableRawPointer(out + 2 * stride), o3 = UnsafeMutableRawPointer(out + 3 * stride)
        _mm512_storeu_si512(o0, c00); _mm512_storeu_si512(o0 + 64, c01); _mm512_storeu_si512(o0 + 128, c02); _mm512_storeu_si512(o0 + 192, c03)
        _mm512_storeu_si512(o1, c10); _mm512_storeu_si512(o1 + 64, c11); _mm512_storeu_si512(o1 + 128, c12); _mm512_storeu_si512(o1 + 192, c13)
        _mm512_storeu_si512(o2, c20); _mm512_storeu_si512(o2 + 64, c21); _mm512_storeu_si512(o2 + 128, c22); _mm512_storeu_si512(o2 + 192, c23)
        _mm512_storeu_si512(o3, c30); _mm512_storeu_si512(o3 + 64, c31); _mm512_storeu_si512(o3 + 128, c32); _mm512_storeu_si512(o3 + 192, c33)
    }

    /// 4 rows x 32 channels, for a last group of two or three blocks.
    @inline(never)
    private static func kernel4x2<Order: DotOperandOrder>(_ order: Order.Type, _ r0: UnsafePointer<Int8>, _ r1: UnsafePointer<Int8>, _ r2: UnsafePointer<Int8>, _ r3: UnsafePointer<Int8>,
                                  filter: UnsafeRawPointer, filterStep: Int, steps: Int, out: UnsafeMutablePointer<Int32>, stride: Int) {
        var c00 = _mm512_setzero_si512(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00
        var w = filter
        for s in 0..<steps {
            let w0 = _mm512_loadu_si512(w), w1 = _mm512_loadu_si512(w + 64)
            let x0 = broadcast(r0, s), x1 = broadcast(r1, s), x2 = broadcast(r2, s), x3 = broadcast(r3, s)
            c00 = Order.dot(c00, w0, x0); c01 = Order.dot(c01, w1, x0)
            c10 = Order.dot(c10, w0, x1); c11 = Order.dot(c11, w1, x1)
            c20 = Order.dot(c20, w0, x2); c21 = Order.dot(c21, w1, x2)
            c30 = Order.dot(c30, w0, x3); c31 = Order.dot(c31, w1, x3)
            w += filterStep
        }
        let o0 = UnsafeMutableRawPointer(out), o1 = UnsafeMutableRawPointer(out + stride)
        let o2 = UnsafeMutableRawPointer(out + 2 * stride), o3 = UnsafeMutableRawPointer(out + 3 * stride)
        _mm512_storeu_si512(o0, c00); _mm512_storeu_si512(o0 + 64, c01)
        _mm512_storeu_si512(o1, c10); _mm512_storeu_si512(o1 + 64, c11)
        _mm512_storeu_si512(o2, c20); _mm512_storeu_si512(o2 + 64, c21)
        _mm512_storeu_si512(o3, c30); _mm512_storeu_si512(o3 + 64, c31)
    }

    /// 4 rows x 16 channels, for the last block of a group of one or three.
    @inline(never)
    private static func kernel4x1<Order: DotOperandOrder>(_ order: Order.Type, _ r0: UnsafePointer<Int8>, _ r1: UnsafePointer<Int8>, _ r2: UnsafePointer<Int8>, _ r3: UnsafePointer<Int8>,
                                  filter: UnsafeRawPointer, filterStep: Int, steps: Int, out: UnsafeMutablePointer<Int32>, stride: Int) {
        var c0 = _mm512_setzero_si512(), c1 = c0, c2 = c0, c3 = c0
        var w = filter
        for s in 0..<steps {
            let w0 = _mm512_loadu_si512(w)
            c0 = Order.dot(c0, w0, broadcast(r0, s))
            c1 = Order.dot(c1, w0, broadcast(r1, s))
            c2 = Order.dot(c2, w0, broadcast(r2, s))
            c3 = Order.dot(c3, w0, broadcast(r3, s))
            w += filterStep
        }
        _mm512_storeu_si512(UnsafeMutableRawPointer(out), c0)
        _mm512_storeu_si512(UnsafeMutableRawPointer(out + stride), c1)
        _mm512_storeu_si512(UnsafeMutableRawPointer(out + 2 * stride), c2)
        _mm512_storeu_si512(UnsafeMutableRawPointer(out + 3 * stride), c3)
    }
    #endif
}

/// TFLite's integer requantization of rows of int32 accumulators, exact (unlike the double-precision replay of
/// `requantizeFast`), with the two roundings folded into one 64-bit multiply-add-shift per value
/// (`IntegerArithmetic.FoldedMultiplier`). `roundingUp` picks the GEMM kernels' final rounding (ties up) or
/// `MultiplyByQuantizedMultiplier`'s (ties away from zero; ties up for `ChannelRequantization.upwardChannels`, whose
/// negative-value corrections are 0).
///
/// AVX-512 builds take 16 channels per step in int32 lanes: `vpmuldq` multiplies the even lanes, and the odd ones
/// after a 32-bit shift, into 64-bit products; each half is shifted by its channels' amounts and the two are
/// interleaved back. Other builds (which only use it in tests) run the same arithmetic one channel at a time.
final class ExactRequantization {
    /// Channels the per-channel data covers (a multiple of 16).
    private let channelCount: Int
    private let multipliers: UnsafeMutablePointer<Int32>
    private let leftShifts: UnsafeMutablePointer<Int32>
    /// Each odd channel's multiplier one channel down (in the low half of its 64-bit lane, where `vpmuldq` reads it).
    private let oddMultipliers: UnsafeMutablePointer<Int32>
    /// Per channel as 64-bit values, stored per 16-channel group as [8 even channels, 8 odd channels]: the addend
    /// `2^30 + 2^(r-1)·2^31 + zero·2^(31+r)`, the total shift `31 + r`, and the 2^31 taken off negative high products
    /// when rounding away from zero.
    private let addends: UnsafeMutablePointer<Int64>
    private let totalShifts: UnsafeMutablePointer<Int64>
    private let negativeCorrections: UnsafeMutablePointer<Int64>
    /// For AVX2, which shifts 64-bit lanes right only logically: the addend plus 2^63 (wrapping) and, per slot,
    /// 2^(63 - total shift). For any int64 t, (t + 2^63 as unsigned) >> s is (t >> s) + 2^(63-s) exactly.
    private let biasedAddends: UnsafeMutablePointer<Int64>
    private let shiftBiases: UnsafeMutablePointer<Int64>
    /// Per channel (in order): the total shift less 32, for AVX2 builds when every total shift is at least 32 (every
    /// right shift at least 1): then `t >> s` is the high 32 bits of t shifted arithmetically by s - 32 in int32 lanes.
    private let highWordShifts: UnsafeMutablePointer<Int32>
    let shiftsFromHighWords: Bool
    /// Per block of 8 channels: whether any of them rounds ties away from zero (has a negative correction). A block
    /// without runs the ties-up code even when asked to round away: the two are the same arithmetic there (int8
    /// depthwise rounds ties up in whole groups of 8 channels, see ``ChannelRequantization/upwardChannels``).
    private let correctedBlocks: [Bool]
    let outputZeroPoint: Int32
    let low: Int32, high: Int32
    let hasLeftShifts: Bool
    /// Whether the output zero point is in the addends (every right shift at most 22), else added after the shift.
    let foldsZeroPoint: Bool
    /// The row-sum factor when every channel has the same one (per-tensor or symmetric filters): then the row-sum
    /// term is one number per row.
    let uniformRowSumFactor: Int32?

    init(_ requantization: ChannelRequantization, paddedChannels: Int, rowSumFactors: [Int32] = []) {
        let real = rowSumFactors.prefix(requantization.multipliers.count)
        uniformRowSumFactor = real.allSatisfy { $0 == real.first } ? (real.first ?? 0) : nil
        hasLeftShifts = requantization.shifts.contains { $0 > 0 }
        channelCount = (max(paddedChannels, requantization.multipliers.count) + 15) & ~15
        multipliers = allocateAligned(Int32.self, count: channelCount)
        oddMultipliers = allocateAligned(Int32.self, count: channelCount)
        oddMultipliers.initialize(repeating: 0, count: channelCount)
        // |x·m| < 2^62 and |zero|·2^(31+r) ≤ 2^61 for r ≤ 22 keep the sum inside int64.
        foldsZeroPoint = requantization.shifts.allSatisfy { $0 >= -22 }
        leftShifts = allocateAligned(Int32.self, count: channelCount)
        addends = allocateAligned(Int64.self, count: channelCount)
        totalShifts = allocateAligned(Int64.self, count: channelCount)
        negativeCorrections = allocateAligned(Int64.self, count: channelCount)
        biasedAddends = allocateAligned(Int64.self, count: channelCount)
        shiftBiases = allocateAligned(Int64.self, count: channelCount)
        highWordShifts = allocateAligned(Int32.self, count: channelCount)
        var shiftsFromHighWords = true
        for c in 0..<channelCount {
            let inRange = c < requantization.multipliers.count
            let folded = IntegerArithmetic.FoldedMultiplier(multiplier: inRange ? requantization.multipliers[c] : 0,
                                                            shift: inRange ? requantization.shifts[c] : 0,
                                                            roundingUp: requantization.roundsUp(c, kernelRoundsUp: false))
            multipliers[c] = Int32(folded.multiplier)
            leftShifts[c] = folded.leftShift
            let slot = Self.slot(c)
            // The output zero point rides in the addend when it fits: (t + zero·2^s) >> s = (t >> s) + zero, exactly.
            addends[slot] = folded.addend &+ (foldsZeroPoint ? Int64(requantization.outputZeroPoint) << folded.totalShift : 0)
            if c % 2 == 1 { oddMultipliers[c - 1] = Int32(folded.multiplier) }
            totalShifts[slot] = folded.totalShift
            negativeCorrections[slot] = folded.negativeCorrection
            biasedAddends[slot] = addends[slot] &+ Int64.min
            shiftBiases[slot] = 1 &<< (63 &- min(folded.totalShift, 63))
            highWordShifts[c] = Int32(max(folded.totalShift - 32, 0))
            if inRange && folded.totalShift < 32 { shiftsFromHighWords = false }
        }
        self.shiftsFromHighWords = shiftsFromHighWords
        correctedBlocks = stride(from: 0, to: channelCount, by: 8).map { [negativeCorrections] first in
            (first..<first + 8).contains { negativeCorrections[Self.slot($0)] != 0 }
        }
        outputZeroPoint = requantization.outputZeroPoint
        low = requantization.low
        high = requantization.high
    }

    /// Where channel `c`'s 64-bit data is stored: even channels of a 16-channel group first, then odd ones.
    @inline(__always)
    static func slot(_ c: Int) -> Int {
        c & ~15 + (c % 2 == 0 ? (c % 16) / 2 : 8 + (c % 16) / 2)
    }

    deinit {
        deallocateAligned(multipliers)
        deallocateAligned(oddMultipliers)
        deallocateAligned(leftShifts)
        deallocateAligned(addends)
        deallocateAligned(totalShifts)
        deallocateAligned(negativeCorrections)
        deallocateAligned(biasedAddends)
        deallocateAligned(shiftBiases)
        deallocateAligned(highWordShifts)
    }

    #if arch(x86_64)
    /// This requantization as the C kernels read it (``WidenedQuantizedKernels``): pointers into its arrays, valid
    /// inside `body`.
    func withKernelParameters<Result>(_ body: (UnsafePointer<lite_qs8_requantization>) -> Result) -> Result {
        correctedBlocks.withUnsafeBufferPointer { corrected in
            var parameters = lite_qs8_requantization(
                multipliers: multipliers, odd_multipliers: oddMultipliers, left_shifts: leftShifts, high_word_shifts: highWordShifts,
                addends: addends, total_shifts: totalShifts, negative_corrections: negativeCorrections, biased_addends: biasedAddends,
                shift_biases: shiftBiases, corrected_blocks: corrected.baseAddress, output_zero_point: outputZeroPoint, low: low, high: high,
                uniform_row_sum_factor: uniformRowSumFactor ?? 0, has_uniform_row_sum_factor: uniformRowSumFactor != nil,
                has_left_shifts: hasLeftShifts, folds_zero_point: foldsZeroPoint, shifts_from_high_words: shiftsFromHighWords)
            return withUnsafePointer(to: &parameters) { body($0) }
        }
    }
    #endif

    /// The AVX2 requantization of a block of rows (``QuantizedGEMMAVX2``, four depthwise pixels): `rows` rows of
    /// accumulators `accumulatorStride` apart, each `accumulator + constant[c]` (no row-sum term), rounding ties up
    /// (the GEMM kernels) or away from zero (`roundingUp` false), the bytes of `channels` (a range starting at a
    /// multiple of 8) at row `i` of `output` at `i·outputStride + c`; eight channels per step, whose data is loaded
    /// once for all the rows (`lite_qs8_requantize_block8__avx2`). Total shifts must be at most 62 (right shifts up
    /// to 31). Needs ``KernelConfiguration/widenedQuantized``.
    func requantizeBlock8(_ accumulators: UnsafePointer<Int32>, accumulatorStride: Int, rows: Int, constants: UnsafePointer<Int32>,
                          channels: Range<Int>, into output: UnsafeMutableRawPointer, outputStride: Int, roundingUp: Bool = true) {
        #if arch(x86_64)
        guard let kernels = KernelConfiguration.current.widenedQuantized else { preconditionFailure("requantizeBlock8 needs the AVX2 kernels") }
        withKernelParameters { parameters in
            kernels.requantizeBlock8(parameters, accumulators, accumulatorStride, rows, constants, channels.lowerBound, channels.upperBound, output,
                                     outputStride, roundingUp)
        }
        #else
        preconditionFailure("requantizeBlock8 needs the AVX2 kernels of x86-64")
        #endif
    }

    /// The GEMM's requantization of a block of rows: `rows` (at most ``QuantizedGEMM/rowsPerBlock``) rows of
    /// accumulators `accumulatorStride` apart, each `accumulator + constant[c] - factor[c]·rowSums[row]`, rounding ties
    /// up, `channels` bytes per row `outputStride` apart. Each 16-channel block's data is loaded once for all the rows.
    @inline(__always)
    func requantizeBlock(_ accumulators: UnsafePointer<Int32>, accumulatorStride: Int, rows: Int, constants: UnsafePointer<Int32>,
                         rowSumFactors: UnsafePointer<Int32>, rowSums: UnsafeMutablePointer<Int32>, channels: Int,
                         into output: UnsafeMutableRawPointer, outputStride: Int) {
        #if LITE_AVX512_VNNI
        let zero = _mm512_set1_epi32(outputZeroPoint), lowest = _mm512_set1_epi32(low), highest = _mm512_set1_epi32(high)
        // With one factor for every channel, the row-sum term is one number per row: turn the sums into the terms.
        if let factor = uniformRowSumFactor {
            for i in 0..<rows { rowSums[i] = 0 &- factor &* rowSums[i] }
        }
        let uniform = uniformRowSumFactor != nil
        func load(_ pointer: UnsafeRawPointer) -> __m512i { _mm512_loadu_si512(pointer) }
        var c = 0
        while c < channels {
            let constant = load(constants + c), factors = load(rowSumFactors + c)
            let left = load(leftShifts + c), multiplier = load(multipliers + c), oddMultiplier = load(oddMultipliers + c)
            let evenAddend = load(addends + c), oddAddend = load(addends + c + 8)
            let evenShift = load(totalShifts + c), oddShift = load(totalShifts + c + 8)
            let mask = UInt16(truncatingIfNeeded: (1 << min(channels - c, 16)) - 1)
            // The flags are arguments so that the common case (one row-sum factor, no left shifts, the zero point in
            // the addends) is a loop of its own without tests in it.
            @inline(__always) func finish(_ i: Int, uniform: Bool, hasLeftShifts: Bool, foldsZeroPoint: Bool) {
                let perRow = _mm512_set1_epi32(rowSums[i])
                let term = uniform ? perRow : _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_mullo_epi32(factors, perRow))
                var x = _mm512_add_epi32(_mm512_add_epi32(load(accumulators + (i &* accumulatorStride &+ c)), constant), term)
                // x·2^left wraps in int32 like TFLite's `x * (1 << left_shift)`.
                if hasLeftShifts { x = _mm512_sllv_epi32(x, left) }
                let even = _mm512_srav_epi64(_mm512_add_epi64(_mm512_mul_epi32(x, multiplier), evenAddend), evenShift)
                let odd = _mm512_srav_epi64(_mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), oddMultiplier), oddAddend), oddShift)
                var v = joinEvenOddLanes(even, odd)
                if !foldsZeroPoint { v = _mm512_add_epi32(v, zero) }
                v = _mm512_min_epi32(_mm512_max_epi32(v, lowest), highest)
                _mm_mask_storeu_epi8(output + (i &* outputStride &+ c), mask, _mm512_cvtepi32_epi8(v))
            }
            if uniform && !hasLeftShifts && foldsZeroPoint {
                for i in 0..<rows { finish(i, uniform: true, hasLeftShifts: false, foldsZeroPoint: true) }
            } else {
                for i in 0..<rows { finish(i, uniform: uniform, hasLeftShifts: hasLeftShifts, foldsZeroPoint: foldsZeroPoint) }
            }
            c += 16
        }
        #else
        for i in 0..<rows {
            requantizeRow(accumulators + i * accumulatorStride, constants: constants, rowSumFactors: rowSumFactors, rowSum: rowSums[i],
                          channels: channels, into: output + i * outputStride)
        }
        #endif
    }

    /// Requantizes one row of accumulators (`accumulator + constant[c] - factor[c]·rowSum`), storing `channels` bytes.
    /// The accumulator and per-channel arrays are readable up to the next multiple of 16 channels.
    @inline(__always)
    func requantizeRow(_ accumulators: UnsafePointer<Int32>, constants: UnsafePointer<Int32>, rowSumFactors: UnsafePointer<Int32>, rowSum: Int32,
                       channels: Int, into output: UnsafeMutableRawPointer, roundingUp: Bool = true) {
        #if LITE_AVX512_VNNI
        let zero = _mm512_set1_epi32(outputZeroPoint), lowest = _mm512_set1_epi32(low), highest = _mm512_set1_epi32(high)
        let nudge = _mm512_set1_epi64(1 << 30)
        let uniformTerm = uniformRowSumFactor.map { _mm512_set1_epi32(0 &- $0 &* rowSum) }
        let sum = _mm512_set1_epi32(rowSum)
        func load(_ pointer: UnsafeRawPointer) -> __m512i { _mm512_loadu_si512(pointer) }
        var c = 0
        while c < channels {
            var x = _mm512_add_epi32(load(accumulators + c), load(constants + c))
            if let uniformTerm {
                x = _mm512_add_epi32(x, uniformTerm)
            } else {
                x = _mm512_sub_epi32(x, _mm512_mullo_epi32(load(rowSumFactors + c), sum))
            }
            // x·2^left wraps in int32 like TFLite's `x * (1 << left_shift)`.
            if hasLeftShifts { x = _mm512_sllv_epi32(x, load(leftShifts + c)) }
            let even = _mm512_mul_epi32(x, load(multipliers + c))
            let odd = _mm512_mul_epi32(_mm512_srli_epi64(x, 32), load(oddMultipliers + c))
            let (evenAddend, oddAddend) = (load(addends + c), load(addends + c + 8))
            var evenTotal = _mm512_add_epi64(even, evenAddend), oddTotal = _mm512_add_epi64(odd, oddAddend)
            if !roundingUp {
                let evenNegative = _mm512_srai_epi64(_mm512_add_epi64(even, nudge), 63)
                let oddNegative = _mm512_srai_epi64(_mm512_add_epi64(odd, nudge), 63)
                evenTotal = _mm512_sub_epi64(evenTotal, _mm512_and_si512(evenNegative, load(negativeCorrections + c)))
                oddTotal = _mm512_sub_epi64(oddTotal, _mm512_and_si512(oddNegative, load(negativeCorrections + c + 8)))
            }
            let evenResult = _mm512_srav_epi64(evenTotal, load(totalShifts + c))
            let oddResult = _mm512_srav_epi64(oddTotal, load(totalShifts + c + 8))
            var v = joinEvenOddLanes(evenResult, oddResult)
            if !foldsZeroPoint { v = _mm512_add_epi32(v, zero) }
            v = _mm512_min_epi32(_mm512_max_epi32(v, lowest), highest)
            // Clamped to the output type's range, so the low byte is the uint8 or int8 value.
            let bytes = _mm512_cvtepi32_epi8(v)
            let destination = (output + c).assumingMemoryBound(to: __m128i_u.self)
            if c + 16 <= channels {
                _mm_storeu_si128(destination, bytes)
            } else {
                _mm_mask_storeu_epi8(UnsafeMutableRawPointer(destination), UInt16((1 << (channels - c)) - 1), bytes)
            }
            c += 16
        }
        #else
        #if arch(x86_64)
        if let kernels = KernelConfiguration.current.widenedQuantized {
            withKernelParameters { parameters in
                kernels.requantizeRow(parameters, accumulators, constants, rowSumFactors, rowSum, channels, output, roundingUp)
            }
            return
        }
        #endif
        let uniformTerm = uniformRowSumFactor.map { 0 &- $0 &* rowSum }
        for c in 0..<channels {
            let slot = Self.slot(c)
            var x = accumulators[c] &+ constants[c]
            if let uniformTerm { x &+= uniformTerm } else { x &-= rowSumFactors[c] &* rowSum }
            let product = Int64(x &<< leftShifts[c]) &* Int64(multipliers[c])
            var total = product &+ addends[slot]
            if !roundingUp { total &-= ((product &+ (1 << 30)) &>> 63) & negativeCorrections[slot] }
            let v = min(max((total &>> totalShifts[slot]) &+ (foldsZeroPoint ? 0 : Int64(outputZeroPoint)), Int64(low)), Int64(high))
            output.storeBytes(of: UInt8(truncatingIfNeeded: v), toByteOffset: c, as: UInt8.self)
        }
        #endif
    }
}

#if LITE_AVX512_VNNI
/// Sixteen int32 results of a computation done in 64-bit lanes on the even and the odd int32 lanes (as `vpmuldq`
/// multiplies them): lane 2i is the low half of `even`'s 64-bit lane i, lane 2i+1 the low half of `odd`'s. Each
/// result must fit int32.
@inline(__always)
func joinEvenOddLanes(_ even: __m512i, _ odd: __m512i) -> __m512i {
    _mm512_permutex2var_epi32(even, _mm512_set_epi32(30, 14, 28, 12, 26, 10, 24, 8, 22, 6, 20, 4, 18, 2, 16, 0), odd)
}
#endif

/// uint8 or int8, widened sixteen at a time to int32 lanes. AVX-512 builds use the widening loads directly: the
/// standard library's generic conversion is sometimes left as a call in large loops (measured: a third of the
/// depthwise kernel's time). On AVX2 CPUs the loops that widen bytes are C kernels (``WidenedQuantizedKernels``).
protocol QuantizedByte: FixedWidthInteger & SIMDScalar & Codable {
    static func widen16(_ pointer: UnsafeRawPointer) -> SIMD16<Int32>
}

extension Int8: QuantizedByte {
    @inline(__always)
    static func widen16(_ pointer: UnsafeRawPointer) -> SIMD16<Int32> {
        #if LITE_AVX512_VNNI
        return unsafeBitCast(_mm512_cvtepi8_epi32(_mm_loadu_si128(pointer.assumingMemoryBound(to: __m128i_u.self))), to: SIMD16<Int32>.self)
        #else
        return SIMD16<Int32>(truncatingIfNeeded: pointer.loadUnaligned(as: SIMD16<Int8>.self))
        #endif
    }
}

extension UInt8: QuantizedByte {
    @inline(__always)
    static func widen16(_ pointer: UnsafeRawPointer) -> SIMD16<Int32> {
        #if LITE_AVX512_VNNI
        return unsafeBitCast(_mm512_cvtepu8_epi32(_mm_loadu_si128(pointer.assumingMemoryBound(to: __m128i_u.self))), to: SIMD16<Int32>.self)
        #else
        return SIMD16<Int32>(truncatingIfNeeded: pointer.loadUnaligned(as: SIMD16<UInt8>.self))
        #endif
    }
}
