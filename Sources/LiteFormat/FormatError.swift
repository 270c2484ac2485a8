/// Why a model file could not be read. Every case says what was wrong and where, so that a corrupt file is
/// diagnosable from the message alone.
public enum FormatError: Error, Equatable, CustomStringConvertible, Sendable {
    /// A read of `length` bytes at `offset` would leave the file.
    case outOfBounds(what: String, offset: Int, length: Int, fileSize: Int)
    /// The bytes are in range but make no sense for the schema (bad vtable, wrong union type, negative size...).
    case malformed(path: String, reason: String)
    /// The file is not a TensorFlow Lite FlatBuffer at all.
    case notAModel(reason: String)
    /// The file could not be opened or mapped.
    case io(path: String, reason: String)

    /// The error as one line, with the path or offset where the file goes wrong.
    public var description: String {
        switch self {
        case let .outOfBounds(what, offset, length, fileSize):
            return "\(what): \(length) bytes at offset \(offset) run past the end of the \(fileSize)-byte buffer"
        case let .malformed(path, reason):
            return "\(path): \(reason)"
        case let .notAModel(reason):
            return "not a TensorFlow Lite model: \(reason)"
        case let .io(path, reason):
            return "\(path): \(reason)"
        }
    }
}
