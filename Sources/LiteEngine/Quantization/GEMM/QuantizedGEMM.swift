import CLiteKernels
import LiteFormat

/// The 8-bit GEMM of quantized CONV_2D in `fast` numerics on CPUs with AVX-512 VNNI: `vpdpbusd` multiplies 64
/// unsigned by 64 signed bytes and adds each group of four products to an int32 lane, so the accumulators are
/// TFLite's int32 sums exactly, and the requantization after it is TFLite's integer one (`requantizeExact`).
/// The result is therefore bit-exact, like `exact` numerics, at int8 speed.
///
/// Operands. The instruction multiplies unsigned bytes of one operand by signed bytes of the other; the activations
/// are the unsigned one, so the convolution can read a pointwise layer's input in place. uint8 models give it their
/// activations as they are and the weights as `w' = w - 128`; int8 models give it `x' = x + 128` (each activation
/// byte's top bit flipped as the microkernel broadcasts it) and the weights as they are. With `p'` the input zero
/// point as the instruction sees it (`p`, or `p + 128`) and `q[c]` the weight zero point as it sees it
/// (`w_zero[c] - 128`, or `w_zero[c]`):
///
///     Σ (x - x_zero)(w - w_zero[c]) = Σ x'·w' - q[c]·Σx' - p'·Σw'[c] + K·p'·q[c]
///
/// The last two terms and the bias are folded into a per-channel constant at load, the accumulators' start value.
/// `Σx'` is one sum per output pixel (`rowSums`), needed only when some `q[c]` is not 0: never for int8 models,
/// whose filters TFLite quantizes symmetrically. Taps in the padding hold `x = p` (contributing nothing, as TFLite
/// skips them); the depth is padded to a multiple of four with `x = w = 0`, which adds nothing to the products (an
/// int8 row's padding reads as 128 against zero weights). Every product sum fits int32: |Σ x'·w'| ≤ K·255·128 <
/// 2^31 for K < 65,000 (checked at load).
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
    /// Whether the microkernels flip the activations' top bits (int8 models), making them unsigned bytes.
    let flipsActivations: Bool
    /// Whether some channel has a row-sum factor (`q[c]` ≠ 0), so that each row's sum is needed.
    let needsRowSums: Bool
    /// Whether the microkernels requantize their tiles in registers and store the bytes (int8 models, which need no
    /// row sums), rather than filling a block of int32 accumulators for ``ExactRequantization/requantizeBlock``.
    let requantizesInTiles: Bool
    /// `p`: the input zero point (its byte), which padding taps hold.
    let shiftedInputZero: Int8
    /// Packed filter (layout in the type's documentation), 64-byte aligned.
    let weights: UnsafeMutableRawPointer
    /// Per channel: `bias + K·p'·q - p'·Σw'`, written for the signed row sums of int8 rows (`Σx' = Σx + 128·K`)
    /// (padded channels 0), 64-byte aligned.
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
        flipsActivations = signed
        let p = inputZeroPoint
        shiftedInputZero = Int8(truncatingIfNeeded: p)
        // Every byte is written by `pack`.
        weights = .allocate(byteCount: max(paddedChannels * paddedDepth, 1), alignment: 64)
        let source = UnsafeRawPointer(filter.data!).assumingMemoryBound(to: UInt8.self)
        let blocks = paddedChannels / Self.lanes
        // uint8 weights are read signed as w - 128, their byte with its top bit flipped; int8 weights as they are.
        let weightFlip: UInt8 = signed ? 0 : 0x80
        Self.pack(source, channels: channels, depth: depth, flip: weightFlip, blocks: blocks, paddedDepth: paddedDepth, into: weights)
        // p' = p + 128 for the flipped int8 activations. Their row sums are taken signed, Σx = Σx' - 128·K, so the
        // constant's K·p'·q becomes K·(p' - 128)·q = K·p·q either way.
        let shiftedP = signed ? p + 128 : p
        var constants = [Int32](repeating: 0, count: paddedChannels), factors = [Int32](repeating: 0, count: paddedChannels)
        for c in 0..<channels {
            var columnSum: Int32 = 0
            let row = source + c * depth
            for k in 0..<depth { columnSum &+= Int32(Int8(bitPattern: row[k] ^ weightFlip)) }
            let zero = filterZeroPoints.count == 1 ? filterZeroPoints[0] : filterZeroPoints[c]
            let q = signed ? zero : zero - 128
            let biasValue = bias.map { $0.pointer(Int32.self)[c] } ?? 0
            // K·p·q and p'·Σw' are each below 65,000·255·128 < 2^31; wrapping arithmetic is exact modulo 2^32 and the
            // true value of every sum fits int32.
            constants[c] = biasValue &+ Int32(depth) &* p &* q &- shiftedP &* columnSum
            factors[c] = q
        }
        needsRowSums = factors.contains { $0 != 0 }
        channelConstants = allocateAligned(Int32.self, count: paddedChannels)
        channelConstants.initialize(from: constants, count: paddedChannels)
        rowSumFactors = allocateAligned(Int32.self, count: paddedChannels)
        rowSumFactors.initialize(from: factors, count: paddedChannels)
        self.requantization = ExactRequantization(requantization, paddedChannels: paddedChannels, rowSumFactors: factors)
        requantizesInTiles = flipsActivations && !needsRowSums
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

    /// `output[r, c] = requantize(constant[c] + Σ_k rows'[r, k]·w'[c, k] - q[c]·Σ_k rows[r, k])` for `rowCount` rows
    /// `rowStride` bytes apart, in blocks of `rowsPerBlock` rows shared out over the threads. With
    /// ``requantizesInTiles`` the microkernels store each tile's bytes themselves. Otherwise they fill the block's
    /// accumulators four rows at a time, then each 16-channel block's requantization data is loaded once for all of
    /// its rows (narrow layers, one or two channel blocks wide, spent most of their time setting that up for every
    /// four rows).
    func run(rows: UnsafePointer<Int8>, rowCount: Int, rowStride: Int, output: UnsafeMutableRawPointer, threads: Int) {
        #if arch(x86_64)
        guard let kernels else { preconditionFailure("QuantizedGEMM.run needs the avx512vnni kernel configuration") }
        // Blocks of 8 rows when there are few rows to share between threads: in blocks of 16, a 7x7 layer's 49 rows
        // went 32 to one thread and 17 to the other.
        let blockRows = threads > 1 && rowCount < 256 ? 8 : Self.rowsPerBlock
        let blocks = (rowCount + blockRows - 1) / blockRows
        if requantizesInTiles, let parameters = requantization.vnniKernelParameters {
            parallelFor(blocks, threads: threads, minimumChunk: blockRows == Self.rowsPerBlock ? 2 : 1,
                        workPerItem: blockRows * paddedChannels * depth) { range in
                let first = range.lowerBound * blockRows
                let count = min(range.upperBound * blockRows, rowCount) - first
                kernels.gemmRequantized(weights, channelConstants, paddedChannels, paddedDepth, rows + first * rowStride, count, rowStride,
                                        parameters, channels, output + first * channels, channels)
            }
            return
        }
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
                // blocks, else 4 x 64), then, when needed, each row's Σ_k row[k] (16 rows' reduced across lanes together).
                kernels.gemmMultiplyBlock(weights, channelConstants, paddedChannels, paddedDepth, blockRows, count, rowStride,
                                          flipsActivations ? 1 : 0, accumulators)
                if needsRowSums {
                    kernels.gemmRowSums16(blockRows, rowStride, count, paddedDepth, flipsActivations ? 0 : 1, rowSums)
                }
                requantization.requantizeBlock(accumulators, accumulatorStride: paddedChannels, rows: count, rowSumFactors: rowSumFactors,
                                               rowSums: needsRowSums ? rowSums : nil, channels: channels, into: output + first * channels,
                                               outputStride: channels)
            }
        }
        #else
        preconditionFailure("QuantizedGEMM.run needs the avx512vnni kernel configuration")
        #endif
    }
}
