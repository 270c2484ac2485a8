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

        #if arch(x86_64)
        /// Writes rows `rows` into `destination`, each `paddedDepth` long (padding taps and the depth's padding 0),
        /// widening with the kernel `widen` (`x - zero` as int16).
        @inline(__always)
        func write(_ rows: Range<Int>, into destination: UnsafeMutablePointer<Int16>, kernels: WidenedQuantizedKernels) {
            @inline(__always) func widen(_ source: UnsafePointer<UInt8>, count: Int, into destination: UnsafeMutablePointer<Int16>) {
                kernels.widen(source, count, zero, signed, destination)
            }
            guard let c = convolution else {
                if depth == paddedDepth {
                    widen(source + rows.lowerBound * depth, count: rows.count * depth, into: destination)
                } else {
                    for (i, r) in rows.enumerated() {
                        widen(source + r * depth, count: depth, into: destination + i * paddedDepth)
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
                        widen(source + ((b * c.inH + iy) * c.inW + ix0) * c.channels, count: span, into: row + dst)
                        dst += span
                        continue
                    }
                    for kx in 0..<c.kw {
                        let ix = ix0 + kx * c.options.dilationW
                        if rowInside && ix >= 0 && ix < c.inW {
                            widen(source + ((b * c.inH + iy) * c.inW + ix) * c.channels, count: c.channels, into: row + dst)
                        } else {
                            (row + dst).update(repeating: 0, count: c.channels)
                        }
                        dst += c.channels
                    }
                }
                if depth < paddedDepth { row[depth] = 0 }
            }
        }
        #endif
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
