import Foundation
import LiteEngine
import LiteFormat
import LiteImage
@testable import LiteTasks
import XCTest

/// Paths the tests read: the committed goldens and the shared models and images beside the project.
enum Paths {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let shared = packageRoot.appendingPathComponent("../shared").standardized
    static func model(_ path: String) -> String { shared.appendingPathComponent("models/\(path)").path }
    static func image(_ name: String) -> String { shared.appendingPathComponent("images/\(name)").path }
}

/// The goldens of tools/make_classifier_goldens.py: MediaPipe's decoded and resampled pixels, LiteRT's top 5 on
/// MediaPipe's preprocessed tensor, and MediaPipe's own ImageClassifier results.
struct ClassifierGoldens: Decodable {
    struct ImageEntry: Decodable {
        var width: Int
        var height: Int
        var decode: String
        var resample: [String: String]
        var resampleROI: String
    }
    struct HeadEntry: Decodable {
        var headIndex: Int
        var headName: String
        var categories: [[MixedValue]]
    }
    struct ModelEntry: Decodable {
        var input: String
        var inputType: String
        var litert: [String: [[Double]]]
        var mediapipe: [String: [HeadEntry]]
        var mediapipeError: String?
        var normalization: [Float]?
    }
    enum MixedValue: Decodable {
        case number(Double)
        case text(String)
        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Double.self) { self = .number(value) } else { self = .text(try container.decode(String.self)) }
        }
        var number: Double { if case let .number(v) = self { return v }; return .nan }
        var text: String { if case let .text(v) = self { return v }; return "" }
    }
    var images: [String: ImageEntry]
    var models: [String: ModelEntry]
    var roi: [Double]

    static let shared: ClassifierGoldens = {
        let url = Paths.packageRoot.appendingPathComponent("Tests/LiteTasksTests/Goldens/classifier.json")
        return try! JSONDecoder().decode(ClassifierGoldens.self, from: Data(contentsOf: url))
    }()
}

final class ClassifierGoldenTests: XCTestCase {
    let goldens = ClassifierGoldens.shared

    func testDecodersGiveThePixelsPillowGives() throws {
        XCTAssertEqual(goldens.images.count, 18)
        for (name, entry) in goldens.images.sorted(by: { $0.key < $1.key }) {
            let decoded = try Image.decode(contentsOfFile: Paths.image(name))
            XCTAssertEqual(decoded.image.width, entry.width, name)
            XCTAssertEqual(decoded.image.height, entry.height, name)
            XCTAssertEqual(SHA256.hex(of: decoded.image.pixels), entry.decode, "\(name): decoded pixels differ from Pillow's")
        }
    }

    func testResamplingIsBitExactWithMediaPipe() throws {
        for (name, entry) in goldens.images.sorted(by: { $0.key < $1.key }) {
            let image = try Image(contentsOfFile: Paths.image(name))
            for (size, digest) in entry.resample {
                let parts = size.split(separator: "x").map { Int($0)! }
                let pixels = image.resampled(outputWidth: parts[0], outputHeight: parts[1])
                XCTAssertEqual(SHA256.hex(of: pixels), digest, "\(name) at \(size)")
            }
            let roi = CGRect(x: goldens.roi[0], y: goldens.roi[1], width: goldens.roi[2], height: goldens.roi[3])
            let region = try roi.pixelRegion(width: image.width, height: image.height)
            XCTAssertEqual(SHA256.hex(of: image.resampled(region: region, outputWidth: 224, outputHeight: 224)), entry.resampleROI, "\(name) ROI")
        }
    }

    /// Acceptance: for every classifier and photo, our top-5 indices equal LiteRT's on the same preprocessed
    /// tensor, with equal scores (quantized) or within 1e-5 (float).
    func testTop5EqualsLiteRTOnEveryClassifierAndPhoto() throws {
        XCTAssertEqual(goldens.models.count, 10)
        for (model, entry) in goldens.models.sorted(by: { $0.key < $1.key }) {
            let quantized = entry.inputType != "float32"
            let classify: (String) throws -> [ResultCategory]
            if entry.mediapipeError == nil {
                var options = ImageClassifierOptions()
                options.baseOptions.modelAssetPath = Paths.model(model)
                options.baseOptions.numerics = .exact
                options.maxResults = 5
                options.scoreThreshold = -.infinity
                let classifier = try ImageClassifier(options: options)
                classify = { name in
                    try classifier.classify(image: MPImage(contentsOfFile: Paths.image(name))).classificationResult.classifications[0].categories
                }
            } else {
                // A float model without NormalizationOptions, which MediaPipe (and so ImageClassifier) refuses:
                // the same preprocessing by hand with the golden's (mean, std).
                let interpreter = try Interpreter(modelPath: Paths.model(model), options: .init(numerics: .exact))
                try interpreter.allocateTensors()
                let (mean, std) = (entry.normalization![0], entry.normalization![1])
                classify = { name in
                    let pixels = try Image(contentsOfFile: Paths.image(name)).resampled(outputWidth: 224, outputHeight: 224)
                    try interpreter.copy(pixels.map { (Float($0) - mean) / std }, toInputAt: 0)
                    try interpreter.invoke()
                    let scores = try interpreter.output(at: 0).toArray(of: Float.self)
                    return scores.indices.sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }.prefix(5)
                        .map { ResultCategory(index: $0, score: scores[$0], categoryName: nil, displayName: nil) }
                }
            }
            for (image, expected) in entry.litert.sorted(by: { $0.key < $1.key }) {
                let ours = try classify(image)
                XCTAssertEqual(ours.map(\.index), expected.map { Int($0[0]) }, "\(model) on \(image): top-5 indices")
                for (category, reference) in zip(ours, expected) {
                    if quantized {
                        XCTAssertEqual(category.score, Float(reference[1]), "\(model) on \(image) class \(category.index)")
                    } else {
                        XCTAssertEqual(Double(category.score), reference[1], accuracy: 1e-5, "\(model) on \(image) class \(category.index)")
                    }
                }
            }
        }
    }

    /// MediaPipe's ImageClassifier end to end: labels, display names and head names always; scores within 1e-5
    /// for the float model (MediaPipe runs quantized models with XNNPACK, whose rounding differs from the built-in
    /// kernels that the test above matches bit for bit).
    func testMatchesMediaPipeImageClassifier() throws {
        for (model, entry) in goldens.models.sorted(by: { $0.key < $1.key }) where entry.mediapipeError == nil {
            var options = ImageClassifierOptions()
            options.baseOptions.modelAssetPath = Paths.model(model)
            options.maxResults = 5
            let classifier = try ImageClassifier(options: options)
            for (image, heads) in entry.mediapipe.sorted(by: { $0.key < $1.key }) {
                let ours = try classifier.classify(image: MPImage(contentsOfFile: Paths.image(image))).classificationResult.classifications
                XCTAssertEqual(ours.count, heads.count)
                for (head, reference) in zip(ours, heads) {
                    XCTAssertEqual(head.headIndex, reference.headIndex)
                    XCTAssertEqual(head.headName ?? "", reference.headName, model)
                    for expected in reference.categories {
                        let index = Int(expected[0].number)
                        let names = try classifier.labels()[head.headIndex]
                        XCTAssertEqual(names[index].name, expected[2].text, "\(model) class \(index) name")
                        XCTAssertEqual(names[index].displayName ?? "", expected[3].text, "\(model) class \(index) display name")
                        if entry.inputType == "float32" {
                            guard let category = head.categories.first(where: { $0.index == index }) else {
                                XCTFail("\(model) on \(image): MediaPipe has class \(index), we do not")
                                continue
                            }
                            XCTAssertEqual(Double(category.score), expected[1].number, accuracy: 1e-5, "\(model) on \(image) class \(index)")
                        }
                    }
                    if entry.inputType == "float32" {
                        XCTAssertEqual(head.categories.map(\.index), reference.categories.map { Int($0[0].number) }, "\(model) on \(image)")
                    }
                }
            }
        }
    }

    /// The main job: `vision-cli classify bird.png --model birds` and the default model.
    func testBirdIsAChickadee() throws {
        let birds = try ImageClassifier(modelPath: Paths.model("classification/mobilenet_v2_1.0_224_inat_bird_quant.tflite"))
        let image = try MPImage(contentsOfFile: Paths.image("bird.png"))
        XCTAssertEqual(try birds.classify(image: image).classificationResult.classifications[0].categories.first?.categoryName,
                       "Poecile atricapillus (Black-capped Chickadee)")
        let imagenet = try ImageClassifier(modelPath: Paths.model("classification/mobilenet_v2_1.0_224_quant.tflite"))
        XCTAssertEqual(try imagenet.classify(image: image).classificationResult.classifications[0].categories.first?.categoryName, "chickadee")
    }
}
