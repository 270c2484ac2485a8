import Foundation
import LiteImage
import LiteTasks
import XCTest

/// One `ImageClassifier`, `ObjectDetector` or `DigitalInkRecognizer` shared by eight threads gives every thread the
/// results serial use gives, through the synchronous calls, the completion-handler calls and the live stream.
/// Run under ThreadSanitizer too (Docs/hardening.md).
final class SharedPipelineConcurrencyTests: XCTestCase {
    static let threads = 8
    /// ../shared beside the checkout (symbolic links resolved: tools/sanitize.sh builds this file in a package of its own).
    static let shared = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("../../../shared").standardized
    static func model(_ path: String) -> String { shared.appendingPathComponent("models/\(path)").path }
    static let images = ["bird.png", "parrot.jpg", "cats_and_dogs.jpg", "burger.jpg"].map { shared.appendingPathComponent("images/\($0)").path }
    /// Handwriting-like inks made here: a wave, a loop and a zigzag, in one or two strokes.
    static let inks: [Ink] = [
        Ink(strokes: [stroke(60, start: 0) { k in (k * 4, 50 + 20 * sin(k / 4)) }]),
        Ink(strokes: [stroke(40, start: 0) { k in (50 + 30 * cos(k / 6), 50 + 40 * sin(k / 6)) },
                      stroke(20, start: 500) { k in (120 + k * 3, 20 + k * 4) }]),
        Ink(strokes: [stroke(30, start: 0) { k in (k * 6, k.truncatingRemainder(dividingBy: 2) == 0 ? 20 : 80) }]),
    ]

    /// A stroke of `count` points at `position(k)`, 10 ms apart from `start` ms.
    static func stroke(_ count: Int, start: Int64, _ position: (Float) -> (x: Float, y: Float)) -> Stroke {
        Stroke(points: (0..<count).map { (k: Int) -> StrokePoint in
            let (x, y) = position(Float(k))
            return StrokePoint(x: x, y: y, t: start + Int64(k) * 10)
        })
    }

    /// Runs `body(thread, round)` on `threads` threads at once, `rounds` times each, and collects what each returns.
    private func concurrently<T>(threads: Int = SharedPipelineConcurrencyTests.threads, rounds: Int,
                                 _ body: (Int, Int) throws -> T) -> [[T?]] {
        let results = Collected<T>(threads: threads, rounds: rounds)
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for round in 0..<rounds {
                do { results.set(thread, round, try body(thread, round)) } catch { results.fail("thread \(thread) round \(round): \(error)") }
            }
        }
        for failure in results.failures { XCTFail(failure) }
        return results.values
    }

    func testASharedImageClassifierGivesSerialResults() throws {
        var options = ImageClassifierOptions()
        options.baseOptions.modelAssetPath = Self.model("classification/mobilenet_v1_0.25_128_quant.tflite")
        options.maxResults = 5
        let classifier = try ImageClassifier(options: options)
        let images = try Self.images.map { try MPImage(contentsOfFile: $0) }
        let serial = try images.map { try classifier.classify(image: $0) }
        let parallel = concurrently(rounds: 4) { thread, round in
            try classifier.classify(image: images[(thread + round) % images.count])
        }
        for (thread, rounds) in parallel.enumerated() {
            for (round, result) in rounds.enumerated() {
                XCTAssertEqual(result, serial[(thread + round) % images.count], "thread \(thread) round \(round)")
            }
        }
    }

    /// Eight threads send frames to one live-stream classifier (timestamps handed out in order): every delivered
    /// result is the serial result for its frame, deliveries come in timestamp order, and busy frames are dropped.
    func testALiveStreamClassifierUnderLoadDeliversSerialResultsInOrder() throws {
        let images = try Self.images.map { try MPImage(contentsOfFile: $0) }
        var imageOptions = ImageClassifierOptions()
        imageOptions.baseOptions.modelAssetPath = Self.model("classification/mobilenet_v1_0.25_128_quant.tflite")
        let reference = try ImageClassifier(options: imageOptions)
        let serial = try images.map { try reference.classify(image: $0).classificationResult.classifications }

        let delivered = Delivered()
        var options = imageOptions
        options.runningMode = .liveStream
        options.liveStreamResultHandler = { result, timestamp, error in delivered.append(timestamp, result?.classificationResult.classifications, error) }
        let classifier = try ImageClassifier(options: options)
        let clock = NSLock()
        var nextTimestamp = 0
        _ = concurrently(rounds: 25) { _, _ in
            // The timestamp and the send under one lock: timestamps must increase from call to call.
            clock.lock()
            defer { clock.unlock() }
            nextTimestamp += 1
            try? classifier.classifyAsync(image: images[nextTimestamp % images.count], timestampInMilliseconds: nextTimestamp)
        }
        classifier.waitForPendingResults()
        let results = delivered.values
        XCTAssertFalse(results.isEmpty)
        XCTAssertLessThanOrEqual(results.count, Self.threads * 25)
        XCTAssertEqual(results.map(\.timestamp), results.map(\.timestamp).sorted(), "results in timestamp order")
        for result in results {
            XCTAssertNil(result.error)
            XCTAssertEqual(result.classifications, serial[result.timestamp % images.count], "frame \(result.timestamp)")
        }
    }

    func testASharedObjectDetectorGivesSerialResults() throws {
        var options = CustomObjectDetectorOptions(localModel: LocalModel(path: Self.model("mlkit/object_labeler.tflite")))
        options.detectorModel = .local(LocalModel(path: Self.model("detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite")))
        options.detectorMode = .singleImage
        options.shouldEnableMultipleObjects = true
        options.shouldEnableClassification = true
        let detector = try ObjectDetector.objectDetector(options: options)
        let images = try Self.images.prefix(3).map { try VisionImage(contentsOfFile: $0) }
        let serial = try images.map { try detector.results(in: $0) }
        XCTAssertTrue(serial.contains { !$0.isEmpty })
        let parallel = concurrently(rounds: 2) { thread, round in
            let image = images[(thread + round) % images.count]
            // Half the calls through ML Kit's completion-handler form, on the detector's queue.
            guard thread % 2 == 1 else { return try detector.results(in: image) }
            let done = DispatchSemaphore(value: 0)
            let outcome = Outcome<[Object]>()
            detector.process(image) { objects, error in
                outcome.set(objects, error)
                done.signal()
            }
            done.wait()
            return try outcome.get()
        }
        for (thread, rounds) in parallel.enumerated() {
            for (round, objects) in rounds.enumerated() {
                XCTAssertEqual(objects, serial[(thread + round) % images.count], "thread \(thread) round \(round)")
            }
        }
    }

    func testASharedInkRecognizerGivesSerialResults() throws {
        let inks = Self.inks
        let recognizer = DigitalInkRecognizer.digitalInkRecognizer(options: DigitalInkRecognizerOptions(model: DigitalInkRecognitionModel(modelIdentifier: .english)))
        let serial = try inks.map { try recognizer.recognize(ink: $0) }
        let parallel = concurrently(rounds: 2) { thread, round in
            let ink = inks[(thread + round) % inks.count]
            guard thread % 2 == 1 else { return try recognizer.recognize(ink: ink) }
            let done = DispatchSemaphore(value: 0)
            let outcome = Outcome<DigitalInkRecognitionResult>()
            recognizer.recognize(ink: ink) { result, error in
                outcome.set(result, error)
                done.signal()
            }
            done.wait()
            return try outcome.get()
        }
        for (thread, rounds) in parallel.enumerated() {
            for (round, result) in rounds.enumerated() {
                XCTAssertEqual(result, serial[(thread + round) % inks.count], "thread \(thread) round \(round)")
            }
        }
    }

    /// The first recognitions of fresh recognizers (text and shapes) race to load their models: the results of a
    /// recognizer that was loaded alone.
    func testRecognizersLoadingTheirModelsUnderARaceGiveSerialResults() throws {
        for identifier in [DigitalInkRecognitionModelIdentifier.english, .shapes] {
            let options = DigitalInkRecognizerOptions(model: DigitalInkRecognitionModel(modelIdentifier: identifier))
            let serial = try DigitalInkRecognizer.digitalInkRecognizer(options: options).recognize(ink: Self.inks[1])
            let recognizer = DigitalInkRecognizer.digitalInkRecognizer(options: options)
            let results = concurrently(rounds: 1) { _, _ in try recognizer.recognize(ink: Self.inks[1]) }
            XCTAssertEqual(Array(results.joined()), Array(repeating: Optional(serial), count: Self.threads), "\(identifier)")
        }
    }
}

/// Results filled in by several threads, one slot each.
private final class Collected<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [[T?]]
    private var failed: [String] = []

    init(threads: Int, rounds: Int) {
        slots = Array(repeating: Array(repeating: nil, count: rounds), count: threads)
    }

    func set(_ thread: Int, _ round: Int, _ value: T) {
        lock.lock()
        defer { lock.unlock() }
        slots[thread][round] = value
    }

    func fail(_ message: String) {
        lock.lock()
        defer { lock.unlock() }
        failed.append(message)
    }

    var values: [[T?]] {
        lock.lock()
        defer { lock.unlock() }
        return slots
    }

    var failures: [String] {
        lock.lock()
        defer { lock.unlock() }
        return failed
    }
}

/// What a completion handler was called with.
private final class Outcome<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T?
    private var error: Error?

    func set(_ value: T?, _ error: Error?) {
        lock.lock()
        defer { lock.unlock() }
        self.value = value
        self.error = error
    }

    func get() throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if let error { throw error }
        return value!
    }
}

/// Live-stream deliveries, in the order they arrived.
private final class Delivered: @unchecked Sendable {
    struct Result {
        var timestamp: Int
        var classifications: [Classifications]?
        var error: Error?
    }

    private let lock = NSLock()
    private var received: [Result] = []

    func append(_ timestamp: Int, _ classifications: [Classifications]?, _ error: Error?) {
        lock.lock()
        defer { lock.unlock() }
        received.append(Result(timestamp: timestamp, classifications: classifications, error: error))
    }

    var values: [Result] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }
}
