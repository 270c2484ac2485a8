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

    /// A resizable model whose placeholder shape cannot be planned (a 1x1 image that MAX_POOL_2D empties) loads; the
    /// plan's error comes from allocateTensors() until the input is resized, then the model plans and runs.
    func testAResizableModelLoadsWhenItsPlaceholderShapeCannotBePlanned() throws {
        let path = TestPaths.goldens.appendingPathComponent("ops/keras_upsample_concat_resizable_hw/model.tflite").path
        let interpreter = try Interpreter(modelPath: path)
        XCTAssertThrowsError(try interpreter.allocateTensors()) { error in
            XCTAssertTrue("\(error)".contains("RESIZE_NEAREST_NEIGHBOR"), "\(error)")
        }
        try interpreter.resizeInput(at: 0, to: [1, 6, 4, 4])
        try interpreter.allocateTensors()
        try interpreter.invoke()
        XCTAssertEqual(try interpreter.output(at: 0).shape, [1, 6, 4, 8])
    }

    /// DEQUANTIZE of DENSIFY's output (sparse float16 weights, as MediaPipe's pose detector ships them) computes the
    /// float weights once, while the plan is built, as for a constant input, and the convolution after it packs them
    /// then: the run does no dequantizing (LiteRT's `IsConstantOrPersistentTensor` rule).
    func testDequantizeOfDensifiedWeightsRunsOnceWhilePlanning() throws {
        let path = TestPaths.goldens.appendingPathComponent("ops/densify_float16_then_dequantize/model.tflite").path
        let interpreter = try Interpreter(modelPath: path)
        try interpreter.allocateTensors()
        let dequantized = interpreter.kernels.compactMap { $0 as? Dequantize }.map { $0.node.outputs[0] }
        XCTAssertFalse(dequantized.isEmpty)
        for tensor in dequantized {
            XCTAssertEqual(tensor.storage, .persistent)
            XCTAssertTrue(tensor.hasFixedValues, "tensor \(tensor.index) is dequantized on every run")
        }
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
        XCTAssertThrowsError(try Interpreter(model: reluModel(type: .int32))) { error in
            guard case let EngineError.unsupported(node, op, reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(node, 0)
            XCTAssertEqual(op, "RELU")
            XCTAssert(reason.contains("int32"), reason)
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

    /// The interpreter and its float outputs for `input`, with nodes folded (``Interpreter/Options/fusesActivations``) or not.
    private func outputs(of model: TFLiteModel, _ input: [Float], fusing: Bool) throws -> (Interpreter, [[Float]]) {
        let interpreter = try Interpreter(model: model, options: .init(fusesActivations: fusing))
        try interpreter.copy(input, toInputAt: 0)
        try interpreter.invoke()
        return (interpreter, try (0..<interpreter.outputCount).map { try interpreter.output(at: $0).toArray(of: Float.self) })
    }

    /// A float LOGISTIC folds into the MUL of its own input and its output (swish, either operand order) only when
    /// that MUL alone reads it and it is not a graph output; folded or not, the outputs are the same bits.
    func testSigmoidFoldsIntoTheMultiplyOfASwish() throws {
        var builder = ModelBuilder()
        let x = builder.addTensor(name: "x", type: .float32, shape: [1, 19])
        let tensors = (0..<8).map { builder.addTensor(name: "t\($0)", type: .float32, shape: [1, 19]) }
        builder.addOperator(.logistic, inputs: [x], outputs: [tensors[0]])              // 0: folds into 1
        builder.addOperator(.mul, inputs: [x, tensors[0]], outputs: [tensors[1]])       // 1
        builder.addOperator(.logistic, inputs: [x], outputs: [tensors[2]])              // 2: folds into 3
        builder.addOperator(.mul, inputs: [tensors[2], x], outputs: [tensors[3]])       // 3
        builder.addOperator(.logistic, inputs: [x], outputs: [tensors[4]])              // 4: its output is a graph output
        builder.addOperator(.mul, inputs: [x, tensors[4]], outputs: [tensors[5]])       // 5
        builder.addOperator(.logistic, inputs: [tensors[1]], outputs: [tensors[6]])     // 6: the sigmoid of another tensor
        builder.addOperator(.mul, inputs: [x, tensors[6]], outputs: [tensors[7]])       // 7
        builder.inputs = [x]
        builder.outputs = [tensors[1], tensors[3], tensors[4], tensors[5], tensors[7]]
        let model = try TFLiteModel(bytes: builder.build())
        let input = (0..<19).map { Float($0) * 1.7 - 15 }
        let (fused, fusedOutputs) = try outputs(of: model, input, fusing: true)
        let (_, plainOutputs) = try outputs(of: model, input, fusing: false)
        XCTAssertEqual(fused.folded, [true, false, true, false, false, false, false, false])
        XCTAssertEqual(fusedOutputs.map { $0.map(\.bitPattern) }, plainOutputs.map { $0.map(\.bitPattern) })
        for (value, x) in zip(fusedOutputs[0], input) { XCTAssertEqual(value, x / (1 + expf(-x)), accuracy: 1e-6 * max(1, abs(x))) }
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
        let (fused, fusedOutputs) = try outputs(of: model, input, fusing: true)
        let (_, plainOutputs) = try outputs(of: model, input, fusing: false)
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

    /// A float ADD folds into the convolution whose output it alone reads only when its other operand is written
    /// before the convolution runs; a RELU after it folds into the ADD first, and a PRELU after both folds into the
    /// convolution too; folded or not, the outputs are the same bits.
    func testAddFoldsIntoAConvolutionOnlyWhenItsOtherOperandIsReady() throws {
        var builder = ModelBuilder()
        let x = builder.addTensor(name: "x", type: .float32, shape: [1, 4, 4, 8])
        let filter = builder.addConstant(name: "w", shape: [8, 1, 1, 8], values: (0..<64).map { Float(($0 * 37) % 17) / 8 - 1 })
        let bias = builder.addConstant(name: "b", shape: [8], values: (0..<8).map { Float($0) / 4 - 1 })
        let slopes = builder.addConstant(name: "alpha", shape: [8], values: (0..<8).map { Float($0) / 10 - 0.3 })
        let t = (0..<13).map { builder.addTensor(name: "t\($0)", type: .float32, shape: [1, 4, 4, 8]) }
        var convolution = FlatTableBuilder()  // Conv2DOptions: SAME padding, strides 1
        convolution[0] = .int8(0)
        convolution[1] = .int32(1)
        convolution[2] = .int32(1)
        builder.addOperator(.conv2d, inputs: [x, filter, bias], outputs: [t[0]], optionsType: 1, options: convolution)  // 0
        builder.addOperator(.add, inputs: [x, x], outputs: [t[1]])                                                    // 1
        builder.addOperator(.add, inputs: [t[0], t[1]], outputs: [t[2]])     // 2: t1 is written after 0
        builder.addOperator(.conv2d, inputs: [x, filter, bias], outputs: [t[3]], optionsType: 1, options: convolution)  // 3
        builder.addOperator(.add, inputs: [x, t[3]], outputs: [t[4]])        // 4: folds into 3
        builder.addOperator(.relu, inputs: [t[4]], outputs: [t[5]])          // 5: folds into 4
        builder.addOperator(.prelu, inputs: [t[5], slopes], outputs: [t[6]]) // 6: folds into 3
        builder.addOperator(.conv2d, inputs: [t[2], filter, bias], outputs: [t[7]], optionsType: 1, options: convolution)  // 7
        builder.addOperator(.add, inputs: [t[7], t[7]], outputs: [t[8]])     // 8: reads the convolution twice
        builder.addOperator(.conv2d, inputs: [x, filter, bias], outputs: [t[9]], optionsType: 1, options: convolution)  // 9
        builder.addOperator(.add, inputs: [t[9], x], outputs: [t[10]])       // 10: folds into 9
        builder.addOperator(.relu, inputs: [t[10]], outputs: [t[11]])        // 11: folds into 10, its output the convolution's
        builder.addOperator(.mul, inputs: [t[11], x], outputs: [t[12]])      // 12
        builder.inputs = [x]
        builder.outputs = [t[2], t[6], t[8], t[12]]
        let model = try TFLiteModel(bytes: builder.build())
        let input = (0..<128).map { Float(($0 * 53) % 29) / 7 - 2 }
        let (fused, fusedOutputs) = try outputs(of: model, input, fusing: true)
        let (_, plainOutputs) = try outputs(of: model, input, fusing: false)
        XCTAssertEqual(fused.folded, [false, false, false, false, true, true, true, false, false, false, true, true, false])
        XCTAssertEqual(fusedOutputs.map { $0.map(\.bitPattern) }, plainOutputs.map { $0.map(\.bitPattern) })
        XCTAssertTrue(fusedOutputs[1].contains { $0 == 0 } && fusedOutputs[1].contains { $0 > 0 })
    }

    /// A RESHAPE of activations folds into its input's bytes only when nothing else reads that input and it is not a
    /// graph input (its output may be a graph output); folded or not, the outputs are the same bits.
    func testReshapeSharesItsInputsBytesOnlyWhenItAloneReadsThem() throws {
        var builder = ModelBuilder()
        let x = builder.addTensor(name: "x", type: .float32, shape: [1, 4, 4, 8])
        let rows = builder.addConstant(name: "rows", shape: [3], values: [Int32(1), 16, 8])
        let flat = builder.addConstant(name: "flat", shape: [2], values: [Int32(1), 128])
        let (t0, t1, t2) = (builder.addTensor(name: "t0", type: .float32, shape: [1, 4, 4, 8]),
                            builder.addTensor(name: "t1", type: .float32, shape: [1, 4, 4, 8]),
                            builder.addTensor(name: "t2", type: .float32, shape: [1, 4, 4, 8]))
        let (r0, r1, r2) = (builder.addTensor(name: "r0", type: .float32, shape: [1, 16, 8]),
                            builder.addTensor(name: "r1", type: .float32, shape: [1, 16, 8]),
                            builder.addTensor(name: "r2", type: .float32, shape: [1, 128]))
        let (t3, r3) = (builder.addTensor(name: "t3", type: .float32, shape: [1, 16, 8]), builder.addTensor(name: "r3", type: .float32, shape: [1, 128]))
        builder.addOperator(.add, inputs: [x, x], outputs: [t0])              // 0
        builder.addOperator(.reshape, inputs: [t0, rows], outputs: [r0])      // 1: folds
        builder.addOperator(.mul, inputs: [x, x], outputs: [t1])              // 2
        builder.addOperator(.reshape, inputs: [t1, rows], outputs: [r1])      // 3: t1 is also read by 4
        builder.addOperator(.sub, inputs: [t1, x], outputs: [t2])             // 4
        builder.addOperator(.reshape, inputs: [x, flat], outputs: [r2])       // 5: a graph input
        builder.addOperator(.add, inputs: [r0, r1], outputs: [t3])            // 6
        builder.addOperator(.reshape, inputs: [t3, flat], outputs: [r3])      // 7: folds, its output a graph output
        builder.inputs = [x]
        builder.outputs = [r3, t2, r2]
        let model = try TFLiteModel(bytes: builder.build())
        let input = (0..<128).map { Float(($0 * 53) % 29) / 7 - 2 }
        let (fused, fusedOutputs) = try outputs(of: model, input, fusing: true)
        let (_, plainOutputs) = try outputs(of: model, input, fusing: false)
        XCTAssertEqual(fused.folded, [false, true, false, false, false, false, false, true])
        XCTAssertEqual(fusedOutputs.map { $0.map(\.bitPattern) }, plainOutputs.map { $0.map(\.bitPattern) })
        XCTAssertEqual(fusedOutputs[0], (0..<128).map { i in 2 * input[i] + input[i] * input[i] })
    }

    /// An ADD folded into a convolution (same shapes in the file) that a resize turns into a broadcast to a larger
    /// shape would write past the convolution's bytes, which its output shares: the run is a typed error instead, and
    /// without folding the model runs.
    func testAFoldedAddThatNowBroadcastsIsATypedError() throws {
        var builder = ModelBuilder()
        let x = builder.addTensor(name: "x", type: .float32, shape: [1, 4, 4, 8], shapeSignature: [1, -1, -1, 8])
        let y = builder.addTensor(name: "y", type: .float32, shape: [1, 4, 4, 8])
        let filter = builder.addConstant(name: "w", shape: [8, 1, 1, 8], values: (0..<64).map { Float($0 % 9) / 8 - 0.5 })
        let (c, sum) = (builder.addTensor(name: "c", type: .float32, shape: [1, 4, 4, 8]), builder.addTensor(name: "sum", type: .float32, shape: [1, 4, 4, 8]))
        var convolution = FlatTableBuilder()  // Conv2DOptions: SAME padding, strides 1
        convolution[0] = .int8(0)
        convolution[1] = .int32(1)
        convolution[2] = .int32(1)
        builder.addOperator(.conv2d, inputs: [x, filter, -1], outputs: [c], optionsType: 1, options: convolution)
        builder.addOperator(.add, inputs: [c, y], outputs: [sum])
        builder.inputs = [x, y]
        builder.outputs = [sum]
        let model = try TFLiteModel(bytes: builder.build())
        for fusing in [true, false] {
            let interpreter = try Interpreter(model: model, options: .init(fusesActivations: fusing))
            XCTAssertEqual(interpreter.folded, [false, fusing])
            try interpreter.resizeInput(at: 0, to: [1, 1, 1, 8])
            try interpreter.allocateTensors()
            try interpreter.copy([Float](repeating: 1, count: 8), toInputAt: 0)
            try interpreter.copy([Float](repeating: 2, count: 128), toInputAt: 1)
            if fusing {
                XCTAssertThrowsError(try interpreter.invoke()) { XCTAssertTrue("\($0)".contains("folded into this CONV_2D"), "\($0)") }
            } else {
                try interpreter.invoke()
                XCTAssertEqual(try interpreter.output(at: 0).shape, [1, 4, 4, 8])
            }
        }
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
            XCTAssert("\(error)".contains("LSH_PROJECTION"), "\(error)")
        }
    }
}

/// WHILE on models built here: what LiteRT's goldens cannot show (the while_* op goldens check results).
final class WhileTests: XCTestCase {
    /// Subgraph 0 runs `WHILE(x, counter)`; subgraph 1 is the condition `counter < limit`, subgraph 2 the body
    /// `(x · 2, counter + 1)`, or whatever `makeBody` builds there from the body's inputs (x, counter).
    func whileModel(limit: Int32 = 5, condition conditionIndex: Int = 1, body bodyIndex: Int = 2,
                    makeBody: ((inout ModelBuilder, Int, Int) -> (Int, Int))? = nil) throws -> TFLiteModel {
        var b = ModelBuilder()
        func loopVariables(_ b: inout ModelBuilder, _ prefix: String) -> (Int, Int) {
            (b.addTensor(name: "\(prefix)x", type: .float32, shape: [3]), b.addTensor(name: "\(prefix)i", type: .int32, shape: []))
        }
        let (x, i) = loopVariables(&b, "")
        let (y, j) = loopVariables(&b, "out_")
        var options = FlatTableBuilder()
        options[0] = .int32(Int32(conditionIndex))
        options[1] = .int32(Int32(bodyIndex))
        b.addOperator(.while, inputs: [x, i], outputs: [y, j], optionsType: 93, options: options)
        (b.inputs, b.outputs) = ([x, i], [y])

        _ = b.addSubgraph()
        let (cx, ci) = loopVariables(&b, "cond_")
        let bound = b.addConstant(name: "limit", shape: [], values: [limit])
        let flag = b.addTensor(name: "flag", type: .bool, shape: [])
        b.addOperator(.less, inputs: [ci, bound], outputs: [flag])
        (b.inputs, b.outputs) = ([cx, ci], [flag])

        _ = b.addSubgraph()
        let (bx, bi) = loopVariables(&b, "body_")
        if let makeBody {
            let (nx, ni) = makeBody(&b, bx, bi)
            (b.inputs, b.outputs) = ([bx, bi], [nx, ni])
        } else {
            let two = b.addConstant(name: "two", shape: [], values: [Float(2)])
            let one = b.addConstant(name: "one", shape: [], values: [Int32(1)])
            let nx = b.addTensor(name: "body_x2", type: .float32, shape: [3]), ni = b.addTensor(name: "body_i1", type: .int32, shape: [])
            b.addOperator(.mul, inputs: [bx, two], outputs: [nx], optionsType: 21, options: FlatTableBuilder())
            b.addOperator(.add, inputs: [bi, one], outputs: [ni], optionsType: 11, options: FlatTableBuilder())
            (b.inputs, b.outputs) = ([bx, bi], [nx, ni])
        }
        return try TFLiteModel(bytes: b.build())
    }

    func run(_ model: TFLiteModel, start: Int32 = 0, options: Interpreter.Options = .init()) throws -> [Float] {
        let interpreter = try Interpreter(model: model, options: options)
        try interpreter.copy([Float(1), -2, 0.5], toInputAt: 0)
        try interpreter.copy([start], toInputAt: 1)
        try interpreter.invoke()
        return try interpreter.output(at: 0).toArray(of: Float.self)
    }

    func testACountedLoopRunsItsBodyUntilTheConditionFails() throws {
        XCTAssertEqual(try run(whileModel()), [32, -64, 16])
        XCTAssertEqual(try run(whileModel(), start: 3), [4, -8, 2])
        XCTAssertEqual(try run(whileModel(), start: 9), [1, -2, 0.5], "a false condition at once outputs the inputs")
    }

    func testASubgraphThatRunsInsideItselfIsAnError() throws {
        XCTAssertThrowsError(try Interpreter(model: whileModel(body: 0))) { error in
            XCTAssertTrue("\(error)".contains("runs inside itself"), "\(error)")
        }
        XCTAssertThrowsError(try Interpreter(model: whileModel(condition: 7))) { error in
            XCTAssertTrue("\(error)".contains("no subgraph 7"), "\(error)")
        }
    }

    func testAnEndlessLoopStopsWithAnError() throws {
        // The counter never moves: the body gives its inputs back.
        let model = try whileModel(makeBody: { _, x, i in (x, i) })
        XCTAssertThrowsError(try run(model, options: .init(maximumLoopIterations: 1000))) { error in
            XCTAssertTrue("\(error)".contains("still true after 1000 iterations"), "\(error)")
        }
    }

    func testABodyThatChangesALoopVariablesShapeIsRefused() throws {
        let model = try whileModel(makeBody: { b, x, i in
            let doubled = b.addTensor(name: "body_xx", type: .float32, shape: [6])
            var options = FlatTableBuilder()
            options[0] = .int32(0)
            b.addOperator(.concatenation, inputs: [x, x], outputs: [doubled], optionsType: 10, options: options)
            return (doubled, i)
        })
        XCTAssertThrowsError(try Interpreter(model: model)) { error in
            XCTAssertTrue("\(error)".contains("change shape are not supported"), "\(error)")
        }
    }

    /// ``Interpreter/cancel()`` from another thread stops a loop of 2^31 steps within milliseconds, with a typed
    /// error; the next run, not cancelled, completes; a request made between runs does not stop the next.
    func testCancelStopsALongLoopFromAnotherThread() throws {
        let interpreter = try Interpreter(model: whileModel(limit: .max))
        try interpreter.copy([Float(1), -2, 0.5], toInputAt: 0)
        try interpreter.copy([Int32(0)], toInputAt: 1)
        let canceller = Thread { Thread.sleep(forTimeInterval: 0.05); interpreter.cancel() }
        let start = Date()
        canceller.start()
        XCTAssertThrowsError(try interpreter.invoke()) { error in
            guard case EngineError.cancelled = error else { return XCTFail("\(error)") }
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
        interpreter.cancel()
        try interpreter.copy([Int32(Int32.max - 3)], toInputAt: 1)
        try interpreter.invoke()
        XCTAssertEqual(try interpreter.output(at: 0).toArray(of: Float.self), [8, -16, 4])
    }

    /// ``Interpreter/cancel()`` stops ``Interpreter/invoke(observingEachNode:)`` and ``Interpreter/invokeProfiled()``
    /// as it stops ``Interpreter/invoke()``: before the next node, with a typed error, and a request made between runs
    /// does not stop the next run.
    func testCancelStopsObservedAndProfiledRuns() throws {
        var builder = ModelBuilder()
        let x = builder.addTensor(name: "x", type: .float32, shape: [1, 4])
        let y = builder.addTensor(name: "y", type: .float32, shape: [1, 4])
        let z = builder.addTensor(name: "z", type: .float32, shape: [1, 4])
        builder.addOperator(.relu, inputs: [x], outputs: [y])
        builder.addOperator(.relu6, inputs: [y], outputs: [z])
        (builder.inputs, builder.outputs) = ([x], [z])
        let interpreter = try Interpreter(model: try TFLiteModel(bytes: builder.build()))
        try interpreter.copy([Float(-1), 2, 7, 3], toInputAt: 0)
        var observed: [Int] = []
        XCTAssertThrowsError(try interpreter.invoke(observingEachNode: { node, _ in
            observed.append(node)
            interpreter.cancel()
        })) { error in
            guard case EngineError.cancelled(node: 1) = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(observed, [0])
        interpreter.cancel()
        observed = []
        try interpreter.invoke(observingEachNode: { node, _ in observed.append(node) })
        XCTAssertEqual(observed, [0, 1])
        interpreter.cancel()
        XCTAssertEqual(try interpreter.invokeProfiled().map(\.node), [0, 1])
        XCTAssertEqual(try interpreter.output(at: 0).toArray(of: Float.self), [0, 2, 6, 3])

        // From another thread, during a loop of 2^31 steps.
        let loop = try Interpreter(model: whileModel(limit: .max))
        try loop.copy([Float(1), -2, 0.5], toInputAt: 0)
        let runs: [() throws -> Void] = [{ _ = try loop.invokeProfiled() }, { try loop.invoke(observingEachNode: { _, _ in }) }]
        for run in runs {
            try loop.copy([Int32(0)], toInputAt: 1)
            let canceller = Thread { Thread.sleep(forTimeInterval: 0.05); loop.cancel() }
            let start = Date()
            canceller.start()
            XCTAssertThrowsError(try run()) { error in
                guard case EngineError.cancelled = error else { return XCTFail("\(error)") }
            }
            XCTAssertLessThan(Date().timeIntervalSince(start), 2)
        }
    }

    /// Each WHILE builds its own condition and body: a model cannot make the engine build them without bound.
    func testControlFlowBuildsABoundedNumberOfSubgraphs() throws {
        var b = ModelBuilder()
        var value = b.addTensor(name: "x", type: .float32, shape: [3])
        let counter = b.addConstant(name: "start", shape: [], values: [Int32(0)])
        b.inputs = [value]
        for k in 0..<130 {
            let next = b.addTensor(name: "x\(k)", type: .float32, shape: [3]), count = b.addTensor(name: "i\(k)", type: .int32, shape: [])
            var options = FlatTableBuilder()
            options[0] = .int32(1)
            options[1] = .int32(2)
            b.addOperator(.while, inputs: [value, counter], outputs: [next, count], optionsType: 93, options: options)
            value = next
        }
        b.outputs = [value]
        _ = b.addSubgraph()
        let cx = b.addTensor(name: "cx", type: .float32, shape: [3]), ci = b.addTensor(name: "ci", type: .int32, shape: [])
        let flag = b.addTensor(name: "flag", type: .bool, shape: [])
        b.addOperator(.less, inputs: [ci, b.addConstant(name: "limit", shape: [], values: [Int32(5)])], outputs: [flag])
        (b.inputs, b.outputs) = ([cx, ci], [flag])
        _ = b.addSubgraph()
        let x = b.addTensor(name: "bx", type: .float32, shape: [3]), i = b.addTensor(name: "bi", type: .int32, shape: [])
        (b.inputs, b.outputs) = ([x, i], [x, i])
        XCTAssertThrowsError(try Interpreter(model: TFLiteModel(bytes: b.build()))) { error in
            XCTAssertTrue("\(error)".contains("more than 256 subgraph instances"), "\(error)")
        }
    }

    /// IF on a model built here: subgraph 0 runs `IF(flag, x)`; subgraph 1 (then) doubles x, subgraph 2 (else) gives
    /// x again, or concatenates it with itself when `elseDoubles`, so that the branches disagree on the shape.
    func ifModel(elseDoubles: Bool = false, flagType: TensorType = .bool) throws -> Interpreter {
        var b = ModelBuilder()
        let flag = b.addTensor(name: "flag", type: flagType, shape: []), x = b.addTensor(name: "x", type: .float32, shape: [3])
        let y = b.addTensor(name: "y", type: .float32, shape: [3])
        var options = FlatTableBuilder()
        options[0] = .int32(1)
        options[1] = .int32(2)
        b.addOperator(.if, inputs: [flag, x], outputs: [y], optionsType: 92, options: options)
        (b.inputs, b.outputs) = ([flag, x], [y])
        _ = b.addSubgraph()
        let tx = b.addTensor(name: "then_x", type: .float32, shape: [3]), ty = b.addTensor(name: "then_y", type: .float32, shape: [3])
        b.addOperator(.add, inputs: [tx, tx], outputs: [ty], optionsType: 11, options: FlatTableBuilder())
        (b.inputs, b.outputs) = ([tx], [ty])
        _ = b.addSubgraph()
        let ex = b.addTensor(name: "else_x", type: .float32, shape: [3])
        if elseDoubles {
            let ey = b.addTensor(name: "else_y", type: .float32, shape: [6])
            var concat = FlatTableBuilder()
            concat[0] = .int32(0)
            b.addOperator(.concatenation, inputs: [ex, ex], outputs: [ey], optionsType: 10, options: concat)
            (b.inputs, b.outputs) = ([ex], [ey])
        } else {
            (b.inputs, b.outputs) = ([ex], [ex])
        }
        return try Interpreter(model: TFLiteModel(bytes: b.build()))
    }

    func testIfRunsTheBranchItsConditionNames() throws {
        let interpreter = try ifModel()
        for (flag, expected) in [(true, [Float(2), -4, 1]), (false, [1, -2, 0.5])] {
            try interpreter.copy([flag], toInputAt: 0)
            try interpreter.copy([Float(1), -2, 0.5], toInputAt: 1)
            try interpreter.invoke()
            XCTAssertEqual(try interpreter.output(at: 0).toArray(of: Float.self), expected)
        }
        XCTAssertThrowsError(try ifModel(elseDoubles: true)) { error in
            XCTAssertTrue("\(error)".contains("branches whose outputs differ are not supported"), "\(error)")
        }
        XCTAssertThrowsError(try ifModel(flagType: .int32)) { error in
            XCTAssertTrue("\(error)".contains("not one bool"), "\(error)")
        }
    }

    /// The body `x[i] *= 2` written as TensorFlow's converter lowers `TensorListSetItem`: `CONCATENATION(SLICE(x, 0,
    /// i), x[i] · 2, SLICE(x, i + 1 (or i when `overlapping`), -1))`, the bounds computed from the counter.
    func setItemModel(limit: Int32 = 3, overlapping: Bool = false) throws -> TFLiteModel {
        try whileModel(limit: limit, makeBody: { b, x, i in
            let one = b.addConstant(name: "one", shape: [], values: [Int32(1)]), asVector = b.addConstant(name: "as_vector", shape: [1], values: [Int32(1)])
            let next = b.addTensor(name: "i1", type: .int32, shape: [])
            b.addOperator(.add, inputs: [i, one], outputs: [next], optionsType: 11, options: FlatTableBuilder())
            let at = b.addTensor(name: "at", type: .int32, shape: [1]), after = b.addTensor(name: "after", type: .int32, shape: [1])
            b.addOperator(.reshape, inputs: [i, asVector], outputs: [at])
            b.addOperator(.reshape, inputs: [overlapping ? i : next, asVector], outputs: [after])
            let head = b.addTensor(name: "head", type: .float32, shape: [3]), element = b.addTensor(name: "element", type: .float32, shape: [1])
            let doubled = b.addTensor(name: "doubled", type: .float32, shape: [1]), tail = b.addTensor(name: "tail", type: .float32, shape: [3])
            b.addOperator(.slice, inputs: [x, b.addConstant(name: "zero", shape: [1], values: [Int32(0)]), at], outputs: [head])
            b.addOperator(.slice, inputs: [x, at, asVector], outputs: [element])
            b.addOperator(.mul, inputs: [element, b.addConstant(name: "two", shape: [], values: [Float(2)])], outputs: [doubled],
                          optionsType: 21, options: FlatTableBuilder())
            b.addOperator(.slice, inputs: [x, after, b.addConstant(name: "rest", shape: [1], values: [Int32(-1)])], outputs: [tail])
            let y = b.addTensor(name: "y", type: .float32, shape: [3])
            var axis = FlatTableBuilder()
            axis[0] = .int32(0)
            b.addOperator(.concatenation, inputs: [head, doubled, tail], outputs: [y], optionsType: 10, options: axis)
            return (y, next)
        })
    }

    func testTensorListSetItemRunsAsOneNodeWithTheBodyPlannedOnce() throws {
        let interpreter = try Interpreter(model: setItemModel())
        let loop = try XCTUnwrap(interpreter.kernels.first as? While)
        XCTAssertTrue(loop.body.kernels.contains { $0 is TensorListSetItem })
        XCTAssertFalse(loop.replansBody)
        XCTAssertEqual(try run(setItemModel()), [2, -4, 1])
        XCTAssertEqual(try run(setItemModel(), start: 1), [1, -4, 1])
        XCTAssertThrowsError(try run(setItemModel(limit: 4))) { error in
            XCTAssertTrue("\(error)".contains("out of range"), "\(error)")
        }
        XCTAssertThrowsError(try run(setItemModel(overlapping: true))) { error in
            XCTAssertTrue("\(error)".contains("change shape are not supported"), "\(error)")
        }
        // Every Keras 3 layer that returns sequences (their results are the op goldens'): each loop is fused.
        for name in ["lstm", "gru", "simple_rnn_backwards", "bidirectional_lstm", "stacked_lstm"].map({ "while_keras3_\($0)_sequences" }) {
            let model = try TFLiteModel(path: TestPaths.goldens.appendingPathComponent("ops/\(name)/model.tflite").path)
            let loops = try Interpreter(model: model).kernels.compactMap { $0 as? While }
            XCTAssertFalse(loops.isEmpty, name)
            for loop in loops {
                XCTAssertTrue(loop.body.kernels.contains { $0 is TensorListSetItem } && !loop.replansBody, name)
            }
        }
    }

    func testLoopVariableCountsMustAgree() throws {
        let model = try whileModel(makeBody: { b, x, _ in
            let y = b.addTensor(name: "body_y", type: .float32, shape: [3])
            b.addOperator(.relu, inputs: [x], outputs: [y])
            return (y, y)
        })
        XCTAssertThrowsError(try Interpreter(model: model)) { error in
            XCTAssertTrue("\(error)".contains("loop variable 1"), "\(error)")
        }
    }
}

/// NON_MAX_SUPPRESSION_V4/V5 on hostile operands (the nms_* op goldens check results against LiteRT).
final class NonMaxSuppressionTests: XCTestCase {
    /// `NON_MAX_SUPPRESSION_V5(boxes, scores, maxOutputSize, 0.5, 0.1, sigma)` with boxes of `boxShape`.
    func softModel(boxShape: [Int] = [3, 4], maxOutputSize: Int32 = 2, sigma: Float = 0.5) throws -> TFLiteModel {
        var b = ModelBuilder()
        let boxes = b.addTensor(name: "boxes", type: .float32, shape: boxShape)
        let scores = b.addTensor(name: "scores", type: .float32, shape: [boxShape[0]])
        let size = b.addConstant(name: "max_output_size", shape: [], values: [maxOutputSize])
        let iou = b.addConstant(name: "iou", shape: [], values: [Float(0.5)])
        let threshold = b.addConstant(name: "score_threshold", shape: [], values: [Float(0.1)])
        let sigmaTensor = b.addConstant(name: "sigma", shape: [], values: [sigma])
        let selected = b.addTensor(name: "selected", type: .int32, shape: [max(0, Int(maxOutputSize))])
        let selectedScores = b.addTensor(name: "selected_scores", type: .float32, shape: [max(0, Int(maxOutputSize))])
        let count = b.addTensor(name: "count", type: .int32, shape: [])
        b.addOperator(.nonMaxSuppressionV5, inputs: [boxes, scores, size, iou, threshold, sigmaTensor], outputs: [selected, selectedScores, count])
        (b.inputs, b.outputs) = ([boxes, scores], [selected, selectedScores, count])
        return try TFLiteModel(bytes: b.build())
    }

    func testOperandsOfTheWrongShapeOrSizeAreErrorsAtLoad() throws {
        XCTAssertThrowsError(try Interpreter(model: softModel(boxShape: [3, 3]))) { error in
            guard case let EngineError.invalidNode(_, op, reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(op, "NON_MAX_SUPPRESSION_V5")
            XCTAssert(reason.contains("boxes must be [n, 4]"), reason)
        }
        XCTAssertThrowsError(try Interpreter(model: softModel(maxOutputSize: -1))) { error in
            XCTAssert("\(error)".contains("max_output_size -1 is negative"), "\(error)")
        }
        XCTAssertThrowsError(try Interpreter(model: softModel(maxOutputSize: 1 << 30))) { error in
            guard case EngineError.unsupported = error else { return XCTFail("\(error)") }
        }
    }

    func testANegativeSigmaIsAnErrorWhenRunning() throws {
        let interpreter = try Interpreter(model: softModel(sigma: -1))
        try interpreter.copy([Float](repeating: 0.5, count: 12), toInputAt: 0)
        try interpreter.copy([Float(0.9), 0.8, 0.7], toInputAt: 1)
        XCTAssertThrowsError(try interpreter.invoke()) { error in
            XCTAssert("\(error)".contains("sigma -1.0 is negative"), "\(error)")
        }
    }

    func testNaNBoxesAndScoresSelectOnlyRealScores() throws {
        let interpreter = try Interpreter(model: softModel(maxOutputSize: 3))
        try interpreter.copy([Float.nan, 0, 1, 1, 0, 0, .infinity, 1, 0, 0, 1, 1], toInputAt: 0)
        try interpreter.copy([Float.nan, 0.8, 0.7], toInputAt: 1)
        try interpreter.invoke()
        let count = try interpreter.output(at: 2).toArray(of: Int32.self)[0]
        let selected = try interpreter.output(at: 0).toArray(of: Int32.self)
        XCTAssertLessThanOrEqual(count, 3)
        XCTAssertFalse(selected.prefix(Int(count)).contains(0), "a NaN score is never above the threshold: \(selected)")
        XCTAssertEqual(selected.dropFirst(Int(count)).filter { $0 != 0 }, [], "the unused tail is zero")
    }
}

/// Ops whose output size follows values known only when running (WHERE, UNIQUE; the where_* and unique_* goldens
/// check one run against LiteRT): the plan holds their largest output, and each run may shrink or regrow it.
final class ValueDependentShapeTests: XCTestCase {
    func testWhereFollowsEachRunsValues() throws {
        let interpreter = try Interpreter(modelPath: TestPaths.goldens.appendingPathComponent("ops/where_coordinates/model.tflite").path)
        // Fewer, more, then no true elements: each output is the coordinates of x > 0.5 (times 2), row-major.
        for threshold in [Float(1.5), -5, 9] {
            let x = (0..<20).map { Float($0 % 7) - 2 + (threshold < 0 ? 1 : 0) }
            try interpreter.copy(x, toInputAt: 0)
            try interpreter.invoke()
            let output = try interpreter.output(at: 0)
            let expected = x.indices.filter { x[$0] > 0.5 }.flatMap { [Float($0 / 5) * 2, Float($0 % 5) * 2] }
            XCTAssertEqual(output.shape, [expected.count / 2, 2])
            XCTAssertEqual(output.toArray(of: Float.self), expected)
        }
    }

    func testUniqueFollowsEachRunsValues() throws {
        let interpreter = try Interpreter(modelPath: TestPaths.goldens.appendingPathComponent("ops/unique_values_and_positions/model.tflite").path)
        for values: [Float] in [[3, 1, 3, 0, 1, 2, 2, 4, 0, 0, 1, 3], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]] {
            try interpreter.copy(values, toInputAt: 0)
            try interpreter.invoke()
            var distinct: [Float] = []
            for v in values where !distinct.contains(v) { distinct.append(v) }
            XCTAssertEqual(try interpreter.output(at: 0).toArray(of: Float.self), distinct.map { $0 * 3 })
            XCTAssertEqual(try interpreter.output(at: 1).toArray(of: Float.self), values.map { Float(distinct.firstIndex(of: $0)!) })
        }
    }
}

/// Resource variables on models built here (the resource_variable_state golden checks values against LiteRT).
final class ResourceVariableTests: XCTestCase {
    /// `y = READ_VARIABLE(VAR_HANDLE("v"))`, then `ASSIGN_VARIABLE(handle, x)` when `assigns`: no CALL_ONCE, so
    /// the first run reads a variable that was never assigned.
    func model(assigns: Bool) throws -> TFLiteModel {
        var b = ModelBuilder()
        let x = b.addTensor(name: "x", type: .float32, shape: [2])
        let handle = b.addTensor(name: "handle", type: .resource, shape: [])
        let y = b.addTensor(name: "y", type: .float32, shape: [2])
        var names = FlatTableBuilder()
        names[0] = .string("")
        names[1] = .string("v")
        b.addOperator(.varHandle, inputs: [], outputs: [handle], optionsType: 111, options: names)
        if assigns { b.addOperator(.assignVariable, inputs: [handle, x], outputs: []) }
        b.addOperator(.readVariable, inputs: [handle], outputs: [y])
        (b.inputs, b.outputs) = ([x], [y])
        return try TFLiteModel(bytes: b.build())
    }

    func testAVariableReadBeforeAnyAssignmentIsAnError() throws {
        let interpreter = try Interpreter(model: model(assigns: false))
        try interpreter.copy([Float(1), 2], toInputAt: 0)
        XCTAssertThrowsError(try interpreter.invoke()) { error in
            XCTAssert("\(error)".contains("read before it was assigned"), "\(error)")
        }
    }

    func testAnAssignedVariableIsReadBack() throws {
        let interpreter = try Interpreter(model: model(assigns: true))
        for values: [Float] in [[1, 2], [-3, 0.5]] {
            try interpreter.copy(values, toInputAt: 0)
            try interpreter.invoke()
            XCTAssertEqual(try interpreter.output(at: 0).toArray(of: Float.self), values)
        }
    }
}

/// Quantized DIV's division by zero (the div goldens check results against LiteRT).
final class QuantizedDivTests: XCTestCase {
    /// A divisor equal to its zero point is a real 0, which LiteRT refuses; a stored 0 (a real −zero point) divides.
    func testADivisorAtItsZeroPointIsAnErrorAndAStoredZeroIsNot() throws {
        var b = ModelBuilder()
        let x = b.addTensor(name: "x", type: .int8, shape: [1, 3], quantization: Quantization(scale: [0.04], zeroPoint: [5]))
        let y = b.addTensor(name: "y", type: .int8, shape: [1, 3], quantization: Quantization(scale: [0.05], zeroPoint: [-3]))
        let q = b.addTensor(name: "q", type: .int8, shape: [1, 3], quantization: Quantization(scale: [1.0 / 128], zeroPoint: [0]))
        b.addOperator(.div, inputs: [x, y], outputs: [q], optionsType: 29, options: FlatTableBuilder())
        (b.inputs, b.outputs) = ([x, y], [q])
        let interpreter = try Interpreter(model: TFLiteModel(bytes: b.build()))
        try interpreter.copy([Int8(10), 20, 30], toInputAt: 0)
        try interpreter.copy([Int8(0), 10, 20], toInputAt: 1)
        XCTAssertNoThrow(try interpreter.invoke())
        try interpreter.copy([Int8(-3), 10, 20], toInputAt: 1)
        XCTAssertThrowsError(try interpreter.invoke()) { error in
            XCTAssertTrue("\(error)".contains("division by 0"), "\(error)")
        }
    }
}
