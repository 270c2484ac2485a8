import LiteEngine
import LiteFormat
import XCTest

final class InterpreterTests: XCTestCase {
    func reluModel(op: BuiltinOperator = .relu, version: Int = 1, type: TensorType = .float32, signature: [Int]? = nil) throws -> TFLiteModel {
        var builder = ModelBuilder()
        let x = builder.addTensor(name: "pixels", type: type, shape: [1, 4], shapeSignature: signature)
        let y = builder.addTensor(name: "activations", type: type, shape: [1, 4])
        builder.addOperator(op, version: version, inputs: [x], outputs: [y])
        builder.inputs = [x]
        builder.outputs = [y]
        return try TFLiteModel(bytes: builder.build())
    }

    func testUnsupportedOpIsReportedAtLoadWithNodeOpAndVersion() throws {
        XCTAssertThrowsError(try Interpreter(model: reluModel(op: .cumsum, version: 2))) { error in
            guard case let EngineError.unsupportedOperator(node, op, version) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(node, 0)
            XCTAssertEqual(op, "CUMSUM")
            XCTAssertEqual(version, 2)
            XCTAssertEqual("\(error)", "node 0: CUMSUM version 2 is not supported")
        }
        XCTAssertThrowsError(try Interpreter(model: reluModel(version: 99))) { error in
            guard case EngineError.unsupportedOperator(0, "RELU", 99) = error else { return XCTFail("\(error)") }
        }
    }

    func testUnsupportedTypeNamesTheNode() throws {
        XCTAssertThrowsError(try Interpreter(model: reluModel(type: .int16))) { error in
            guard case let EngineError.unsupported(node, op, reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(node, 0)
            XCTAssertEqual(op, "RELU")
            XCTAssert(reason.contains("int16"), reason)
        }
    }

    func testInputsAndOutputsByIndexAndName() throws {
        let interpreter = try Interpreter(model: reluModel())
        XCTAssertEqual(try interpreter.input(named: "pixels").index, try interpreter.input(at: 0).index)
        XCTAssertEqual(try interpreter.output(named: "activations").index, try interpreter.output(at: 0).index)
        XCTAssertThrowsError(try interpreter.input(named: "nope"))
        XCTAssertThrowsError(try interpreter.input(at: 1))
        try interpreter.copy([Float(-1), 2, -3, 4], toInputAt: 0)
        try interpreter.invoke()
        XCTAssertEqual(try interpreter.output(at: 0).toArray(of: Float.self), [0, 2, 0, 4])
        XCTAssertThrowsError(try interpreter.copy([Int32(1), 2, 3, 4], toInputAt: 0))
        XCTAssertThrowsError(try interpreter.copy([Float(1)], toInputAt: 0))
    }

    func testOnlySignatureMinusOneDimensionsResize() throws {
        let fixed = try Interpreter(model: reluModel())
        XCTAssertThrowsError(try fixed.resizeInput(at: 0, to: [2, 4]))
        let dynamic = try Interpreter(model: reluModel(signature: [-1, 4]))
        try dynamic.resizeInput(at: 0, to: [3, 4])
        try dynamic.copy([Float](repeating: -1, count: 12), toInputAt: 0)
        try dynamic.invoke()
        XCTAssertEqual(try dynamic.output(at: 0).shape, [3, 4])
        XCTAssertThrowsError(try dynamic.resizeInput(at: 0, to: [3, 5]))
        XCTAssertThrowsError(try dynamic.resizeInput(at: 0, to: [1 << 40, 4]))
    }

    func testArenaReusesMemoryAcrossLifetimes() throws {
        let interpreter = try Interpreter(modelPath: TestPaths.model("classification/mobilenet_v2_1.0_224_dequant_float.tflite"))
        let intermediates = interpreter.tensors.filter { $0.storage == .arena }.reduce(0) { $0 + $1.byteCount }
        // The 112x112x96 expansion and the 112x112x16 tensor it reads are alive together.
        XCTAssertGreaterThanOrEqual(interpreter.arenaBytes, 112 * 112 * (96 + 16) * 4)
        XCTAssertLessThan(interpreter.arenaBytes, intermediates / 3)
    }

    func testMemoryLimitIsAnErrorNotAnAllocation() throws {
        XCTAssertThrowsError(try Interpreter(modelPath: TestPaths.model("classification/mobilenet_v2_1.0_224_dequant_float.tflite"),
                                             options: .init(memoryLimit: 1 << 20))) { error in
            XCTAssert("\(error)".contains("memory limit"), "\(error)")
        }
    }

    func testModelsThatFailAtLoadSayWhy() throws {
        XCTAssertThrowsError(try Interpreter(modelPath: "/nonexistent/model.tflite")) { error in
            XCTAssert("\(error)".contains("/nonexistent/model.tflite"), "\(error)")
        }
        XCTAssertThrowsError(try Interpreter(modelPath: try unsupportedModelPath())) { error in
            XCTAssert("\(error)".contains("SVDF"), "\(error)")
        }
    }
}
