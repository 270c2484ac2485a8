import Foundation
import LiteEngine
import LiteImage
@testable import LiteTasks
import TrackingEvaluation
import XCTest

final class ObjectDetectorBehaviourTests: XCTestCase {
    static let ssd = Paths.model("detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite")
    static let labeler = Paths.model("mlkit/object_labeler.tflite")
    static let birds = Paths.model("mlkit/bird_classifier.tflite")

    func options(classifier: String? = labeler) -> CustomObjectDetectorOptions {
        var options = classifier.map { CustomObjectDetectorOptions(localModel: LocalModel(path: $0)) } ?? CustomObjectDetectorOptions()
        options.detectorModel = .local(LocalModel(path: Self.ssd))
        return options
    }

    func testDefaultsAreMLKits() {
        let options = CustomObjectDetectorOptions(localModel: LocalModel(path: Self.labeler))
        XCTAssertEqual(options.detectorMode, .stream)
        XCTAssertFalse(options.shouldEnableMultipleObjects)
        XCTAssertFalse(options.shouldEnableClassification)
        XCTAssertNil(options.classificationConfidenceThreshold)
        XCTAssertEqual(options.maxPerObjectLabelCount, 10)
        XCTAssertEqual(options.detectorModel, .registry("coco_ssd_mobilenet_v1"))
        XCTAssertEqual(ObjectDetector.maximumObjects, 5)
    }

    func testWithoutClassificationObjectsHaveNoLabels() throws {
        var options = options()
        options.detectorMode = .singleImage
        options.shouldEnableMultipleObjects = true
        let objects = try ObjectDetector.objectDetector(options: options).results(in: VisionImage(contentsOfFile: Paths.image("multi_objects.jpg")))
        XCTAssertFalse(objects.isEmpty)
        XCTAssertLessThanOrEqual(objects.count, 5)
        XCTAssertTrue(objects.allSatisfy { $0.labels.isEmpty && $0.trackingID == nil })
    }

    /// Single-object mode returns the proposal with the largest area × centrality among those above threshold.
    func testSingleObjectModeReturnsTheMostProminent() throws {
        var options = options(classifier: nil)
        options.detectorMode = .singleImage
        let detector = try ObjectDetector.objectDetector(options: options)
        for name in ["multi_objects.jpg", "cats_and_dogs.jpg", "kite_and_cold.jpg"] {
            let image = try VisionImage(contentsOfFile: Paths.image(name))
            let objects = try detector.results(in: image)
            XCTAssertEqual(objects.count, 1, name)
            let proposals = try detector.detector.proposals(in: image.oriented()).filter { $0.score >= ObjectDetector.defaultDetectorScoreThreshold }
            let best = try XCTUnwrap(proposals.max { ObjectDetector.prominence($0.box) < ObjectDetector.prominence($1.box) })
            XCTAssertEqual(objects[0].frame.minX, Double(max(0, best.box.xmin)) * Double(image.width), accuracy: 1e-3, name)
            XCTAssertEqual(objects[0].detectionConfidence, best.score, name)
        }
    }

    /// classificationConfidenceThreshold defaults to the metadata's threshold (object_labeler 0.35,
    /// bird_classifier 0.3); set to 0, every object gets maxPerObjectLabelCount labels.
    func testClassificationThresholdAndLabelCount() throws {
        var options = options()
        options.detectorMode = .singleImage
        options.shouldEnableMultipleObjects = true
        options.shouldEnableClassification = true
        let image = try VisionImage(contentsOfFile: Paths.image("multi_objects.jpg"))
        let labelled = try ObjectDetector.objectDetector(options: options).results(in: image)
        XCTAssertTrue(labelled.contains { !$0.labels.isEmpty })
        XCTAssertTrue(labelled.allSatisfy { $0.labels.allSatisfy { $0.confidence >= 0.35 } })

        var birds = self.options(classifier: Self.birds)
        birds.detectorMode = .singleImage
        birds.shouldEnableMultipleObjects = true
        birds.shouldEnableClassification = true
        birds.maxPerObjectLabelCount = 3
        let defaultThreshold = try ObjectDetector.objectDetector(options: birds).results(in: image)
        XCTAssertTrue(defaultThreshold.allSatisfy { $0.labels.allSatisfy { $0.confidence >= 0.3 } })
        birds.classificationConfidenceThreshold = 0
        let objects = try ObjectDetector.objectDetector(options: birds).results(in: image)
        XCTAssertTrue(objects.allSatisfy { $0.labels.count == 3 }, "threshold 0: always maxPerObjectLabelCount labels")
        let texts = objects.flatMap(\.labels).map(\.text)
        XCTAssertTrue(texts.allSatisfy { $0 != nil })
        XCTAssertTrue(texts.contains { $0?.contains(" (") == true }, "display names from 0-labels-en.txt, e.g. \"Aramus guarauna (Limpkin)\"")

        birds.classificationConfidenceThreshold = 0.5
        let confident = try ObjectDetector.objectDetector(options: birds).results(in: image)
        XCTAssertTrue(confident.allSatisfy { $0.labels.allSatisfy { $0.confidence >= 0.5 } })
    }

    /// Frames are in the coordinates of the image as shown: the same pixels stored rotated with an orientation
    /// give the same frames as the upright pixels.
    func testFramesAreInOrientedCoordinates() throws {
        var options = options(classifier: nil)
        options.detectorMode = .singleImage
        options.shouldEnableMultipleObjects = true
        let detector = try ObjectDetector.objectDetector(options: options)
        let upright = try Image.decode(contentsOfFile: Paths.image("pets.jpg")).image
        let expected = try detector.results(in: VisionImage(image: upright))
        for orientation in [ImageOrientation.right, .left, .down, .upMirrored] {
            let stored = upright.storedAs(orientation)
            let objects = try detector.results(in: VisionImage(image: stored, orientation: orientation))
            XCTAssertEqual(objects.count, expected.count, "\(orientation)")
            for (a, b) in zip(objects, expected) {
                XCTAssertEqual(a.frame.minX, b.frame.minX, accuracy: 1e-3, "\(orientation)")
                XCTAssertEqual(a.frame.height, b.frame.height, accuracy: 1e-3, "\(orientation)")
            }
        }
    }

    func testErrorsNotCrashes() throws {
        var missing = options(classifier: "/nonexistent/model.tflite")
        missing.shouldEnableClassification = true
        XCTAssertThrowsError(try ObjectDetector.objectDetector(options: missing)) { XCTAssertEqual(($0 as? TaskError)?.kind, "notFound") }

        var notAVector = options(classifier: Self.ssd)
        notAVector.shouldEnableClassification = true
        XCTAssertThrowsError(try ObjectDetector.objectDetector(options: notAVector)) { error in
            XCTAssertEqual((error as? TaskError)?.kind, "invalidArgument", "\(error)")
        }

        var noClassifier = options(classifier: nil)
        noClassifier.shouldEnableClassification = true
        XCTAssertThrowsError(try ObjectDetector.objectDetector(options: noClassifier))

        let corrupt = FileManager.default.temporaryDirectory.appendingPathComponent("corrupt-\(UUID()).tflite")
        try Data((try Data(contentsOf: URL(fileURLWithPath: Self.ssd))).prefix(5000)).write(to: corrupt)
        defer { try? FileManager.default.removeItem(at: corrupt) }
        var badDetector = options(classifier: nil)
        badDetector.detectorModel = .local(LocalModel(path: corrupt.path))
        XCTAssertThrowsError(try ObjectDetector.objectDetector(options: badDetector)) { XCTAssertEqual(($0 as? TaskError)?.kind, "model", "\($0)") }

        var rawWithoutAnchors = options(classifier: nil)
        let rawCopy = FileManager.default.temporaryDirectory.appendingPathComponent("raw-\(UUID()).tflite")
        try FileManager.default.copyItem(atPath: Paths.model("detection/coco_ssd_mobilenet_v1_1.0_raw.tflite"), toPath: rawCopy.path)
        defer { try? FileManager.default.removeItem(at: rawCopy) }
        rawWithoutAnchors.detectorModel = .local(LocalModel(path: rawCopy.path))
        XCTAssertThrowsError(try ObjectDetector.objectDetector(options: rawWithoutAnchors)) { XCTAssertTrue("\($0)".contains("anchors")) }

        var badCount = options()
        badCount.maxPerObjectLabelCount = 0
        XCTAssertThrowsError(try ObjectDetector.objectDetector(options: badCount))
        var badThreshold = options()
        badThreshold.classificationConfidenceThreshold = .nan
        XCTAssertThrowsError(try ObjectDetector.objectDetector(options: badThreshold))

        let truncated = FileManager.default.temporaryDirectory.appendingPathComponent("truncated-\(UUID()).jpg")
        try Data((try Data(contentsOf: URL(fileURLWithPath: Paths.image("pets.jpg")))).prefix(2000)).write(to: truncated)
        defer { try? FileManager.default.removeItem(at: truncated) }
        XCTAssertThrowsError(try VisionImage(contentsOfFile: truncated.path)) { XCTAssertEqual(($0 as? TaskError)?.kind, "image") }
    }

    func testBadAnchorSidecarsAreErrors() {
        XCTAssertThrowsError(try SSDDecoding(anchorsJSON: Data("{\"anchors\": [[1,2,3]], \"postprocess_options\": {}}".utf8)))
        XCTAssertThrowsError(try SSDDecoding(anchorsJSON: Data("not json".utf8)))
        XCTAssertThrowsError(try SSDDecoding(mediapipeGraph: "num_layers: 4\nstrides: 8\n"), "strides must match num_layers")
        XCTAssertThrowsError(try SSDDecoding(mediapipeGraph: "num_layers: 1\nstrides: 8\nx_scale: 0\n"))
        XCTAssertThrowsError(try SSDDecoding(mediapipeGraph: "num_layers: 1\nstrides: 1\ninput_size_width: 16384\ninput_size_height: 16384\n"), "too many anchors")
        XCTAssertThrowsError(try SSDDecoding(mediapipeGraph: "num_layers: 2\nstrides: 8\nstrides: 16\nnum_boxes: 7\n"), "num_boxes disagrees")
    }

    /// The remote model pattern: not downloaded → an error that says so; download (notifications) → usable;
    /// delete → gone. Runs offline through the registry's mirror (../shared/models) into a temporary cache.
    func testRemoteModelLifecycle() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("litevision-remote-\(UUID())")
        defer { try? FileManager.default.removeItem(at: cache) }
        let manager = ModelManager(registry: try ModelRegistry.bundled(mirror: Paths.shared.appendingPathComponent("models").path, cacheDirectory: cache.path))
        let remote = CustomRemoteModel(registryName: "object_labeler")
        XCTAssertFalse(manager.isModelDownloaded(remote))

        var options = CustomObjectDetectorOptions(remoteModel: remote)
        options.shouldEnableClassification = true
        options.detectorMode = .singleImage
        XCTAssertThrowsError(try ObjectDetector(options: options, modelManager: manager)) { XCTAssertEqual(($0 as? TaskError)?.kind, "failedPrecondition") }

        let succeeded = expectation(forNotification: .mlkitModelDownloadDidSucceed, object: manager) { note in
            (note.userInfo?[ModelDownloadUserInfoKey.remoteModel.rawValue] as? CustomRemoteModel) == remote
        }
        let progress = manager.download(remote, conditions: ModelDownloadConditions(allowsCellularAccess: false, allowsBackgroundDownloading: true))
        wait(for: [succeeded], timeout: 60)
        XCTAssertEqual(progress.completedUnitCount, progress.totalUnitCount)
        XCTAssertTrue(manager.isModelDownloaded(remote))
        XCTAssertTrue(manager.downloadedModelNames.contains("object_labeler"))

        // "Use the downloaded model if present, else the bundled local one."
        let chosen = manager.isModelDownloaded(remote) ? CustomObjectDetectorOptions(remoteModel: remote)
                                                        : CustomObjectDetectorOptions(localModel: LocalModel(path: Self.labeler))
        XCTAssertNotNil(chosen.remoteModel)
        var detectorOptions = chosen
        detectorOptions.shouldEnableClassification = true
        detectorOptions.detectorMode = .singleImage
        let objects = try ObjectDetector(options: detectorOptions, modelManager: manager).results(in: VisionImage(contentsOfFile: Paths.image("multi_objects.jpg")))
        XCTAssertEqual(objects.count, 1)

        let failed = expectation(forNotification: .mlkitModelDownloadDidFail, object: manager) { note in
            note.userInfo?[ModelDownloadUserInfoKey.error.rawValue] is TaskError
        }
        manager.download(CustomRemoteModel(registryName: "no-such-model"))
        wait(for: [failed], timeout: 10)

        let deleted = expectation(description: "deleted")
        manager.deleteDownloadedModel(remote) { error in
            XCTAssertNil(error)
            deleted.fulfill()
        }
        wait(for: [deleted], timeout: 10)
        XCTAssertFalse(manager.isModelDownloaded(remote))
    }

    /// Score calibration from the detector's metadata reaches the proposals: the calibrated COCO SSD's CSV is the
    /// identity (inverse logistic, then a sigmoid with slope 1) for most classes and empty (default score 0) for
    /// some, so its proposals equal the plain SSD's except those classes, which score 0.
    func testDetectorScoreCalibrationFromMetadata() throws {
        let calibratedPath = Paths.model("detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_score_calibration.tflite")
        let calibrated = try DetectorModel(path: calibratedPath), plain = try DetectorModel(path: Self.ssd)
        let calibration = try XCTUnwrap(try calibrated.resources.scoreCalibration(forOutput: 2))
        XCTAssertEqual(calibration.transformation, .inverseLogistic)
        let empty = Set(calibration.parameters.indices.filter { calibration.parameters[$0] == nil })
        XCTAssertFalse(empty.isEmpty)
        var compared = 0
        for name in ["pets.jpg", "kite_and_cold.jpg", "multi_objects.jpg"] {
            let image = try Image.decode(contentsOfFile: Paths.image(name)).image
            let a = try calibrated.proposals(in: image), b = try plain.proposals(in: image)
            XCTAssertEqual(a.count, b.count)
            for (x, y) in zip(a, b) {
                XCTAssertEqual(x.box, y.box)
                XCTAssertEqual(x.classIndex, y.classIndex)
                XCTAssertEqual(x.score, empty.contains(y.classIndex) ? 0 : y.score, accuracy: 1e-5, "\(name) class \(y.classIndex)")
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 20)
    }

    func testTrackerKeepsIDsAndNeverReusesThem() {
        var tracker = ObjectTracker()
        let a = DetectionBox(ymin: 0.1, xmin: 0.1, ymax: 0.4, xmax: 0.3)
        let b = DetectionBox(ymin: 0.5, xmin: 0.6, ymax: 0.9, xmax: 0.8)
        func moved(_ box: DetectionBox, _ dx: Float) -> DetectionBox {
            DetectionBox(ymin: box.ymin, xmin: box.xmin + dx, ymax: box.ymax, xmax: box.xmax + dx)
        }
        let first = tracker.update(with: [a, b]).map(\.id)
        XCTAssertEqual(first, [0, 1])
        for step in 1...5 {
            let ids = tracker.update(with: [moved(b, -0.02 * Float(step)), moved(a, 0.02 * Float(step))])
            XCTAssertEqual(ids.map(\.id), [1, 0], "step \(step)")
        }
        // a vanishes: it coasts for coastingFrames frames, then is no longer reported, then dropped.
        for frame in 1...(tracker.options.maximumMissedFrames + 1) {
            let reports = tracker.update(with: [moved(b, -0.12 - 0.02 * Float(frame))])
            XCTAssertEqual(reports.first?.id, 1)
            XCTAssertEqual(reports.contains { $0.id == 0 }, frame <= tracker.options.coastingFrames, "frame \(frame)")
        }
        XCTAssertFalse(tracker.tracks.contains { $0.id == 0 })
        // a comes back where it was: a new ID, never 0 again.
        let back = tracker.update(with: [a])
        XCTAssertEqual(back.last?.id, 2)
        tracker.reset()
        XCTAssertEqual(tracker.update(with: [a]).map(\.id), [3])
    }

    /// Acceptance: two objects crossing without full occlusion keep their IDs (synthetic video from real
    /// photos, COCO SSD detector, stream mode).
    func testNoIDSwitchWhenTwoObjectsCross() throws {
        var options = options(classifier: nil)
        options.detectorMode = .stream
        options.shouldEnableMultipleObjects = true
        let detector = try ObjectDetector.objectDetector(options: options)
        let video = SyntheticVideo.crossing
        let renderer = try SyntheticVideo.Renderer(video, imagesDirectory: Paths.shared.appendingPathComponent("images").path)
        var metrics = TrackingMetrics()
        var maximumOcclusion = 0.0
        for index in 0..<video.frameCount {
            let (image, truth) = try renderer.frame(index)
            maximumOcclusion = max(maximumOcclusion, truth.map(\.occluded).max() ?? 0)
            metrics.add(truth: truth, visibilityCutoff: video.visibilityCutoff, objects: try detector.results(in: VisionImage(image: image)))
        }
        XCTAssertGreaterThan(maximumOcclusion, 0.1, "the objects should overlap")
        XCTAssertLessThan(maximumOcclusion, 0.8, "neither object may be fully hidden")
        XCTAssertEqual(metrics.idSwitches, 0, "\(metrics)")
        XCTAssertEqual(metrics.idsPerActor.values.map(\.count).sorted(), [1, 1], "\(metrics)")
        XCTAssertGreaterThan(metrics.mota, 0.8, "\(metrics)")
    }

    /// Stream mode labels at most `classificationsPerFrame` objects per frame; the others get labels in later frames.
    func testStreamModeLabelsObjectsOverSeveralFrames() throws {
        var options = options()
        options.shouldEnableMultipleObjects = true
        options.shouldEnableClassification = true
        options.classificationConfidenceThreshold = 0
        options.classificationsPerFrame = 1
        let detector = try ObjectDetector.objectDetector(options: options)
        let frame = try VisionImage(contentsOfFile: Paths.image("kite_and_cold.jpg"))
        let first = try detector.results(in: frame)
        XCTAssertGreaterThanOrEqual(first.count, 3)
        XCTAssertEqual(first.filter { !$0.labels.isEmpty }.count, 1)
        var last = first
        for _ in 1..<first.count { last = try detector.results(in: frame) }
        XCTAssertEqual(Set(last.compactMap(\.trackingID)), Set(first.compactMap(\.trackingID)), "a still frame keeps its IDs")
        XCTAssertTrue(last.allSatisfy { !$0.labels.isEmpty }, "every object labelled after \(first.count) frames")
    }

    /// Captions (and so annotated images) show the classifier's best label, else the detector's class, else "object".
    func testCaptionPrefersTheClassifierThenTheDetectorsClass() throws {
        let frame = CGRect(x: 1, y: 2, width: 30, height: 40)
        let dog = ObjectLabel(text: "dog", confidence: 0.78, index: 17)
        let sculpture = ObjectLabel(text: "Sculpture", confidence: 0.46, index: 3)
        XCTAssertEqual(Object(frame: frame, trackingID: nil, labels: [sculpture], detectionConfidence: 0.78, detectorLabel: dog).caption, "Sculpture 0.46")
        XCTAssertEqual(Object(frame: frame, trackingID: 4, labels: [], detectionConfidence: 0.78, detectorLabel: dog).caption, "#4 dog 0.78")
        let unnamed = ObjectLabel(text: nil, confidence: 0.9, index: 0)
        XCTAssertEqual(Object(frame: frame, trackingID: nil, labels: [], detectionConfidence: 0.9, detectorLabel: unnamed).caption, "object 0.90")
        XCTAssertEqual(Object(frame: frame, trackingID: nil, labels: [], detectionConfidence: 0.5).caption, "object 0.50")
        // The caption is what is drawn: the detector's class changes the picture when there is no classifier label.
        let image = try Image(width: 96, height: 96, pixels: [UInt8](repeating: 0, count: 96 * 96 * 3))
        let withClass = image.annotated(with: [Object(frame: frame, trackingID: nil, labels: [], detectionConfidence: 0.78, detectorLabel: dog)])
        let without = image.annotated(with: [Object(frame: frame, trackingID: nil, labels: [], detectionConfidence: 0.78)])
        XCTAssertNotEqual(withClass.pixels, without.pixels)
    }

    /// Stream mode: a tracked object carries the class and score of its latest detection.
    func testStreamModeObjectsCarryTheDetectorsClass() throws {
        var options = options(classifier: nil)
        options.shouldEnableMultipleObjects = true
        let detector = try ObjectDetector.objectDetector(options: options)
        let frame = try VisionImage(contentsOfFile: Paths.image("pets.jpg"))
        for _ in 0..<2 {
            let objects = try detector.results(in: frame)
            XCTAssertEqual(objects.count, 2)
            XCTAssertEqual(objects.map { $0.detectorLabel?.text }, ["dog", "dog"])
            XCTAssertEqual(objects.map { $0.detectorLabel?.confidence }, objects.map(\.detectionConfidence))
        }
    }

    func testAsyncAndCompletionForms() async throws {
        var options = options(classifier: nil)
        options.detectorMode = .singleImage
        let detector = try ObjectDetector.objectDetector(options: options)
        let image = try VisionImage(contentsOfFile: Paths.image("pets.jpg"))
        let viaAsync = try await detector.process(image)
        let viaSync = try detector.results(in: image)
        XCTAssertEqual(viaAsync, viaSync)
        let done = expectation(description: "completion")
        detector.process(image) { objects, error in
            XCTAssertNil(error)
            XCTAssertEqual(objects, viaSync)
            done.fulfill()
        }
        await fulfillment(of: [done], timeout: 30)
    }
}

extension TaskError {
    /// The case name, for asserting which kind of error was thrown.
    var kind: String {
        switch self {
        case .invalidArgument: return "invalidArgument"
        case .failedPrecondition: return "failedPrecondition"
        case .notFound: return "notFound"
        case .unimplemented: return "unimplemented"
        case .model: return "model"
        case .image: return "image"
        case .io: return "io"
        }
    }
}
