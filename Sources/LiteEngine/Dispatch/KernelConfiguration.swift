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

    // MARK: float kernels (port-float)
    /// The float microkernels (packed-filter GEMM tiles, depthwise convolution, sigmoid, tanh); nil at baseline, where the
    /// portable Swift kernels and sgemm run.
    let float: FloatKernels?
    // MARK: end float kernels

    /// The configuration of `level`. Callers must have checked that the CPU has it; ``current`` does.
    init(level: InstructionSetLevel) {
        self.level = level
        float = FloatKernels(level: level)  // port-float
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
        /// Tanh of a buffer in place (the same values as `vectorizableTanh`).
        let tanh: lite_f32_tanh_fn

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
            tanh = lite_f32_tanh__avx2
            #else
            return nil
            #endif
        }
    }
}
// MARK: end float kernels
