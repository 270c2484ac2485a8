import Dispatch
import Foundation

/// A model file on disk: ML Kit's `LocalModel` (there a bundled asset; here any path).
public struct LocalModel: Sendable, Equatable {
    /// The `.tflite` file's path.
    public let path: String

    /// A model at `path` (not checked until a detector or classifier opens it).
    public init(path: String) {
        self.path = path
    }
}

/// A model ML Kit fetches on demand. Here every remote model is an entry of the project's registry
/// (models/registry.json), fetched through its cache and mirror.
public protocol RemoteModel: Sendable {
    /// The registry name (or alias) of the model.
    var registryName: String { get }
}

/// ML Kit's `CustomRemoteModel`. ML Kit names the model through a Firebase model source; on Linux the source
/// is the project's registry, so the model is named by its registry name or alias (for example "object_labeler").
public struct CustomRemoteModel: RemoteModel, Hashable {
    /// The model's registry name or alias.
    public let registryName: String

    /// The registry model named `registryName` (not looked up until it is used).
    public init(registryName: String) {
        self.registryName = registryName
    }
}

/// ML Kit's `ModelDownloadConditions`. Linux has no cellular or background-download policy; the values are
/// kept for source compatibility and do not change what happens.
public struct ModelDownloadConditions: Sendable, Equatable {
    /// Kept for source compatibility; ignored.
    public var allowsCellularAccess: Bool
    /// Kept for source compatibility; ignored.
    public var allowsBackgroundDownloading: Bool

    /// Conditions with ML Kit's defaults (both true); ignored on Linux.
    public init(allowsCellularAccess: Bool = true, allowsBackgroundDownloading: Bool = true) {
        self.allowsCellularAccess = allowsCellularAccess
        self.allowsBackgroundDownloading = allowsBackgroundDownloading
    }
}

extension Notification.Name {
    /// Posted by ``ModelManager`` when a download finished; `userInfo[ModelDownloadUserInfoKey.remoteModel]`.
    public static let mlkitModelDownloadDidSucceed = Notification.Name("MLKModelDownloadDidSucceedNotification")
    /// Posted when a download failed; `userInfo` has `.remoteModel` and `.error`.
    public static let mlkitModelDownloadDidFail = Notification.Name("MLKModelDownloadDidFailNotification")
}

/// Keys of the download notifications' `userInfo`: ML Kit's `ModelDownloadUserInfoKey`.
public enum ModelDownloadUserInfoKey: String, Sendable {
    /// The ``RemoteModel`` the notification is about (both notifications); the raw values are the `userInfo` keys.
    case remoteModel = "MLKModelDownloadUserInfoKeyRemoteModel"
    /// The `Error` that made the download fail (`mlkitModelDownloadDidFail` only).
    case error = "MLKModelDownloadUserInfoKeyError"
}

/// Downloads, checks and deletes remote models: ML Kit's `ModelManager`, backed by ``ModelRegistry``.
public final class ModelManager: @unchecked Sendable {
    /// The registry, cache and mirror this manager fetches through.
    public let registry: ModelRegistry
    private let queue = DispatchQueue(label: "litevision.model-manager", qos: .utility)

    /// The manager for the registry shipped with the package, with the cache and mirror the environment names
    /// (`LITEVISION_CACHE_DIR`, `LITEVISION_MODEL_MIRROR`).
    public static func modelManager() -> ModelManager {
        shared
    }

    private static let shared: ModelManager = {
        // The bundled registry is part of the package; if it cannot be read, an empty registry fails every lookup.
        let registry = (try? ModelRegistry.bundled()) ?? ModelRegistry(models: [])
        return ModelManager(registry: registry)
    }()

    /// A manager for `registry` (for a registry of your own, or another cache or mirror directory).
    public init(registry: ModelRegistry) {
        self.registry = registry
    }

    /// Whether the model is in the cache.
    public func isModelDownloaded(_ model: RemoteModel) -> Bool {
        guard let entry = try? registry.model(named: model.registryName) else { return false }
        return registry.isDownloaded(entry)
    }

    /// The cached file of a downloaded model, else nil. A model bundled with the library is first copied into the
    /// cache (its bytes are in the binary, not in a file; ``DigitalInkRecognizer`` reads them from there).
    public func localPath(of model: RemoteModel) -> String? {
        guard let entry = try? registry.model(named: model.registryName), registry.isDownloaded(entry) else { return nil }
        if entry.bundled != nil { return try? registry.fetch(entry).path }
        return registry.cachedPath(entry).path
    }

    /// The registry names of every cached model.
    public var downloadedModelNames: Set<String> {
        Set(registry.models.filter { registry.isDownloaded($0) }.map(\.name))
    }

    /// Starts downloading `model` in the background and returns its progress (bytes). When it ends,
    /// `.mlkitModelDownloadDidSucceed` or `.mlkitModelDownloadDidFail` is posted on the default center with the
    /// model (and the error) in `userInfo`. A model already cached, or bundled with the library, succeeds at once.
    @discardableResult
    public func download(_ model: RemoteModel, conditions: ModelDownloadConditions = ModelDownloadConditions()) -> Progress {
        let progress = Progress(totalUnitCount: 1)
        queue.async { [registry] in
            do {
                let entry = try registry.model(named: model.registryName)
                progress.totalUnitCount = Int64(entry.size)
                if entry.bundled == nil || !registry.isDownloaded(entry) {
                    _ = try registry.fetch(entry) { done, total in
                        progress.totalUnitCount = Int64(total)
                        progress.completedUnitCount = Int64(min(done, total))
                    }
                }
                progress.completedUnitCount = progress.totalUnitCount
                self.announce(model, error: nil)
            } catch {
                self.announce(model, error: error)
            }
        }
        return progress
    }

    /// Downloads `model` and returns its cached path (async form of ``download(_:conditions:)``, which also
    /// posts the notifications). A model bundled with the library is copied into the cache for the path.
    public func download(_ model: RemoteModel, conditions: ModelDownloadConditions = ModelDownloadConditions()) async throws -> String {
        let entry = try registry.model(named: model.registryName)
        let registry = self.registry
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do {
                    let path = try registry.fetch(entry).path
                    self.announce(model, error: nil)
                    continuation.resume(returning: path)
                } catch {
                    self.announce(model, error: error)
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Posts ML Kit's success or failure notification for `model`.
    private func announce(_ model: RemoteModel, error: Error?) {
        var info: [String: Any] = [ModelDownloadUserInfoKey.remoteModel.rawValue: model]
        if let error { info[ModelDownloadUserInfoKey.error.rawValue] = error }
        NotificationCenter.default.post(name: error == nil ? .mlkitModelDownloadDidSucceed : .mlkitModelDownloadDidFail, object: self, userInfo: info)
    }

    /// Deletes the cached model; `completion` gets nil on success (also when nothing was cached) or the error.
    public func deleteDownloadedModel(_ model: RemoteModel, completion: @escaping @Sendable (Error?) -> Void) {
        queue.async { [registry] in
            do {
                try registry.remove(try registry.model(named: model.registryName))
                completion(nil)
            } catch {
                completion(error)
            }
        }
    }

    /// Waits for every queued download and deletion.
    public func waitForPendingOperations() {
        queue.sync {}
    }
}
