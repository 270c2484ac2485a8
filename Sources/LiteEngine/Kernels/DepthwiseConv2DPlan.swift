/// The code path a ``DepthwiseConv2D`` runs, chosen once by `prepare` from the input's and filter's types and the
/// geometry; `run` is a switch over it. A later prepare (after a resize) takes over what the previous plan built.
enum DepthwiseConv2DPlan {
    /// Float input and filter: the C microkernel at the avx2 level and above, the Swift loops at baseline
    /// (``DepthwiseConv2D/floatDepthwise(_:_:_:_:_:activation:threads:)``).
    case float
    /// Float input, int8 filter (dynamic-range quantization): the filter as floats with one scale per channel; each
    /// image quantized at run time and its offsets run through the float kernel (exact integer sums).
    case hybrid(weights: [Float], scales: [Float])
    /// uint8/int8, `fast` numerics with a dot-product kernel whose scratch fits: ``QuantizedDepthwiseDotProduct``.
    case quantizedDotProduct(QuantizedDepthwiseConvolution, QuantizedDepthwiseDotProduct)
    /// uint8/int8 with TFLite's integer requantization in SIMD lanes (``QuantizedDepthwiseConvolution/runIntegerSIMD``).
    case quantizedIntegerSIMD(QuantizedDepthwiseConvolution)
    /// uint8/int8 whose sums are exact in single precision: through the float kernel, then requantized.
    case quantizedExactInFloat(QuantizedDepthwiseConvolution)
    /// uint8/int8 otherwise: TFLite's integer loop.
    case quantizedInteger(QuantizedDepthwiseConvolution)
    /// int16 input, int8 filter, int64 bias: TFLite's reference `DepthwiseConvPerChannel` for int16.
    case int16(ChannelRequantization, bias: [Int64])

    /// The integer state of a uint8/int8 plan (for a later prepare, and for tests).
    var quantized: QuantizedDepthwiseConvolution? {
        switch self {
        case .quantizedDotProduct(let q, _), .quantizedIntegerSIMD(let q), .quantizedExactInFloat(let q), .quantizedInteger(let q): q
        default: nil
        }
    }
}
