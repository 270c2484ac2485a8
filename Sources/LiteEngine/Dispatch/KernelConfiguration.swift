import CLiteKernels
#if canImport(Glibc)
import Glibc
#endif

/// Which microkernels every op uses, decided once per process from the CPU (``InstructionSetLevel/detected``) or
/// from the `LITEVISION_ISA` environment variable, in the manner of XNNPACK's `hardware-config.c` and
/// `gemm-config.c`. Ops read ``current`` when they are prepared; nothing compiled for a level runs unless this
/// configuration selected it, and it selects only levels the CPU has.
///
/// `LITEVISION_ISA=baseline|avx2|avx512|avx512vnni` forces a lower level (tests run every level the machine has
/// this way). A level above the CPU's is refused: ``current`` then stays at the detected level and
/// ``validate()``, which every `Interpreter` calls, throws ``EngineError/instructionSetUnavailable(requested:available:)``.
public struct KernelConfiguration: Sendable {
    /// The level whose microkernels run.
    public let level: InstructionSetLevel

    /// Float: the packed-filter GEMM tiles, depthwise convolution and sigmoid; nil at `baseline`, where the portable
    /// Swift kernels and OpenBLAS's sgemm run.
    let float: FloatKernels?
    /// Quantized CONV_2D, FULLY_CONNECTED and DEPTHWISE_CONV_2D in `fast` numerics without 8-bit dot products:
    /// the int16 GEMM, int32 depthwise rows and the exact requantization (``QuantizedGEMMAVX2``); nil below `avx2`.
    let widenedQuantized: WidenedQuantizedKernels?
    /// The 8-bit dot-product GEMM, depthwise kernel and AVX-512 requantization (``QuantizedGEMM``,
    /// ``QuantizedDepthwiseDotProduct``); nil below `avx512vnni`.
    let quantizedDotProducts: QuantizedDotProductKernels?
    #if arch(x86_64)
    /// Quantized ADD, MUL and SQUARED_DIFFERENCE, MAX_POOL_2D rows and dynamic-range quantization; nil at
    /// `baseline`, whose portable Swift loops run instead.
    let elementwise: ElementwiseKernels?
    #endif

    /// The configuration of `level`. Callers must have checked that the CPU has it; ``current`` does.
    init(level: InstructionSetLevel) {
        self.level = level
        float = FloatKernels(level: level)
        widenedQuantized = WidenedQuantizedKernels(level: level)
        quantizedDotProducts = QuantizedDotProductKernels(level: level)
        #if arch(x86_64)
        elementwise = ElementwiseKernels(level: level)
        #endif
    }

    /// The configuration in use by this process.
    public static var current: KernelConfiguration { resolved.configuration }

    /// Throws when `LITEVISION_ISA` names a level this CPU lacks or a level that does not exist.
    public static func validate() throws {
        if let error = resolved.error { throw error }
    }

    private static let resolved: (configuration: KernelConfiguration, error: EngineError?) = resolve(
        requested: getenv("LITEVISION_ISA").map { String(cString: $0) }, detected: InstructionSetLevel.detected)

    /// The level to run given the environment's request (nil or "" for none) and the CPU's level, and the error to
    /// report when the request cannot be honoured.
    static func resolve(requested: String?, detected: InstructionSetLevel) -> (configuration: KernelConfiguration, error: EngineError?) {
        guard let requested, !requested.isEmpty else { return (KernelConfiguration(level: detected), nil) }
        guard let level = InstructionSetLevel(name: requested) else {
            let known = InstructionSetLevel.allCases.map(\.description).joined(separator: ", ")
            return (KernelConfiguration(level: detected),
                    .invalidArgument("LITEVISION_ISA=\(requested) is not an instruction-set level (known: \(known))"))
        }
        guard level <= detected else {
            return (KernelConfiguration(level: detected), .instructionSetUnavailable(requested: level, available: detected))
        }
        return (KernelConfiguration(level: level), nil)
    }
}

// MARK: elementwise kernels

#if arch(x86_64)
/// The microkernels of ``KernelConfiguration/elementwise``: avx2 for every level from avx2 up, except the ADD and the
/// float MAX_POOL_2D rows, which have 16-lane versions from avx512 up.
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
    typealias MaxPoolRowF32 = @convention(c) (UnsafePointer<Float>?, Int, Int, UnsafePointer<lite_pool_row_geometry>?,
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
    let maxPoolF32: MaxPoolRowF32, maxPoolS8: MaxPoolRowS8, maxPoolU8: MaxPoolRowU8, maxPoolS16: MaxPoolRowS16
    /// Dynamic-range quantization: a row's range and its values less the zero point, whole groups of eight.
    let rangeF32: @convention(c) (UnsafePointer<Float>?, Int, UnsafeMutablePointer<Float>?, UnsafeMutablePointer<Float>?) -> Int
    let quantizeOffsetF32: @convention(c) (UnsafePointer<Float>?, Int, Float, Float, Float, UnsafeMutablePointer<Float>?) -> Int

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
        maxPoolS8 = lite_s8_maxpool_row__avx2
        maxPoolU8 = lite_u8_maxpool_row__avx2
        maxPoolS16 = lite_s16_maxpool_row__avx2
        rangeF32 = lite_f32_rminmax__avx2
        quantizeOffsetF32 = lite_f32_qs8_quantize_offset__avx2
    }
}
#endif
// MARK: end elementwise kernels
// MARK: float kernels (port-float)
extension KernelConfiguration {
    /// The float microkernels of one level, and the GEMM shape they compute (`PackedFilterGEMM` packs its filter for
    /// it). AVX2 (and FMA) kernels serve the avx2 level and, where they have no AVX-512 version, the levels above it:
    /// the depthwise convolution and the sigmoid (whose lanes compute the same values in AVX-512 registers), and the
    /// one-row GEMM (AVX registers at every level).
    struct FloatKernels: @unchecked Sendable {
        /// Rows of C per GEMM tile: 6 (AVX2's 6x16) or 8 (AVX-512's 8x32).
        let gemmTileRows: Int
        /// The widest GEMM panel: 16 (AVX2) or 32 (AVX-512).
        let gemmPanelWidth: Int
        /// Whether the last panel is only as wide as its columns need (a multiple of 8): AVX-512's masked tiles.
        let gemmNarrowLastPanel: Bool
        /// One row tile of C against a range of panels.
        let gemmTiles: lite_f32_gemm_tiles_fn
        /// One row of A against 64 columns (or a narrow last panel).
        let gemmRow: lite_f32_gemm_row_fn
        /// Rows of a float depthwise convolution.
        let depthwiseRows: lite_f32_dwconv_rows_fn
        /// Sigmoid (and SiLU) of a buffer.
        let sigmoid: lite_f32_sigmoid_fn

        /// The kernels of `level`, or nil at baseline and on other architectures.
        init?(level: InstructionSetLevel) {
            #if arch(x86_64)
            switch level {
            case .baseline:
                return nil
            case .avx2:
                gemmTileRows = 6
                gemmPanelWidth = 16
                gemmNarrowLastPanel = false
                gemmTiles = lite_f32_gemm_6x16__avx2
            case .avx512, .avx512vnni:
                gemmTileRows = 8
                gemmPanelWidth = 32
                gemmNarrowLastPanel = true
                gemmTiles = lite_f32_gemm_8x32__avx512
            }
            gemmRow = lite_f32_gemm_1x64__avx2
            depthwiseRows = lite_f32_dwconv_rows__avx2
            sigmoid = lite_f32_sigmoid__avx2
            #else
            return nil
            #endif
        }
    }
}
// MARK: end float kernels
