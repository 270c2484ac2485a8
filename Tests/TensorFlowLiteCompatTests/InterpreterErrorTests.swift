import Foundation
import struct LiteFormat.BuiltinOperator
import struct LiteFormat.ModelBuilder
import TensorFlowLiteCompat
import XCTest

/// The errors TensorFlowLiteSwift code catches, thrown where it throws them, with its messages.
final class InterpreterErrorTests: XCTestCase {
    func mobileNet() throws -> Interpreter {
        let interpreter = try Interpreter(modelPath: TestPaths.model("classification/mobilenet_v2_1.0_224_quant.tflite"))
        try interpreter.allocateTensors()
        return interpreter
    }

    func testIndexesOutOfRangeThrowInvalidTensorIndex() throws {
        let interpreter = try mobileNet()
        assertThrows(InterpreterError.invalidTensorIndex(index: 1, maxIndex: 0), try interpreter.input(at: 1))
        assertThrows(InterpreterError.invalidTensorIndex(index: -1, maxIndex: 0), try interpreter.output(at: -1))
        assertThrows(InterpreterError.invalidTensorIndex(index: 3, maxIndex: 0), try interpreter.copy(Data(count: 150_528), toInputAt: 3))
    }

    func testWrongByteCountThrowsInvalidTensorDataCount() throws {
        let interpreter = try mobileNet()
        // Float pixels for a uint8 input: four times the bytes.
        let floats = Data(copyingBufferOf: [Float](repeating: 0.5, count: 224 * 224 * 3))
        assertThrows(InterpreterError.invalidTensorDataCount(provided: 602_112, required: 150_528), try interpreter.copy(floats, toInputAt: 0))
        assertThrows(InterpreterError.invalidTensorDataCount(provided: 0, required: 150_528), try interpreter.copy(Data(), toInputAt: 0))
    }

    func testMissingOrInvalidModelFilesThrowFailedToLoadModel() throws {
        assertThrows(InterpreterError.failedToLoadModel, try Interpreter(modelPath: "/nonexistent/model.tflite"))
        let garbage = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-model-\(ProcessInfo.processInfo.processIdentifier).tflite")
        try Data("this is not a flatbuffer".utf8).write(to: garbage)
        defer { try? FileManager.default.removeItem(at: garbage) }
        assertThrows(InterpreterError.failedToLoadModel, try Interpreter(modelPath: garbage.path))
    }

    /// A valid model with an op LiteVision lacks (LSH_PROJECTION): the file loads, the interpreter cannot be made.
    func testUnsupportedOpThrowsFailedToCreateInterpreter() throws {
        var builder = ModelBuilder()
        let x = builder.addTensor(name: "x", type: .float32, shape: [1, 4])
        let y = builder.addTensor(name: "y", type: .float32, shape: [1, 4])
        builder.addOperator(BuiltinOperator(rawValue: 15), version: 1, inputs: [x], outputs: [y])
        builder.inputs = [x]
        builder.outputs = [y]
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lsh-projection-\(ProcessInfo.processInfo.processIdentifier).tflite")
        try Data(builder.build()).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        assertThrows(InterpreterError.failedToCreateInterpreter, try Interpreter(modelPath: url.path))
    }

    func testMessagesAreTensorFlowLiteSwifts() {
        let messages: [(InterpreterError, String)] = [
            (.invalidTensorIndex(index: 2, maxIndex: 0), "Invalid tensor index 2, max index is 0."),
            (.invalidTensorDataCount(provided: 3, required: 4), "Provided data count 3 must match the required count 4."),
            (.invalidTensorDataType, "Tensor data type is unsupported or could not be determined due to a model error."),
            (.failedToLoadModel, "Failed to load the given model."),
            (.failedToCreateInterpreter, "Failed to create the interpreter."),
            (.failedToResizeInputTensor(index: 1), "Failed to resize input tensor at index 1."),
            (.failedToCopyDataToInputTensor, "Failed to copy data to input tensor."),
            (.failedToAllocateTensors, "Failed to allocate memory for input tensors."),
            (.allocateTensorsRequired, "Must call allocateTensors()."),
            (.invokeInterpreterRequired, "Must call invoke()."),
            (.tensorFlowLiteError("boom"), "TensorFlow Lite Error: boom"),
        ]
        for (error, message) in messages {
            XCTAssertEqual(error.description, message)
            XCTAssertEqual(error.localizedDescription, message)
        }
    }
}
