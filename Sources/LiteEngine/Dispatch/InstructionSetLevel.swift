import CLiteKernels
#if canImport(Glibc)
import Glibc
#endif

/// The instruction-set levels the engine has microkernels for, lowest first. The CPU is probed once
/// (``detected``); ``KernelConfiguration`` then picks, for every op family, the microkernels of the highest level
/// the CPU has, or of the level `LITEVISION_ISA` asks for.
///
/// | level | x86-64 features | what it adds |
/// |---|---|---|
/// | `baseline` | SSE2 (any x86-64), or NEON on arm64 | portable Swift kernels |
/// | `avx2` | AVX2, FMA3 | 8-wide float tiles with fused multiply-add, the int16 GEMM of quantized layers |
/// | `avx512` | AVX-512 F, BW, DQ, VL | 16-wide float tiles |
/// | `avx512vnni` | AVX-512 VNNI | 8-bit dot products (`vpdpbusd`) for quantized layers |
public enum InstructionSetLevel: Int, Comparable, CaseIterable, Sendable, CustomStringConvertible {
    /// Any x86-64 CPU (SSE2), and arm64: the portable Swift kernels.
    case baseline
    /// AVX2 and FMA3.
    case avx2
    /// AVX-512 F, BW, DQ and VL.
    case avx512
    /// AVX-512 with VNNI's 8-bit dot products.
    case avx512vnni

    /// Whether `a` is a lower level than `b` (`baseline` < `avx2` < `avx512` < `avx512vnni`).
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// The name used by `LITEVISION_ISA` and in reports.
    public var description: String {
        switch self {
        case .baseline: return "baseline"
        case .avx2: return "avx2"
        case .avx512: return "avx512"
        case .avx512vnni: return "avx512vnni"
        }
    }

    /// The level named `name` (as ``description`` spells it), or nil.
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.description == name.lowercased() }) else { return nil }
        self = level
    }

    /// The highest level this CPU (and its operating system's register saving) supports.
    public static let detected: InstructionSetLevel = level(features: lite_cpu_features())

    /// The level of a `lite_cpu_features()` bit set: each level needs all of its own features and the lower levels'.
    static func level(features: UInt32) -> InstructionSetLevel {
        let avx2 = UInt32(LITE_CPU_X86_AVX2)
        let avx512 = UInt32(LITE_CPU_X86_AVX512F | LITE_CPU_X86_AVX512BW | LITE_CPU_X86_AVX512DQ
            | LITE_CPU_X86_AVX512VL)
        let vnni = UInt32(LITE_CPU_X86_AVX512VNNI)
        #if arch(x86_64)
        guard features & avx2 == avx2 else { return .baseline }
        guard features & avx512 == avx512 else { return .avx2 }
        guard features & vnni == vnni else { return .avx512 }
        return .avx512vnni
        #else
        _ = (avx2, avx512, vnni)
        return .baseline
        #endif
    }

    /// The CPU's name, for benchmark reports ("" where unknown).
    public static var cpuName: String {
        var buffer = [CChar](repeating: 0, count: 64)
        lite_cpu_brand(&buffer, Int32(buffer.count))
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
