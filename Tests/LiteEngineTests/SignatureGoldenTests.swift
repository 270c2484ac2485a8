import Foundation
@testable import LiteEngine
import XCTest

/// Models with several signatures (tools/make_signature_goldens.py): each recorded call runs through a signature runner
/// of one interpreter, in LiteRT's order, and must give LiteRT's outputs; the runners share the resource variables.
final class SignatureGoldenTests: XCTestCase {
    struct Step: Decodable {
        let signature: String
        let inputs: [String: String]
        let outputs: [String: String]
    }

    struct Recording: Decodable {
        let signatures: [String: [String: [String]]]
        let steps: [Step]
    }

    func testSignatureCallsShareVariablesAsInLiteRT() throws {
        let folder = TestPaths.goldens.appendingPathComponent("signatures/linear_regression_train_infer")
        let recording = try JSONDecoder().decode(Recording.self, from: Data(contentsOf: folder.appendingPathComponent("steps.json")))
        let interpreter = try Interpreter(modelPath: folder.appendingPathComponent("model.tflite").path)
        XCTAssertEqual(Set(interpreter.signatureKeys), Set(recording.signatures.keys))
        var runners: [String: Interpreter] = [:]
        for key in interpreter.signatureKeys { runners[key] = try interpreter.signatureRunner(key) }
        XCTAssertEqual(runners["train"]?.signature?.key, "train")
        for (i, step) in recording.steps.enumerated() {
            let runner = try XCTUnwrap(runners[step.signature])
            for (name, file) in step.inputs {
                let array = try NumPyArray(contentsOf: folder.appendingPathComponent(file).path)
                let index = try XCTUnwrap((0..<runner.inputCount).first { try runner.input(at: $0).index == runner.input(named: name).index })
                try array.bytes.withUnsafeBytes { try runner.copy($0, toInputAt: index) }
            }
            try runner.invoke()
            for (name, file) in step.outputs {
                let reference = try NumPyArray(contentsOf: folder.appendingPathComponent(file).path)
                assertClose(try runner.output(named: name).numpy(), reference, "step \(i) \(step.signature) \(name)")
            }
        }
        XCTAssertThrowsError(try interpreter.signatureRunner("serving_default")) { error in
            XCTAssertTrue("\(error)".contains("no signature \"serving_default\""), "\(error)")
        }
    }

    /// Each interpreter has its own variables: a second one starts from the initial values, whatever the first did.
    func testInterpretersDoNotShareVariables() throws {
        let folder = TestPaths.goldens.appendingPathComponent("signatures/linear_regression_train_infer")
        let recording = try JSONDecoder().decode(Recording.self, from: Data(contentsOf: folder.appendingPathComponent("steps.json")))
        let first = try Interpreter(modelPath: folder.appendingPathComponent("model.tflite").path)
        let second = try Interpreter(modelPath: folder.appendingPathComponent("model.tflite").path)
        let step = recording.steps[0]
        var losses: [[Float]] = []
        for interpreter in [first, first, second] {
            let train = try interpreter.signatureRunner("train")
            for (name, file) in step.inputs {
                let array = try NumPyArray(contentsOf: folder.appendingPathComponent(file).path)
                try array.bytes.withUnsafeBytes { try train.input(named: name).data!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            }
            try train.invoke()
            losses.append(try train.output(named: "loss").numpy().floats())
        }
        let reference = try NumPyArray(contentsOf: folder.appendingPathComponent(step.outputs["loss"]!).path).floats()
        XCTAssertEqual(losses[0], reference)
        XCTAssertNotEqual(losses[1], reference, "the first interpreter's second call should see its trained variables")
        XCTAssertEqual(losses[2], reference, "a new interpreter should start from the initial values")
    }
}
