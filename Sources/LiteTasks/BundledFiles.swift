import CBundledFiles
import Foundation

/// The files of the package's models/ folder that are compiled into the library (Sources/CBundledFiles/bundled_files.S):
/// models/registry.json and the digital ink models with their sidecars (labels, lexicon, character and geometry
/// networks). A program built with LiteTasks finds them wherever it is copied, without the checkout.
///
/// The bytes are part of the binary's read-only data: nothing is read from disk or copied.
public enum BundledFiles {
    /// Every bundled file by name, read once from the C table. `nonisolated(unsafe)`: the pointers are to the
    /// binary's read-only data, which nothing writes, so sharing them between threads is safe.
    nonisolated(unsafe) private static let files: [String: UnsafeRawBufferPointer] = {
        var count = 0
        guard let table = lite_bundled_files(&count) else { return [:] }
        var files: [String: UnsafeRawBufferPointer] = [:]
        for entry in UnsafeBufferPointer(start: table, count: count) {
            files[String(cString: entry.name)] = UnsafeRawBufferPointer(start: entry.bytes, count: entry.size)
        }
        return files
    }()

    /// The names of the bundled files ("registry.json", "ink-en.tflite", ...), sorted.
    public static var names: [String] { files.keys.sorted() }

    /// The bytes of the bundled file `name` (its name in models/), valid for the life of the process; nil if it is
    /// not bundled.
    public static func bytes(named name: String) -> UnsafeRawBufferPointer? {
        files[name]
    }

    /// The bundled file `name` as `Data` that refers to the binary's bytes without copying them; nil if it is not
    /// bundled.
    public static func data(named name: String) -> Data? {
        guard let bytes = files[name], let base = bytes.baseAddress else { return files[name].map { _ in Data() } }
        return Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none)
    }
}
