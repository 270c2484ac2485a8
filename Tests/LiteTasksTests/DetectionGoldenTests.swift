import Foundation
import LiteEngine
import LiteFormat
import LiteImage
@testable import LiteTasks
import XCTest

/// The goldens of tools/make_detection_goldens.py: MediaPipe's detector input tensors, LiteRT's SSD outputs on
/// them, classifier crops and LiteRT's labels for each crop, MediaPipe's face detections.
struct DetectionGoldens: Decodable {
    struct SSDBits: Decodable { var boxes: [UInt32]; var classes: [UInt32]; var scores: [UInt32]; var count: [UInt32] }
    struct SSDFloat: Decodable { var boxes: [[Float]]; var classes: [Float]; var scores: [Float]; var count: Int }
    struct Crop: Decodable {
        var detection: Int
        var region: [Double]
        var tensor: String
        var objectLabeler: [[Double]]
        var birdClassifier: [[Double]]
    }
    struct Photo: Decodable { var input: String; var ssd: SSDBits; var ssdFloat: SSDFloat; var crops: [Crop] }
    struct Face: Decodable {
        struct Detection: Decodable { var box: [Float]; var score: Float }
        var image: String
        var input: String
        var detections: [Detection]
    }
    var detectorThreshold: Float
    var cropMargin: Double
    var photos: [String: Photo]
    var face: Face
    struct MediaPipeDetections: Decodable { var image: String; var boxes: [[Double]] }
    var mediapipeObjectDetector: MediaPipeDetections

    static let shared: DetectionGoldens = {
        let url = Paths.packageRoot.appendingPathComponent("Tests/LiteTasksTests/Goldens/detection.json")
        return try! JSONDecoder().decode(DetectionGoldens.self, from: Data(contentsOf: url))
    }()
}

extension DetectionGoldens.SSDBits {
    func floats(_ bits: [UInt32]) -> [Float] { bits.map(Float.init(bitPattern:)) }
    /// The first `count` detections as proposals.
    var proposals: [ObjectProposal] {
        let b = floats(boxes), c = floats(classes), s = floats(scores)
        return (0..<Int(Float(bitPattern: count[0]))).map { i in
            ObjectProposal(box: DetectionBox(ymin: b[4 * i], xmin: b[4 * i + 1], ymax: b[4 * i + 2], xmax: b[4 * i + 3]), score: s[i], classIndex: Int(c[i]))
        }
    }
}

final class DetectionGoldenTests: XCTestCase {
    let goldens = DetectionGoldens.shared
    static let ssdQuant = Paths.model("detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite")

    func upright(_ name: String) throws -> Image {
        try Image.decode(contentsOfFile: Paths.image(name)).image
    }

    func testCropMarginMatchesTheGoldenScript() {
        XCTAssertEqual(ObjectDetector.cropMargin, goldens.cropMargin)
    }

    /// Acceptance: on five photos the quantized SSD, post-process op included, gives LiteRT's outputs bit for bit
    /// (every output slot) on MediaPipe's input tensor, in both numerics modes.
    func testQuantizedSSDEqualsLiteRTOnFivePhotos() throws {
        XCTAssertEqual(Set(goldens.photos.keys), ["pets.jpg", "cats_and_dogs.jpg", "multi_objects.jpg", "kite_and_cold.jpg", "beach.jpg"])
        for numerics in [Numerics.exact, .fast] {
            let detector = try DetectorModel(path: Self.ssdQuant, numerics: numerics)
            XCTAssertEqual(detector.decoding, .postProcessOp)
            let interpreter = try Interpreter(modelPath: Self.ssdQuant, options: .init(numerics: numerics))
            try interpreter.allocateTensors()
            for (name, photo) in goldens.photos.sorted(by: { $0.key < $1.key }) {
                let input = try detector.preprocessedInput(try upright(name))
                XCTAssertEqual(SHA256.hex(of: input), photo.input, "\(name): detector input differs from MediaPipe's")
                try input.withUnsafeBytes { try interpreter.copy($0, toInputAt: 0) }
                try interpreter.invoke()
                let outputs = try (0..<4).map { try interpreter.output(at: $0) }
                let bits = outputs.map { $0.dequantizedValues().map(\.bitPattern) }
                XCTAssertEqual(bits[0], photo.ssd.boxes, "\(name) \(numerics): boxes")
                XCTAssertEqual(bits[1], photo.ssd.classes, "\(name) \(numerics): classes")
                XCTAssertEqual(bits[2], photo.ssd.scores, "\(name) \(numerics): scores")
                XCTAssertEqual(bits[3], photo.ssd.count, "\(name) \(numerics): count")
                XCTAssertEqual(try detector.proposals(forInput: input), photo.ssd.proposals, "\(name) \(numerics): proposals")
            }
        }
    }

    /// The anchors constant of the quantized SSD's post-process op, dequantized by the engine.
    func anchorsOfTheQuantizedSSD() throws -> [DetectionAnchor] {
        let interpreter = try Interpreter(modelPath: Self.ssdQuant)
        try interpreter.allocateTensors()
        let model = interpreter.model
        let op = try XCTUnwrap(model.subgraphs[0].operators.first { model.operatorCodes[$0.opcodeIndex].customName == "TFLite_Detection_PostProcess" })
        let values = interpreter.tensors[op.inputs[2]].dequantizedValues()
        return stride(from: 0, to: values.count, by: 4).map { DetectionAnchor(yCenter: values[$0], xCenter: values[$0 + 1], height: values[$0 + 2], width: values[$0 + 3]) }
    }

    /// The SSD without its post-process op, decoded by SSDDecoding, gives the op's result: bit for bit with the
    /// op's own anchors; with the sidecar JSON's anchors (printed to 7 digits) the same detections, boxes within
    /// float rounding.
    func testRawSSDDecodedByUsEqualsThePostProcessOp() throws {
        let raw = try DetectorModel(path: Paths.model("detection/coco_ssd_mobilenet_v1_1.0_raw.tflite"), numerics: .exact)
        guard case .raw(var decoding) = raw.decoding else { return XCTFail("the raw SSD should decode with its anchors JSON") }
        let exactAnchors = try anchorsOfTheQuantizedSSD()
        XCTAssertEqual(decoding.anchors.count, 1917)
        XCTAssertEqual(exactAnchors.count, 1917)
        for (a, b) in zip(decoding.anchors, exactAnchors) {
            XCTAssertEqual(a.yCenter, b.yCenter, accuracy: 1e-6); XCTAssertEqual(a.width, b.width, accuracy: 1e-6)
        }
        decoding.anchors = exactAnchors
        let exact = try DetectorModel(resources: raw.resources, decoding: decoding, numerics: .exact)
        for (name, photo) in goldens.photos.sorted(by: { $0.key < $1.key }) {
            let input = try raw.preprocessedInput(try upright(name))
            XCTAssertEqual(SHA256.hex(of: input), photo.input, name)
            XCTAssertEqual(try exact.proposals(forInput: input), photo.ssd.proposals, "\(name): our decoding and NMS differ from TFLite_Detection_PostProcess")
            let fromJSON = try raw.proposals(forInput: input)
            XCTAssertEqual(fromJSON.map(\.classIndex), photo.ssd.proposals.map(\.classIndex), name)
            XCTAssertEqual(fromJSON.map(\.score), photo.ssd.proposals.map(\.score), name)
            for (a, b) in zip(fromJSON, photo.ssd.proposals) {
                XCTAssertEqual(a.box.ymin, b.box.ymin, accuracy: 1e-6); XCTAssertEqual(a.box.xmax, b.box.xmax, accuracy: 1e-6)
            }
        }
    }

    /// The float SSD (no metadata; the authors' (px - 128) / 128) within float tolerance of LiteRT.
    func testFloatSSDMatchesLiteRT() throws {
        let detector = try DetectorModel(path: Paths.model("detection/coco_ssd_mobilenet_v1_1.0_dequant_float.tflite"), normalization: (128, 128))
        for (name, photo) in goldens.photos.sorted(by: { $0.key < $1.key }) {
            let proposals = try detector.proposals(in: try upright(name))
            XCTAssertEqual(proposals.count, photo.ssdFloat.count, name)
            for (i, proposal) in proposals.enumerated() where i < photo.ssdFloat.count {
                XCTAssertEqual(proposal.classIndex, Int(photo.ssdFloat.classes[i]), "\(name) #\(i)")
                XCTAssertEqual(proposal.score, photo.ssdFloat.scores[i], accuracy: 1e-4, "\(name) #\(i)")
                let box = [proposal.box.ymin, proposal.box.xmin, proposal.box.ymax, proposal.box.xmax]
                for k in 0..<4 { XCTAssertEqual(box[k], photo.ssdFloat.boxes[i][k], accuracy: 1e-4, "\(name) #\(i)") }
            }
        }
    }

    /// Acceptance: each object's crop is MediaPipe's resample of the same region, and object_labeler's and
    /// bird_classifier's labels for it equal LiteRT's on that crop tensor.
    func testCropsAndTheirLabelsEqualLiteRT() throws {
        var labeler = ImageClassifierOptions()
        labeler.baseOptions.modelAssetPath = Paths.model("mlkit/object_labeler.tflite")
        labeler.maxResults = 10
        let objectLabeler = try ImageClassifier(options: labeler)
        var birds = ImageClassifierOptions()
        birds.baseOptions.modelAssetPath = Paths.model("mlkit/bird_classifier.tflite")
        birds.maxResults = 3
        birds.scoreThreshold = 0
        let birdClassifier = try ImageClassifier(options: birds)
        var crops = 0
        for (name, photo) in goldens.photos.sorted(by: { $0.key < $1.key }) {
            let image = MPImage(image: try upright(name))
            let proposals = photo.ssd.proposals
            for crop in photo.crops {
                let region = try XCTUnwrap(ObjectDetector.cropRegion(proposals[crop.detection].box))
                XCTAssertEqual([region.minX, region.minY, region.width, region.height], crop.region, "\(name) #\(crop.detection)")
                XCTAssertEqual(SHA256.hex(of: try objectLabeler.preprocessedInput(image, regionOfInterest: region)), crop.tensor, "\(name) #\(crop.detection): crop tensor")
                let labels = try objectLabeler.classify(image: image, regionOfInterest: region).classificationResult.classifications[0].categories
                XCTAssertEqual(labels.map { [Double($0.index), Double($0.score)] }, crop.objectLabeler, "\(name) #\(crop.detection): object_labeler")
                let top = try birdClassifier.classify(image: image, regionOfInterest: region).classificationResult.classifications[0].categories
                XCTAssertEqual(top.map { [Double($0.index), Double($0.score)] }, crop.birdClassifier, "\(name) #\(crop.detection): bird_classifier")
                crops += 1
            }
        }
        XCTAssertGreaterThanOrEqual(crops, 20)
    }

    /// End to end through ML Kit's API: single image, multiple objects, classification with object_labeler.
    func testObjectDetectorEndToEnd() throws {
        var options = CustomObjectDetectorOptions(localModel: LocalModel(path: Paths.model("mlkit/object_labeler.tflite")))
        options.detectorModel = .local(LocalModel(path: Self.ssdQuant))
        options.detectorMode = .singleImage
        options.shouldEnableMultipleObjects = true
        options.shouldEnableClassification = true
        options.numerics = .exact
        options.detectorScoreThreshold = goldens.detectorThreshold
        let detector = try ObjectDetector.objectDetector(options: options)
        for (name, photo) in goldens.photos.sorted(by: { $0.key < $1.key }) {
            let image = try VisionImage(contentsOfFile: Paths.image(name))
            let objects = try detector.results(in: image)
            let expected = Array(photo.crops.prefix(ObjectDetector.maximumObjects))
            XCTAssertEqual(objects.count, expected.count, name)
            let proposals = photo.ssd.proposals
            for (object, crop) in zip(objects, expected) {
                XCTAssertNil(object.trackingID)
                let box = proposals[crop.detection].box
                XCTAssertEqual(object.frame.minX, Double(max(0, box.xmin)) * Double(image.width), accuracy: 1e-3, name)
                XCTAssertEqual(object.frame.maxY, Double(min(1, box.ymax)) * Double(image.height), accuracy: 1e-3, name)
                XCTAssertEqual(object.labels.map { [Double($0.index), Double($0.confidence)] }, crop.objectLabeler, name)
                XCTAssertTrue(object.labels.allSatisfy { $0.text != nil })
            }
        }
    }

    /// Beyond ML Kit: each object's `detectorLabel` is LiteRT's class and score for its detection (the classes and
    /// scores outputs recorded in the goldens), named by the COCO label map packed in the model's metadata (the same
    /// as ../shared's labelmap.txt); ML Kit's `labels` stay empty without classification.
    func testDetectorLabelIsTheSSDsOwnClassAndScore() throws {
        let labelMap = try String(contentsOfFile: Paths.model("detection/labelmap.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        XCTAssertEqual(labelMap.count, 90)
        var options = CustomObjectDetectorOptions()
        options.detectorModel = .local(LocalModel(path: Self.ssdQuant))
        options.detectorMode = .singleImage
        options.shouldEnableMultipleObjects = true
        options.numerics = .exact
        options.detectorScoreThreshold = goldens.detectorThreshold
        let detector = try ObjectDetector.objectDetector(options: options)
        XCTAssertEqual(detector.detector.labels.map(\.name), labelMap)
        var checked = 0
        for (name, photo) in goldens.photos.sorted(by: { $0.key < $1.key }) {
            let objects = try detector.results(in: try VisionImage(contentsOfFile: Paths.image(name)))
            let expected = Array(photo.crops.prefix(ObjectDetector.maximumObjects))
            XCTAssertEqual(objects.count, expected.count, name)
            let classes = photo.ssd.floats(photo.ssd.classes), scores = photo.ssd.floats(photo.ssd.scores)
            for (object, crop) in zip(objects, expected) {
                let label = try XCTUnwrap(object.detectorLabel, name)
                XCTAssertEqual(label.index, Int(classes[crop.detection]), "\(name) #\(crop.detection)")
                XCTAssertEqual(label.confidence, scores[crop.detection], "\(name) #\(crop.detection)")
                XCTAssertEqual(label.text, labelMap[Int(classes[crop.detection])], "\(name) #\(crop.detection)")
                XCTAssertEqual(object.detectionConfidence, label.confidence)
                XCTAssertTrue(object.labels.isEmpty)
                checked += 1
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 15)
        let pets = try detector.results(in: try VisionImage(contentsOfFile: Paths.image("pets.jpg")))
        XCTAssertEqual(pets.map { $0.detectorLabel?.text }, ["dog", "dog"])
        XCTAssertEqual(pets.map(\.caption), pets.map { String(format: "dog %.2f", $0.detectionConfidence) }, "no classifier label: the caption is the detector's class")

        // The raw SSD has no metadata: no label map, the same class indices; a label map can be given.
        let raw = Paths.model("detection/coco_ssd_mobilenet_v1_1.0_raw.tflite")
        XCTAssertEqual(try DetectorModel(path: raw).labels, [])
        let named = try DetectorModel(path: raw, labels: labelMap, numerics: .exact)
        let proposals = try named.proposals(in: try upright("pets.jpg")).filter { $0.score >= goldens.detectorThreshold }
        XCTAssertEqual(proposals.map { named.labelText(ofClass: $0.classIndex) }, ["dog", "dog"])
        XCTAssertNil(named.labelText(ofClass: 90))
    }

    /// MediaPipe's own ObjectDetector with the same SSD: the same objects, boxes within 3 pixels (it runs XNNPACK,
    /// whose rounding moves the box encodings slightly).
    func testMediaPipeObjectDetectorFindsTheSameBoxes() throws {
        let expected = goldens.mediapipeObjectDetector
        let image = try upright(expected.image)
        let proposals = try DetectorModel(path: Self.ssdQuant).proposals(in: image).filter { $0.score >= goldens.detectorThreshold }
        XCTAssertEqual(proposals.count, expected.boxes.count)
        for (p, box) in zip(proposals, expected.boxes) {
            let ours = [Double(p.box.xmin) * Double(image.width), Double(p.box.ymin) * Double(image.height),
                        Double(p.box.width) * Double(image.width), Double(p.box.height) * Double(image.height)]
            for k in 0..<4 { XCTAssertEqual(ours[k], box[k], accuracy: 3, "\(ours) vs MediaPipe \(box)") }
        }
    }

    /// MediaPipe-style anchors from face_detection_short_range.pbtxt, decoded and weighted-suppressed, against
    /// MediaPipe's own SsdAnchors/TensorsToDetections/NonMaxSuppression calculators.
    func testFaceDetectorWithMediaPipeAnchorsMatchesMediaPipe() throws {
        let detector = try DetectorModel(path: Paths.model("detection/face_detection_short_range.tflite"))
        guard case .raw(let decoding) = detector.decoding else { return XCTFail("the face model should decode with its pbtxt") }
        XCTAssertEqual(decoding.anchors.count, 896)
        XCTAssertEqual(decoding.suppression, .weighted)
        let image = try upright(goldens.face.image)
        XCTAssertEqual(SHA256.hex(of: try detector.preprocessedInput(image)), goldens.face.input, "face input tensor differs from MediaPipe's")
        let faces = try detector.proposals(in: image)
        XCTAssertEqual(faces.count, goldens.face.detections.count)
        for (face, expected) in zip(faces, goldens.face.detections) {
            XCTAssertEqual(face.score, expected.score, accuracy: 1e-5)
            let box = [face.box.ymin, face.box.xmin, face.box.ymax, face.box.xmax]
            for k in 0..<4 { XCTAssertEqual(box[k], expected.box[k], accuracy: 1e-5) }
        }
    }
}
