import Foundation
import TensorFlowLiteCompat
import XCTest

/// The image classification flow of TensorFlowLiteSwift's guide and examples, on real MobileNets and photos: RGB
/// bytes or floats copied into input 0, `invoke()`, the scores read from output 0's `Data`. Every result is compared
/// with LiteRT's on the same input tensor (tools/make_model_goldens.py).
final class ImageClassificationTests: XCTestCase {
    /// A uint8 MobileNet: uint8 pixels in, uint8 scores out, dequantized with the output's parameters. Every score
    /// within one quantization step of LiteRT's built-in kernels (LiteVision's fast kernels, like XNNPACK, may round
    /// differently by one step), and the same top-1 class.
    func testQuantizedMobileNetClassifiesPhotosAsLiteRT() throws {
        let interpreter = try Interpreter(modelPath: TestPaths.model("classification/mobilenet_v2_1.0_224_quant.tflite"))
        try interpreter.allocateTensors()
        XCTAssertEqual(interpreter.inputTensorCount, 1)
        XCTAssertEqual(interpreter.outputTensorCount, 1)

        let inputTensor = try interpreter.input(at: 0)
        XCTAssertEqual(inputTensor.dataType, .uInt8)
        XCTAssertEqual(inputTensor.shape, [1, 224, 224, 3])
        XCTAssertEqual(inputTensor.shape.rank, 4)
        XCTAssertEqual(inputTensor.data.count, 224 * 224 * 3)
        XCTAssertEqual(inputTensor.quantizationParameters?.scale, 0.0078125)
        XCTAssertEqual(inputTensor.quantizationParameters?.zeroPoint, 128)

        for folder in try TestPaths.goldenInputs("mobilenet_v2_1.0_224_quant") {
            let rgbData = try npyData(folder.appendingPathComponent("input_0.npy"))
            let copied = try interpreter.copy(rgbData, toInputAt: 0)
            XCTAssertEqual(copied.data, rgbData, "copy returns the input with the new bytes")
            try interpreter.invoke()

            let outputTensor = try interpreter.output(at: 0)
            XCTAssertEqual(outputTensor.dataType, .uInt8)
            XCTAssertEqual(outputTensor.shape.dimensions, [1, 1001])
            let scores = [UInt8](outputTensor.data)
            let reference = [UInt8](try npyData(folder.appendingPathComponent("output_0.npy")))
            let distance = zip(scores, reference).map { abs(Int($0) - Int($1)) }.max() ?? 0
            XCTAssertLessThanOrEqual(distance, 1, "\(folder.lastPathComponent): differs from LiteRT by \(distance) steps")
            XCTAssertEqual(topIndex(scores), topIndex(reference), "\(folder.lastPathComponent): top-1")

            let quantization = try XCTUnwrap(outputTensor.quantizationParameters)
            let probabilities = scores.map { quantization.scale * Float(Int($0) - quantization.zeroPoint) }
            let referenceProbabilities = reference.map { quantization.scale * Float(Int($0) - quantization.zeroPoint) }
            XCTAssertEqual(probabilities[topIndex(scores)], referenceProbabilities[topIndex(reference)], accuracy: quantization.scale * 1.0001)
            XCTAssertTrue(probabilities.allSatisfy { (0...1).contains($0) }, "softmax output dequantizes to [0, 1]")
        }
    }

    /// A float MobileNet on two threads: the input built from `[Float]` as the examples build it, the scores read back
    /// as `[Float]`, within 1e-4 of LiteRT.
    func testFloatMobileNetClassifiesPhotosAsLiteRT() throws {
        var options = Interpreter.Options()
        options.threadCount = 2
        let interpreter = try Interpreter(modelPath: TestPaths.model("classification/mobilenet_v2_1.0_224_dequant_float.tflite"),
                                          options: options)
        XCTAssertEqual(interpreter.options?.threadCount, 2)
        try interpreter.allocateTensors()
        let inputTensor = try interpreter.input(at: 0)
        XCTAssertEqual(inputTensor.dataType, .float32)
        XCTAssertEqual(inputTensor.shape, Tensor.Shape(1, 224, 224, 3))
        XCTAssertNil(inputTensor.quantizationParameters)

        for folder in try TestPaths.goldenInputs("mobilenet_v2_1.0_224_dequant_float") {
            let pixels = try npyFloats(folder.appendingPathComponent("input_0.npy"))
            XCTAssertEqual(pixels.count, 224 * 224 * 3)
            try interpreter.copy(Data(copyingBufferOf: pixels), toInputAt: 0)
            try interpreter.invoke()

            let outputTensor = try interpreter.output(at: 0)
            XCTAssertEqual(outputTensor.dataType, .float32)
            XCTAssertEqual(outputTensor.shape.dimensions, [1, 1001])
            let scores = try XCTUnwrap([Float](unsafeData: outputTensor.data))
            let reference = try npyFloats(folder.appendingPathComponent("output_0.npy"))
            assertClose(scores, reference, folder.lastPathComponent)
            XCTAssertEqual(topIndex(scores), topIndex(reference), "\(folder.lastPathComponent): top-1")
        }
    }

    /// An int8 model (tflite-micro's MNIST LSTM): `Tensor.DataType.int8`, with the input's quantization as the model
    /// declares it, and the digit LiteRT gives for each sample. The LSTM keeps its state from one `invoke()` to the
    /// next, as in TensorFlow Lite, so each sample gets a new interpreter, as LiteRT's did.
    func testInt8ModelReadsAndWritesInt8Tensors() throws {
        let modelPath = try TestPaths.model("lstm/trained_lstm_int8.tflite")
        let first = try Interpreter(modelPath: modelPath)
        try first.allocateTensors()
        let inputTensor = try first.input(at: 0)
        XCTAssertEqual(inputTensor.dataType, .int8)
        XCTAssertEqual(inputTensor.shape, [1, 28, 28])
        let inputQuantization = try XCTUnwrap(inputTensor.quantizationParameters)
        XCTAssertEqual(inputQuantization.scale, 1 / 255, accuracy: 1e-9)
        XCTAssertEqual(inputQuantization.zeroPoint, -128)

        for folder in try TestPaths.goldenInputs("trained_lstm_int8") {
            let interpreter = try Interpreter(modelPath: modelPath)
            try interpreter.allocateTensors()
            try interpreter.copy(try npyData(folder.appendingPathComponent("input_0.npy")), toInputAt: 0)
            try interpreter.invoke()
            let outputTensor = try interpreter.output(at: 0)
            XCTAssertEqual(outputTensor.dataType, .int8)
            let scores = try XCTUnwrap([Int8](unsafeData: outputTensor.data))
            let reference = try XCTUnwrap([Int8](unsafeData: try npyData(folder.appendingPathComponent("output_0.npy"))))
            XCTAssertEqual(scores.count, 10)
            let distance = zip(scores, reference).map { abs(Int($0) - Int($1)) }.max() ?? 0
            XCTAssertLessThanOrEqual(distance, 1, "\(folder.lastPathComponent): differs from LiteRT by \(distance) steps")
            XCTAssertEqual(topIndex(scores), topIndex(reference), "\(folder.lastPathComponent): digit")
        }
    }

    /// As in TensorFlowLiteSwift, a new interpreter's tensors are allocated before they are used: until then inputs
    /// and `invoke()` throw `allocateTensorsRequired`, outputs `invokeInterpreterRequired`; a wrong byte count is
    /// reported first.
    func testTensorsMustBeAllocatedBeforeUse() throws {
        let interpreter = try Interpreter(modelPath: TestPaths.model("classification/mobilenet_v1_0.25_128_quant.tflite"))
        let pixels = Data(count: 128 * 128 * 3)
        assertThrows(InterpreterError.allocateTensorsRequired, try interpreter.input(at: 0))
        assertThrows(InterpreterError.allocateTensorsRequired, try interpreter.copy(pixels, toInputAt: 0))
        assertThrows(InterpreterError.invalidTensorDataCount(provided: 3, required: 128 * 128 * 3), try interpreter.copy(Data(count: 3), toInputAt: 0))
        assertThrows(InterpreterError.allocateTensorsRequired, try interpreter.invoke())
        assertThrows(InterpreterError.invokeInterpreterRequired, try interpreter.output(at: 0))
        try interpreter.allocateTensors()
        XCTAssertEqual(try interpreter.copy(pixels, toInputAt: 0).data, pixels)
        try interpreter.invoke()
        XCTAssertEqual(try interpreter.output(at: 0).shape, [1, 1001])
    }

    /// Tensors are snapshots: a `Tensor` read before `invoke()` keeps the bytes it had.
    func testTensorsAreCopiesTakenWhenRead() throws {
        let interpreter = try Interpreter(modelPath: TestPaths.model("classification/mobilenet_v2_1.0_224_quant.tflite"))
        let folders = try TestPaths.goldenInputs("mobilenet_v2_1.0_224_quant")
        try interpreter.allocateTensors()
        try interpreter.copy(try npyData(folders[0].appendingPathComponent("input_0.npy")), toInputAt: 0)
        try interpreter.invoke()
        let first = try interpreter.output(at: 0)
        try interpreter.copy(try npyData(folders[1].appendingPathComponent("input_0.npy")), toInputAt: 0)
        try interpreter.invoke()
        let second = try interpreter.output(at: 0)
        XCTAssertNotEqual(first.data, second.data, "two photos, two score vectors")
        XCTAssertEqual(first, first)
        XCTAssertEqual(first.name, second.name)
    }
}
