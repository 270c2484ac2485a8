import Foundation
import HTTPTypes
import LiteImage
import LiteTasks
import NIOCore

/// A request that cannot be answered, as the service reports it: an HTTP status and the body
/// `{"error": {"kind": ..., "message": ...}}`. `kind` is a stable snake_case word for clients and for the
/// `litevision_http_errors_total` counter; `message` is for people.
struct APIError: Error, CustomStringConvertible {
    var status: HTTPResponse.Status
    var kind: String
    var message: String
    /// Seconds to send as `Retry-After` (503 when the queue is full).
    var retryAfter: Int?

    var description: String { "\(kind): \(message)" }

    static func badParameter(_ message: String) -> APIError { APIError(status: .badRequest, kind: "invalid_parameter", message: message) }
    static func invalidImage(_ message: String) -> APIError { APIError(status: .badRequest, kind: "invalid_image", message: message) }
    static func invalidInk(_ message: String) -> APIError { APIError(status: .badRequest, kind: "invalid_ink", message: message) }
    static func bodyTooLarge(limit: Int) -> APIError {
        APIError(status: .contentTooLarge, kind: "body_too_large", message: "the request body is larger than the \(limit)-byte limit (--max-body-bytes)")
    }
    static func unsupportedMediaType(_ message: String) -> APIError {
        APIError(status: .unsupportedMediaType, kind: "unsupported_media_type", message: message)
    }

    /// Any error thrown while answering, as the service reports it. Image and task errors are the client's (4xx)
    /// except a model that cannot be read or run, which is the server's.
    static func from(_ error: Error) -> APIError {
        switch error {
        case let error as APIError: return error
        case is NIOTooManyBytesError: return .bodyTooLarge(limit: ServerLimits.maxBodyBytes)
        case let error as ImageError: return imageError(error)
        case let error as TaskError:
            switch error {
            case let .image(image): return imageError(image)
            case let .invalidArgument(message): return .badParameter(message)
            case let .notFound(message): return APIError(status: .notFound, kind: "not_found", message: message)
            case .failedPrecondition, .unimplemented, .model, .io:
                return APIError(status: .internalServerError, kind: "model_error", message: error.description)
            }
        default:
            return APIError(status: .internalServerError, kind: "internal", message: "\(error)")
        }
    }

    private static func imageError(_ error: ImageError) -> APIError {
        switch error {
        case .tooLarge: return APIError(status: .badRequest, kind: "image_too_large", message: error.description)
        default: return .invalidImage(error.description)
        }
    }

    /// The JSON body of this error.
    var json: String {
        jsonText(["error": ["kind": kind, "message": message]], pretty: false)
    }
}

/// The body size limit, also read when a body collector's own error has to be reported.
enum ServerLimits {
    nonisolated(unsafe) static var maxBodyBytes = 32 << 20
}
