import CLiteKernels

#if arch(x86_64)
/// The microkernels of ``KernelConfiguration/elementwise``: avx2 for every level from avx2 up, except the ADD and the
/// float MAX_POOL_2D rows, which have 16-lane versions from avx512 up, and the byte-table lookup, which has a 64-byte
/// version where the CPU has VBMI.
struct ElementwiseKernels: Sendable {
    typealias AddS8 = @convention(c) (UnsafePointer<Int8>?, UnsafePointer<Int8>?, UnsafeMutablePointer<Int8>?, Int,
                                      UnsafePointer<lite_q8_add_params>?) -> Void
    typealias AddU8 = @convention(c) (UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, Int,
                                      UnsafePointer<lite_q8_add_params>?) -> Void
    typealias MulS8 = @convention(c) (UnsafePointer<Int8>?, Int, UnsafePointer<Int8>?, Int, UnsafeMutablePointer<Int8>?, Int,
                                      UnsafePointer<lite_q_mul_params>?) -> Int
    typealias MulU8 = @convention(c) (UnsafePointer<UInt8>?, Int, UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?, Int,
                                      UnsafePointer<lite_q_mul_params>?) -> Int
    typealias MulS16 = @convention(c) (UnsafePointer<Int16>?, Int, UnsafePointer<Int16>?, Int, UnsafeMutablePointer<Int16>?, Int,
                                       UnsafePointer<lite_q_mul_params>?) -> Int
    typealias SquaredDifference = @convention(c) (UnsafePointer<Int8>?, Int, UnsafePointer<Int8>?, Int, UnsafeMutablePointer<Int8>?,
                                                  Int, UnsafePointer<lite_qs8_squared_difference_params>?) -> Int
    typealias PoolRowF32 = @convention(c) (UnsafePointer<Float>?, Int, Int, UnsafePointer<lite_pool_row_geometry>?,
                                           UnsafeMutablePointer<Float>?, Float, Float) -> Void
    typealias MaxPoolRowS8 = @convention(c) (UnsafePointer<Int8>?, Int, Int, UnsafePointer<lite_pool_row_geometry>?,
                                             UnsafeMutablePointer<Int8>?, Int8, Int8) -> Void
    typealias MaxPoolRowU8 = @convention(c) (UnsafePointer<UInt8>?, Int, Int, UnsafePointer<lite_pool_row_geometry>?,
                                             UnsafeMutablePointer<UInt8>?, UInt8, UInt8) -> Void
    typealias MaxPoolRowS16 = @convention(c) (UnsafePointer<Int16>?, Int, Int, UnsafePointer<lite_pool_row_geometry>?,
                                              UnsafeMutablePointer<Int16>?, Int16, Int16) -> Void

    /// Exact quantized ADD of inputs of one shape (lite_qs8_vadd__avx2 / __avx512).
    let addS8: AddS8, addU8: AddU8
    /// The lowest input shift `addS8`/`addU8` take: AVX2 rescales in 64-bit lanes with a right shift of at most 62.
    let addMinimumInputShift: Int
    /// Exact quantized MUL runs, whole groups of eight.
    let mulS8: MulS8, mulU8: MulU8, mulS16: MulS16
    /// Exact int8 SQUARED_DIFFERENCE runs, whole groups of eight.
    let squaredDifferenceS8: SquaredDifference
    /// One output row of MAX_POOL_2D.
    let maxPoolF32: PoolRowF32, maxPoolS8: MaxPoolRowS8, maxPoolU8: MaxPoolRowU8, maxPoolS16: MaxPoolRowS16
    /// One output row of float AVERAGE_POOL_2D.
    let averagePoolF32: PoolRowF32
    /// Dynamic-range quantization: a row's range and its values less the zero point, whole groups of eight.
    let rangeF32: @convention(c) (UnsafePointer<Float>?, Int, UnsafeMutablePointer<Float>?, UnsafeMutablePointer<Float>?) -> Int
    let quantizeOffsetF32: @convention(c) (UnsafePointer<Float>?, Int, Float, Float, Float, UnsafeMutablePointer<Float>?) -> Int
    /// DEQUANTIZE of 8-bit values with one scale, whole groups of eight.
    let dequantizeS8: @convention(c) (UnsafePointer<Int8>?, UnsafeMutablePointer<Float>?, Int, Float, Float) -> Void
    let dequantizeU8: @convention(c) (UnsafePointer<UInt8>?, UnsafeMutablePointer<Float>?, Int, Float, Float) -> Void
    /// 256-entry byte tables (``QuantizedLookupTable``): 64 bytes at a time from avx512 up on CPUs that also have
    /// AVX-512 VBMI (Ice Lake, Zen 4; not Skylake-X or Cascade Lake), else 32 at a time with AVX2's byte shuffle.
    let lookupU8: @convention(c) (UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, Int) -> Void

    init?(level: InstructionSetLevel) {
        guard level >= .avx2 else { return nil }
        let avx512 = level >= .avx512
        addS8 = avx512 ? lite_qs8_vadd__avx512 : lite_qs8_vadd__avx2
        addU8 = avx512 ? lite_qu8_vadd__avx512 : lite_qu8_vadd__avx2
        addMinimumInputShift = avx512 ? Int(Int32.min) : -31
        mulS8 = lite_qs8_vmul__avx2
        mulU8 = lite_qu8_vmul__avx2
        mulS16 = lite_qs16_vmul__avx2
        squaredDifferenceS8 = lite_qs8_vsquared_difference__avx2
        maxPoolF32 = avx512 ? lite_f32_maxpool_row__avx512 : lite_f32_maxpool_row__avx2
        averagePoolF32 = lite_f32_avgpool_row__avx2
        maxPoolS8 = lite_s8_maxpool_row__avx2
        maxPoolU8 = lite_u8_maxpool_row__avx2
        maxPoolS16 = lite_s16_maxpool_row__avx2
        rangeF32 = lite_f32_rminmax__avx2
        quantizeOffsetF32 = lite_f32_qs8_quantize_offset__avx2
        dequantizeS8 = lite_s8_dequantize__avx2
        dequantizeU8 = lite_u8_dequantize__avx2
        let hasVBMI = lite_cpu_features() & UInt32(LITE_CPU_X86_AVX512VBMI) != 0
        lookupU8 = avx512 && hasVBMI ? lite_u8_lookup__avx512vbmi : lite_u8_lookup__avx2
    }
}
#endif
