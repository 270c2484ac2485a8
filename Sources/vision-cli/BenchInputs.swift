import Foundation
import LiteEngine
import LiteFormat

/// The values `vision-cli bench` feeds a model, chosen as LiteRT's `benchmark_model` chooses them
/// (`CreateRandomTensorData` in tensorflow/lite/tools/benchmark/benchmark_tflite_model.cc): floats uniform in
/// [-0.5, 0.5], uint8 in [0, 254], int8 in [-127, 127], bool 0 or 1. Wider integers are zeros (benchmark_model draws
/// them from [0, 99], which is still out of range for an id into a table of fewer rows): they are most often ids or
/// positions, which a GATHER or an EMBEDDING_LOOKUP rejects when out of range. `--input-range NAME:LOW,HIGH`
/// (`--input_layer_value_range`) draws an input uniformly from [LOW, HIGH], both inclusive; `--input-file NAME:PATH`
/// (`--input_layer_value_files`) gives it a file's raw bytes, which must be exactly the tensor's size.
struct BenchInputs {
    /// One `--input-range` or `--input-file` argument before the model is read: the model's input names decide where
    /// the name ends (names often hold colons, as `serving_default_ids:0`).
    struct Argument {
        let option: String
        let text: String
    }

    /// How an input gets its values.
    enum Fill {
        case random(low: Double, high: Double)
        case randomIntegers(low: Int64, high: Int64)
        case zeros
        case file(String)
        case none

        var description: String {
            switch self {
            case let .random(low, high): return "random in [\(format(low)), \(format(high))]"
            case let .randomIntegers(low, high): return low == high ? "all \(low)" : "random integers in [\(low), \(high)]"
            case .zeros: return "zeros"
            case let .file(path): return "from \(path)"
            case .none: return "left as allocated (no values for this type)"
            }
        }

        /// The JSON object of `inputs[]`, besides index, name, type and shape.
        var json: [String: Any] {
            switch self {
            case let .random(low, high): return ["fill": "random", "low": low, "high": high]
            case let .randomIntegers(low, high): return ["fill": "random", "low": low, "high": high]
            case .zeros: return ["fill": "zeros"]
            case let .file(path): return ["fill": "file", "path": path]
            case .none: return ["fill": "none"]
            }
        }

        private func format(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
        }
    }

    struct Report {
        let index: Int
        let name: String
        let type: TensorType
        let shape: [Int]
        let fill: Fill

        var line: String { "input \(index) \"\(name)\" \(type) \(shape): \(fill.description)" }
        var json: [String: Any] {
            ["index": index, "name": name, "type": type.description, "shape": shape].merging(fill.json) { a, _ in a }
        }
    }

    let ranges: [Argument]
    let files: [Argument]

    /// Checks the arguments' form before anything is loaded: `NAME:LOW,HIGH` and `NAME:PATH`.
    func validate() throws {
        for argument in ranges {
            guard let colon = argument.text.lastIndex(of: ":"), argument.text[argument.text.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false).count == 2,
                  colon != argument.text.startIndex
            else {
                throw CLIError(.usage, "--input-range \(argument.text): expected NAME:LOW,HIGH (an input's name or index, then the lowest and highest value, both inclusive), e.g. ids:0,999")
            }
        }
        for argument in files {
            guard let colon = argument.text.firstIndex(of: ":"), colon != argument.text.startIndex,
                  argument.text.index(after: colon) != argument.text.endIndex
            else {
                throw CLIError(.usage, "--input-file \(argument.text): expected NAME:PATH (an input's name or index, then a file of the tensor's raw bytes)")
            }
        }
    }

    /// Fills every input of `interpreter` and says how. Call after the inputs have their final shapes.
    func fill(_ interpreter: Interpreter) throws -> [Report] {
        let names = try inputNames(interpreter)
        var rangeOf: [Int: (low: String, high: String, text: String)] = [:]
        for argument in ranges {
            let (index, rest) = try resolve(argument, names)
            let parts = rest.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { throw CLIError(.usage, "--input-range \(argument.text): expected NAME:LOW,HIGH") }
            guard rangeOf[index] == nil else { throw CLIError(.usage, "--input-range \(argument.text): input \(index) already has a range (\(rangeOf[index]!.text))") }
            rangeOf[index] = (parts[0], parts[1], argument.text)
        }
        var fileOf: [Int: String] = [:]
        for argument in files {
            let (index, path) = try resolve(argument, names)
            guard fileOf[index] == nil else { throw CLIError(.usage, "--input-file \(argument.text): input \(index) already has a file (\(fileOf[index]!))") }
            fileOf[index] = path
        }

        var generator = SplitMix64(seed: 0)
        var reports: [Report] = []
        for i in 0..<interpreter.inputCount {
            let tensor = try interpreter.input(at: i)
            let fill: Fill
            if let path = fileOf[i] {
                if let range = rangeOf[i] {
                    // benchmark_model: "The input_layer_value_range of the input_name will be ignored."
                    printError("warning: input \(i) \"\(names[i].first ?? "")\" has both --input-file and --input-range \(range.text); the file wins")
                }
                let data: Data
                do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                    throw CLIError(.usage, "--input-file: cannot read \(path) for input \(i) \"\(tensor.name)\": \(error.localizedDescription)")
                }
                guard tensor.type.byteSize != nil else {
                    throw CLIError(.inputsFailed, "--input-file \(path): input \(i) \"\(tensor.name)\" is \(tensor.type), which takes no raw bytes")
                }
                guard data.count == tensor.byteCount else {
                    let hint = data.starts(with: [0x93] + Array("NUMPY".utf8)) ? " (this is a .npy file: the header counts too; write the array's raw bytes, e.g. numpy's tofile)" : ""
                    throw CLIError(.inputsFailed, "--input-file \(path): the file has \(data.count) bytes, but input \(i) \"\(tensor.name)\" (\(tensor.type) \(tensor.shape)) needs \(tensor.byteCount) bytes\(hint)")
                }
                try data.withUnsafeBytes { try interpreter.copy($0, toInputAt: i) }
                fill = .file(path)
            } else {
                let range = rangeOf[i]
                let (bytes, how) = try Self.values(for: tensor, range: range.map { ($0.low, $0.high) }, generator: &generator)
                if let bytes { try bytes.withUnsafeBytes { try interpreter.copy($0, toInputAt: i) } }
                fill = how
            }
            reports.append(Report(index: i, name: tensor.name, type: tensor.type, shape: tensor.shape, fill: fill))
        }
        return reports
    }

    /// Each input's names: its tensor's name and, if the subgraph has a signature, the signature's name for it.
    private func inputNames(_ interpreter: Interpreter) throws -> [[String]] {
        try (0..<interpreter.inputCount).map { i in
            let tensor = try interpreter.input(at: i)
            var names = [tensor.name]
            if let entry = interpreter.signature?.inputs.first(where: { $0.tensorIndex == tensor.index }), entry.name != tensor.name {
                names.append(entry.name)
            }
            return names
        }
    }

    /// Splits `NAME:REST` at the longest input name followed by a colon, or else at an input index.
    private func resolve(_ argument: Argument, _ names: [[String]]) throws -> (Int, String) {
        var best: (index: Int, length: Int)?
        for (i, list) in names.enumerated() {
            for name in list where !name.isEmpty && argument.text.hasPrefix(name + ":") && name.count > (best?.length ?? -1) {
                best = (i, name.count)
            }
        }
        if let best {
            return (best.index, String(argument.text.dropFirst(best.length + 1)))
        }
        if let colon = argument.text.firstIndex(of: ":"), let index = Int(argument.text[..<colon]), names.indices.contains(index) {
            return (index, String(argument.text[argument.text.index(after: colon)...]))
        }
        let listed = names.enumerated().map { "\($0.offset) \($0.element.map { "\"\($0)\"" }.joined(separator: " or "))" }.joined(separator: ", ")
        throw CLIError(.usage, "\(argument.option) \(argument.text): no input of that name or index; the model's inputs are \(listed)")
    }

    /// The bytes of `tensor`'s values: benchmark_model's random values for its type, or uniform in `range`. Nil for
    /// types without a fixed element size (strings), which keep what the interpreter allocated.
    static func values(for tensor: Tensor, range: (low: String, high: String)?, generator: inout SplitMix64) throws -> ([UInt8]?, Fill) {
        let count = tensor.elementCount
        func bytes<T>(_ make: () -> T) -> [UInt8] { (0..<count).map { _ in make() }.withUnsafeBytes { Array($0) } }

        func floatRange(_ defaultLow: Double, _ defaultHigh: Double, limit: Double) throws -> (Double, Double) {
            guard let range else { return (defaultLow, defaultHigh) }
            guard let low = Double(range.low), let high = Double(range.high), low.isFinite, high.isFinite, low <= high else {
                throw CLIError(.usage, "--input-range for input \"\(tensor.name)\": \(range.low),\(range.high) is not LOW,HIGH with LOW <= HIGH")
            }
            guard low >= -limit, high <= limit, high - low <= limit else {
                throw CLIError(.usage, "--input-range for input \"\(tensor.name)\": [\(range.low), \(range.high)] is beyond \(tensor.type)'s range or wider than it (±\(limit))")
            }
            return (low, high)
        }
        func integerRange(_ defaultLow: Int64, _ defaultHigh: Int64, _ minimum: Int64, _ maximum: Int64) throws -> (Int64, Int64) {
            guard let range else { return (defaultLow, defaultHigh) }
            guard let low = Int64(range.low), let high = Int64(range.high), low <= high else {
                throw CLIError(.usage, "--input-range for input \"\(tensor.name)\" (\(tensor.type)): \(range.low),\(range.high) is not two integers LOW,HIGH with LOW <= HIGH")
            }
            guard low >= minimum, high <= maximum else {
                throw CLIError(.usage, "--input-range for input \"\(tensor.name)\": [\(low), \(high)] is beyond \(tensor.type)'s range [\(minimum), \(maximum)]")
            }
            return (low, high)
        }
        func integers<T: FixedWidthInteger>(_: T.Type, default defaultRange: (Int64, Int64)) throws -> ([UInt8]?, Fill) {
            let (low, high) = try integerRange(defaultRange.0, defaultRange.1, Int64(clamping: T.min), Int64(clamping: T.max))
            if low == 0, high == 0, range == nil { return (Array(repeating: 0, count: count * MemoryLayout<T>.size), .zeros) }
            return (bytes { T(truncatingIfNeeded: Int64.random(in: low...high, using: &generator)) }, .randomIntegers(low: low, high: high))
        }

        switch tensor.type {
        case .float32:
            let (low, high) = try floatRange(-0.5, 0.5, limit: Double(Float.greatestFiniteMagnitude))
            return (bytes { Float.random(in: Float(low)...Float(high), using: &generator) }, .random(low: low, high: high))
        case .float64:
            let (low, high) = try floatRange(-0.5, 0.5, limit: .greatestFiniteMagnitude)
            return (bytes { Double.random(in: low...high, using: &generator) }, .random(low: low, high: high))
        case .float16:
            let (low, high) = try floatRange(-0.5, 0.5, limit: 65504)
            return (bytes { Float16(Float.random(in: Float(low)...Float(high), using: &generator)).bitPattern }, .random(low: low, high: high))
        case .bfloat16:
            let (low, high) = try floatRange(-0.5, 0.5, limit: Double(Float.greatestFiniteMagnitude))
            return (bytes { bfloat16Bits(Float.random(in: Float(low)...Float(high), using: &generator)) }, .random(low: low, high: high))
        case .complex64:
            let (low, high) = try floatRange(-0.5, 0.5, limit: Double(Float.greatestFiniteMagnitude))
            let floats = (0..<2 * count).map { _ in Float.random(in: Float(low)...Float(high), using: &generator) }
            return (floats.withUnsafeBytes { Array($0) }, .random(low: low, high: high))
        case .complex128:
            let (low, high) = try floatRange(-0.5, 0.5, limit: .greatestFiniteMagnitude)
            let doubles = (0..<2 * count).map { _ in Double.random(in: low...high, using: &generator) }
            return (doubles.withUnsafeBytes { Array($0) }, .random(low: low, high: high))
        case .uint8: return try integers(UInt8.self, default: (0, 254))
        case .int8: return try integers(Int8.self, default: (-127, 127))
        case .bool:
            let (low, high) = try integerRange(0, 1, 0, 1)
            return (bytes { UInt8(Int64.random(in: low...high, using: &generator)) }, .randomIntegers(low: low, high: high))
        case .int16: return try integers(Int16.self, default: (0, 0))
        case .uint16: return try integers(UInt16.self, default: (0, 0))
        case .int32: return try integers(Int32.self, default: (0, 0))
        case .uint32: return try integers(UInt32.self, default: (0, 0))
        case .int64: return try integers(Int64.self, default: (0, 0))
        case .uint64: return try integers(UInt64.self, default: (0, 0))
        case .string, .resource, .variant, .int4:
            if range != nil { throw CLIError(.usage, "--input-range: input \"\(tensor.name)\" is \(tensor.type), which takes no range") }
            return (nil, .none)
        }
    }

    /// bfloat16: a float's upper 16 bits, rounded to nearest even.
    private static func bfloat16Bits(_ value: Float) -> UInt16 {
        let bits = value.bitPattern
        return UInt16(truncatingIfNeeded: (bits &+ 0x7FFF &+ ((bits >> 16) & 1)) >> 16)
    }
}

