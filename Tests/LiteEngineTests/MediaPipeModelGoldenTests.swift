import Foundation
@testable import LiteEngine
import XCTest

/// The MediaPipe models that need MediaPipe's custom ops (the selfie segmenters: Convolution2DTransposeBias; the face
/// mesh with attention: Landmarks2TransformMatrix, TransformTensorBilinear, TransformLandmarks), as the mediapipe wheel
/// ships them, on real photos, compared with MediaPipe's own CPU inference.
///
/// The goldens and the models' paths come from `tools/make_mediapipe_op_goldens.py models` (run with
/// `.venv-mediapipe/bin/python` after `tools/setup.sh --mediapipe`) under .goldens/mediapipe/, not committed; tools/test.sh
/// makes them, and without them the tests fail.
final class MediaPipeModelGoldenTests: XCTestCase {
    struct Entry: Decodable {
        let model: String
        let images: [String]
        let outputs: Int
    }

    static let folder = TestPaths.packageRoot.appendingPathComponent(".goldens/mediapipe")

    func check(_ name: String, threads: Int = 1) throws {
        let url = Self.folder.appendingPathComponent("manifest.json")
        guard FileManager.default.fileExists(atPath: url.path) else {
            return XCTFail("no MediaPipe model goldens: tools/setup.sh --mediapipe, then .venv-mediapipe/bin/python tools/make_mediapipe_op_goldens.py models")
        }
        let manifest = try JSONDecoder().decode([String: Entry].self, from: Data(contentsOf: url))
        let entry = try XCTUnwrap(manifest[name], "\(name) missing from \(url.path)")
        guard FileManager.default.fileExists(atPath: entry.model) else { return XCTFail("\(entry.model) is gone: run the script again") }
        XCTAssertFalse(entry.images.isEmpty)
        for image in entry.images {
            let folder = Self.folder.appendingPathComponent("\(name)/\(image)")
            let input = try NumPyArray(contentsOf: folder.appendingPathComponent("input_0.npy").path)
            let outputs = try runModel(entry.model, inputs: [input], options: .init(threads: threads))
            XCTAssertEqual(outputs.count, entry.outputs)
            for i in 0..<min(outputs.count, entry.outputs) {
                let reference = try NumPyArray(contentsOf: folder.appendingPathComponent("output_\(i).npy").path)
                assertClose(outputs[i], reference, "\(name) on \(image), output \(i)")
            }
        }
    }

    func testSelfieSegmentation() throws { try check("selfie_segmentation") }

    func testSelfieSegmentationLandscape() throws { try check("selfie_segmentation_landscape", threads: 4) }

    func testFaceLandmarkWithAttention() throws { try check("face_landmark_with_attention") }
}
