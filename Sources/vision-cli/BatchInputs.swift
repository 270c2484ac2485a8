import ArgumentParser
import Foundation

/// The file extensions of the images `classify` and `detect` read from folders.
let imageFileExtensions: Set<String> = ["png", "jpg", "jpeg", "bmp", "ppm", "pgm", "pnm", "webp", "gif", "tif", "tiff"]

/// One input of a batch: its position in the whole input sequence (stable across shards and resumed runs), its
/// path ("-" for standard input), and its bytes when they came from standard input.
struct BatchInput: Sendable {
    let index: Int
    let path: String
    let bytes: Data?
    /// Why this input cannot be processed, found while listing it (a file in a folder that is not an image).
    let problem: String?
}

/// The inputs of a batch, produced one at a time as workers ask for them, so that memory does not grow with their
/// number: files given as arguments, the files of folders (in name order; `recursive`: their subfolders too), paths
/// read from a file or standard input (`--paths-from`), or one input's bytes from standard input (`-`).
/// Shard and resume filters are applied here. Thread-safe.
final class BatchInputs: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [String]
    private var folderFiles: [String] = []
    private var pathLines: LineReader?
    private var standardInputTaken = false
    private var position = 0
    private let extensions: Set<String>
    private let recursive: Bool
    private let shard: (index: Int, count: Int)?
    private let skip: Set<String>
    /// Set when a stop was requested: no more inputs are handed out.
    private var stopped = false
    /// Told each position handed out, in order (an ordered writer needs to know which positions will have records).
    private let writer: RecordWriter?

    /// `arguments` are paths of files or folders; "-" alone reads one input's bytes from standard input.
    init(arguments: [String], pathsFrom: String?, extensions: Set<String>, recursive: Bool, shard: (index: Int, count: Int)?,
         skip: Set<String>, writer: RecordWriter? = nil) throws {
        for argument in arguments where argument != "-" && !FileManager.default.fileExists(atPath: argument) {
            throw ValidationError("""
                no such input: \(argument). Give the path of a file or of a folder \
                (a sample photo: cp ../shared/images/bird.png . on a machine with ../shared beside the checkout).
                """)
        }
        if arguments.contains("-") && (arguments.count > 1 || pathsFrom == "-") {
            throw ValidationError("'-' (one input from standard input) must be the only input")
        }
        if let pathsFrom {
            guard pathsFrom == "-" || FileManager.default.fileExists(atPath: pathsFrom) else {
                throw ValidationError("no such file for --paths-from: \(pathsFrom)")
            }
            guard let reader = LineReader(path: pathsFrom == "-" ? "/dev/stdin" : pathsFrom) else { throw ValidationError("cannot open \(pathsFrom)") }
            pathLines = reader
        }
        pending = arguments.reversed()
        self.extensions = extensions
        self.recursive = recursive
        self.shard = shard
        self.skip = skip
        self.writer = writer
    }

    /// No more inputs after the ones already handed out.
    func stop() { lock.withLock { stopped = true } }

    /// The next input, or nil when there are no more (or a stop was requested).
    func next() -> BatchInput? {
        lock.withLock {
            while !stopped, let (path, problem) = nextPath() {
                if path == "-" && !standardInputTaken {
                    standardInputTaken = true
                    let input = BatchInput(index: position, path: "-", bytes: FileHandle.standardInput.readDataToEndOfFile(), problem: nil)
                    writer?.handedOut(position)
                    position += 1
                    return input
                }
                defer { position += 1 }
                if let shard, !shardContains(path, index: shard.index, count: shard.count) { continue }
                if skip.contains(path) { continue }
                writer?.handedOut(position)
                return BatchInput(index: position, path: path, bytes: nil, problem: problem)
            }
            return nil
        }
    }

    /// The next path in order, with a problem when it is a file in a folder that the command does not read.
    private func nextPath() -> (String, String?)? {
        while true {
            if let file = folderFiles.popLast() {
                let isInput = extensions.contains((file as NSString).pathExtension.lowercased())
                return (file, isInput ? nil : "not an input this command reads (by its extension: \(extensions.sorted().joined(separator: ", ")))")
            }
            if let argument = pending.popLast() {
                var isDirectory: ObjCBool = false
                if argument != "-", FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), isDirectory.boolValue {
                    folderFiles = listFolder(argument).reversed()
                    continue
                }
                return (argument, nil)
            }
            if let reader = pathLines, let line = reader.next(maximumBytes: 1 << 16) {
                guard let text = line.text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { continue }
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: text, isDirectory: &isDirectory), isDirectory.boolValue {
                    folderFiles = listFolder(text).reversed()
                    continue
                }
                return (text, nil)
            }
            return nil
        }
    }

    /// The regular files of a folder in name order (with `recursive`, those of its subfolders, depth first in name
    /// order); hidden files are left out.
    private func listFolder(_ folder: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var files: [String] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = (folder as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                if recursive {
                    files += listFolder(path)
                } else {
                    printError("note: not reading the folder \(path) (--recursive reads subfolders)")
                }
            } else {
                files.append(path)
            }
        }
        return files
    }
}
