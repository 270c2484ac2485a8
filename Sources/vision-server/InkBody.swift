import Foundation
import LiteTasks

/// The ink of a `POST /v1/ink` body: `{"strokes": [[{"x", "y", "t"}, ...], ...]}` (t in ms, optional), or the
/// `[x, y, t]` point form of the ../shared/ink format, as `vision-cli ink` reads a file.
enum InkBody {
    static func parse(_ data: Data) throws -> Ink {
        do throws(InkJSON.Failure) {
            return try InkJSON.parse(data).ink
        } catch {
            switch error.kind {
            case .notJSON: throw APIError(status: .badRequest, kind: "invalid_json", message: "the body is not valid JSON (\(error.message))")
            case .notAnInk, .tooLarge: throw APIError.invalidInk(error.message)
            }
        }
    }
}
