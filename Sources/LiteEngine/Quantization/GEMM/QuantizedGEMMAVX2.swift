import CLiteKernels
import LiteFormat

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
/// activations against them. The widening, the tiles (4x16, 4x8, 1x16) and the requantization are C kernels
/// (``WidenedQuantizedKernels``); the packing and the im2col walk stay here.
final class QuantizedGEMMAVX2 {
    /// Whether the run-time configuration has the kernels (``KernelConfiguration/widenedQuantized``: AVX2 CPUs).
    static var isAvailable: Bool { KernelConfiguration.current.widenedQuantized != nil }

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
    /// The configuration's kernels when this GEMM was prepared (nil only where ``isAvailable`` is false).
    let kernels: WidenedQuantizedKernels?

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
        kernels = KernelConfiguration.current.widenedQuantized
    }

    deinit {
        deallocateAligned(weights)
        deallocateAligned(biases)
    }

    /// `output[r, c] = requantize(Σ_k row_r[k]·w[c, k] + bias[c])` for `rowCount` rows, in blocks of `rowsPerBlock`:
    /// each block's rows are widened into a buffer of the thread's, the microkernels fill the block's accumulators
    /// four rows at a time, then each channel block's requantization data is loaded once for all of the block's rows.
    /// Threads split the blocks, or, when there is only one (a fully connected layer, a classifier's last 1x1
    /// convolution), the channels.
    func run(rows: Rows, rowCount: Int, output: UnsafeMutableRawPointer, threads: Int) {
        #if arch(x86_64)
        guard let kernels else { preconditionFailure("QuantizedGEMMAVX2.run needs the AVX2 kernels") }
        precondition(rows.depth == depth, "rows of depth \(rows.depth) for a GEMM of depth \(depth)")
        let blocks = (rowCount + Self.rowsPerBlock - 1) / Self.rowsPerBlock
        let channelBlocks = paddedChannels / Self.lanes
        let (weights, biases, paddedDepth, paddedChannels, channels) = (self.weights, self.biases, self.paddedDepth, self.paddedChannels, self.channels)
        requantization.withKernelParameters { requantization in
            // Each thread's buffers: one block of widened rows and its accumulators.
            @inline(__always) func withBuffers(_ body: (UnsafeMutablePointer<Int16>, UnsafeMutablePointer<Int32>) -> Void) {
                let widened = allocateAligned(Int16.self, count: Self.rowsPerBlock * paddedDepth)
                let accumulators = allocateAligned(Int32.self, count: Self.rowsPerBlock * paddedChannels)
                defer { deallocateAligned(accumulators); deallocateAligned(widened) }
                body(widened, accumulators)
            }
            // Widens the rows, multiplies them by the channel blocks `channelBlocks` four rows at a time (or one
            // alone), then requantizes the block, each channel block's data loaded once for all of its rows.
            @inline(__always) func multiply(_ rowRange: Range<Int>, channelBlocks: Range<Int>, widened: UnsafeMutablePointer<Int16>,
                                            accumulators: UnsafeMutablePointer<Int32>) {
                rows.write(rowRange, into: widened, kernels: kernels)
                kernels.gemmBlock(widened, rowRange.count, paddedDepth, weights, paddedDepth, paddedChannels, channelBlocks.lowerBound,
                                  channelBlocks.upperBound, accumulators)
                kernels.requantizeBlock8(requantization, accumulators, paddedChannels, rowRange.count, biases, channelBlocks.lowerBound * Self.lanes,
                                         min(channelBlocks.upperBound * Self.lanes, channels), output + rowRange.lowerBound * channels, channels, true)
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
        }
        #else
        preconditionFailure("QuantizedGEMMAVX2.run needs the AVX2 kernels of x86-64")
        #endif
    }
}
