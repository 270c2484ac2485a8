import Foundation
import TensorFlowLiteCompat
import XCTest

/// `SignatureRunner` as TensorFlowLiteSwift's signature API is used: inputs and outputs by the signature's names,
/// checked against LiteRT's recorded calls (LiteEngineTests' signature goldens, tools/make_signature_goldens.py).
final class SignatureRunnerTests: XCTestCase {
    struct Step: Decodable {
        let signature: String
        let inputs: [String: String]
        let outputs: [String: String]
    }

    struct Recording: Decodable { let steps: [Step] }

    let folder = TestPaths.engineGoldens.appendingPathComponent("signatures/linear_regression_train_infer")

    /// On-device training as TensorFlow Lite's guide writes it: `train` steps update the model's variables and
    /// `infer` reads them. Each call, through `invoke(with:)`, must give LiteRT's outputs for the same sequence.
    func testTrainAndInferSignaturesGiveLiteRTsOutputs() throws {
        let recording = try JSONDecoder().decode(Recording.self, from: Data(contentsOf: folder.appendingPathComponent("steps.json")))
        let interpreter = try Interpreter(modelPath: folder.appendingPathComponent("model.tflite").path)
        XCTAssertEqual(Set(interpreter.signatureKeys), ["infer", "train"])

        let train = try interpreter.signatureRunner(with: "train")
        XCTAssertEqual(train.signatureKey, "train")
        XCTAssertEqual(train.inputs, ["target", "x"])
        XCTAssertEqual(train.outputs, ["b", "loss"])
        let infer = try interpreter.signatureRunner(with: "infer")
        XCTAssertEqual(infer.inputs, ["x"])
        XCTAssertEqual(infer.outputs, ["y"])
        let runners = ["train": train, "infer": infer]

        XCTAssertGreaterThanOrEqual(recording.steps.count, 3)
        for (i, step) in recording.steps.enumerated() {
            let runner = try XCTUnwrap(runners[step.signature])
            var inputs: [String: Data] = [:]
            for (name, file) in step.inputs { inputs[name] = try npyData(folder.appendingPathComponent(file)) }
            try runner.invoke(with: inputs)
            for (name, file) in step.outputs {
                let output = try runner.output(named: name)
                XCTAssertEqual(output.dataType, .float32)
                assertClose(try XCTUnwrap([Float](unsafeData: output.data)), try npyFloats(folder.appendingPathComponent(file)),
                            "step \(i) \(step.signature) \(name)")
            }
        }
    }

    /// `copy(_:toInputNamed:)` and `input(named:)`, then `invoke(with: [:])` on the inputs as copied.
    func testCopyByNameThenInvokeWithNoData() throws {
        let recording = try JSONDecoder().decode(Recording.self, from: Data(contentsOf: folder.appendingPathComponent("steps.json")))
        let step = try XCTUnwrap(recording.steps.first { $0.signature == "train" })
        let interpreter = try Interpreter(modelPath: folder.appendingPathComponent("model.tflite").path)
        let train = try interpreter.signatureRunner(with: "train")
        try train.allocateTensors()
        for (name, file) in step.inputs {
            let data = try npyData(folder.appendingPathComponent(file))
            try train.copy(data, toInputNamed: name)
            let input = try train.input(named: name)
            XCTAssertEqual(input.data, data)
            XCTAssertEqual(input.shape, name == "x" ? [3, 2] : [3, 3])
        }
        try train.invoke(with: [:])
        let loss = try XCTUnwrap([Float](unsafeData: try train.output(named: "loss").data))
        // The first train call in the recording starts from the model's initial variables, as this one does.
        let first = try XCTUnwrap(recording.steps.first)
        XCTAssertEqual(first.signature, "train")
        assertClose(loss, try npyFloats(folder.appendingPathComponent(try XCTUnwrap(first.outputs["loss"]))), "loss")
    }

    func testUnknownNamesAndWrongSizesThrowSignatureRunnerErrors() throws {
        let interpreter = try Interpreter(modelPath: folder.appendingPathComponent("model.tflite").path)
        assertThrows(SignatureRunnerError.failedToCreateSignatureRunner(signatureKey: "serving_default"),
                     try interpreter.signatureRunner(with: "serving_default"))
        let infer = try interpreter.signatureRunner(with: "infer")
        assertThrows(SignatureRunnerError.failedToGetTensor(tensorType: "input", nameInSignature: "y"), try infer.input(named: "y"))
        assertThrows(SignatureRunnerError.failedToGetTensor(tensorType: "output", nameInSignature: "x"), try infer.output(named: "x"))
        assertThrows(SignatureRunnerError.failedToGetTensor(tensorType: "input", nameInSignature: "nope"),
                     try infer.invoke(with: ["nope": Data(count: 24)]))
        assertThrows(SignatureRunnerError.invalidTensorDataCount(provided: 4, required: 24), try infer.copy(Data(count: 4), toInputNamed: "x"))
        assertThrows(SignatureRunnerError.failedToResizeInputTensor(inputName: "nope"), try infer.resizeInput(named: "nope", toShape: [3, 2]))
        XCTAssertEqual("\(SignatureRunnerError.failedToCreateSignatureRunner(signatureKey: "k"))",
                       "Failed to create a signature runner. Signature with key (k) not found.")
        XCTAssertEqual(SignatureRunnerError.failedToGetTensor(tensorType: "input", nameInSignature: "y").localizedDescription,
                       "Failed to get input tensor with input name (y).")
    }

    /// A signature whose input is resizable: resized by name, and run by `invoke(with:)`, which allocates itself;
    /// reading or copying before an allocation throws `allocateTensorsRequired`.
    func testResizeInputByNameThenInvoke() throws {
        let op = TestPaths.engineGoldens.appendingPathComponent("ops/keras_upsample_concat_resizable_hw")
        let interpreter = try Interpreter(modelPath: op.appendingPathComponent("model.tflite").path)
        XCTAssertEqual(interpreter.signatureKeys, ["serving_default"])
        let runner = try interpreter.signatureRunner(with: "serving_default")
        XCTAssertEqual(runner.inputs, ["input_12"])
        XCTAssertEqual(runner.outputs, ["concatenate"])

        try runner.resizeInput(named: "input_12", toShape: [2, 8, 6, 4])
        let data = try npyData(op.appendingPathComponent("input_0.npy"))
        assertThrows(SignatureRunnerError.allocateTensorsRequired, try runner.copy(data, toInputNamed: "input_12"))
        assertThrows(SignatureRunnerError.allocateTensorsRequired, try runner.input(named: "input_12"))
        try runner.invoke(with: ["input_12": data])
        let output = try runner.output(named: "concatenate")
        XCTAssertEqual(output.shape, [2, 8, 6, 8])
        assertClose(try XCTUnwrap([Float](unsafeData: output.data)), try npyFloats(op.appendingPathComponent("output_0.npy")), "concatenate")
        // Any dimension may change (TensorFlow Lite's non-strict resize), but not to a negative size.
        assertThrows(SignatureRunnerError.failedToResizeInputTensor(inputName: "input_12"),
                     try runner.resizeInput(named: "input_12", toShape: [2, -8, 6, 4]))
    }
}
