import ArgumentParser
import Foundation
import LiteEngine
import LiteTasks

struct Models: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "List, fetch and remove the models of the registry (models/registry.json).",
        subcommands: [List.self, Fetch.self, Remove.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the registry's models and whether each is cached.")
        @OptionGroup var location: RegistryLocation
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let registry = try location.registry()
            if json {
                print(String(decoding: try snakeCaseEncoder().encode(registry.models), as: UTF8.self))
                return
            }
            let nameWidth = registry.models.map(\.name.count).max() ?? 4
            for model in registry.models {
                let cached = !registry.isDownloaded(model) ? "-" : model.bundled != nil ? "bundled" : "cached"
                let size = String(format: "%.1f MB", Double(model.size) / 1e6)
                let defaultNote = model.defaultFor.map { " (default for \($0))" } ?? ""
                let aliases = model.aliases.isEmpty ? "" : " [\(model.aliases.joined(separator: ", "))]"
                print("\(model.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0))  \(model.task.padding(toLength: 16, withPad: " ", startingAt: 0)) \(size.padding(toLength: 9, withPad: " ", startingAt: 0)) \(cached.padding(toLength: 7, withPad: " ", startingAt: 0)) \(model.description)\(aliases)\(defaultNote)")
            }
            print("cache: \(registry.cacheDirectory.path)")
        }
    }

    struct Fetch: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "fetch", abstract: "Download (or copy from the mirror) and verify models.")
        @OptionGroup var location: RegistryLocation
        @Argument(help: "Model names or aliases.") var names: [String]

        func run() throws {
            let registry = try location.registry()
            for name in names {
                do {
                    let model = try registry.model(named: name)
                    print(try fetchWithProgress(registry, model).path)
                } catch {
                    throw CLIError.model(error)
                }
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete cached models.")
        @OptionGroup var location: RegistryLocation
        @Argument(help: "Model names or aliases.") var names: [String]

        func run() throws {
            let registry = try location.registry()
            for name in names {
                let model = try registry.model(named: name)
                print(try registry.remove(model) ? "removed \(model.name)" : "\(model.name) was not cached")
            }
        }
    }
}

/// Where the registry, the mirror and the cache are.
struct RegistryLocation: ParsableArguments {
    @Option(help: "A directory laid out like ../shared/models, tried before the network (default: $LITEVISION_MODEL_MIRROR).")
    var mirror: String?
    @Option(help: "The model cache directory (default: $LITEVISION_CACHE_DIR or ~/.cache/litevision/models).")
    var cacheDir: String?

    func registry() throws -> ModelRegistry {
        try ModelRegistry.bundled(mirror: mirror, cacheDirectory: cacheDir)
    }

    /// A model path: `nameOrPath` if it is a file, else the registry model of that name (or the default model of
    /// `task` when there is no name), fetched if needed. A path (with a slash or a .tflite extension) that does not
    /// exist is not looked up in the registry. Errors are ``CLIError``s with the model-unavailable status.
    func resolve(_ nameOrPath: String?, task: String?) throws -> String {
        if let nameOrPath {
            if FileManager.default.fileExists(atPath: nameOrPath) { return nameOrPath }
            if nameOrPath.contains("/") || (nameOrPath as NSString).pathExtension.lowercased() == "tflite" {
                throw CLIError(.modelUnavailable, "no such model file: \(nameOrPath)")
            }
        }
        do {
            let registry = try registry()
            guard let model = try nameOrPath.map({ try registry.model(named: $0) }) ?? task.map({ try registry.defaultModel(for: $0) }) else {
                throw CLIError(.usage, "give a model: a .tflite path or a registry name (vision-cli models list)")
            }
            return try fetchWithProgress(registry, model).path
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.model(error)
        }
    }
}

/// Fetches with a progress bar on stderr when it has to copy or download (a bundled model is written into the cache).
func fetchWithProgress(_ registry: ModelRegistry, _ model: RegisteredModel) throws -> URL {
    if FileManager.default.fileExists(atPath: registry.cachedPath(model).path) { return registry.cachedPath(model) }
    let bar = ProgressBar(label: "fetch \(model.name)", total: model.size)
    let url = try registry.fetch(model) { done, total in bar.update(done, total: total) }
    bar.finish()
    return url
}

/// A one-line progress bar on stderr (only drawn when stderr is a terminal or when forced).
final class ProgressBar: @unchecked Sendable {
    let label: String
    private var total: Int
    private var last = -1
    private let lock = NSLock()
    private let enabled = isatty(2) != 0

    init(label: String, total: Int) {
        self.label = label
        self.total = max(total, 1)
    }

    func update(_ done: Int, total: Int? = nil) {
        lock.lock()
        defer { lock.unlock() }
        if let total { self.total = max(total, 1) }
        let percent = min(100, done * 100 / self.total)
        guard percent != last else { return }
        last = percent
        let filled = percent * 30 / 100
        let line = "\r\(label) [\(String(repeating: "#", count: filled))\(String(repeating: ".", count: 30 - filled))] \(percent)%"
        if enabled { FileHandle.standardError.write(Data(line.utf8)) }
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if enabled, last >= 0 { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}

extension Numerics: ExpressibleByArgument {}
