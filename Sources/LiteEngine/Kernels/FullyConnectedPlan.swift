/// The code path a ``FullyConnected`` runs, chosen once by `prepare` from the input's and weights' types, the numerics
/// and the kernel configuration; `run` is a switch over it. A later prepare (after a resize) takes over what the
/// previous plan built from the weights.
enum FullyConnectedPlan {
    /// Float weights and bias known at load, packed for the level's microkernel (``PackedFilterGEMM``).
    case floatPacked(PackedFilterGEMM)
    /// Float: sgemm with the weights transposed in place, then bias and activation (weights computed at run time, or
    /// baseline).
    case floatBLAS
    /// Float input, int8 weights: rows quantized at run time, exact integer sums by ``HybridMatrixProduct``.
    case hybrid(HybridWeights, HybridMatrixProduct)
    /// uint8/int8 in `fast` numerics on AVX2 CPUs: the int16 GEMM of quantized CONV_2D (``QuantizedGEMMAVX2``).
    case quantizedWidened(QuantizedGEMMAVX2)
    /// uint8/int8 otherwise: the weights less their zero points as doubles, exact dot products through dgemm.
    case quantized(ChannelRequantization, weights: [Double])
    /// int16 input, int8 weights, int64 bias (TFLite's reference `FullyConnected` for int16).
    case int16(Int16MatrixProduct)

    /// The packed weights of a `.floatPacked` plan (for a later prepare, and for tests).
    var packed: PackedFilterGEMM? {
        if case .floatPacked(let packed) = self { return packed }
        return nil
    }
}
