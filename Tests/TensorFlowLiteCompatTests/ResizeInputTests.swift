import Foundation
import TensorFlowLiteCompat
import XCTest

/// `resizeInput(at:to:)` then `allocateTensors()`, as TensorFlowLiteSwift documents it, on models with resizable
/// dimensions, compared with LiteRT's outputs at the resized shapes (LiteEngineTests' op goldens).
final class ResizeInputTests: XCTestCase {
    func opGolden(_ name: String) -> URL { TestPaths.engineGoldens.appendingPathComponent("ops/\(name)") }

    /// A convolution with a resizable batch: resized from 1 to 3 images, the tensors must be allocated again before
    /// they are read, written or run (outputs say `invokeInterpreterRequired`); then three images run at once.
    func testResizedBatchMustBeAllocatedThenRuns() throws {
        let folder = opGolden("conv_dynamic_batch_resized")
        let interpreter = try Interpreter(modelPath: folder.appendingPathComponent("model.tflite").path)
        try interpreter.allocateTensors()
        XCTAssertEqual(try interpreter.input(at: 0).shape, [1, 6, 6, 3])

        try interpreter.resizeInput(at: 0, to: [3, 6, 6, 3])
        assertThrows(InterpreterError.allocateTensorsRequired, try interpreter.input(at: 0))
        assertThrows(InterpreterError.invokeInterpreterRequired, try interpreter.output(at: 0))
        assertThrows(InterpreterError.allocateTensorsRequired, try interpreter.copy(Data(count: 3 * 6 * 6 * 3 * 4), toInputAt: 0))
        assertThrows(InterpreterError.allocateTensorsRequired, try interpreter.invoke())

        try interpreter.allocateTensors()
        let inputTensor = try interpreter.input(at: 0)
        XCTAssertEqual(inputTensor.shape, [3, 6, 6, 3])
        XCTAssertEqual(inputTensor.data.count, 3 * 6 * 6 * 3 * MemoryLayout<Float>.size)
        try interpreter.copy(try npyData(folder.appendingPathComponent("input_0.npy")), toInputAt: 0)
        try interpreter.invoke()
        let outputTensor = try interpreter.output(at: 0)
        XCTAssertEqual(outputTensor.shape, [3, 6, 6, 4])
        assertClose(try XCTUnwrap([Float](unsafeData: outputTensor.data)), try npyFloats(folder.appendingPathComponent("output_0.npy")),
                    "conv at batch 3")

        // Resizing to the current shape changes nothing: no allocation is needed.
        try interpreter.resizeInput(at: 0, to: [3, 6, 6, 3])
        XCTAssertEqual(try interpreter.output(at: 0), outputTensor)
        // As TensorFlowLiteSwift (TfLiteInterpreterResizeInputTensor), any dimension may change, not only those the
        // model marks resizable; a negative one may not.
        assertThrows(InterpreterError.failedToResizeInputTensor(index: 0), try interpreter.resizeInput(at: 0, to: [3, -7, 6, 3]))
        assertThrows(InterpreterError.invalidTensorIndex(index: 1, maxIndex: 0), try interpreter.resizeInput(at: 1, to: [1]))
    }

    /// A MobileNet built for one image, resized to a batch of two (its batch dimension is fixed in the file, which
    /// TensorFlowLiteSwift's resize allows): each image of the batch gives the scores it gives alone.
    func testAFixedBatchDimensionResizes() throws {
        let model = try TestPaths.model("classification/mobilenet_v1_0.25_224_1_metadata_1.tflite")
        func bytes(_ values: [Float]) -> Data { values.withUnsafeBufferPointer { Data(buffer: $0) } }
        let single = try Interpreter(modelPath: model)
        try single.allocateTensors()
        let count = 224 * 224 * 3
        func image(_ step: Int) -> [Float] { (0..<count).map { i -> Float in Float((i * step) % 255) / 127.5 - 1 } }
        let images = [image(7), image(12)]
        var alone: [[Float]] = []
        for image in images {
            try single.copy(bytes(image), toInputAt: 0)
            try single.invoke()
            alone.append(try XCTUnwrap([Float](unsafeData: try single.output(at: 0).data)))
        }
        let batch = try Interpreter(modelPath: model)
        try batch.resizeInput(at: 0, to: [2, 224, 224, 3])
        try batch.allocateTensors()
        try batch.copy(bytes(images[0] + images[1]), toInputAt: 0)
        try batch.invoke()
        let output = try batch.output(at: 0)
        XCTAssertEqual(output.shape, [2, 1001])
        let scores = try XCTUnwrap([Float](unsafeData: output.data))
        assertClose(Array(scores[..<1001]), alone[0], "first image of the batch")
        assertClose(Array(scores[1001...]), alone[1], "second image of the batch")
    }

    /// A model whose placeholder shape (a 1x1 image) cannot run loads all the same; allocating fails until its input
    /// is resized to a real image size, as TensorFlow Lite reports a failed allocation.
    func testPlaceholderShapeFailsToAllocateUntilResized() throws {
        let folder = opGolden("keras_upsample_concat_resizable_hw")
        let interpreter = try Interpreter(modelPath: folder.appendingPathComponent("model.tflite").path)
        assertThrows(InterpreterError.failedToAllocateTensors, try interpreter.allocateTensors())
        assertThrows(InterpreterError.allocateTensorsRequired, try interpreter.input(at: 0))

        try interpreter.resizeInput(at: 0, to: [2, 8, 6, 4])
        try interpreter.allocateTensors()
        try interpreter.copy(try npyData(folder.appendingPathComponent("input_0.npy")), toInputAt: 0)
        try interpreter.invoke()
        let outputTensor = try interpreter.output(at: 0)
        XCTAssertEqual(outputTensor.shape, [2, 8, 6, 8])
        assertClose(try XCTUnwrap([Float](unsafeData: outputTensor.data)), try npyFloats(folder.appendingPathComponent("output_0.npy")),
                    "upsample and concat at 8x6")
    }
}
