import ArgumentParser
import Foundation

/// The streaming batch options shared by `classify`, `detect` and `ink --batch` (Docs/cli.md, "Batches").
struct BatchOptions: ParsableArguments {
    @Option(help: "Read input paths from FILE, one per line ('-': standard input).") var pathsFrom: String?
    @Flag(help: "Look for inputs in subfolders too.") var recursive = false
    @Flag(help: "Write records in input order (a bounded reorder buffer); by default each is written as soon as it is done.")
    var ordered = false
    @Option(help: "Skip the inputs that already have a record in this JSON lines file (a previous run's output).") var resume: String?
    @Option(help: "Take only shard I of N (I/N, 0-based): a stable subset by a hash of each path, so N machines cover the inputs once.")
    var shard: String?

    /// Whether `inputs` are files only (no folder, no `--paths-from`): then their number is the number of records.
    func isFileList(_ inputs: [String]) -> Bool {
        pathsFrom == nil && inputs.allSatisfy { path in
            var isDirectory: ObjCBool = false
            return path == "-" || (FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue)
        }
    }

    /// Whether `inputs` are one image file or `-`: the command's `--threads` then go to the engine.
    func isSingleFile(_ inputs: [String]) -> Bool { inputs.count == 1 && isFileList(inputs) }

    /// The shard as (index, count), or a usage error.
    func parsedShard() throws -> (index: Int, count: Int)? {
        guard let shard else { return nil }
        let parts = shard.split(separator: "/").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let index = parts[0], let count = parts[1], count >= 1, (0..<count).contains(index) else {
            throw ValidationError("--shard wants I/N with 0 <= I < N, got \(shard)")
        }
        return (index, count)
    }

    /// The indices recorded in the `--resume` file (for inputs without paths: the lines of an ink batch).
    func resumedIndices() throws -> [Int] {
        guard let resume, FileManager.default.fileExists(atPath: resume) else { return [] }
        guard let reader = LineReader(path: resume) else { throw ValidationError("cannot open \(resume)") }
        var indices: [Int] = []
        while let line = reader.next(maximumBytes: 1 << 24) {
            guard let text = line.text, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                  let index = object["index"] as? Int else { continue }
            indices.append(index)
        }
        return indices
    }

    /// The paths recorded in the `--resume` file: every line that parses as a JSON object with a `key` string.
    /// A last line cut short by an interrupted run does not parse and is ignored.
    func resumedPaths(key: String) throws -> Set<String> {
        guard let resume else { return [] }
        guard FileManager.default.fileExists(atPath: resume) else { return [] }
        guard let reader = LineReader(path: resume) else { throw ValidationError("cannot open \(resume)") }
        var paths = Set<String>()
        while let line = reader.next(maximumBytes: 1 << 24) {
            guard let text = line.text, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                  let path = object[key] as? String else { continue }
            paths.insert(path)
        }
        return paths
    }
}

/// Whether `path` belongs to shard `index` of `count`: FNV-1a (64-bit) of its UTF-8 bytes modulo `count`, the same
/// on every machine and in every run.
func shardContains(_ path: String, index: Int, count: Int) -> Bool {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in path.utf8 {
        hash ^= UInt64(byte)
        hash &*= 0x0000_0100_0000_01B3
    }
    return Int(hash % UInt64(count)) == index
}
