import LiteEngine
import LiteFormat
import LiteImage

/// Why a task could not be created or run. The cases follow MediaPipe's `MPPTasksErrorCode` (the absl status
/// codes MediaPipe's C++ returns), so code ported from MediaPipe can switch on the same kinds.
public enum TaskError: Error, Equatable, CustomStringConvertible, Sendable {
    /// Bad options or arguments: `maxResults == 0`, allowlist and denylist together, a method of another running
    /// mode, a non-increasing timestamp, a mirrored orientation, a region outside the image.
    case invalidArgument(String)
    /// Something needed is missing: no model path or bytes, no live-stream delegate, a model not downloaded.
    case failedPrecondition(String)
    /// A file or registry entry that does not exist.
    case notFound(String)
    /// A model feature MediaPipe does not support either (per-channel normalization, a non-image input).
    case unimplemented(String)
    /// The model could not be read or run.
    case model(String)
    /// The image could not be decoded or converted.
    case image(ImageError)
    /// A download or cache operation failed.
    case io(String)

    /// The kind and the message, such as `invalid argument: ...`.
    public var description: String {
        switch self {
        case let .invalidArgument(message): return "invalid argument: \(message)"
        case let .failedPrecondition(message): return "failed precondition: \(message)"
        case let .notFound(message): return "not found: \(message)"
        case let .unimplemented(message): return "unimplemented: \(message)"
        case let .model(message): return "model: \(message)"
        case let .image(error): return "image: \(error)"
        case let .io(message): return "i/o: \(message)"
        }
    }

    static func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as TaskError {
            throw error
        } catch let error as ImageError {
            throw TaskError.image(error)
        } catch let error as EngineError {
            throw TaskError.model(error.description)
        } catch let error as FormatError {
            throw TaskError.model(error.description)
        }
    }
}
