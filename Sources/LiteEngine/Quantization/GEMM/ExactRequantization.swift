import CLiteKernels

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
    /// This requantization as the `avx512vnni` level's C kernels read it (the depthwise dot-product kernel too), valid
    /// as long as this object; nil when that level is not configured.
    var vnniKernelParameters: UnsafePointer<lite_qs8_requantization_avx512>? { vnniParameters.map { UnsafePointer($0) } }

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

    /// The VNNI GEMM's requantization of a block of rows: `rows` (at most ``QuantizedGEMM/rowsPerBlock``) rows of
    /// accumulators `accumulatorStride` apart, each already holding its channel's constant, minus
    /// `factor[c]·rowSums[row]` when there are row sums (nil: no row-sum term), rounding ties up, `channels` bytes
    /// per row `outputStride` apart. Each 16-channel block's data is loaded once for all the rows. Needs the
    /// `avx512vnni` kernels.
    @inline(__always)
    func requantizeBlock(_ accumulators: UnsafePointer<Int32>, accumulatorStride: Int, rows: Int, rowSumFactors: UnsafePointer<Int32>,
                         rowSums: UnsafeMutablePointer<Int32>?, channels: Int, into output: UnsafeMutableRawPointer, outputStride: Int) {
        #if arch(x86_64)
        guard let kernels = vnniKernels, let vnniParameters else { preconditionFailure("requantizeBlock needs the avx512vnni kernels") }
        kernels.requantizeBlock(vnniParameters, accumulators, accumulatorStride, rows, rowSumFactors, rowSums, channels, output, outputStride)
        #else
        preconditionFailure("requantizeBlock needs the avx512vnni kernels of x86-64")
        #endif
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
