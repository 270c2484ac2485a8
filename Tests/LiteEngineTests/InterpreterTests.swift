@testable import LiteEngine
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

    /// RELU, RELU6 and RELU_N1_TO_1 fold into the node that writes their input only when nothing else reads that
    /// input and it is not a graph output; folded or not, the outputs are the same bits.
    func testClampNodesFoldOnlyWhenTheirInputIsTheirsAlone() throws {
        var builder = ModelBuilder()
        let x = builder.addTensor(name: "x", type: .float32, shape: [1, 8])
        let c = builder.addConstant(name: "c", shape: [1, 8], values: [0.5, -0.25, 3, -7, 1.5, -0.5, 6.5, -2])
        let tensors = (0..<8).map { builder.addTensor(name: "t\($0)", type: .float32, shape: [1, 8]) }
        let (a, r, b, r6, e, d, s, m) = (tensors[0], tensors[1], tensors[2], tensors[3], tensors[4], tensors[5], tensors[6], tensors[7])
        builder.addOperator(.add, inputs: [x, c], outputs: [a])          // 0
        builder.addOperator(.relu, inputs: [a], outputs: [r])            // 1: folds into 0
        builder.addOperator(.add, inputs: [r, c], outputs: [b])          // 2
        builder.addOperator(.relu6, inputs: [b], outputs: [r6])          // 3: b is also read by 4
        builder.addOperator(.mul, inputs: [b, c], outputs: [e])          // 4
        builder.addOperator(.add, inputs: [x, x], outputs: [d])          // 5
        builder.addOperator(.reluN1To1, inputs: [d], outputs: [s])       // 6: d is a graph output
        builder.addOperator(.relu6, inputs: [x], outputs: [m])           // 7: x is a graph input
        builder.inputs = [x]
        builder.outputs = [r6, e, s, d, m]
        let model = try TFLiteModel(bytes: builder.build())
        let input: [Float] = [-1, 2, -3, 4.5, 0.25, -0.75, 1, -9]
        func outputs(_ fuses: Bool) throws -> (Interpreter, [[Float]]) {
            let interpreter = try Interpreter(model: model, options: .init(fusesActivations: fuses))
            try interpreter.copy(input, toInputAt: 0)
            try interpreter.invoke()
            return (interpreter, try (0..<5).map { try interpreter.output(at: $0).toArray(of: Float.self) })
        }
        let (fused, fusedOutputs) = try outputs(true)
        let (_, plainOutputs) = try outputs(false)
        XCTAssertEqual(fused.folded, [false, true, false, false, false, false, false, false])
        XCTAssertEqual(fusedOutputs.map { $0.map(\.bitPattern) }, plainOutputs.map { $0.map(\.bitPattern) })
        let constant: [Float] = [0.5, -0.25, 3, -7, 1.5, -0.5, 6.5, -2]
        let bValues = zip(input, constant).map { max($0 + $1, 0) }.enumerated().map { $1 + constant[$0] }
        XCTAssertEqual(fusedOutputs[0], bValues.map { min(max($0, 0), 6) })
        XCTAssertEqual(fusedOutputs[1], zip(bValues, constant).map { $0 * $1 })
        XCTAssertEqual(fusedOutputs[2], input.map { min(max($0 + $0, -1), 1) })
        XCTAssertEqual(fusedOutputs[3], input.map { $0 + $0 })
        XCTAssertEqual(fusedOutputs[4], input.map { min(max($0, 0), 6) })
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
