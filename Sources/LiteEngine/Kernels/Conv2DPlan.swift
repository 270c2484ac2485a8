/// The code path a ``Conv2D`` runs, chosen once by `prepare` from the input's and filter's types and shapes (see
/// `Conv2D.makePlan`); `run` is a switch over it. Each case carries what its path needs that was built at load or
/// prepare (packed filters, requantization constants, a nested kernel), so a later prepare (after a resize) can take
/// them over instead of building them again.
enum Conv2DPlan {
    // Float input, float filter.

    /// Filter and bias packed at load (``PackedFilterGEMM``, avx2 level and above), the input read in place through a
    /// table of pointers, one per output pixel and filter row (``Conv2D/IndirectLayout``).
    case floatIndirect(PackedFilterGEMM, Conv2D.IndirectLayout)
    /// Filter and bias packed at load; the left matrix is the input itself (`unfolds` false: a 1x1 filter, stride 1,
    /// no padding) or its im2col unfolding (dilated columns).
    case floatPacked(PackedFilterGEMM, unfolds: Bool)
    /// BLAS sgemm on the input itself or its im2col unfolding, then one pass adding bias and activation: the filter or
    /// bias is computed at run time, or the level has no packed GEMM (baseline).
    case floatBLAS(unfolds: Bool)
    /// More than one input channel a group (ResNeXt, RegNet): im2col and sgemm per group.
    case floatGrouped
    /// One input channel a group: the filter laid out again for a ``DepthwiseConv2D``, which runs it.
    case floatDepthwise(DepthwiseConv2D)

    // Float input, int8 filter.

    /// Dynamic-range quantization: each image quantized at run time, exact integer sums by ``HybridMatrixProduct``;
    /// `perChannel` picks TFLite's `HybridConvPerChannel` (asymmetric inputs) over `HybridConv` (symmetric).
    case hybrid(HybridWeights, HybridMatrixProduct, perChannel: Bool)

    // uint8 or int8 input.

    /// Ungrouped: ``QuantizedConvolution`` (which itself holds the VNNI, widened AVX2 or exact double GEMM).
    case quantized(QuantizedConvolution)
    /// int8, grouped: TFLite's reference `ConvPerChannel` loop with groups.
    case int8Grouped(ChannelRequantization)
    /// int8, one input channel a group with the filter known at load: the filter less its zero points laid out
    /// [KH·KW, C] so each pixel's channel sums vectorize.
    case int8Depthwise(ChannelRequantization, taps: [Int32])

    // int16 input (16x8).

    /// Ungrouped: exact sums by dgemm over im2col (``Int16MatrixProduct``).
    case int16(Int16MatrixProduct)
    /// Grouped: TFLite's reference loop, the requantization of ``Int16MatrixProduct``.
    case int16Grouped(Int16MatrixProduct)

    /// The packed filter a float plan holds, for a later prepare to take over.
    var packedFilter: PackedFilterGEMM? {
        switch self {
        case .floatIndirect(let packed, _), .floatPacked(let packed, _): packed
        default: nil
        }
    }

    /// The integer state of a `.quantized` plan (for a later prepare, and for tests).
    var quantized: QuantizedConvolution? {
        if case .quantized(let convolution) = self { return convolution }
        return nil
    }

    /// The 16x8 product of an int16 plan, for a later prepare to take over.
    var int16Product: Int16MatrixProduct? {
        switch self {
        case .int16(let product), .int16Grouped(let product): product
        default: nil
        }
    }
}
