import Foundation
import TensorFlowLiteCompat
import XCTest

/// The value types and options as TensorFlowLiteSwift code writes them.
final class APISurfaceTests: XCTestCase {
    final class CPUOnlyDelegate: Delegate {}

    func testOptionsDefaultsAndDelegatesAreKept() throws {
        let defaults = Interpreter.Options()
        XCTAssertNil(defaults.threadCount)
        XCTAssertFalse(defaults.isXNNPackEnabled)

        var options = Interpreter.Options()
        options.threadCount = 1
        options.isXNNPackEnabled = true
        XCTAssertNotEqual(options, defaults)
        let delegate = CPUOnlyDelegate()
        let interpreter = try Interpreter(modelPath: TestPaths.model("classification/mobilenet_v1_0.25_128_quant.tflite"),
                                          options: options, delegates: [delegate])
        XCTAssertEqual(interpreter.options, options)
        XCTAssertTrue(interpreter.delegates?.first === delegate)
        XCTAssertNil(try Interpreter(modelPath: TestPaths.model("classification/mobilenet_v1_0.25_128_quant.tflite")).options)
        try interpreter.allocateTensors()
        XCTAssertEqual(try interpreter.input(at: 0).shape, [1, 128, 128, 3])
        XCTAssertEqual(interpreter.signatureKeys, [])
    }

    func testShapeSpellings() {
        let literal: Tensor.Shape = [1, 224, 224, 3]
        XCTAssertEqual(literal, Tensor.Shape([1, 224, 224, 3]))
        XCTAssertEqual(literal, Tensor.Shape(1, 224, 224, 3))
        XCTAssertEqual(literal.rank, 4)
        XCTAssertEqual(literal.dimensions, [1, 224, 224, 3])
        XCTAssertEqual(Tensor.Shape([]).rank, 0)
        XCTAssertNotEqual(literal, [1, 3, 224, 224])
    }

    /// The inference steps of TensorFlow Lite's guide for Swift, written as there: output bytes copied into a
    /// `Float32` buffer sized from the shape, errors caught as `InterpreterError`; on a float MobileNet V1 with LiteRT's
    /// scores for each photo.
    func testTheGuidesInferenceSteps() throws {
        for folder in try TestPaths.goldenInputs("mobilenet_v1_0.25_224_1_metadata_1") {
            let inputData = try npyData(folder.appendingPathComponent("input_0.npy"))
            var scores: [Float32] = []
            do {
                let interpreter = try Interpreter(modelPath: TestPaths.model("classification/mobilenet_v1_0.25_224_1_metadata_1.tflite"))
                try interpreter.allocateTensors()
                try interpreter.copy(inputData, toInputAt: 0)
                try interpreter.invoke()
                let outputTensor = try interpreter.output(at: 0)
                let outputSize = outputTensor.shape.dimensions.reduce(1, { x, y in x * y })
                let outputData = UnsafeMutableBufferPointer<Float32>.allocate(capacity: outputSize)
                defer { outputData.deallocate() }
                XCTAssertEqual(outputTensor.data.copyBytes(to: outputData), outputSize * MemoryLayout<Float32>.size)
                scores = Array(outputData)
            } catch let error as InterpreterError {
                XCTFail("\(folder.lastPathComponent): \(error)")
            }
            let reference = try npyFloats(folder.appendingPathComponent("output_0.npy"))
            assertClose(scores, reference, folder.lastPathComponent)
            XCTAssertEqual(topIndex(scores), topIndex(reference), "\(folder.lastPathComponent): top-1")
        }
    }
}
