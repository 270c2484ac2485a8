import ArgumentParser
import Foundation
import LiteEngine
import LiteFormat

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Time model load and inference on benchmark_model's input values.",
        discussion: """
            Inputs as LiteRT's benchmark_model fills them: floats random in [-0.5, 0.5], uint8 in [0, 254], int8 in \
            [-127, 127], bool 0 or 1; wider integers (ids, positions) are zeros. --input-range and --input-file choose an \
            input's values.
            """
    )

    @Argument(help: "Path to a .tflite model.") var model: String
    @Option(help: "Threads.") var threads = 1
    @Option(help: "Timed runs.") var runs = 50
    @Option(help: "Untimed warm-up runs.") var warmup = 5
    @Option(help: ArgumentHelp("Values of an input drawn uniformly from LOW...HIGH, both inclusive (--input_layer_value_range); repeatable. NAME: the input's tensor or signature name, or its index.",
                               valueName: "NAME:LOW,HIGH"))
    var inputRange: [String] = []
    @Option(help: ArgumentHelp("An input's values from a file of its raw bytes, exactly the tensor's size (--input_layer_value_files); repeatable.",
                               valueName: "NAME:PATH"))
    var inputFile: [String] = []
    @Option(help: "Quantized arithmetic: exact or fast.") var numerics: String = "fast"
    @Flag(help: "End with one JSON line.") var json = false
    @Flag(help: "Print per-op and the slowest nodes' times (medians of up to 50 runs, each node timed alone).") var profile = false
    @Option(help: "How many of the slowest nodes --profile lists.") var slowest = 12
    @Option(help: "Resize input 0 to this shape first, e.g. 1,120,5 (for a resizable dimension).") var inputShape: String?

    var inputs: BenchInputs {
        BenchInputs(ranges: inputRange.map { .init(option: "--input-range", text: $0) },
                    files: inputFile.map { .init(option: "--input-file", text: $0) })
    }

    func validate() throws {
        guard threads >= 1, runs >= 1, warmup >= 0 else { throw ValidationError("--threads and --runs must be >= 1, --warmup >= 0") }
        guard Numerics(rawValue: numerics) != nil else { throw ValidationError("--numerics must be exact or fast") }
        do { try inputs.validate() } catch let error as BenchError { throw ValidationError(error.description) }
    }

    func run() throws {
        do {
            let options = Interpreter.Options(threads: threads, numerics: Numerics(rawValue: numerics)!)
            _ = BLAS.coreName
            let loadStart = DispatchTime.now().uptimeNanoseconds
            let interpreter = try Interpreter(modelPath: model, options: options)
            let loadMs = Double(DispatchTime.now().uptimeNanoseconds - loadStart) / 1e6
            if let inputShape {
                let shape = inputShape.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                guard !shape.isEmpty, shape.allSatisfy({ $0 > 0 }) else { throw ValidationError("--input-shape is positive integers separated by commas") }
                try interpreter.resizeInput(at: 0, to: shape)
                try interpreter.allocateTensors()
            }
            let filled = try inputs.fill(interpreter)
            for report in filled { print(report.line) }
            for _ in 0..<warmup { try interpreter.invoke() }
            var times: [Double] = []
            for _ in 0..<runs {
                let start = DispatchTime.now().uptimeNanoseconds
                try interpreter.invoke()
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            times.sort()
            let median = times[times.count / 2], minimum = times[0], p90 = times[min(times.count - 1, times.count * 9 / 10)]
            if profile {
                // The median of each node's time over up to 50 profiled runs; by op, then the slowest nodes.
                var perNode: [[Double]] = []
                var names: [String] = []
                for _ in 0..<min(runs, 50) {
                    let entries = try interpreter.invokeProfiled()
                    if perNode.isEmpty { perNode = Array(repeating: [], count: entries.count); names = entries.map(\.op) }
                    for entry in entries { perNode[entry.node].append(entry.seconds * 1e3) }
                }
                let medians = perNode.map { $0.sorted()[$0.count / 2] }
                var byOp: [String: Double] = [:]
                for (node, ms) in medians.enumerated() { byOp[names[node], default: 0] += ms }
                for (op, ms) in byOp.sorted(by: { $0.value > $1.value }) {
                    print(String(format: "  %@ %8.3f ms", op.padding(toLength: max(op.count, 28), withPad: " ", startingAt: 0) as NSString, ms))
                }
                print("  slowest nodes:")
                for (node, ms) in medians.enumerated().sorted(by: { $0.element > $1.element }).prefix(max(slowest, 0)) {
                    let outputs = try interpreter.nodeOutputShapes(node).map { "\($0)" }.joined(separator: " ")
                    let name = names[node].padding(toLength: max(names[node].count, 24), withPad: " ", startingAt: 0)
                    print(String(format: "  %4d %@ %8.3f ms  -> %@", node, name as NSString, ms, outputs as NSString))
                }
            }
            let isa = KernelConfiguration.current.level.description
            print(String(format: "load %.2f ms  min %.3f ms  median %.3f ms  p90 %.3f ms  (%d runs, %d threads, kernels %@, OpenBLAS %@)",
                         loadMs, minimum, median, p90, runs, threads, isa as NSString, BLAS.coreName as NSString))
            if json {
                let object: [String: Any] = ["model": model, "load_ms": loadMs, "min_ms": minimum, "median_ms": median, "p90_ms": p90,
                                             "runs": runs, "threads": threads, "numerics": numerics, "blas_core": BLAS.coreName,
                                             "isa": isa, "inputs": filled.map(\.json)]
                print(String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self))
            }
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
    }
}
