import Foundation
@testable import LiteEngine
import LiteFormat
import XCTest

/// Real float models on real photos, compared with LiteRT (goldens from tools/make_model_goldens.py, which
/// .ci/run runs first; a missing golden is a failure, not a skip).
/// Loads a model's goldens and compares our outputs with LiteRT's.
struct ModelGoldenChecker {
    struct Entry: Decodable {
        let model: String
        let images: [String]
        let outputs: Int
        let detection: Bool
    }

    func manifest() throws -> [String: Entry] {
        let url = TestPaths.modelGoldens.appendingPathComponent("manifest.json")
        guard FileManager.default.fileExists(atPath: url.path) else {
            XCTFail("no model goldens at \(url.path): run python3 tools/make_model_goldens.py")
            return [:]
        }
        return try JSONDecoder().decode([String: Entry].self, from: Data(contentsOf: url))
    }

    /// `numerics`: the modes to check (both for quantized models: `fast` must also equal LiteRT on these inputs).
    func check(_ name: String, threads: Int = 1, numerics: [Numerics] = [.fast]) throws {
        for mode in numerics { try check(name, threads: threads, mode: mode) }
    }

    private func check(_ name: String, threads: Int, mode: Numerics) throws {
        guard let entry = try manifest()[name] else { return XCTFail("\(name) missing from the model goldens") }
        XCTAssertGreaterThanOrEqual(entry.images.count, 5)
        let model = try TestPaths.model(entry.model)
        for image in entry.images {
            let folder = TestPaths.modelGoldens.appendingPathComponent("\(name)/\(image)")
            let input = try NumPyArray(contentsOf: folder.appendingPathComponent("input_0.npy").path)
            let outputs = try runModel(model, inputs: [input], options: .init(threads: threads, numerics: mode))
            let references = try (0..<entry.outputs).map { try NumPyArray(contentsOf: folder.appendingPathComponent("output_\($0).npy").path) }
            XCTAssertEqual(outputs.count, references.count)
            let quantizedFast = mode == .fast && references.contains { $0.type == .uint8 || $0.type == .int8 } || (mode == .fast && numericsDiffer(model))
            if entry.detection {
                if quantizedFast {
                    checkTopDetection(outputs, references, "\(name) on \(image) (fast)")
                } else {
                    checkDetections(outputs, references, "\(name) on \(image) (\(mode))")
                }
            } else {
                for (i, (ours, reference)) in zip(outputs, references).enumerated() {
                    if quantizedFast {
                        let xnnpack = try NumPyArray(contentsOf: folder.appendingPathComponent("output_\(i).xnnpack.npy").path)
                        assertWithinOneStep(ours, reference, xnnpack: xnnpack, "\(name) on \(image), output \(i) (fast)")
                        continue
                    }
                    assertClose(ours, reference, "\(name) on \(image), output \(i) (\(mode))")
                }
            }
        }
    }

    /// Whether the model has quantized kernels (their `fast` numerics may differ from LiteRT by one step).
    func numericsDiffer(_ path: String) -> Bool {
        guard let model = try? TFLiteModel(path: path) else { return false }
        return model.subgraphs.contains { $0.tensors.contains { $0.type == .uint8 || $0.type == .int8 } }
    }

    /// `fast` numerics on a detector: the same best detection (class; score within one step of the uint8 scores'
    /// scale; box within 0.01) and a detection count within one.
    func checkTopDetection(_ ours: [NumPyArray], _ reference: [NumPyArray], _ label: String) {
        let count = Int(reference[3].floats()[0]), ourCount = Int(ours[3].floats()[0])
        XCTAssertLessThanOrEqual(abs(count - ourCount), 1, "\(label): detection count \(ourCount) vs \(count)")
        guard count > 0, ourCount > 0 else { return XCTFail("\(label): no detection") }
        XCTAssertEqual(ours[1].floats()[0], reference[1].floats()[0], "\(label): top class")
        XCTAssertEqual(ours[2].floats()[0], reference[2].floats()[0], accuracy: 1 / 256 + 1e-6, "\(label): top score")
        for k in 0..<4 { XCTAssertEqual(ours[0].floats()[k], reference[0].floats()[k], accuracy: 0.01, "\(label): top box") }
    }

    /// Post-process outputs: the same count and classes, boxes and scores within tolerance, for the filled slots.
    func checkDetections(_ ours: [NumPyArray], _ reference: [NumPyArray], _ label: String) {
        let count = Int(reference[3].floats()[0])
        XCTAssertEqual(ours[3].floats(), reference[3].floats(), "\(label): detection count")
        XCTAssertGreaterThan(count, 0, "\(label): LiteRT found nothing; pick another photo")
        XCTAssertEqual(Array(ours[1].floats().prefix(count)), Array(reference[1].floats().prefix(count)), "\(label): classes")
        for (index, width) in [(0, 4), (2, 1)] {
            let a = Array(ours[index].floats().prefix(count * width)), b = Array(reference[index].floats().prefix(count * width))
            let worst = zip(a, b).map { abs($0 - $1) }.max() ?? 0
            XCTAssertLessThanOrEqual(worst, 1e-4, "\(label): output \(index) differs by \(worst)")
        }
    }

}

final class ModelGoldenTests: XCTestCase {
    let goldens = ModelGoldenChecker()

    func testMobileNetV2Float() throws { try goldens.check("mobilenet_v2_1.0_224_dequant_float") }
    func testMobileNetV2FloatTwoThreads() throws { try goldens.check("mobilenet_v2_1.0_224_dequant_float", threads: 2) }
    func testMobileNetV1WithMetadata() throws { try goldens.check("mobilenet_v1_0.25_224_1_metadata_1") }
    func testFaceDetectionShortRange() throws { try goldens.check("face_detection_short_range") }
    func testCocoSSDFloatWithPostProcess() throws { try goldens.check("coco_ssd_mobilenet_v1_1.0_dequant_float") }
}

/// The float LSTM models: tflite-micro's MNIST LSTM on its ten sample digits, and the Quick, Draw! BiLSTM stack
/// (UNIDIRECTIONAL_SEQUENCE_LSTM + REVERSE_V2) on full 3711-step stroke sequences.
final class SequenceModelGoldenTests: XCTestCase {
    let goldens = ModelGoldenChecker()

    func testMNISTLSTM() throws { try goldens.check("trained_lstm") }
    func testQuickDrawBiLSTMOn3711Steps() throws { try goldens.check("quickdraw_rnn_bilstm_345_float_noclip") }
    /// TFLite's integer LSTM (int8 weights and output state, 16-bit cell state): byte-equal to LiteRT in both modes.
    func testMNISTLSTMInt8() throws { try goldens.check("trained_lstm_int8", numerics: [.exact, .fast]) }
    func testKerasLSTMUInt8InOut() throws { try goldens.check("keras_lstm_mnist_ptq", numerics: [.exact, .fast]) }

    func testStateIsKeptAcrossInvocationsUntilReset() throws {
        let interpreter = try Interpreter(modelPath: TestPaths.model("lstm/trained_lstm.tflite"))
        let folder = TestPaths.modelGoldens.appendingPathComponent("trained_lstm/sample3")
        let input = try NumPyArray(contentsOf: folder.appendingPathComponent("input_0.npy").path)
        let reference = try NumPyArray(contentsOf: folder.appendingPathComponent("output_0.npy").path)
        try input.bytes.withUnsafeBytes { try interpreter.copy($0, toInputAt: 0) }
        try interpreter.invoke()
        assertClose(try interpreter.output(at: 0).numpy(), reference, "first invocation")
        try interpreter.invoke()
        let second = try interpreter.output(at: 0).toArray(of: Float.self)
        XCTAssertNotEqual(second, reference.floats(), "the second run starts from the first run's state")
        interpreter.resetVariableTensors()
        try interpreter.invoke()
        assertClose(try interpreter.output(at: 0).numpy(), reference, "after reset")
    }
}

/// Quantized models on real photos: `exact` numerics byte for byte equal to LiteRT's built-in kernels; `fast` within one
/// step of them with the same top-1 (in practice also byte-equal). On CPUs with AVX-512 VNNI `fast` runs the int8
/// dot-product kernels, on other AVX2 CPUs the int16 GEMM (both chosen at run time, see ``KernelConfiguration``); the
/// first test checks the float route that the baseline level takes, in the same process.
final class QuantizedModelGoldenTests: XCTestCase {
    let goldens = ModelGoldenChecker()

    func testFastRouteWithoutVNNIKernels() throws {
        QuantizedGEMM.isEnabled = false
        QuantizedGEMMAVX2.isEnabled = false
        defer {
            QuantizedGEMM.isEnabled = true
            QuantizedGEMMAVX2.isEnabled = true
        }
        try goldens.check("tf2_mobilenet_v2_1.0_224_ptq", numerics: [.fast])
        try goldens.check("mobilenet_v2_1.0_224_quant", numerics: [.fast])
    }

    /// The integer kernels follow the instruction-set level in use (tools/test.sh runs this class at every level the
    /// CPU has): the 8-bit dot products at avx512vnni, the int16 GEMM at avx2 and avx512, the float route at baseline.
    func testIntegerKernelsFollowTheLevel() throws {
        let level = KernelConfiguration.current.level
        XCTAssertEqual(QuantizedGEMM.isAvailable, level >= .avx512vnni, "\(level)")
        XCTAssertEqual(QuantizedGEMMAVX2.isAvailable, level >= .avx2, "\(level)")
        XCTAssertEqual(QuantizedGEMMAVX2.isUsed, level == .avx2 || level == .avx512, "\(level)")
    }

    func testMobileNetV2Quant() throws { try goldens.check("mobilenet_v2_1.0_224_quant", numerics: [.exact, .fast]) }
    func testMobileNetV1Quant128() throws { try goldens.check("mobilenet_v1_0.25_128_quant", numerics: [.exact, .fast]) }
    func testMobileNetV1Quant224() throws { try goldens.check("mobilenet_v1_0.25_224_quant", numerics: [.exact, .fast]) }
    func testAutoMLLabeler() throws { try goldens.check("automl_labeler_model", numerics: [.exact, .fast]) }
    func testINatBirds() throws { try goldens.check("mobilenet_v2_1.0_224_inat_bird_quant", numerics: [.exact, .fast]) }
    func testMLKitBirdClassifier() throws { try goldens.check("bird_classifier", numerics: [.exact, .fast]) }
    func testMLKitObjectLabeler() throws { try goldens.check("object_labeler", numerics: [.exact, .fast]) }
    func testTF2MobileNetV2Int8PerChannel() throws { try goldens.check("tf2_mobilenet_v2_1.0_224_ptq", numerics: [.exact, .fast]) }
    func testCocoSSDQuantWithPostProcess() throws { try goldens.check("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29", numerics: [.exact, .fast]) }
    func testCocoSSDRawOutputs() throws { try goldens.check("coco_ssd_mobilenet_v1_1.0_raw", numerics: [.exact, .fast]) }
}
