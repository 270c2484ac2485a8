import Foundation
import LiteFormat
@testable import LiteTasks
import XCTest

final class MetadataTests: XCTestCase {
    func testMetadataOfTheFloatClassifier() throws {
        let resources = try ModelResources(path: Paths.model("classification/mobilenet_v1_0.25_224_1_metadata_1.tflite"))
        let metadata = try XCTUnwrap(resources.metadata)
        XCTAssertFalse(metadata.name?.isEmpty ?? true)
        let input = try XCTUnwrap(resources.inputMetadata(0))
        XCTAssertEqual(input.normalization, NormalizationOptions(mean: [127.5], std: [127.5]))
        XCTAssertNotNil(input.imageProperties)
        let labels = try resources.labels(forOutput: 0, locale: "en")
        XCTAssertEqual(labels.count, 1001)
        XCTAssertEqual(labels[20].name, "chickadee")
    }

    func testLabelsByTypeAndLocale() throws {
        let resources = try ModelResources(path: Paths.model("mlkit/object_labeler.tflite"))
        let output = try XCTUnwrap(resources.outputMetadata(0))
        XCTAssertNotNil(output.scoreThreshold)
        XCTAssertEqual(resources.associatedFiles.entries.count, 2)
        let english = try resources.labels(forOutput: 0, locale: "en")
        XCTAssertEqual(english.count, 631)
        XCTAssertEqual(english[566].name, "/m/0h23m")
        XCTAssertEqual(english[566].displayName, "Sparrow")
        XCTAssertNil(try resources.labels(forOutput: 0, locale: "de")[566].displayName)
    }

    func testLabelFileParsing() throws {
        XCTAssertEqual(try LabelItem.labelMap(labels: "a\r\nb\n", displayNames: nil).map(\.name), ["a", "b"])
        XCTAssertEqual(try LabelItem.labelMap(labels: "a\n\nc", displayNames: "A\nB\nC\n").map(\.displayName), ["A", "B", "C"])
        XCTAssertThrowsError(try LabelItem.labelMap(labels: "a\nb", displayNames: "A"))
        XCTAssertThrowsError(try LabelItem.labelMap(labels: "", displayNames: nil))
    }

    func testScoreCalibrationFollowsMediaPipe() throws {
        let calibration = try ScoreCalibration(options: ScoreCalibrationOptions(transformation: .identity, defaultScore: 0.2), csv: "1.0,2.0,0.5\n\n0.9,1.0,0.0,0.6\n")
        XCTAssertEqual(calibration.calibrate(0.5, index: 0), 1 / (1 + expf(-(2 * 0.5 + 0.5))), accuracy: 1e-7)
        XCTAssertEqual(calibration.calibrate(0.5, index: 1), 0.2)
        XCTAssertEqual(calibration.calibrate(0.5, index: 2), 0.2, "below min_score")
        XCTAssertEqual(calibration.calibrate(0.7, index: 2), 0.9 / (1 + expf(-0.7)), accuracy: 1e-7)
        XCTAssertEqual(calibration.calibrate(0.7, index: 9), 0.2, "no parameters")
        XCTAssertThrowsError(try ScoreCalibration(options: ScoreCalibrationOptions(transformation: .log, defaultScore: 0), csv: "1,2\n"))
    }

    func testMetadataRejectsNewerParsersAndBadIdentifiers() throws {
        XCTAssertEqual(ModelMetadata.compareVersions("1.10.0", "1.9"), 1)
        XCTAssertEqual(ModelMetadata.compareVersions("1.5", "1.5.0"), 0)
        var checked = 0
        for model in ["classification/mobilenet_v1_0.25_224_1_metadata_1.tflite", "mlkit/object_labeler.tflite", "mlkit/bird_classifier.tflite",
                      "classification/mobilenet_v2_1.0_224_quant.tflite", "detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite"] {
            let resources = try ModelResources(path: Paths.model(model))
            let bytes = try XCTUnwrap(resources.model.metadataBuffer(named: "TFLITE_METADATA"))
            var copy = [UInt8](bytes)
            copy[4] = 0x58
            XCTAssertThrowsError(try copy.withUnsafeBytes { try ModelMetadata(bytes: $0) })
            copy[4] = 0x4D
            guard let version = resources.metadata?.minParserVersion,
                  let range = copy.indices.first(where: { copy[$0...].starts(with: Array(version.utf8)) }) else { continue }
            copy[range] = 0x39
            XCTAssertThrowsError(try copy.withUnsafeBytes { try ModelMetadata(bytes: $0) }) { error in
                XCTAssertTrue("\(error)".contains("requires metadata parser"), "\(error)")
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 0, "no model with min_parser_version")
    }

    /// Hostile zip archives: every corruption of the directory is an error, never a read outside the file.
    func testCorruptAssociatedFileArchives() throws {
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Paths.model("mlkit/bird_classifier.tflite"))))
        let good = try original.withUnsafeBytes { try AssociatedFiles.readDirectory($0) }
        XCTAssertEqual(good.count, 2)
        let end = (0..<(original.count - 3)).last { original[$0] == 0x50 && original[$0 + 1] == 0x4B && original[$0 + 2] == 5 && original[$0 + 3] == 6 }!
        let directory = Int(original[end + 16]) | Int(original[end + 17]) << 8 | Int(original[end + 18]) << 16 | Int(original[end + 19]) << 24
        var outside = original
        outside[end + 19] = 0x7F
        XCTAssertThrowsError(try outside.withUnsafeBytes { try AssociatedFiles.readDirectory($0) })
        var compressed = original
        compressed[directory + 10] = 8
        XCTAssertThrowsError(try compressed.withUnsafeBytes { try AssociatedFiles.readDirectory($0) }) { XCTAssertTrue("\($0)".contains("compressed")) }
        var huge = original
        huge.replaceSubrange((directory + 20)..<(directory + 28), with: [0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0x7F])
        XCTAssertThrowsError(try huge.withUnsafeBytes { try AssociatedFiles.readDirectory($0) })
        var badLocal = original
        badLocal[directory + 42] = 0xFF
        badLocal[directory + 45] = 0x70
        XCTAssertThrowsError(try badLocal.withUnsafeBytes { try AssociatedFiles.readDirectory($0) })
        // Every truncation either finds no archive or fails cleanly.
        for cut in stride(from: original.count - 1, to: directory, by: -37) {
            _ = try? Array(original.prefix(cut)).withUnsafeBytes { try AssociatedFiles.readDirectory($0) }
        }
    }
}

final class ModelRegistryTests: XCTestCase {
    func temporaryCache() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("litevision-cache-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func testRegistryEntriesMatchTheSharedModels() throws {
        let registry = try ModelRegistry.bundled(mirror: Paths.shared.appendingPathComponent("models").path, cacheDirectory: temporaryCache())
        XCTAssertEqual(try registry.defaultModel(for: "image-classification").file, "classification/mobilenet_v2_1.0_224_quant.tflite")
        XCTAssertEqual(try registry.model(named: "birds").file, "classification/mobilenet_v2_1.0_224_inat_bird_quant.tflite")
        let sums = try String(contentsOf: Paths.shared.appendingPathComponent("models/SHA256SUMS"), encoding: .utf8)
        for model in registry.models {
            if let bundled = model.bundled {
                // The project's own models ship in models/: their entry describes the file there.
                let bytes = [UInt8](try Data(contentsOf: Paths.packageRoot.appendingPathComponent(bundled)))
                XCTAssertEqual(bytes.count, model.size, model.name)
                XCTAssertEqual(SHA256.hex(of: bytes), model.sha256, "\(model.name): run tools/ink/register.py")
                XCTAssertTrue(registry.isDownloaded(model), model.name)
                continue
            }
            XCTAssertTrue(sums.contains("\(model.sha256)  ./\(model.file)"), "\(model.name): sha256 differs from SHA256SUMS")
            XCTAssertTrue(model.url.hasPrefix("https://"), model.name)
        }
    }

    func testFetchFromMirrorVerifiesAndIsAtomic() throws {
        let cache = temporaryCache()
        let registry = try ModelRegistry.bundled(mirror: Paths.shared.appendingPathComponent("models").path, cacheDirectory: cache)
        let model = try registry.model(named: "flowers")
        XCTAssertFalse(registry.isDownloaded(model))
        var progress: [Int] = []
        let path = try registry.fetch(model) { done, _ in progress.append(done) }
        XCTAssertTrue(registry.isDownloaded(model))
        XCTAssertEqual(progress.last, model.size)
        XCTAssertEqual(SHA256.hex(of: [UInt8](try Data(contentsOf: path))), model.sha256)
        // Beside the model: the record of its checked hash and the lock file of fetches; no partial file.
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: cache)),
                       [model.cacheFileName, model.cacheFileName + ".verified", model.cacheFileName + ".lock"], "no partial file left")
        XCTAssertTrue(try registry.remove(model))
        XCTAssertFalse(registry.isDownloaded(model))

        // A partial download is resumed from where it stopped.
        let partial = registry.partialPath(model)
        let source = try Data(contentsOf: Paths.shared.appendingPathComponent("models/\(model.file)"))
        try source.prefix(1000).write(to: partial)
        var first: Int?
        _ = try registry.fetch(model) { done, _ in if first == nil { first = done } }
        XCTAssertGreaterThan(first ?? 0, 1000)
        XCTAssertEqual(SHA256.hex(of: [UInt8](try Data(contentsOf: registry.cachedPath(model)))), model.sha256)
        try registry.remove(model)

        // A wrong partial file fails verification, is discarded, and the retry succeeds.
        try Data(repeating: 0x42, count: 1000).write(to: partial)
        _ = try registry.fetch(model)
        XCTAssertEqual(SHA256.hex(of: [UInt8](try Data(contentsOf: registry.cachedPath(model)))), model.sha256)
    }

    func testWrongChecksumNeverLandsInTheCache() throws {
        let cache = temporaryCache()
        var registry = try ModelRegistry.bundled(mirror: Paths.shared.appendingPathComponent("models").path, cacheDirectory: cache)
        var model = try registry.model(named: "flowers")
        model.sha256 = String(repeating: "0", count: 64)
        model.url = "http://127.0.0.1:9/unreachable.tflite"
        registry.models = [model]
        XCTAssertThrowsError(try registry.fetch(model, retries: 1)) { error in
            XCTAssertTrue("\(error)".contains("checksum"), "\(error)")
        }
        XCTAssertFalse(registry.isDownloaded(model))
        XCTAssertThrowsError(try registry.model(named: "nope")) { error in
            guard case TaskError.notFound = error else { return XCTFail("\(error)") }
        }
    }

    func testSHA256KnownAnswers() {
        XCTAssertEqual(SHA256.hex(of: [UInt8]()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(of: Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let long = Array(repeating: UInt8(ascii: "a"), count: 1_000_000)
        XCTAssertEqual(SHA256.hex(of: long), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
