import Foundation
import CHTTPGet

/// One model the project knows: where it lives publicly and how to check it (an entry of models/registry.json).
public struct RegisteredModel: Codable, Sendable, Equatable {
    /// The model's registry name, such as `mobilenet_v2_quant`.
    public var name: String
    /// What the model does, such as "image-classification" or "object-detection".
    public var task: String
    /// A one-line description.
    public var description: String
    /// Path relative to a mirror directory (the layout of ../shared/models).
    public var file: String
    /// The public URL it is downloaded from.
    public var url: String
    /// The file's SHA-256, as lower-case hex; every copy is checked against it.
    public var sha256: String
    /// The file's size in bytes; every copy is checked against it.
    public var size: Int
    /// The model's license.
    public var license: String
    /// Other names the model answers to (such as `birds`).
    public var aliases: [String]
    /// The task this model is the default for, if any ("image-classification", "object-detection", ...).
    public var defaultFor: String?
    /// For a model this project made and ships (the digital ink models): its path in the package ("models/ink-en.tflite").
    /// The file is compiled into the library (``BundledFiles``, by its last path component), so such a model is always
    /// "downloaded" and cannot be deleted; `fetch` only writes a copy into the cache for whoever needs a file.
    public var bundled: String?

    /// The file name in the cache.
    public var cacheFileName: String { "\(name)-\(sha256.prefix(12)).tflite" }

    /// For a bundled model, its name among ``BundledFiles`` ("ink-en.tflite").
    public var bundledName: String? { bundled.map { ($0 as NSString).lastPathComponent } }
}

/// The model registry and its per-user cache.
///
/// `fetch` looks in the cache, then in the mirror directory (`LITEVISION_MODEL_MIRROR`, or the `mirror` argument),
/// then downloads the public URL. Every copy is written to `<file>.partial`, resumed from where a previous attempt
/// stopped, checked against the registry's size and sha256, and only then renamed into place, so the cache never
/// holds a half-written or wrong model.
public struct ModelRegistry: Sendable {
    /// Every model the registry knows.
    public var models: [RegisteredModel]
    /// Where fetched models are kept: `LITEVISION_CACHE_DIR`, else `$XDG_CACHE_HOME/litevision/models`, else
    /// `~/.cache/litevision/models`.
    public var cacheDirectory: URL
    /// A directory laid out like ../shared/models, tried before the network.
    public var mirrorDirectory: URL?

    struct File: Codable { var version: Int; var models: [RegisteredModel] }

    /// The registry shipped with the package (models/registry.json, compiled into the library: ``BundledFiles``), or
    /// the file named by `LITEVISION_REGISTRY`.
    public static func bundled(mirror: String? = nil, cacheDirectory: String? = nil) throws -> ModelRegistry {
        if let path = ProcessInfo.processInfo.environment["LITEVISION_REGISTRY"] {
            return try ModelRegistry(path: path, mirror: mirror, cacheDirectory: cacheDirectory)
        }
        guard let data = BundledFiles.data(named: "registry.json") else {
            throw TaskError.notFound("model registry: this build of LiteTasks has no bundled registry.json (see Sources/CBundledFiles/bundled_files.S); set LITEVISION_REGISTRY")
        }
        return try ModelRegistry(data: data, source: "registry.json (bundled)", mirror: mirror, cacheDirectory: cacheDirectory)
    }

    /// The registry in the JSON file at `path`, with an optional mirror directory and cache directory (default: the
    /// environment's, see ``cacheDirectory``); throws ``TaskError/notFound(_:)`` when the file cannot be read.
    public init(path: String, mirror: String? = nil, cacheDirectory: String? = nil) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw TaskError.notFound("model registry \(path)") }
        try self.init(data: data, source: path, mirror: mirror, cacheDirectory: cacheDirectory)
    }

    /// The registry in `data` (registry.json's format); `source` names it in errors.
    public init(data: Data, source: String, mirror: String? = nil, cacheDirectory: String? = nil) throws {
        let models: [RegisteredModel]
        do {
            models = try JSONDecoder().decode(File.self, from: data).models
        } catch {
            throw TaskError.io("model registry \(source) is not valid: \(error)")
        }
        self.init(models: models, mirror: mirror, cacheDirectory: cacheDirectory)
    }

    /// A registry of `models`, with the cache and mirror chosen as described on the type.
    public init(models: [RegisteredModel], mirror: String? = nil, cacheDirectory: String? = nil) {
        self.models = models
        let environment = ProcessInfo.processInfo.environment
        if let cacheDirectory = cacheDirectory ?? environment["LITEVISION_CACHE_DIR"] {
            self.cacheDirectory = URL(fileURLWithPath: cacheDirectory)
        } else if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            self.cacheDirectory = URL(fileURLWithPath: xdg).appendingPathComponent("litevision/models")
        } else {
            self.cacheDirectory = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/litevision/models")
        }
        mirrorDirectory = (mirror ?? environment["LITEVISION_MODEL_MIRROR"]).map { URL(fileURLWithPath: $0) }
    }

    /// The model named `name` or with that alias.
    public func model(named name: String) throws -> RegisteredModel {
        if let model = models.first(where: { $0.name == name || $0.aliases.contains(name) }) { return model }
        throw TaskError.notFound("no model named \"\(name)\" in the registry (known: \(models.map(\.name).joined(separator: ", ")))")
    }

    /// The default model for `task`.
    public func defaultModel(for task: String) throws -> RegisteredModel {
        guard let model = models.first(where: { $0.defaultFor == task }) else { throw TaskError.notFound("no default model for \(task)") }
        return model
    }

    /// Where `model` is (or would be) cached. A bundled model is there only once `fetch` wrote a copy of it.
    public func cachedPath(_ model: RegisteredModel) -> URL {
        cacheDirectory.appendingPathComponent(model.cacheFileName)
    }

    /// The bytes of a bundled model compiled into the library (nil for other models, or when this build lacks it).
    public func bundledBytes(_ model: RegisteredModel) -> UnsafeRawBufferPointer? {
        model.bundledName.flatMap(BundledFiles.bytes(named:))
    }

    /// Whether `model` can be used without fetching: it is cached, or it is bundled with the library.
    public func isDownloaded(_ model: RegisteredModel) -> Bool {
        if model.bundled != nil { return bundledBytes(model) != nil }
        return FileManager.default.fileExists(atPath: cachedPath(model).path)
    }

    /// Deletes the cached copy of `model` (and any partial download). Returns whether something was removed.
    @discardableResult
    public func remove(_ model: RegisteredModel) throws -> Bool {
        if let bundled = model.bundled {
            // The model lives in the library; only a copy `fetch` wrote into the cache can go, and that copy is
            // removed, but the model stays available.
            _ = try? FileManager.default.removeItem(at: cachedPath(model))
            throw TaskError.failedPrecondition("\(model.name) ships with the package (\(bundled)) and cannot be deleted")
        }
        var removed = false
        ModelCacheEntry(file: cachedPath(model), size: model.size, sha256: model.sha256).forgetVerification()
        for url in [cachedPath(model), partialPath(model)] where FileManager.default.fileExists(atPath: url.path) {
            do { try FileManager.default.removeItem(at: url) } catch { throw TaskError.io("cannot remove \(url.path): \(error)") }
            removed = true
        }
        return removed
    }

    /// A local path to `model`, fetching it first if needed. `progress` gets (bytes so far, total bytes). A bundled
    /// model is copied from the library into the cache (checked like any other).
    ///
    /// A cache entry is used only when its size and sha256 match the registry's (the hash is checked once and
    /// remembered with the file's size and modification time, `ModelCacheEntry`); a truncated or corrupt entry is
    /// fetched again. Processes share the cache: a fetch holds an exclusive lock on `<file>.lock`, so two processes
    /// fetching one model never write the same partial file, and the second finds the first's result. A copy that
    /// fails (a full disk, a dropped connection) leaves at most `<file>.partial`, never a file under the final name.
    public func fetch(_ model: RegisteredModel, retries: Int = 3, progress: ((Int, Int) -> Void)? = nil) throws -> URL {
        let destination = cachedPath(model)
        let entry = ModelCacheEntry(file: destination, size: model.size, sha256: model.sha256)
        if entry.state() == .verified { return destination }
        if let bundled = model.bundled, bundledBytes(model) == nil {
            throw TaskError.notFound("\(model.name) should ship with the package (\(bundled)), but this build of LiteTasks does not contain it (Sources/CBundledFiles/bundled_files.S)")
        }
        do {
            try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        } catch {
            throw TaskError.io("cannot create the model cache \(cacheDirectory.path): \(error)")
        }
        let lock = try ModelCacheEntry.Lock(cacheDirectory.appendingPathComponent(model.cacheFileName + ".lock"))
        defer { lock.release() }
        // Another process may have fetched the model while this one waited for the lock.
        switch entry.state() {
        case .verified: return destination
        case .corrupt: entry.remove()
        case .missing: break
        }
        let partial = partialPath(model)
        var sources: [(label: String, copy: (Int) throws -> Void)] = []
        if let bytes = bundledBytes(model) {
            sources.append(("bundled \(model.bundledName ?? model.name)", { offset in
                let output = try appendHandle(partial, offset: offset)
                defer { try? output.close() }
                try writeAll(Data(bytes[min(offset, bytes.count)...]), to: output, path: partial.path)
                progress?(bytes.count, model.size)
            }))
        }
        if model.bundled == nil, let mirrorFile = mirrorSource(model) {
            sources.append(("mirror \(mirrorFile.path)", { offset in try copy(from: mirrorFile, to: partial, offset: offset, total: model.size, progress: progress) }))
        }
        if model.bundled == nil {
            sources.append((model.url, { offset in try download(model, to: partial, offset: offset, progress: progress) }))
        }
        var failures: [String] = []
        var offline = false
        for source in sources {
            attempts: for _ in 0..<max(1, retries) {
                do {
                    let have = (try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? Int) ?? 0
                    if have < model.size { try source.copy(have) }
                    do {
                        try verify(partial, model)
                    } catch {
                        // A complete but wrong file cannot be resumed: start the next attempt from zero.
                        _ = try? FileManager.default.removeItem(at: partial)
                        throw error
                    }
                    entry.remove()
                    // rename(2) replaces atomically: readers see the old entry or the new one, never a partial file.
                    guard rename(partial.path, destination.path) == 0 else {
                        throw TaskError.io("cannot move \(partial.path) to \(destination.path): \(String(cString: strerror(errno)))")
                    }
                    entry.rememberVerified()
                    return destination
                } catch let error as CacheWriteFailed {
                    // A full disk or a read-only cache: no source can do better. The partial file goes, to free
                    // the space it holds.
                    unlink(partial.path)
                    throw TaskError.io("could not fetch \(model.name): \(error)")
                } catch let error as UnresolvedHost {
                    // No name server answers: trying again only repeats the wait.
                    failures.append("\(source.label): \(error)")
                    offline = true
                    break attempts
                } catch {
                    failures.append("\(source.label): \(error)")
                }
            }
        }
        let hint = offline && mirrorDirectory == nil
            ? ". Offline? Give a mirror directory laid out like ../shared/models: vision-cli --mirror DIR, LITEVISION_MODEL_MIRROR=DIR, or ModelRegistry(mirror:)"
            : ""
        throw TaskError.io("could not fetch \(model.name): \(failures.joined(separator: "; "))\(hint)")
    }

    func partialPath(_ model: RegisteredModel) -> URL { cacheDirectory.appendingPathComponent(model.cacheFileName + ".partial") }

    func mirrorSource(_ model: RegisteredModel) -> URL? {
        guard let mirrorDirectory else { return nil }
        for candidate in [model.file, (model.file as NSString).lastPathComponent] {
            let url = mirrorDirectory.appendingPathComponent(candidate)
            if FileManager.default.fileExists(atPath: url.path) { return url }
        }
        return nil
    }

    func verify(_ file: URL, _ model: RegisteredModel) throws {
        guard let handle = FileHandle(forReadingAtPath: file.path) else { throw TaskError.io("cannot read \(file.path)") }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size = 0
        while true {
            let chunk = handle.readData(ofLength: 1 << 20)
            if chunk.isEmpty { break }
            size += chunk.count
            chunk.withUnsafeBytes { hasher.update($0) }
        }
        let digest = hasher.finalizeHex()
        guard size == model.size, digest == model.sha256 else {
            throw TaskError.io("checksum mismatch for \(model.name): got \(size) bytes with sha256 \(digest), expected \(model.size) bytes with \(model.sha256)")
        }
    }

    func copy(from source: URL, to partial: URL, offset: Int, total: Int, progress: ((Int, Int) -> Void)?) throws {
        guard let input = FileHandle(forReadingAtPath: source.path) else { throw TaskError.io("cannot read \(source.path)") }
        defer { try? input.close() }
        let output = try appendHandle(partial, offset: offset)
        defer { try? output.close() }
        try input.seek(toOffset: UInt64(offset))
        var written = offset
        while true {
            let chunk = input.readData(ofLength: 1 << 20)
            if chunk.isEmpty { break }
            try writeAll(chunk, to: output, path: partial.path)
            written += chunk.count
            progress?(written, total)
            if written > total { throw TaskError.io("\(source.path) is larger than the registry's \(total) bytes") }
        }
    }

    func appendHandle(_ partial: URL, offset: Int) throws -> FileHandle {
        if !FileManager.default.fileExists(atPath: partial.path) {
            guard FileManager.default.createFile(atPath: partial.path, contents: nil) else { throw TaskError.io("cannot create \(partial.path)") }
        }
        guard let output = FileHandle(forWritingAtPath: partial.path) else { throw TaskError.io("cannot write \(partial.path)") }
        output.truncateFile(atOffset: UInt64(offset))
        output.seek(toFileOffset: UInt64(offset))
        return output
    }

    func download(_ model: RegisteredModel, to partial: URL, offset: Int, progress: ((Int, Int) -> Void)?) throws {
        guard let url = URL(string: model.url), ["http", "https"].contains(url.scheme?.lowercased()) else {
            throw TaskError.io("bad URL \(model.url): downloads are http or https")
        }
        // The body is collected, then written where the status says it starts; a server sending more than the model
        // holds is cut off rather than filling memory.
        let body = DownloadBody(limit: model.size)
        var status = 0
        var message = [CChar](repeating: 0, count: 512)
        let result = withExtendedLifetime(body) {
            lite_http_get(model.url, Int64(offset), 60, 60, { data, size, context in
                let body = Unmanaged<DownloadBody>.fromOpaque(context!).takeUnretainedValue()
                guard let data else { return 0 }
                guard body.data.count + size <= body.limit else {
                    body.overflowed = true
                    return 0
                }
                body.data.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: size)
                return size
            }, Unmanaged.passUnretained(body).toOpaque(), &status, &message, message.count)
        }
        if body.overflowed { throw TaskError.io("download failed: \(model.url) sends more than the registry's \(model.size) bytes") }
        // libcurl's CURLE_COULDNT_RESOLVE_PROXY (5) and CURLE_COULDNT_RESOLVE_HOST (6).
        let messageText = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if result == 5 || result == 6 { throw UnresolvedHost(message: messageText) }
        guard result == 0 else { throw TaskError.io("download failed: \(messageText)") }
        guard status == 200 || status == 206 else { throw TaskError.io("download failed: HTTP \(status)") }
        let output = try appendHandle(partial, offset: status == 206 ? offset : 0)
        defer { try? output.close() }
        try writeAll(body.data, to: output, path: partial.path)
        progress?((status == 206 ? offset : 0) + body.data.count, model.size)
    }
}

/// Writes all of `data` at `handle`'s position, or throws ``CacheWriteFailed`` with the system's reason (a full
/// disk is ENOSPC, "No space left on device").
private func writeAll(_ data: Data, to handle: FileHandle, path: String) throws {
    try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
        var offset = 0
        while offset < buffer.count {
            let written = write(handle.fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw CacheWriteFailed(path: path, reason: String(cString: strerror(errno)))
            }
            offset += written
        }
    }
}

/// A cache file that could not be written.
private struct CacheWriteFailed: Error, CustomStringConvertible {
    let path: String
    let reason: String
    var description: String { "cannot write \(path): \(reason)" }
}

/// A download whose host name (or proxy) did not resolve: the machine is offline or its DNS is broken.
private struct UnresolvedHost: Error, CustomStringConvertible {
    let message: String
    var description: String { "download failed: \(message)" }
}

private final class DownloadBody {
    var data = Data()
    let limit: Int
    var overflowed = false

    init(limit: Int) { self.limit = limit }
}
