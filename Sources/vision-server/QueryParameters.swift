import Foundation
import Hummingbird
import LiteImage

/// A request's query parameters, spelled as vision-cli's options without the dashes (`max-results`,
/// `score-threshold`, `allow` repeated, ...). A value that does not parse is a 400, never a default.
struct QueryParameters {
    let parameters: Hummingbird.Parameters
    private(set) var known: Set<String> = []

    init(_ request: Request) {
        parameters = request.uri.queryParameters
    }

    mutating func string(_ name: String) -> String? {
        known.insert(name)
        return parameters.get(name).map { String($0) }
    }

    mutating func strings(_ name: String) -> [String] {
        known.insert(name)
        return parameters.getAll(name).map { String($0) }
    }

    mutating func int(_ name: String) throws -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text) else { throw APIError.badParameter("\(name) must be an integer, got \"\(text)\"") }
        return value
    }

    mutating func float(_ name: String) throws -> Float? {
        guard let text = string(name) else { return nil }
        guard let value = Float(text), value.isFinite else { throw APIError.badParameter("\(name) must be a finite number, got \"\(text)\"") }
        return value
    }

    /// A flag: present without a value, or `true`/`false` (`1`/`0`, `yes`/`no`).
    mutating func flag(_ name: String) throws -> Bool {
        guard let text = string(name) else { return false }
        switch text.lowercased() {
        case "", "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw APIError.badParameter("\(name) is a flag: give it without a value or as true or false, got \"\(text)\"")
        }
    }

    mutating func orientation() throws -> ImageOrientation? {
        guard let name = string("orientation") else { return nil }
        guard let value = ImageOrientation(name: name) else { throw APIError.badParameter("unknown orientation \(name)") }
        return value
    }

    /// Fails on a parameter that no option of the route read, so a misspelling is not silently ignored.
    func rejectUnknown() throws {
        let unknown = Set(parameters.map { String($0.key) }).subtracting(known).sorted()
        if !unknown.isEmpty { throw APIError.badParameter("unknown query parameter\(unknown.count > 1 ? "s" : "") \(unknown.joined(separator: ", "))") }
    }
}
