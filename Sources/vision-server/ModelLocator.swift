import Foundation
import LiteTasks

/// Finds models for requests: registry names (and aliases) through the cache and the mirror, fetched once. A query
/// parameter may only name a registry model; a .tflite path is accepted from the server's own options only, so a
/// client cannot make the server open files of its choosing.
final class ModelLocator: @unchecked Sendable {
    let registry: ModelRegistry
    private var paths: [String: String] = [:]
    private let lock = NSLock()

    init(mirror: String?, cacheDirectory: String?) throws {
        registry = try ModelRegistry.bundled(mirror: mirror, cacheDirectory: cacheDirectory)
    }

    /// The path of the model `name` (a registry name from a request, or a path or name from the command line), or
    /// the default model of `task`. Fetching holds the lock: two requests never copy the same model at once.
    func path(_ name: String?, task: String, fromClient: Bool) throws -> String {
        let key = "\(task)|\(name ?? "")"
        return try lock.withLock {
            if let path = paths[key] { return path }
            if let name, !fromClient, FileManager.default.fileExists(atPath: name) {
                paths[key] = name
                return name
            }
            let model: RegisteredModel
            do {
                model = try name.map { try registry.model(named: $0) } ?? registry.defaultModel(for: task)
            } catch {
                throw APIError(status: .badRequest, kind: "unknown_model", message: "\(error)")
            }
            let url: URL
            do { url = try registry.fetch(model) } catch {
                throw APIError(status: .serviceUnavailable, kind: "model_unavailable", message: "\(error)")
            }
            paths[key] = url.path
            return url.path
        }
    }
}
