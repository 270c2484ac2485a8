/// The files packed into a model: a zip archive appended to the .tflite file (labels, calibration, vocabularies).
///
/// Only what the TFLite metadata writer produces is accepted: entries stored without compression, local headers
/// and data inside the file. The end-of-central-directory record is searched from the end of the file (it may be
/// followed by a comment of up to 64 KiB), and every offset and size is checked against the file before use, so
/// a corrupt archive is an error, never a read outside the model.
public struct AssociatedFiles: Sendable {
    /// Entry name to byte range in the model file.
    public let entries: [String: Range<Int>]
    private let storage: ModelBytes

    /// The largest associated file accepted (labels files are kilobytes; this keeps a hostile entry bounded).
    public static let maximumEntrySize = 64 << 20

    /// Reads the archive at the end of `model`'s file. A model without an archive has no entries.
    public init(model: TFLiteModel) throws {
        try self.init(storage: model.storage)
    }

    init(storage: ModelBytes) throws {
        self.storage = storage
        entries = try Self.readDirectory(storage.bytes)
    }

    /// The contents of the entry named `name`.
    public func contents(of name: String) throws -> [UInt8] {
        guard let range = entries[name] else {
            throw FormatError.malformed(path: "associated files", reason: "no file named \"\(name)\" in the model's zip archive (it has: \(entries.keys.sorted().joined(separator: ", ")))")
        }
        return Array(storage.bytes[range])
    }

    /// The entry named `name` decoded as UTF-8 text.
    public func text(of name: String) throws -> String {
        String(decoding: try contents(of: name), as: UTF8.self)
    }

    /// Parses the archive directory of a whole model file: entry name to byte range.
    public static func readDirectory(_ bytes: UnsafeRawBufferPointer) throws -> [String: Range<Int>] {
        let size = bytes.count
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        func fail(_ reason: String) -> FormatError { .malformed(path: "associated files", reason: reason) }

        // End of central directory: signature 0x06054b50, 22 bytes plus a comment of at most 65535 bytes.
        guard size >= 22 else { return [:] }
        var end = -1
        var at = size - 22
        let lowest = max(0, size - 22 - 65535)
        while at >= lowest {
            if bytes[at] == 0x50, bytes[at + 1] == 0x4b, bytes[at + 2] == 0x05, bytes[at + 3] == 0x06,
               at + 22 + u16(at + 20) == size {
                end = at
                break
            }
            at -= 1
        }
        guard end >= 0 else { return [:] }
        let entryCount = u16(end + 10)
        let directorySize = u32(end + 12)
        let directoryOffset = u32(end + 16)
        guard directoryOffset <= end, directorySize <= end - directoryOffset else {
            throw fail("central directory at \(directoryOffset) (\(directorySize) bytes) is outside the file")
        }
        var entries: [String: Range<Int>] = [:]
        var cursor = directoryOffset
        for index in 0..<entryCount {
            guard cursor + 46 <= directoryOffset + directorySize, u32(cursor) == 0x02014b50 else {
                throw fail("central directory entry \(index) at \(cursor) is corrupt")
            }
            let flags = u16(cursor + 8)
            let method = u16(cursor + 10)
            let compressedSize = u32(cursor + 20)
            let uncompressedSize = u32(cursor + 24)
            let nameLength = u16(cursor + 28)
            let extraLength = u16(cursor + 30)
            let commentLength = u16(cursor + 32)
            let localOffset = u32(cursor + 42)
            let nameStart = cursor + 46
            guard nameStart + nameLength <= directoryOffset + directorySize else {
                throw fail("name of entry \(index) runs past the central directory")
            }
            let name = String(decoding: bytes[nameStart..<nameStart + nameLength], as: UTF8.self)
            guard method == 0, compressedSize == uncompressedSize else {
                throw fail("\"\(name)\" is compressed (method \(method)); only stored entries are accepted")
            }
            guard flags & 1 == 0 else { throw fail("\"\(name)\" is encrypted") }
            guard uncompressedSize <= maximumEntrySize else {
                throw fail("\"\(name)\" is \(uncompressedSize) bytes, over the \(maximumEntrySize)-byte limit")
            }
            guard localOffset + 30 <= directoryOffset, u32(localOffset) == 0x04034b50 else {
                throw fail("local header of \"\(name)\" at \(localOffset) is missing or outside the archive")
            }
            let dataStart = localOffset + 30 + u16(localOffset + 26) + u16(localOffset + 28)
            guard dataStart <= directoryOffset, uncompressedSize <= directoryOffset - dataStart else {
                throw fail("data of \"\(name)\" (\(uncompressedSize) bytes at \(dataStart)) runs past the archive")
            }
            entries[name] = dataStart..<dataStart + uncompressedSize
            cursor = nameStart + nameLength + extraLength + commentLength
        }
        return entries
    }
}
