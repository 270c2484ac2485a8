import Foundation
import LiteEngine
import LiteFormat

/// Mutates real model files and feeds each mutant to the reader and the planner (and, for small models, runs
/// it). A mutant may load or fail with a typed error; it must never trap, hang or exhaust memory. Any trap
/// ends the process, which is how a crash is reported.
///
/// Mutations, each applied to one buffer in place and undone afterwards (no per-case copy):
/// truncation to a random length, 1-8 random bit flips, rewriting a 32-bit word that looks like an offset
/// (to a nearby, a random, an out-of-range or a self-referencing value), and zeroing a byte run.
public struct ModelFuzzer {
    public struct Outcome: CustomStringConvertible {
        public var cases = 0
        public var loaded = 0
        public var ran = 0
        public var formatErrors = 0
        public var engineErrors = 0
        public var slowest = 0.0
        public var slowestCase = ""

        public var description: String {
            "\(cases) cases: \(loaded) loaded (\(ran) also ran), \(formatErrors) rejected by the reader, \(engineErrors) by the engine; 0 crashes; slowest case \(String(format: "%.1f", slowest * 1000)) ms (\(slowestCase))"
        }
    }

    var generator: SplitMix64
    let runBelowBytes: Int
    let maximumLoopIterations: Int

    /// - Parameters:
    ///   - seed: the random seed; the same seed and models give the same cases.
    ///   - runBelowBytes: mutants of models smaller than this are also invoked when they load.
    ///   - maximumLoopIterations: the interpreters' WHILE limit (a mutated loop bound would otherwise run up to the
    ///     default 16,777,216 steps, about a minute, before its error).
    /// (case index, path): that case's mutant is written to the file before it is loaded.
    public var saveCase: (Int, String)?
    /// The index of the case being run.
    private var caseIndex = 0

    public init(seed: UInt64, runBelowBytes: Int = 1 << 20, maximumLoopIterations: Int = 10_000) {
        generator = SplitMix64(seed: seed)
        self.runBelowBytes = runBelowBytes
        self.maximumLoopIterations = maximumLoopIterations
    }

    /// Runs `count` cases spread over `models` (paths), calling `progress` every 1000 cases.
    public mutating func run(models: [String], count: Int, progress: ((Outcome) -> Void)? = nil) throws -> Outcome {
        var outcome = Outcome()
        let files = try models.map { path -> (String, UnsafeMutableRawBufferPointer) in
            guard let data = FileManager.default.contents(atPath: path) else { throw FormatError.io(path: path, reason: "cannot read") }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 64)
            data.copyBytes(to: buffer)
            return (path, buffer)
        }
        defer { files.forEach { $0.1.deallocate() } }
        // Mutants are run only while their planned memory stays near the original's: a mutated dimension can
        // turn a small model into a legitimately huge computation, which is slow, not wrong.
        let baselines = files.map { _, buffer -> Int? in
            let model = try? TFLiteModel(storage: ModelBytes(unsafeBorrowing: UnsafeRawBufferPointer(buffer)))
            return model.flatMap { try? Interpreter(model: $0).arenaBytes }
        }
        for index in 0..<count {
            let (path, buffer) = files[index % files.count]
            let start = DispatchTime.now().uptimeNanoseconds
            caseIndex = index
            let label = try mutateAndCheck(buffer, path: path, runBelowArena: baselines[index % files.count].map { 2 * $0 + 4096 }, outcome: &outcome)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            if seconds > outcome.slowest {
                // The file and its folder (the golden models are all named model.tflite), the case's index and mutation.
                let name = URL(fileURLWithPath: path).pathComponents.suffix(2).joined(separator: "/")
                outcome.slowest = seconds
                outcome.slowestCase = "\(name) case \(index) \(label)"
            }
            outcome.cases += 1
            if (index + 1) % 1000 == 0 { progress?(outcome) }
        }
        return outcome
    }

    private mutating func mutateAndCheck(_ buffer: UnsafeMutableRawBufferPointer, path: String, runBelowArena: Int?,
                                         outcome: inout Outcome) throws -> String {
        let size = buffer.count
        // An empty file has nothing to mutate (and every offset below is taken modulo its size): it is read as it is.
        guard size > 0 else {
            do { _ = try TFLiteModel(storage: ModelBytes(unsafeBorrowing: UnsafeRawBufferPointer(buffer))) } catch { outcome.formatErrors += 1 }
            return "empty file"
        }
        var length = size
        var undo: [(Int, UInt8)] = []
        func set(_ offset: Int, _ value: UInt8) {
            undo.append((offset, buffer[offset]))
            buffer[offset] = value
        }
        let label: String
        switch generator.next() % 4 {
        case 0:
            // Truncations cluster near the start (headers, vtables) and are spread over the rest.
            length = generator.next() % 2 == 0 ? Int(generator.next() % UInt64(min(size, 4096))) : Int(generator.next() % UInt64(size))
            label = "truncated to \(length)"
        case 1:
            let flips = Int(generator.next() % 8) + 1
            for _ in 0..<flips {
                let offset = generator.next() % 2 == 0 ? Int(generator.next() % UInt64(min(size, 65536))) : Int(generator.next() % UInt64(size))
                set(offset, buffer[offset] ^ (1 << UInt8(generator.next() % 8)))
            }
            label = "\(flips) bit flips"
        case 2:
            // A word whose value is a plausible in-file offset, rewritten.
            var offset = 0
            for _ in 0..<64 {
                offset = Int(generator.next() % UInt64(max(size / 4, 1))) * 4
                if offset + 4 <= size, Int(buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) < size { break }
            }
            guard offset + 4 <= size else { return "skipped" }
            let old = buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            let replacements: [UInt32] = [old &+ 4, old &- 4, UInt32(truncatingIfNeeded: generator.next()), UInt32(size), UInt32.max, 0, UInt32(truncatingIfNeeded: -offset)]
            let value = replacements[Int(generator.next() % UInt64(replacements.count))]
            withUnsafeBytes(of: value.littleEndian) { bytes in for i in 0..<4 { set(offset + i, bytes[i]) } }
            label = "offset at \(offset) rewritten \(old) -> \(value)"
        default:
            let offset = Int(generator.next() % UInt64(size))
            let run = min(Int(generator.next() % 64) + 1, size - offset)
            for i in 0..<run { set(offset + i, 0) }
            label = "\(run) bytes zeroed at \(offset)"
        }
        defer { for (offset, value) in undo.reversed() { buffer[offset] = value } }

        let view = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<length])
        if let (index, file) = saveCase, index == caseIndex { _ = FileManager.default.createFile(atPath: file, contents: Data(view)) }
        do {
            let model = try TFLiteModel(storage: ModelBytes(unsafeBorrowing: view))
            let interpreter = try Interpreter(model: model, options: .init(memoryLimit: 256 << 20, maximumLoopIterations: maximumLoopIterations))
            outcome.loaded += 1
            if size < runBelowBytes, let limit = runBelowArena, interpreter.arenaBytes <= limit {
                try interpreter.invoke()
                outcome.ran += 1
            }
        } catch is FormatError {
            outcome.formatErrors += 1
        } catch let error as EngineError {
            if case .format = error { outcome.formatErrors += 1 } else { outcome.engineErrors += 1 }
        }
        return label
    }

    /// Every .tflite file under `directory`, sorted.
    public static func models(under directory: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        var found: [String] = []
        while let item = enumerator?.nextObject() as? String {
            if item.hasSuffix(".tflite") { found.append((directory as NSString).appendingPathComponent(item)) }
        }
        return found.sorted()
    }
}
