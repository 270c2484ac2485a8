import Foundation
@testable import LiteTasks
import XCTest

/// The files compiled into the library (Sources/CBundledFiles/bundled_files.S) are the files in models/.
///
/// SwiftPM does not know that bundled_files.S `.incbin`s models/: after retraining a model or rewriting the
/// registry, a build that did not recompile bundled_files.S still holds the old bytes. This test catches such a
/// stale build; `touch Sources/CBundledFiles/bundled_files.S` (tools/ink's scripts do it) fixes it.
final class BundledFilesTests: XCTestCase {
    let models = Paths.packageRoot.appendingPathComponent("models")

    func testBundledBytesEqualTheFilesInModels() throws {
        let names = BundledFiles.names
        XCTAssertTrue(names.contains("registry.json"), "\(names)")
        for name in names {
            let file = try Data(contentsOf: models.appendingPathComponent(name))
            let bundled = try XCTUnwrap(BundledFiles.data(named: name), name)
            XCTAssertEqual(bundled.count, file.count, "\(name): the build is stale; touch Sources/CBundledFiles/bundled_files.S")
            XCTAssertTrue(bundled == file, "\(name): the build is stale; touch Sources/CBundledFiles/bundled_files.S")
            // The .tflite bytes are aligned as ModelBytes(copying:) aligns a copy, so tensors are aligned as in a file.
            let address = UInt(bitPattern: try XCTUnwrap(BundledFiles.bytes(named: name)?.baseAddress))
            XCTAssertEqual(address % 64, 0, name)
        }
        XCTAssertNil(BundledFiles.data(named: "no-such-file"))
    }

    /// Every model the registry says ships with the package is bundled, with every sidecar the recognizer loads
    /// beside it in models/ (labels, lexicon, character and geometry networks, CJK classes and bigram models).
    func testEverythingTheRegistryAndTheInkRecognizerLoadIsBundled() throws {
        let registry = try ModelRegistry.bundled(cacheDirectory: NSTemporaryDirectory())
        let onDisk = try ModelRegistry(path: models.appendingPathComponent("registry.json").path, cacheDirectory: NSTemporaryDirectory())
        XCTAssertEqual(registry.models, onDisk.models)
        let shipped = registry.models.filter { $0.bundled != nil }
        XCTAssertEqual(Set(shipped.map(\.name)), ["ink-en", "ink-ja", "ink-zh-Hans", "ink-zh-Hant", "ink-shapes",
                                                   "ink-es", "ink-tr", "ink-de", "ink-fr", "ink-pt", "ink-it", "ink-vi"])
        for model in shipped {
            let name = try XCTUnwrap(model.bundledName)
            let bytes = try XCTUnwrap(registry.bundledBytes(model), name)
            XCTAssertEqual(bytes.count, model.size, name)
            XCTAssertEqual(SHA256.hex(of: [UInt8](bytes)), model.sha256, "\(name): run tools/ink/register.py")
            XCTAssertTrue(registry.isDownloaded(model), name)
            let base = (name as NSString).deletingPathExtension
            for suffix in [".labels.txt", ".lexicon.tsv", ".characters.tflite", ".geometry.tflite", ".classes.txt", ".alphabet.txt"]
            where FileManager.default.fileExists(atPath: models.appendingPathComponent(base + suffix).path) {
                XCTAssertNotNil(BundledFiles.bytes(named: base + suffix), "\(base + suffix) is in models/ but not bundled")
            }
            // A language's own files are named by its registry entry (ink-zh-Hans.lm.arpa beside ink-zh.tflite,
            // ink-es.lexicon.tsv and ink-es.charset.txt beside ink-latin.tflite).
            for suffix in [".lm.arpa", ".lexicon.tsv", ".charset.txt"] {
                let languageFile = model.name + suffix
                if FileManager.default.fileExists(atPath: models.appendingPathComponent(languageFile).path) {
                    XCTAssertNotNil(BundledFiles.bytes(named: languageFile), "\(languageFile) is in models/ but not bundled")
                }
            }
        }
    }

    /// `fetch` of a bundled model writes a checked copy into the cache (for whoever needs a file), and `remove`
    /// takes that copy away but still says the model cannot be deleted.
    func testFetchingABundledModelCopiesItIntoTheCache() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("litevision-bundled-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let registry = try ModelRegistry.bundled(cacheDirectory: cache.path)
        let model = try registry.model(named: "ink-shapes")
        XCTAssertTrue(registry.isDownloaded(model))
        XCTAssertFalse(FileManager.default.fileExists(atPath: registry.cachedPath(model).path))
        let path = try registry.fetch(model)
        XCTAssertEqual(try Data(contentsOf: path), try Data(contentsOf: models.appendingPathComponent("ink-shapes.tflite")))
        XCTAssertThrowsError(try registry.remove(model)) { error in
            guard case TaskError.failedPrecondition = error else { return XCTFail("\(error)") }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path.path))
        XCTAssertTrue(registry.isDownloaded(model))
    }

    /// LITEVISION_REGISTRY still replaces the bundled registry.
    func testTheEnvironmentCanNameAnotherRegistry() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let entry = try ModelRegistry.bundled().model(named: "flowers")
        let json = "{\"version\": 1, \"models\": [\(String(decoding: try JSONEncoder().encode(entry), as: UTF8.self))]}"
        try Data(json.utf8).write(to: file)
        setenv("LITEVISION_REGISTRY", file.path, 1)
        defer { unsetenv("LITEVISION_REGISTRY") }
        XCTAssertEqual(try ModelRegistry.bundled().models.map(\.name), ["flowers"])
        setenv("LITEVISION_REGISTRY", file.path + ".missing", 1)
        XCTAssertThrowsError(try ModelRegistry.bundled()) { error in
            XCTAssertTrue("\(error)".contains(file.path + ".missing"), "\(error)")
        }
    }
}
