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
        // Only the dimensions the model marks resizable (-1 in its shape signature) change.
        assertThrows(InterpreterError.failedToResizeInputTensor(index: 0), try interpreter.resizeInput(at: 0, to: [3, 7, 6, 3]))
        assertThrows(InterpreterError.invalidTensorIndex(index: 1, maxIndex: 0), try interpreter.resizeInput(at: 1, to: [1]))
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
