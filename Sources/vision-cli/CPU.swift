import ArgumentParser
import Foundation
import LiteEngine

/// `vision-cli cpu`: which instruction-set levels this machine has and which one the engine's kernels use.
struct CPU: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the CPU's instruction-set levels and the one the engine's kernels run at.",
        discussion: "LITEVISION_ISA=baseline|avx2|avx512|avx512vnni forces a lower level; one above the CPU's is an error.")

    @Flag(help: "Print only the levels this CPU can run, lowest first, one per line (for scripts).") var levels = false

    func run() throws {
        let detected = InstructionSetLevel.detected
        let available = InstructionSetLevel.allCases.filter { $0 <= detected }
        if levels {
            for level in available { print(level) }
            return
        }
        let name = InstructionSetLevel.cpuName
        print("cpu: \(name.isEmpty ? "unknown" : name)")
        print("detected: \(detected)")
        print("available: \(available.map(\.description).joined(separator: " "))")
        do {
            try KernelConfiguration.validate()
            print("kernels: \(KernelConfiguration.current.level)")
        } catch {
            printError("error: \(error)")
            throw ExitCode(.usage)
        }
    }
}
