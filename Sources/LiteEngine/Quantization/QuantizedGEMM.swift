import CLiteKernels
import LiteFormat

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
///
/// The microkernels are C (``QuantizedDotProductKernels``, lite_qs8_vnni.h), run only when
/// ``KernelConfiguration/current`` selected the `avx512vnni` level.
final class QuantizedGEMM {
    /// Whether the configured level has the VNNI kernels (``KernelConfiguration``: `avx512vnni`, chosen on CPUs that
    /// have it); otherwise `fast` numerics keep the AVX2 or sgemm route.
    static var isAvailable: Bool { KernelConfiguration.current.quantizedDotProducts != nil }

    /// Whether `fast` numerics take this kernel (and the int32 depthwise kernel beside it) when available. Tests
    /// turn it off to check, in the same process, the route that levels without VNNI take.
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
    /// The configuration's VNNI kernels when this GEMM was made (nil only where ``isAvailable`` is false).
    let kernels: QuantizedDotProductKernels?

    init(filter: Tensor, filterZeroPoints: [Int32], bias: Tensor?, inputZeroPoint: Int32, signed: Bool,
         requantization: ChannelRequantization) throws {
        kernels = KernelConfiguration.current.quantizedDotProducts
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
                #if arch(x86_64)
                if let kernels {
                    // Filter rows of at most 16 bytes (a first layer's 3x3 taps of 3 channels: 9) go one 16-byte store
                    // each, longer ones in masked 16-byte pieces.
                    kernels.gemmPackInterior(source, source + input.elementCount, outputRow, rowLength, interior.lowerBound,
                                             interior.upperBound, kh, span, options.strideW * channels,
                                             (interior.lowerBound * options.strideW - geometryW.padBefore) * channels,
                                             oy * options.strideH - geometryH.padBefore, options.dilationH, inH, b * inH * inW * channels,
                                             inW * channels, padValue)
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

    /// `count` bytes (the portable path; the VNNI kernels' packing copies in masked 16-byte pieces).
    @inline(__always)
    static func copy(_ source: UnsafePointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>, count: Int) {
        destination.update(from: source, count: count)
    }

    /// `output[r, c] = requantize(Σ_k rows[r, k]·w'[c, k] + constant[c] - q[c]·Σ_k rows[r, k])` for `rowCount` rows
    /// `rowStride` bytes apart. Rows go in blocks of `rowsPerBlock`: the microkernels fill the block's accumulators four
    /// rows at a time, then each 16-channel block's requantization data is loaded once for all of its rows (narrow
    /// layers, one or two channel blocks wide, spent most of their time setting that up for every four rows).
    func run(rows: UnsafePointer<Int8>, rowCount: Int, rowStride: Int, output: UnsafeMutableRawPointer, threads: Int) {
        #if arch(x86_64)
        guard let kernels else { preconditionFailure("QuantizedGEMM.run needs the avx512vnni kernel configuration") }
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
                // `count` rows against every channel block (tiles of 8 rows x 16 or 32 channels for layers of one or two
                // blocks, else 4 x 64), then each row's Σ_k row[k] (16 rows' reduced across lanes together).
                kernels.gemmMultiplyBlock(weights, paddedChannels, paddedDepth, blockRows, count, rowStride, activationsUnsigned ? 1 : 0,
                                          accumulators)
                kernels.gemmRowSums16(blockRows, rowStride, count, paddedDepth, activationsUnsigned ? 1 : 0, rowSums)
                requantization.requantizeBlock(accumulators, accumulatorStride: paddedChannels, rows: count, constants: channelConstants,
                                               rowSumFactors: rowSumFactors, rowSums: rowSums, channels: channels,
                                               into: output + first * channels, outputStride: channels)
            }
        }
        #else
        preconditionFailure("QuantizedGEMM.run needs the avx512vnni kernel configuration")
        #endif
    }
}

/// TFLite's integer requantization of rows of int32 accumulators, exact (unlike the double-precision replay of
/// `requantizeFast`), with the two roundings folded into one 64-bit multiply-add-shift per value
/// (`IntegerArithmetic.FoldedMultiplier`). `roundingUp` picks the GEMM kernels' final rounding (ties up) or
/// `MultiplyByQuantizedMultiplier`'s (ties away from zero; ties up for `ChannelRequantization.upwardChannels`, whose
/// negative-value corrections are 0).
///
/// The `avx512vnni` level's C kernels (lite_qs8_requantize_row/block__avx512) take 16 channels per step in int32 lanes: `vpmuldq` multiplies the even lanes, and the odd ones
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
    private let correctedBlocks: UnsafeMutablePointer<Bool>
    let outputZeroPoint: Int32
    let low: Int32, high: Int32
    let hasLeftShifts: Bool
    /// Whether the output zero point is in the addends (every right shift at most 22), else added after the shift.
    let foldsZeroPoint: Bool
    /// The row-sum factor when every channel has the same one (per-tensor or symmetric filters): then the row-sum
    /// term is one number per row.
    let uniformRowSumFactor: Int32?
    #if arch(x86_64)
    /// The `avx512vnni` level's kernels, when configured, and the C view of the data above they read.
    private let vnniKernels: QuantizedDotProductKernels?
    private let vnniParameters: UnsafeMutablePointer<lite_qs8_requantization_avx512>?
    /// The `avx2` level's kernels (also configured at the levels above), and the C view they read; both captured
    /// once here so the per-block calls do not rebuild them.
    private let widenedKernels: WidenedQuantizedKernels?
    private let widenedParameters: UnsafeMutablePointer<lite_qs8_requantization>?
    #endif

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
        let correctedBlocks = UnsafeMutablePointer<Bool>.allocate(capacity: channelCount / 8)
        for block in 0..<channelCount / 8 {
            correctedBlocks[block] = (block * 8..<block * 8 + 8).contains { [negativeCorrections] in negativeCorrections[Self.slot($0)] != 0 }
        }
        self.correctedBlocks = correctedBlocks
        outputZeroPoint = requantization.outputZeroPoint
        low = requantization.low
        high = requantization.high
        #if arch(x86_64)
        // The avx512vnni level's C requantization (reads the arrays above, which live as long as this object).
        vnniKernels = KernelConfiguration.current.quantizedDotProducts
        if vnniKernels != nil {
            let parameters = UnsafeMutablePointer<lite_qs8_requantization_avx512>.allocate(capacity: 1)
            parameters.initialize(to: lite_qs8_requantization_avx512(
                multipliers: UnsafePointer(multipliers), odd_multipliers: UnsafePointer(oddMultipliers), left_shifts: UnsafePointer(leftShifts),
                addends: UnsafePointer(addends), total_shifts: UnsafePointer(totalShifts), negative_corrections: UnsafePointer(negativeCorrections),
                output_zero_point: outputZeroPoint, low: low, high: high, has_left_shifts: hasLeftShifts ? 1 : 0,
                folds_zero_point: foldsZeroPoint ? 1 : 0, has_uniform_row_sum_factor: uniformRowSumFactor == nil ? 0 : 1,
                uniform_row_sum_factor: uniformRowSumFactor ?? 0))
            vnniParameters = parameters
        } else {
            vnniParameters = nil
        }
        widenedKernels = KernelConfiguration.current.widenedQuantized
        if widenedKernels != nil {
            let parameters = UnsafeMutablePointer<lite_qs8_requantization>.allocate(capacity: 1)
            parameters.initialize(to: lite_qs8_requantization(
                multipliers: multipliers, odd_multipliers: oddMultipliers, left_shifts: leftShifts, high_word_shifts: highWordShifts,
                addends: addends, total_shifts: totalShifts, negative_corrections: negativeCorrections, biased_addends: biasedAddends,
                shift_biases: shiftBiases, corrected_blocks: correctedBlocks, output_zero_point: outputZeroPoint, low: low, high: high,
                uniform_row_sum_factor: uniformRowSumFactor ?? 0, has_uniform_row_sum_factor: uniformRowSumFactor != nil,
                has_left_shifts: hasLeftShifts, folds_zero_point: foldsZeroPoint, shifts_from_high_words: shiftsFromHighWords))
            widenedParameters = parameters
        } else {
            widenedParameters = nil
        }
        #endif
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
        correctedBlocks.deallocate()
        #if arch(x86_64)
        vnniParameters?.deallocate()
        widenedParameters?.deallocate()
        #endif
    }

    #if arch(x86_64)
    /// This requantization as the C kernels read it (``WidenedQuantizedKernels``): pointers into its arrays, valid
    /// as long as this object. Needs ``KernelConfiguration/widenedQuantized``.
    func withKernelParameters<Result>(_ body: (UnsafePointer<lite_qs8_requantization>) -> Result) -> Result {
        guard let widenedParameters else { preconditionFailure("the C requantization needs the AVX2 kernels") }
        return body(widenedParameters)
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
        guard let kernels = widenedKernels, let widenedParameters else { preconditionFailure("requantizeBlock8 needs the AVX2 kernels") }
        kernels.requantizeBlock8(widenedParameters, accumulators, accumulatorStride, rows, constants, channels.lowerBound, channels.upperBound, output,
                                 outputStride, roundingUp)
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
        #if arch(x86_64)
        if let kernels = vnniKernels, let vnniParameters {
            kernels.requantizeBlock(vnniParameters, accumulators, accumulatorStride, rows, constants, rowSumFactors, rowSums, channels,
                                    output, outputStride)
            return
        }
        #endif
        for i in 0..<rows {
            requantizeRow(accumulators + i * accumulatorStride, constants: constants, rowSumFactors: rowSumFactors, rowSum: rowSums[i],
                          channels: channels, into: output + i * outputStride)
        }
    }

    /// Requantizes one row of accumulators (`accumulator + constant[c] - factor[c]·rowSum`), storing `channels` bytes.
    /// The accumulator and per-channel arrays are readable up to the next multiple of 16 channels.
    @inline(__always)
    func requantizeRow(_ accumulators: UnsafePointer<Int32>, constants: UnsafePointer<Int32>, rowSumFactors: UnsafePointer<Int32>, rowSum: Int32,
                       channels: Int, into output: UnsafeMutableRawPointer, roundingUp: Bool = true) {
        #if arch(x86_64)
        if let kernels = vnniKernels, let vnniParameters {
            kernels.requantizeRow(vnniParameters, accumulators, constants, rowSumFactors, rowSum, channels, output, roundingUp ? 1 : 0)
            return
        }
        if let kernels = widenedKernels, let widenedParameters {
            kernels.requantizeRow(widenedParameters, accumulators, constants, rowSumFactors, rowSum, channels, output, roundingUp)
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
    }
}

/// uint8 or int8, widened sixteen at a time to int32 lanes: the portable path. On x86-64 the loops that widen bytes
/// in bulk are C kernels (``WidenedQuantizedKernels``, ``QuantizedDotProductKernels``).
protocol QuantizedByte: FixedWidthInteger & SIMDScalar & Codable {
    static func widen16(_ pointer: UnsafeRawPointer) -> SIMD16<Int32>
}

extension Int8: QuantizedByte {
    @inline(__always)
    static func widen16(_ pointer: UnsafeRawPointer) -> SIMD16<Int32> {
        return SIMD16<Int32>(truncatingIfNeeded: pointer.loadUnaligned(as: SIMD16<Int8>.self))
    }
}

extension UInt8: QuantizedByte {
    @inline(__always)
    static func widen16(_ pointer: UnsafeRawPointer) -> SIMD16<Int32> {
        return SIMD16<Int32>(truncatingIfNeeded: pointer.loadUnaligned(as: SIMD16<UInt8>.self))
    }
}
