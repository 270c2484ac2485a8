import CLiteKernels

/// The quantized microkernels of the `avx512vnni` level (Sources/CLiteKernels/include/lite_qs8_vnni.h): the 8-bit
/// GEMM (``QuantizedGEMM``), the depthwise dot-product kernel (``QuantizedDepthwiseDotProduct``) and the AVX-512
/// requantization of ``ExactRequantization``. ``KernelConfiguration`` holds them at `avx512vnni` only, the level of
/// the builds that ran them; some need only AVX-512 F/BW/VL (their `__avx512` names) but are not selected at `avx512`.
struct QuantizedDotProductKernels: Sendable {
    #if arch(x86_64)
    let gemmMultiplyBlock: @convention(c) (UnsafeRawPointer?, UnsafePointer<Int32>?, Int, Int, UnsafePointer<Int8>?, Int, Int, Int32,
                                           UnsafeMutablePointer<Int32>?) -> Void
        = lite_qs8_gemm_multiply_block__avx512vnni
    let gemmRequantized: @convention(c) (UnsafeRawPointer?, UnsafePointer<Int32>?, Int, Int, UnsafePointer<Int8>?, Int, Int,
                                         UnsafePointer<lite_qs8_requantization_avx512>?, Int, UnsafeMutableRawPointer?, Int) -> Void
        = lite_qs8_gemm_requantized__avx512vnni
    let gemmRowSums16: @convention(c) (UnsafePointer<Int8>?, Int, Int, Int, Int32, UnsafeMutablePointer<Int32>?) -> Void
        = lite_qs8_gemm_row_sums16__avx512vnni
    let gemmPackInterior: @convention(c) (UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafeMutablePointer<Int8>?, Int, Int, Int, Int, Int, Int,
                                          Int, Int, Int, Int, Int, Int, Int8) -> Void
        = lite_qs8_gemm_pack_interior__avx512
    let requantizeRow: @convention(c) (UnsafePointer<lite_qs8_requantization_avx512>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?,
                                       Int32, Int, UnsafeMutableRawPointer?, Int32) -> Void
        = lite_qs8_requantize_row__avx512
    let requantizeBlock: @convention(c) (UnsafePointer<lite_qs8_requantization_avx512>?, UnsafePointer<Int32>?, Int, Int, UnsafePointer<Int32>?,
                                         UnsafeMutablePointer<Int32>?, Int, UnsafeMutableRawPointer?, Int) -> Void
        = lite_qs8_requantize_block__avx512
    let depthwise: @convention(c) (UnsafePointer<lite_qs8_dwconv_vnni>?, UnsafePointer<lite_qs8_dwconv_geometry>?, UnsafePointer<Int8>?,
                                   UnsafeMutablePointer<Int8>?, Int, Int, Int, UnsafeMutableRawPointer?) -> Void
        = lite_qs8_dwconv__avx512vnni
    #endif

    /// The kernels of `level`, nil below `avx512vnni` (and on other architectures).
    init?(level: InstructionSetLevel) {
        #if arch(x86_64)
        guard level >= .avx512vnni else { return nil }
        #else
        return nil
        #endif
    }
}
