import ArgumentParser
import Foundation
import LiteEngine
import LiteFormat

/// `vision-cli bench`: LiteRT's `benchmark_model` for this engine (Docs/benchmarks.md, "vision-cli bench"): its input
/// values, its run-count and duration rules, and its report of init time, first and warm-up runs and memory.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Time model load and inference, as LiteRT's benchmark_model does.",
        discussion: """
            Inputs as benchmark_model fills them: floats random in [-0.5, 0.5], uint8 in [0, 254], int8 in [-127, 127], \
            bool 0 or 1; wider integers (ids, positions) are zeros. --input-range and --input-file choose an input's values.
            Timed runs: at least --runs and at least --min-secs, and none started after --max-secs (the same for warm-up \
            with --warmup and --warmup-min-secs). The last line is the summary (or with --json one JSON line).
            """
    )

    @Argument(help: "A .tflite path or a registry model name (vision-cli models list).") var model: String
    @OptionGroup var location: RegistryLocation
    @Option(help: "Threads.") var threads = 1
    @Option(help: "Timed runs, at least (benchmark_model's --num_runs; see --min-secs, --max-secs).") var runs = 50
    @Option(help: "Run for at least this many seconds, even if that is more than --runs (--min_secs).") var minSecs: Double = 0
    @Option(help: "Start no run after this many seconds, even if that is fewer than --runs; applies to warm-up and timed runs each (--max_secs).")
    var maxSecs: Double?
    @Option(help: "Untimed warm-up runs, at least (--warmup_runs).") var warmup = 5
    @Option(help: "Warm up for at least this many seconds (--warmup_min_secs).") var warmupMinSecs: Double = 0
    @Option(help: ArgumentHelp("Values of an input drawn uniformly from LOW...HIGH, both inclusive (--input_layer_value_range); repeatable. NAME: the input's tensor or signature name, or its index.",
                               valueName: "NAME:LOW,HIGH"))
    var inputRange: [String] = []
    @Option(help: ArgumentHelp("An input's values from a file of its raw bytes, exactly the tensor's size (--input_layer_value_files); repeatable.",
                               valueName: "NAME:PATH"))
    var inputFile: [String] = []
    @Option(help: "Quantized arithmetic: exact or fast.") var numerics: String = "fast"
    @Flag(help: "End with one JSON line (keys: Docs/benchmarks.md, \"vision-cli bench JSON\").") var json = false
    @Flag(help: "Print per-op and the slowest nodes' times (medians of up to 50 runs, each node timed alone).") var profile = false
    @Option(help: "How many of the slowest nodes --profile lists.") var slowest = 12
    @Option(help: "Resize input 0 to this shape first, e.g. 1,120,5 (for a resizable dimension).") var inputShape: String?

    var inputs: BenchInputs {
        BenchInputs(ranges: inputRange.map { .init(option: "--input-range", text: $0) },
                    files: inputFile.map { .init(option: "--input-file", text: $0) })
    }

    func validate() throws {
        guard threads >= 1, runs >= 1, warmup >= 0 else { throw ValidationError("--threads and --runs must be >= 1, --warmup >= 0") }
        guard minSecs >= 0, warmupMinSecs >= 0, minSecs.isFinite, warmupMinSecs.isFinite else {
            throw ValidationError("--min-secs and --warmup-min-secs must be >= 0")
        }
        if let maxSecs { guard maxSecs > 0, maxSecs.isFinite else { throw ValidationError("--max-secs must be > 0") } }
        guard Numerics(rawValue: numerics) != nil else { throw ValidationError("--numerics must be exact or fast") }
        do { try inputs.validate() } catch let error as CLIError { throw ValidationError(error.message) }
    }

    /// Exit statuses as Docs/cli.md has them: 3 when the model cannot be loaded, 2 for a bad --input-shape,
    /// --input-range or --input-file, 1 when a run fails (inputs the model refuses, as an id past a table's end).
    func run() throws {
        do {
            try benchmark()
        } catch let error as CLIError {
            throw error
        } catch let error as ValidationError {
            throw error
        } catch {
            throw CLIError(.inputsFailed, "\(error)")
        }
    }

    private func benchmark() throws {
        let options = Interpreter.Options(threads: threads, numerics: Numerics(rawValue: numerics)!)
        let modelPath = try location.resolve(model, task: nil)
        _ = BLAS.coreName
        // benchmark_model's memory footprint: the peak RSS before the model is loaded, after init and at the end.
        let baseline = ProcessMemory.peakBytes()
        let loadStart = DispatchTime.now().uptimeNanoseconds
        let interpreter: Interpreter
        do { interpreter = try Interpreter(modelPath: modelPath, options: options) } catch { throw CLIError.model(error) }
        let loadMs = milliseconds(since: loadStart)
        if let inputShape {
            let shape = inputShape.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !shape.isEmpty, shape.allSatisfy({ $0 > 0 }) else { throw ValidationError("--input-shape is positive integers separated by commas") }
            do {
                try interpreter.resizeInput(at: 0, to: shape)
                try interpreter.allocateTensors()
            } catch { throw CLIError(.usage, "--input-shape \(inputShape): \(error)") }
        }
        let initMs = milliseconds(since: loadStart)
        let afterInit = ProcessMemory.peakBytes()

        let filled = try inputs.fill(interpreter)
        for report in filled { print(report.line) }

        // The first run of all (warm-up or timed) is the cold one: benchmark_model's "First inference".
        var firstRunMs: Double?
        let warm = try Self.repeatRuns(atLeast: warmup, seconds: warmupMinSecs, stopAfter: maxSecs) {
            try interpreter.invoke()
        } observe: { if firstRunMs == nil { firstRunMs = $0 } }
        let timed = try Self.repeatRuns(atLeast: runs, seconds: minSecs, stopAfter: maxSecs) {
            try interpreter.invoke()
        } observe: { if firstRunMs == nil { firstRunMs = $0 } }
        let end = ProcessMemory.peakBytes()

        let times = timed.times.sorted()
        let count = Double(times.count)
        let median = times[times.count / 2], minimum = times[0], maximum = times[times.count - 1]
        let p90 = times[min(times.count - 1, times.count * 9 / 10)]
        let mean = times.reduce(0, +) / count
        // The population standard deviation, as TensorFlow's Stat (benchmark_model's "std=").
        let std = (times.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / count).squareRoot()
        let warmupMean = warm.times.isEmpty ? nil : warm.times.reduce(0, +) / Double(warm.times.count)

        if profile { try printProfile(interpreter, runs: min(times.count, 50)) }

        let isa = KernelConfiguration.current.level.description
        let modelBytes = ((try? FileManager.default.attributesOfItem(atPath: modelPath))?[.size] as? NSNumber)?.intValue
        let mb = { (bytes: Int?) in bytes.map { Double($0) / 1_048_576 } }
        let peak = mb(end), base = mb(baseline)
        let initIncrease = zip2(mb(afterInit), base).map { $0 - $1 }, peakIncrease = zip2(peak, base).map { $0 - $1 }

        var line = String(format: "init %.2f ms", initMs)
        if let firstRunMs { line += String(format: "  first run %.3f ms", firstRunMs) }
        line += String(format: "  warm-up %d runs in %.1f ms", warm.times.count, warm.wallMs)
        if let warmupMean { line += String(format: " (mean %.3f ms)", warmupMean) }
        print(line)
        if let peak, let base, let initIncrease, let peakIncrease {
            print(String(format: "memory: peak RSS %.1f MB; %.1f MB before the model, +%.1f MB after init, +%.1f MB at the end (MB = 2^20 bytes)",
                         peak, base, initIncrease, peakIncrease))
        }
        // The last line: tools/ab_bench.sh and tools/ab_paired.sh read "min X ms  median Y" from it.
        let wall = timed.wallMs < 1000 ? String(format: "%.1f ms", timed.wallMs) : String(format: "%.2f s", timed.wallMs / 1e3)
        print(String(format: "load %.2f ms  min %.3f ms  median %.3f ms  p90 %.3f ms  mean %.3f ms  std %.3f ms  max %.3f ms  (%d runs in %@, %d threads, kernels %@, OpenBLAS %@)",
                     loadMs, minimum, median, p90, mean, std, maximum, times.count, wall as NSString, threads, isa as NSString, BLAS.coreName as NSString))
        if json {
            let null: Any = NSNull()
            let object: [String: Any] = [
                "model": model, "model_size_mb": modelBytes.map { Double($0) / 1e6 } ?? null,
                "threads": threads, "numerics": numerics, "blas_core": BLAS.coreName, "isa": isa,
                "inputs": filled.map(\.json),
                "load_ms": loadMs, "init_ms": initMs, "first_run_ms": firstRunMs ?? null,
                "warmup_runs": warm.times.count, "warmup_ms": warm.wallMs, "warmup_mean_ms": warmupMean ?? null,
                "runs": times.count, "timed_ms": timed.wallMs,
                "min_ms": minimum, "max_ms": maximum, "mean_ms": mean, "std_ms": std, "median_ms": median, "p90_ms": p90,
                "peak_rss_mb": peak ?? null, "baseline_rss_mb": base ?? null,
                "init_rss_increase_mb": initIncrease ?? null, "peak_rss_increase_mb": peakIncrease ?? null,
            ]
            print(jsonText(object, pretty: false))
        }
    }

    /// benchmark_model's `Run(min_num_times, min_secs, max_secs)`: runs while fewer than `atLeast` runs were made or
    /// fewer than `seconds` have passed, and starts none once `stopAfter` seconds have passed (a run under way
    /// finishes). Returns each run's time and the wall time of the whole loop, in milliseconds.
    static func repeatRuns(atLeast count: Int, seconds: Double, stopAfter maxSeconds: Double?, _ body: () throws -> Void,
                           observe: (Double) -> Void) throws -> (times: [Double], wallMs: Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        let minFinish = start &+ UInt64(seconds * 1e9)
        let maxFinish = maxSeconds.map { start &+ UInt64(min($0, 1e9) * 1e9) } ?? .max
        var times: [Double] = []
        var now = start
        while (times.count < count || now < minFinish) && now <= maxFinish {
            let runStart = DispatchTime.now().uptimeNanoseconds
            try body()
            now = DispatchTime.now().uptimeNanoseconds
            let ms = Double(now - runStart) / 1e6
            times.append(ms)
            observe(ms)
        }
        return (times, Double(now - start) / 1e6)
    }

    /// The median of each node's time over `runs` profiled runs; by op, then the slowest nodes.
    private func printProfile(_ interpreter: Interpreter, runs: Int) throws {
        var perNode: [[Double]] = []
        var names: [String] = []
        for _ in 0..<runs {
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
}

private func milliseconds(since start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 }

private func zip2<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}

/// The process's peak resident memory so far, VmHWM in /proc/self/status (Linux), in bytes: what benchmark_model
/// reads as `ru_maxrss`. Nil where there is no /proc.
enum ProcessMemory {
    static func peakBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kilobytes * 1024
    }
}
