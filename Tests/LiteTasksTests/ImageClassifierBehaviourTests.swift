import Foundation
import LiteEngine
import LiteFormat
import LiteImage
@testable import LiteTasks
import XCTest

/// MediaPipe's ImageClassifier semantics: options, running modes, errors, orientation, live stream.
final class ImageClassifierBehaviourTests: XCTestCase {
    let imagenet = Paths.model("classification/mobilenet_v2_1.0_224_quant.tflite")

    func options(_ configure: (inout ImageClassifierOptions) -> Void = { _ in }) -> ImageClassifierOptions {
        var options = ImageClassifierOptions()
        options.baseOptions.modelAssetPath = imagenet
        configure(&options)
        return options
    }

    func assertInvalidArgument(_ body: @autoclosure () throws -> some Any, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard case let TaskError.invalidArgument(text) = error else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertTrue(text.contains(message), "\(text)", file: file, line: line)
        }
    }

    func testOptionErrorsAreMediaPipes() throws {
        assertInvalidArgument(try ImageClassifier(options: options { $0.maxResults = 0 }), "max_results")
        assertInvalidArgument(try ImageClassifier(options: options { $0.categoryAllowlist = ["chickadee"]; $0.categoryDenylist = ["junco, snowbird"] }), "mutually exclusive")
        assertInvalidArgument(try ImageClassifier(options: options { $0.categoryAllowlist = ["no such label"] }), "None of the categories")
        XCTAssertThrowsError(try ImageClassifier(options: options { $0.runningMode = .liveStream })) { error in
            guard case TaskError.failedPrecondition = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try ImageClassifier(options: options { $0.liveStreamResultHandler = { _, _, _ in } })) { error in
            guard case TaskError.failedPrecondition = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try ImageClassifier(options: ImageClassifierOptions()))
        XCTAssertThrowsError(try ImageClassifier(modelPath: "/nonexistent.tflite")) { error in
            guard case TaskError.notFound = error else { return XCTFail("\(error)") }
        }
        // A float model without NormalizationOptions, refused as MediaPipe refuses it.
        assertInvalidArgument(try ImageClassifier(modelPath: Paths.model("classification/mobilenet_v2_1.0_224_dequant_float.tflite")), "NormalizationOptions")
        // Not a classifier: the SSD's outputs are boxes.
        XCTAssertThrowsError(try ImageClassifier(modelPath: Paths.model("detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite")))
        // Garbage bytes.
        var bad = ImageClassifierOptions()
        bad.baseOptions.modelAssetBuffer = [UInt8](repeating: 7, count: 100)
        XCTAssertThrowsError(try ImageClassifier(options: bad)) { error in
            guard case TaskError.model = error else { return XCTFail("\(error)") }
        }
    }

    func testModelBytesAllowAndDenyListsThresholdAndMaxResults() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: imagenet)))
        var fromBytes = ImageClassifierOptions()
        fromBytes.baseOptions.modelAssetBuffer = bytes
        let image = try MPImage(contentsOfFile: Paths.image("bird.png"))
        let all = try ImageClassifier(options: fromBytes).classify(image: image).classificationResult.classifications[0].categories
        XCTAssertEqual(all.count, 1001, "maxResults -1 keeps every category")
        XCTAssertEqual(all[0].categoryName, "chickadee")
        XCTAssertTrue(zip(all, all.dropFirst()).allSatisfy { $0.score > $1.score || ($0.score == $1.score && $0.index < $1.index) })

        let allowed = try ImageClassifier(options: options { $0.categoryAllowlist = ["junco, snowbird", "tench, Tinca tinca"] }).classify(image: image)
        XCTAssertEqual(Set(allowed.classificationResult.classifications[0].categories.map(\.index)), [14, 1])
        let denied = try ImageClassifier(options: options { $0.categoryDenylist = ["chickadee"]; $0.maxResults = 3 }).classify(image: image)
        XCTAssertEqual(denied.classificationResult.classifications[0].categories.count, 3)
        XCTAssertFalse(denied.classificationResult.classifications[0].categories.contains { $0.index == 20 })
        let thresholded = try ImageClassifier(options: options { $0.scoreThreshold = 0.5 }).classify(image: image)
        XCTAssertEqual(thresholded.classificationResult.classifications[0].categories.map(\.index), [20])
    }

    func testMetadataScoreThresholdAndDisplayNamesLocale() throws {
        let labeler = Paths.model("mlkit/bird_classifier.tflite")
        let english = try ImageClassifier(modelPath: labeler)
        let result = try english.classify(image: MPImage(contentsOfFile: Paths.image("bird.png")))
        let categories = result.classificationResult.classifications[0].categories
        XCTAssertEqual(categories.first?.displayName, "Poecile atricapillus (Black-capped Chickadee)")
        let threshold = try XCTUnwrap(english.resources.outputMetadata(0)?.scoreThreshold)
        XCTAssertTrue(categories.allSatisfy { $0.score >= threshold })
        var other = ImageClassifierOptions()
        other.baseOptions.modelAssetPath = labeler
        other.displayNamesLocale = "fr"
        let french = try ImageClassifier(options: other).classify(image: MPImage(contentsOfFile: Paths.image("bird.png")))
        XCTAssertNil(french.classificationResult.classifications[0].categories.first?.displayName)
    }

    func testRunningModesAndTimestamps() throws {
        let image = try MPImage(contentsOfFile: Paths.image("bird.png"))
        let still = try ImageClassifier(options: options())
        assertInvalidArgument(try still.classify(videoFrame: image, timestampInMilliseconds: 0), "not initialized with video mode")
        assertInvalidArgument(try still.classifyAsync(image: image, timestampInMilliseconds: 0), "not initialized with live stream mode")
        let video = try ImageClassifier(options: options { $0.runningMode = .video })
        assertInvalidArgument(try video.classify(image: image), "not initialized with image mode")
        let first = try video.classify(videoFrame: image, timestampInMilliseconds: 10)
        XCTAssertEqual(first.timestampInMilliseconds, 10)
        assertInvalidArgument(try video.classify(videoFrame: image, timestampInMilliseconds: 10), "monotonically increasing")
        XCTAssertEqual(try video.classify(videoFrame: image, timestampInMilliseconds: 11).classificationResult.classifications,
                       first.classificationResult.classifications)
    }

    func testLiveStreamDeliversInOrderAndDropsBusyFrames() throws {
        let received = Received()
        let done = expectation(description: "results")
        done.assertForOverFulfill = false
        let classifier = try ImageClassifier(options: options {
            $0.runningMode = .liveStream
            $0.maxResults = 1
            $0.liveStreamResultHandler = { result, timestamp, error in
                received.append(timestamp, result?.classificationResult.classifications[0].categories.first?.index, error)
                done.fulfill()
            }
        })
        let image = try MPImage(contentsOfFile: Paths.image("bird.png"))
        for timestamp in stride(from: 0, to: 200, by: 10) {
            try classifier.classifyAsync(image: image, timestampInMilliseconds: timestamp)
        }
        assertInvalidArgument(try classifier.classifyAsync(image: image, timestampInMilliseconds: 5), "monotonically increasing")
        wait(for: [done], timeout: 60)
        classifier.waitForPendingResults()
        let results = received.values
        XCTAssertFalse(results.isEmpty)
        XCTAssertLessThan(results.count, 20, "frames sent while one is running are dropped")
        XCTAssertEqual(results.map(\.0), results.map(\.0).sorted())
        XCTAssertTrue(results.allSatisfy { $0.1 == 20 && $0.2 == nil })
    }

    /// Orientation is applied before preprocessing: the same picture stored rotated gives the same result;
    /// mirrored orientations are refused as in MediaPipe.
    func testRotatedPhotosClassifyLikeTheUprightOne() throws {
        let classifier = try ImageClassifier(options: options { $0.maxResults = 5 })
        for name in ["bird.png", "parrot.jpg"] {
            let upright = try Image(contentsOfFile: Paths.image(name))
            let reference = try classifier.classify(image: MPImage(image: upright)).classificationResult.classifications
            for orientation in [ImageOrientation.down, .left, .right] {
                let stored = MPImage(image: upright.storedAs(orientation), orientation: orientation)
                XCTAssertEqual(try classifier.classify(image: stored).classificationResult.classifications, reference, "\(name) \(orientation)")
            }
            for orientation in ImageOrientation.allCases where orientation.isMirrored {
                assertInvalidArgument(try classifier.classify(image: MPImage(image: upright.storedAs(orientation), orientation: orientation)), "Mirrored")
            }
        }
    }

    func testRegionOfInterestInOrientedCoordinates() throws {
        let classifier = try ImageClassifier(options: options())
        let upright = try Image(contentsOfFile: Paths.image("bird.png"))
        let region = CGRect(x: 0.1, y: 0.2, width: 0.5, height: 0.6)
        let reference = try classifier.preprocessedInput(MPImage(image: upright), regionOfInterest: region)
        let rotated = try classifier.preprocessedInput(MPImage(image: upright.storedAs(.right), orientation: .right), regionOfInterest: region)
        XCTAssertEqual(reference, rotated)
        XCTAssertNotEqual(reference, try classifier.preprocessedInput(MPImage(image: upright)))
        assertInvalidArgument(try classifier.classify(image: MPImage(image: upright), regionOfInterest: CGRect(x: 0.5, y: 0, width: 0.6, height: 1)), "within")
        assertInvalidArgument(try classifier.classify(image: MPImage(image: upright), regionOfInterest: CGRect(x: 0.5, y: 0, width: 0, height: 1)), "left < right")
        assertInvalidArgument(try classifier.classify(image: MPImage(image: upright), regionOfInterest: CGRect(x: Double.nan, y: 0, width: 0.1, height: 1)), "finite")
    }

    func testConcurrentCallsAreSafe() async throws {
        let classifier = try ImageClassifier(options: options { $0.maxResults = 1 })
        let image = try MPImage(contentsOfFile: Paths.image("bird.png"))
        let indices = try await withThrowingTaskGroup(of: Int?.self) { group in
            for _ in 0..<4 { group.addTask { try classifier.classify(image: image).classificationResult.classifications[0].categories.first?.index } }
            return try await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        XCTAssertEqual(indices, [20, 20, 20, 20])
    }
}

final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(Int, Int?, Error?)] = []
    func append(_ timestamp: Int, _ index: Int?, _ error: Error?) { lock.lock(); items.append((timestamp, index, error)); lock.unlock() }
    var values: [(Int, Int?, Error?)] { lock.lock(); defer { lock.unlock() }; return items }
}

/// A model with two outputs is two heads: each dequantized with its own parameters, sorted, indexed by output.
final class MultiHeadClassifierTests: XCTestCase {
    func testEveryOutputIsAHead() throws {
        var builder = ModelBuilder()
        let pixels = builder.addTensor(name: "image", type: .uint8, shape: [1, 2, 2, 3], quantization: Quantization(scale: [1], zeroPoint: [0]))
        let shape = builder.addConstant(name: "shape", shape: [2], values: [Int32(1), 12])
        let first = builder.addTensor(name: "head0", type: .uint8, shape: [1, 12], quantization: Quantization(scale: [0.5], zeroPoint: [0]))
        let second = builder.addTensor(name: "head1", type: .uint8, shape: [1, 12], quantization: Quantization(scale: [0.25], zeroPoint: [10]))
        builder.addOperator(.reshape, inputs: [pixels, shape], outputs: [first])
        builder.addOperator(.reshape, inputs: [pixels, shape], outputs: [second])
        builder.inputs = [pixels]
        builder.outputs = [first, second]
        var options = ImageClassifierOptions()
        options.baseOptions.modelAssetBuffer = builder.build()
        options.maxResults = 3
        let classifier = try ImageClassifier(options: options)
        let values: [UInt8] = [10, 200, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120]
        let image = try Image(width: 2, height: 2, pixels: values)
        let heads = try classifier.classify(image: MPImage(image: image)).classificationResult.classifications
        XCTAssertEqual(heads.map(\.headIndex), [0, 1])
        XCTAssertEqual(heads[0].categories.map(\.index), [1, 11, 10])
        XCTAssertEqual(heads[0].categories.map(\.score), [100, 60, 55])
        XCTAssertEqual(heads[1].categories.map(\.score), [47.5, 27.5, 25])
        XCTAssertTrue(heads.allSatisfy { $0.categories.allSatisfy { $0.categoryName == nil } })
    }
}
