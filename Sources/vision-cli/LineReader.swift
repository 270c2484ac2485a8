import CZlib

/// Reads lines of a text file, gunzipping it when it is gzip'd (zlib reads plain files as they are). Lines are split
/// at newline bytes only, so a line with a NUL byte in it is one (bad) line, not the start of a merged one.
final class LineReader {
    private let file: gzFile
    private var buffer: [UInt8]
    /// Bytes read from the file and not yet returned.
    private var pending = ArraySlice<UInt8>()
    private var atEnd = false

    /// Opens `path`, or returns nil when it cannot be opened. The file is read `chunkBytes` at a time (at least 1).
    init?(path: String, chunkBytes: Int = 1 << 16) {
        guard let file = gzopen(path, "rb") else { return nil }
        self.file = file
        buffer = [UInt8](repeating: 0, count: min(max(chunkBytes, 1), Int(Int32.max)))
    }

    deinit { gzclose(file) }

    /// The next non-empty line: its text, or nil text when it is longer than `maximumBytes` (then it is read
    /// to its end but not kept), and its length in bytes.
    func next(maximumBytes: Int = .max) -> (text: String?, bytes: Int)? {
        var line = [UInt8]()
        var bytes = 0
        func finished() -> (text: String?, bytes: Int) {
            (bytes > maximumBytes ? nil : String(decoding: line, as: UTF8.self), bytes)
        }
        while true {
            if pending.isEmpty {
                if atEnd { return bytes == 0 ? nil : finished() }
                pending = []  // drop the view of `buffer` before refilling it
                let count = gzread(file, &buffer, UInt32(buffer.count))
                if count <= 0 {
                    atEnd = true
                    continue
                }
                pending = buffer[0..<Int(count)]
            }
            let newline = pending.firstIndex(of: UInt8(ascii: "\n"))
            let chunk = pending[..<(newline ?? pending.endIndex)]
            pending = newline.map { pending[($0 + 1)...] } ?? []
            bytes += chunk.count
            if bytes <= maximumBytes { line += chunk } else { line = [] }
            if newline != nil {
                if bytes == 0 { continue }
                return finished()
            }
        }
    }
}
