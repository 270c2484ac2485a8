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

    /// Float: the packed-filter GEMM tiles, depthwise convolution, sigmoid, tanh and the LSTM step; nil at `baseline`,
    /// where the portable Swift kernels and OpenBLAS's sgemm run.
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
