import CLiteKernels

/// The C kernels of quantized layers on CPUs without 8-bit dot products (Sources/CLiteKernels/x86/avx2/qs8_widened.c,
/// s8_dot.c): the int16 GEMM of ``QuantizedGEMMAVX2``, the int32 depthwise convolution of
/// ``QuantizedDepthwiseConvolution``, ``ExactRequantization``'s block requantization and the integer LSTM's int8
/// matrix-vector products. Every level from `avx2` up runs the AVX2 ones (the AVX-512 levels have no kernels of
/// their own for these); nil below `avx2`, and on other architectures.
struct WidenedQuantizedKernels: @unchecked Sendable {
    #if arch(x86_64)
    let widen: @convention(c) (UnsafePointer<UInt8>?, Int, Int32, Bool, UnsafeMutablePointer<Int16>?) -> Void
    let gemmBlock: @convention(c) (UnsafePointer<Int16>?, Int, Int, UnsafePointer<Int16>?, Int, Int, Int, Int, UnsafeMutablePointer<Int32>?) -> Void
    let requantizeBlock8: @convention(c) (UnsafePointer<lite_qs8_requantization>?, UnsafePointer<Int32>?, Int, Int, UnsafePointer<Int32>?, Int, Int,
                                          UnsafeMutableRawPointer?, Int, Bool) -> Void
    let requantizeRow: @convention(c) (UnsafePointer<lite_qs8_requantization>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?,
                                       Int32, Int, UnsafeMutableRawPointer?, Bool) -> Void
    let depthwiseRows: @convention(c) (UnsafePointer<lite_qs8_dwconv>?, Int, Int, UnsafeMutablePointer<Int32>?) -> Void
    /// int8 rows against one int8 vector in int32 (the integer LSTM's matrix-vector products).
    let dotRows: @convention(c) (UnsafePointer<Int8>?, UnsafePointer<Int8>?, Int, Int, UnsafeMutablePointer<Int32>?) -> Void
    /// The integer LSTM's gate product: int8 rows against one int8 vector, plus bias, rescaled (double rounding) and
    /// added to int16 outputs with saturation. Needs multiplier ≥ 0 and a shift in -31...30.
    let matrixVectorAccumulate: @convention(c) (UnsafePointer<Int8>?, UnsafePointer<Int8>?, UnsafePointer<Int32>?, Int, Int, Int32, Int32,
                                                UnsafeMutablePointer<Int16>?, Int32) -> Void
    #endif

    init?(level: InstructionSetLevel) {
        #if arch(x86_64)
        guard level >= .avx2 else { return nil }
        widen = lite_qs8_widen_s16__avx2
        gemmBlock = lite_qs8_gemm_s16_block__avx2
        requantizeBlock8 = lite_qs8_requantize_block8__avx2
        requantizeRow = lite_qs8_requantize_row__avx2
        depthwiseRows = lite_qs8_dwconv_rows__avx2
        dotRows = lite_s8_dot_rows__avx2
        matrixVectorAccumulate = lite_s8_matvec_s16__avx2
        #else
        return nil
        #endif
    }
}
