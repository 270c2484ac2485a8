import CLiteKernels
import Foundation
@testable import LiteEngine
import XCTest

/// Run-time kernel dispatch: the CPU probe, `LITEVISION_ISA`, and the typed errors for a level the CPU lacks and
/// for a missing OpenBLAS (both checked in a child process, where the environment is read afresh).
final class InstructionSetTests: XCTestCase {
    /// The levels follow the feature bits: each needs its own features and every lower level's.
    func testLevelFromFeatureBits() {
        let avx2 = UInt32(LITE_CPU_X86_AVX2)
        let avx512 = UInt32(LITE_CPU_X86_AVX512F | LITE_CPU_X86_AVX512BW | LITE_CPU_X86_AVX512DQ | LITE_CPU_X86_AVX512VL)
        let vnni = UInt32(LITE_CPU_X86_AVX512VNNI)
        #if arch(x86_64)
        XCTAssertEqual(InstructionSetLevel.level(features: 0), .baseline)
        XCTAssertEqual(InstructionSetLevel.level(features: avx2), .avx2)
        XCTAssertEqual(InstructionSetLevel.level(features: avx2 | avx512), .avx512)
        XCTAssertEqual(InstructionSetLevel.level(features: avx2 | avx512 | vnni), .avx512vnni)
        // AVX-512 without AVX2+FMA, or VNNI without the rest of AVX-512, does not raise the level.
        XCTAssertEqual(InstructionSetLevel.level(features: avx512 | vnni), .baseline)
        XCTAssertEqual(InstructionSetLevel.level(features: avx2 | vnni), .avx2)
        XCTAssertEqual(InstructionSetLevel.level(features: avx2 | UInt32(LITE_CPU_X86_AVX512F)), .avx2)
        #else
        XCTAssertEqual(InstructionSetLevel.level(features: avx2 | avx512 | vnni), .baseline)
        #endif
    }

    /// The probe agrees with the kernel's own view of the CPU in /proc/cpuinfo.
    func testDetectedLevelMatchesProcCpuinfo() throws {
        #if arch(x86_64)
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        guard let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return XCTFail("no flags line") }
        let flags = Set(line.split(separator: " ").map(String.init))
        var expected = InstructionSetLevel.baseline
        if flags.isSuperset(of: ["avx2", "fma"]) {
            expected = .avx2
            if flags.isSuperset(of: ["avx512f", "avx512bw", "avx512dq", "avx512vl"]) {
                expected = flags.contains("avx512_vnni") ? .avx512vnni : .avx512
            }
        }
        XCTAssertEqual(InstructionSetLevel.detected, expected)
        #endif
    }

    func testResolvingTheRequestedLevel() {
        XCTAssertEqual(KernelConfiguration.resolve(requested: nil, detected: .avx2).configuration.level, .avx2)
        XCTAssertEqual(KernelConfiguration.resolve(requested: "", detected: .avx512).configuration.level, .avx512)
        let lowered = KernelConfiguration.resolve(requested: "baseline", detected: .avx2)
        XCTAssertEqual(lowered.configuration.level, .baseline)
        XCTAssertNil(lowered.error)
        XCTAssertEqual(KernelConfiguration.resolve(requested: "AVX2", detected: .avx512vnni).configuration.level, .avx2)

        // Above the CPU: the detected level stays in use, and validate() reports the error.
        let above = KernelConfiguration.resolve(requested: "avx512vnni", detected: .avx2)
        XCTAssertEqual(above.configuration.level, .avx2)
        guard case .instructionSetUnavailable(.avx512vnni, .avx2)? = above.error else { return XCTFail("\(String(describing: above.error))") }
        XCTAssertTrue(above.error!.description.contains("highest available: avx2"), above.error!.description)

        let unknown = KernelConfiguration.resolve(requested: "sse9", detected: .avx2)
        XCTAssertEqual(unknown.configuration.level, .avx2)
        XCTAssertTrue(unknown.error?.description.contains("known: baseline, avx2, avx512, avx512vnni") ?? false)
    }

    /// The level in use is the one `LITEVISION_ISA` asked for (tools/test.sh runs the golden tests at every level
    /// the CPU has this way), else the detected one.
    func testCurrentLevelFollowsTheEnvironment() throws {
        try KernelConfiguration.validate()
        if let requested = ProcessInfo.processInfo.environment["LITEVISION_ISA"], !requested.isEmpty {
            XCTAssertEqual(KernelConfiguration.current.level.description, requested.lowercased())
        } else {
            XCTAssertEqual(KernelConfiguration.current.level, InstructionSetLevel.detected)
        }
    }

    /// A forced level this CPU lacks, or one that does not exist, is a clear error at model load: exit status 3 (the
    /// model could not be loaded, Docs/cli.md) with the reason, never an illegal-instruction signal.
    func testForcedLevelAboveTheCPUIsAnError() throws {
        let model = try TestPaths.model("classification/mobilenet_v1_0.25_128_quant.tflite")
        if InstructionSetLevel.detected < .avx512vnni {
            let result = try runCLI(["bench", model, "--runs", "1"], environment: ["LITEVISION_ISA": "avx512vnni"])
            XCTAssertEqual(result.status, 3, result.err)
            XCTAssertEqual(result.reason, .exit)
            XCTAssertTrue(result.err.contains("LITEVISION_ISA=avx512vnni needs CPU features this machine lacks"), result.err)
        }
        let unknown = try runCLI(["bench", model, "--runs", "1"], environment: ["LITEVISION_ISA": "sse9"])
        XCTAssertEqual(unknown.status, 3, unknown.err)
        XCTAssertTrue(unknown.err.contains("is not an instruction-set level"), unknown.err)
        let cpu = try runCLI(["cpu"], environment: ["LITEVISION_ISA": "baseline"])
        XCTAssertEqual(cpu.status, 0, cpu.err)
        XCTAssertTrue(cpu.out.contains("kernels: baseline"), cpu.out)
    }

    /// On a CPU without AVX (QEMU's Nehalem model, which raises an illegal-instruction signal for any AVX or later
    /// instruction) the binary detects `baseline`, runs a quantized and a float model, and OpenBLAS takes its own
    /// kernels for that CPU: nothing compiled for a higher level runs. tools/setup.sh installs qemu-user.
    func testBaselineCPURunsWithoutIllegalInstructions() throws {
        let qemu = "/usr/bin/qemu-x86_64"
        #if arch(x86_64)
        guard FileManager.default.isExecutableFile(atPath: qemu) else { return XCTFail("\(qemu) is missing: run tools/setup.sh") }
        // A sanitized vision-cli under qemu-user printed nothing in 60 s and ended only when killed.
        if SanitizedBuild.isActive { throw XCTSkip("qemu-user does not run a sanitized vision-cli") }
        // The emulated CPU chooses its own level: a LITEVISION_ISA that tools/test.sh set for this process (avx2,
        // avx512 on a CPU that has them) would ask the Nehalem for more than it has.
        let detect: [String: String?] = ["LITEVISION_ISA": nil]
        let cpu = try runCLI(["-cpu", "Nehalem", CLITests.binary.path, "cpu"], environment: detect, executable: qemu)
        XCTAssertEqual(cpu.reason, .exit, cpu.err)
        XCTAssertTrue(cpu.out.contains("detected: baseline") && cpu.out.contains("kernels: baseline"), cpu.out + cpu.err)
        for model in ["classification/mobilenet_v1_0.25_128_quant.tflite", "classification/mobilenet_v1_0.25_224_1_metadata_1.tflite"] {
            let result = try runCLI(["-cpu", "Nehalem", CLITests.binary.path, "bench", try TestPaths.model(model), "--runs", "1", "--warmup", "0"],
                                    environment: detect, executable: qemu)
            XCTAssertEqual(result.reason, .exit, "\(model): killed by signal \(result.status)\n\(result.err)")
            XCTAssertEqual(result.status, 0, "\(model): \(result.err)")
            XCTAssertTrue(result.out.contains("kernels baseline"), result.out)
        }
        #endif
    }

    /// OpenBLAS that cannot be loaded is a typed error at model load naming the package to install.
    func testMissingOpenBLASIsAnErrorNotACrash() throws {
        let model = try TestPaths.model("classification/mobilenet_v2_1.0_224_dequant_float.tflite")
        let result = try runCLI(["bench", model, "--runs", "1"], environment: ["LITEVISION_OPENBLAS": "/nonexistent/libopenblas.so.0"])
        XCTAssertEqual(result.reason, .exit, "killed by a signal: \(result.err)")
        XCTAssertEqual(result.status, 3, result.err)
        XCTAssertTrue(result.err.contains("OpenBLAS could not be loaded (install the Debian package libopenblas0"), result.err)
        XCTAssertTrue(result.err.contains("/nonexistent/libopenblas.so.0"), result.err)
    }

    /// OpenBLAS is opened without `RTLD_DEEPBIND`, which the sanitizer runtimes refuse, when asked to or when one
    /// is linked in; otherwise with it.
    func testOpenBLASDeepBindIsLeftOutForSanitizers() {
        #if os(Linux)
        XCTAssertNotEqual(BLAS.openFlags(deepBindDisabled: false, sanitizerLinked: false) & RTLD_DEEPBIND, 0)
        XCTAssertEqual(BLAS.openFlags(deepBindDisabled: true, sanitizerLinked: false) & RTLD_DEEPBIND, 0)
        XCTAssertEqual(BLAS.openFlags(deepBindDisabled: false, sanitizerLinked: true) & RTLD_DEEPBIND, 0)
        #endif
    }

    /// A float model (OpenBLAS) runs in a child given an empty environment, as PySpark's `RDD.pipe` runs its command:
    /// in a sanitized build nothing then says LITEVISION_BLAS_DEEPBIND=0.
    func testFloatModelRunsWithAnEmptyEnvironment() throws {
        let model = try TestPaths.model("classification/mobilenet_v2_1.0_224_dequant_float.tflite")
        let result = try runCLI(["bench", model, "--runs", "1", "--warmup", "0"], environment: [:], inheritingEnvironment: false)
        XCTAssertEqual(result.reason, .exit, "killed by a signal: \(result.err)")
        XCTAssertEqual(result.status, 0, result.err)
    }

    private func runCLI(_ arguments: [String], environment: [String: String?], inheritingEnvironment: Bool = true, executable: String? = nil) throws
        -> (status: Int32, reason: Process.TerminationReason, out: String, err: String) {
        let result = try runChildProcess(executable.map { URL(fileURLWithPath: $0) } ?? CLITests.binary, arguments,
                                         environment: environment, inheritingEnvironment: inheritingEnvironment)
        return (result.status, result.reason, result.out, result.err)
    }
}
