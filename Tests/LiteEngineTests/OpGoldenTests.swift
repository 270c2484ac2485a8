import Foundation
@testable import LiteEngine
import LiteFormat
import XCTest

/// Every single-op model of the op table (Goldens/op_cases.json, made by tools/make_op_goldens.py from tools/op_cases/),
/// run by our engine in each numerics mode the table lists and compared with LiteRT's outputs: one test method per op
/// family (`swift test --filter OpGoldenTests/testConvolution`), and `LITEVISION_OPS=CONV_2D,ADD` runs only the cases
/// with those ops in every method (see Docs/testing.md).
final class OpGoldenTests: XCTestCase {
    typealias Entry = OpTable.Case

    /// The families of tools/op_cases, each run by the test method named after it.
    static let families = ["convolution", "matmul", "elementwise", "pooling_and_reductions", "data_movement", "recurrent", "math",
                           "special_values", "miscellaneous", "volumes_and_state", "quantized_int8", "quantized_int16", "hybrid",
                           "built_float", "quantized_rounding", "lstm", "control_flow", "keras3_layers", "weight_formats", "int64"]

    func table() throws -> OpTable {
        let table = try OpTable.shared.get()
        XCTAssertGreaterThan(table.cases.count, 90, "the table lost cases")
        return table
    }

    /// The cases `LITEVISION_OPS` keeps (all when it is unset), in name order.
    func cases() throws -> [(String, Entry)] { try table().selected().map { ($0.name, $0.entry) } }

    /// Whether `LITEVISION_OPS` narrows the run (the checks that count cases then expect none).
    var filtered: Bool { OpTable.filter != nil }

    func check(_ name: String, _ entry: Entry, threads: Int = 1, numerics: Numerics = .fast) throws {
        let folder = OpTable.folder(name)
        let inputs = try (0..<entry.inputs).map { try NumPyArray(contentsOf: folder.appendingPathComponent("input_\($0).npy").path) }
        let outputs = try runModel(folder.appendingPathComponent("model.tflite").path, inputs: inputs,
                                   options: .init(threads: threads, numerics: numerics))
        XCTAssertEqual(outputs.count, entry.outputs, name)
        for i in 0..<min(outputs.count, entry.outputs) {
            let reference = try NumPyArray(contentsOf: folder.appendingPathComponent("output_\(i).npy").path)
            let label = "\(name) output \(i), \(numerics) numerics"
            if entry.exact == true {
                assertIdentical(outputs[i], reference, label)
            } else if entry.special == true {
                assertCloseWithSpecialValues(outputs[i], reference, label)
            } else {
                assertClose(outputs[i], reference, label)
            }
        }
    }

    /// Every case of `family` that `LITEVISION_OPS` keeps, in each numerics mode the table lists for it.
    func checkFamily(_ family: String) throws {
        XCTAssertTrue(Self.families.contains(family), family)
        var ran = 0
        for (name, entry) in try table().selected(family: family) {
            XCTAssertFalse(entry.numericsModes.isEmpty, "\(name): no numerics mode")
            for numerics in entry.numericsModes {
                do {
                    try check(name, entry, numerics: numerics)
                } catch {
                    XCTFail("\(name) (\(entry.ops.joined(separator: ", "))), \(numerics) numerics: \(error)")
                }
            }
            ran += 1
        }
        if !filtered { XCTAssertGreaterThan(ran, 0, "the family \(family) has no case") }
        print("op goldens: \(family): \(ran) cases")
    }

    func testConvolution() throws { try checkFamily("convolution") }
    func testMatmul() throws { try checkFamily("matmul") }
    func testElementwise() throws { try checkFamily("elementwise") }
    func testPoolingAndReductions() throws { try checkFamily("pooling_and_reductions") }
    func testDataMovement() throws { try checkFamily("data_movement") }
    func testRecurrent() throws { try checkFamily("recurrent") }
    func testMath() throws { try checkFamily("math") }
    func testSpecialValues() throws { try checkFamily("special_values") }
    func testMiscellaneous() throws { try checkFamily("miscellaneous") }
    func testVolumesAndState() throws { try checkFamily("volumes_and_state") }
    func testQuantizedInt8() throws { try checkFamily("quantized_int8") }
    func testQuantizedInt16() throws { try checkFamily("quantized_int16") }
    func testHybrid() throws { try checkFamily("hybrid") }
    func testBuiltFloat() throws { try checkFamily("built_float") }
    func testQuantizedRounding() throws { try checkFamily("quantized_rounding") }
    func testLSTM() throws { try checkFamily("lstm") }
    func testControlFlow() throws { try checkFamily("control_flow") }
    func testKeras3Layers() throws { try checkFamily("keras3_layers") }
    func testWeightFormats() throws { try checkFamily("weight_formats") }
    func testInt64() throws { try checkFamily("int64") }

    /// Each family of the table has its test method above (a new module in tools/op_cases needs one), and every case
    /// has its recorded model.
    func testEveryFamilyHasATestMethod() throws {
        let table = try table()
        XCTAssertEqual(Set(table.cases.values.map(\.family)), Set(Self.families))
        for name in table.cases.keys {
            XCTAssertTrue(FileManager.default.fileExists(atPath: OpTable.folder(name).appendingPathComponent("model.tflite").path), name)
        }
    }

    /// A case's folder, its recorded inputs and an interpreter planned for their shapes.
    func loaded(_ name: String, _ entry: Entry) throws -> (URL, [NumPyArray], Interpreter) {
        let folder = OpTable.folder(name)
        let inputs = try (0..<entry.inputs).map { try NumPyArray(contentsOf: folder.appendingPathComponent("input_\($0).npy").path) }
        let interpreter = try Interpreter(modelPath: folder.appendingPathComponent("model.tflite").path)
        for (i, array) in inputs.enumerated() where try interpreter.input(at: i).shape != array.shape {
            try interpreter.resizeInput(at: i, to: array.shape)
        }
        try interpreter.allocateTensors()
        return (folder, inputs, interpreter)
    }

    /// Recurrent models (LSTMs, SVDF) keep their state in variable tensors: a second invocation on the same input continues from
    /// the first (LiteRT's outputs recorded for both), and `resetVariableTensors()` starts over.
    func testRecurrentStateCarriesOverUntilReset() throws {
        var checked = 0
        for (name, entry) in try cases() where entry.ops.contains(where: { $0.contains("LSTM") || $0 == "SVDF" }) {
            let (folder, inputs, interpreter) = try loaded(name, entry)
            for (i, array) in inputs.enumerated() { try array.bytes.withUnsafeBytes { try interpreter.copy($0, toInputAt: i) } }
            func outputs() throws -> [NumPyArray] { try (0..<interpreter.outputCount).map { try interpreter.output(at: $0).numpy() } }
            try interpreter.invoke()
            let first = try outputs()
            try interpreter.invoke()
            let second = try outputs()
            for i in 0..<entry.outputs {
                let reference = try NumPyArray(contentsOf: folder.appendingPathComponent("output_\(i).second_invocation.npy").path)
                assertClose(second[i], reference, "\(name) output \(i), second invocation")
                XCTAssertNotEqual(second[i].bytes, first[i].bytes, "\(name): the state did not carry over")
            }
            interpreter.resetVariableTensors()
            try interpreter.invoke()
            let reset = try outputs()
            for i in 0..<entry.outputs { XCTAssertEqual(reset[i].bytes, first[i].bytes, "\(name): reset did not start over") }
            checked += 1
        }
        if !filtered { XCTAssertGreaterThanOrEqual(checked, 5) }
    }

    /// Seeded random ops (RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL, MULTINOMIAL) continue their Philox stream from one
    /// run to the next, bit for bit as LiteRT's (both runs recorded), and a newly loaded model starts it over.
    func testRandomStreamsContinueBetweenRunsAndStartOverWhenLoaded() throws {
        let checked = try checkTwoRecordedRunsPerLoad(where: { $0.hasPrefix("RANDOM_") || $0 == "MULTINOMIAL" }) { assertIdentical($0, $1, $2) }
        if !filtered { XCTAssertGreaterThanOrEqual(checked, 6) }
    }

    /// Without seeds (both 0) a random op draws from the system's randomness, as TFLite's: two loads of one model give
    /// different values, each uniform in [0, 1).
    func testUnseededRandomUniformDiffersFromLoadToLoad() throws {
        var builder = ModelBuilder()
        let shape = builder.addConstant(name: "shape", shape: [1], values: [Int32(4000)])
        let values = builder.addTensor(name: "values", type: .float32, shape: [4000])
        builder.addOperator(.randomUniform, inputs: [shape], outputs: [values])
        builder.outputs = [values]
        let model = try TFLiteModel(bytes: builder.build())
        func draw() throws -> [Float] {
            let interpreter = try Interpreter(model: model)
            try interpreter.allocateTensors()
            try interpreter.invoke()
            return try interpreter.output(at: 0).numpy().floats()
        }
        let first = try draw(), second = try draw()
        XCTAssertNotEqual(first, second)
        for sample in [first, second] {
            XCTAssertTrue(sample.allSatisfy { $0 >= 0 && $0 < 1 })
            // The mean of 4,000 uniform values lies within 0.5 ± 0.023 (5 standard deviations) but for 1 in 1.7 million.
            XCTAssertEqual(sample.reduce(0, +) / Float(sample.count), 0.5, accuracy: 0.023)
        }
    }

    /// A zero channel PAD that only an ADD reads folds into the ADD (which reads the unpadded tensor): in the goldens
    /// made for it and in every residual block of the face detector, whose outputs the model goldens compare.
    func testChannelPadsFoldIntoTheirAdds() throws {
        for name in ["pad_channels_into_add", "pad_channels_into_add_signed_zeros", "pad_channels_into_add_resized"] {
            let interpreter = try Interpreter(modelPath: OpTable.folder(name).appendingPathComponent("model.tflite").path)
            let pads = interpreter.nodeCodes.indices.filter { interpreter.nodeCodes[$0].builtin == .pad }
            XCTAssertFalse(pads.isEmpty, name)
            XCTAssertTrue(pads.allSatisfy { interpreter.folded[$0] }, "\(name): a PAD was not folded")
        }
        let detector = try Interpreter(modelPath: TestPaths.models.appendingPathComponent("detection/face_detection_short_range.tflite").path)
        let pads = detector.nodeCodes.indices.filter { detector.nodeCodes[$0].builtin == .pad }
        XCTAssertGreaterThanOrEqual(pads.count, 10)
        XCTAssertEqual(pads.filter { detector.folded[$0] }.count, pads.count)
    }

    /// A zero PAD of height and width that only convolutions read (as their input) folds into them, which read the
    /// unpadded tensor, in the goldens made for it (whose outputs the op golden test compares with LiteRT's); not when
    /// the padded tensor is also a graph output, nor with folding turned off.
    func testSpatialPadsFoldIntoTheirConvolutions() throws {
        for (name, folds) in [("pad_spatial_into_depthwise", true), ("pad_spatial_read_by_two_depthwise", true), ("pad_spatial_into_conv", true),
                              ("pad_spatial_into_conv_resized", true), ("pad_spatial_edge_cases", true), ("pad_spatial_also_an_output", false)] {
            let interpreter = try Interpreter(modelPath: OpTable.folder(name).appendingPathComponent("model.tflite").path)
            let pads = interpreter.nodeCodes.indices.filter { interpreter.nodeCodes[$0].builtin == .pad }
            XCTAssertFalse(pads.isEmpty, name)
            XCTAssertTrue(pads.allSatisfy { interpreter.folded[$0] == folds }, "\(name): a PAD was \(folds ? "not " : "")folded")
            let unfused = try Interpreter(modelPath: OpTable.folder(name).appendingPathComponent("model.tflite").path,
                                          options: .init(fusesActivations: false))
            XCTAssertTrue(pads.allSatisfy { !unfused.folded[$0] }, name)
        }
    }

    /// A float ADD (also one with a folded channel PAD) or PRELU that alone reads a convolution's output folds into the
    /// convolution's store, in the goldens made for it (whose outputs the op golden tests compare with LiteRT's at one
    /// and two threads); a PRELU whose input is also a graph output does not, nor an ADD of a convolution that two read. Folded or not, the outputs are the same bits, at one thread and at two with
    /// every loop split.
    func testAddAndPreluFoldIntoTheConvolutionBeforeThem() throws {
        let savedWork = minimumWorkPerThread
        minimumWorkPerThread = 1
        defer { minimumWorkPerThread = savedWork }
        let cases: [(name: String, folded: Set<BuiltinOperator>)] = [
            ("conv_store_prelu", [.prelu]), ("conv_store_add_prelu", [.add, .prelu]), ("conv_store_add_prelu_conv_second", [.add, .prelu]),
            ("conv_store_single_rows", [.add, .prelu]), ("conv_store_one_pixel", [.prelu]), ("conv_store_add_broadcast", [.add, .prelu]),
            ("conv_store_sum_is_an_output", [.add]), ("conv_store_resized", [.add, .prelu]),
            ("conv_store_add_channel_padded", [.add, .pad]), ("conv_store_add_channel_padded_second", [.add, .pad]),
            ("pad_channels_into_add_resized", [.add, .pad]),
            ("pad_channels_into_add", [.pad]),  // one convolution that both ADDs read
        ]
        for (name, expected) in cases {
            let folder = OpTable.folder(name), path = folder.appendingPathComponent("model.tflite").path
            let interpreter = try Interpreter(modelPath: path)
            let folded = Set(interpreter.nodeCodes.indices.filter { interpreter.folded[$0] }.compactMap { interpreter.nodeCodes[$0].builtin })
            XCTAssertEqual(folded, expected, "\(name): folded nodes")
            let entry = try XCTUnwrap(table().cases[name], name)
            let inputs = try (0..<entry.inputs).map { try NumPyArray(contentsOf: folder.appendingPathComponent("input_\($0).npy").path) }
            for threads in [1, 2] {
                let unfused = try runModel(path, inputs: inputs, options: .init(threads: threads, fusesActivations: false))
                let fused = try runModel(path, inputs: inputs, options: .init(threads: threads))
                XCTAssertEqual(fused.count, unfused.count, name)
                for (i, (ours, plain)) in zip(fused, unfused).enumerated() { assertIdentical(ours, plain, "\(name) output \(i), \(threads) threads") }
            }
        }
    }

    /// Resource variables (`tf.Variable`s: CALL_ONCE, VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE) keep their values
    /// from one run to the next (LiteRT's outputs recorded for two runs), and each interpreter has its own.
    func testResourceVariablesKeepTheirValuesBetweenRuns() throws {
        let checked = try checkTwoRecordedRunsPerLoad(where: { $0 == "ASSIGN_VARIABLE" }) { ours, reference, label in
            assertClose(ours, reference, label)
        }
        if !filtered { XCTAssertGreaterThanOrEqual(checked, 1) }
    }

    /// For each case with an op that `matches`, twice over (two loads): two runs on the recorded inputs, each compared
    /// with LiteRT's outputs of that run (`output_<i>.npy`, then `output_<i>.second_invocation.npy`) by `compare`.
    /// Returns how many cases it checked.
    func checkTwoRecordedRunsPerLoad(where matches: (String) -> Bool,
                                     _ compare: (NumPyArray, NumPyArray, String) -> Void) throws -> Int {
        var checked = 0
        for (name, entry) in try cases() where entry.ops.contains(where: matches) {
            for _ in 0..<2 {
                let (folder, inputs, interpreter) = try loaded(name, entry)
                for run in ["", ".second_invocation"] {
                    for (i, array) in inputs.enumerated() { try array.bytes.withUnsafeBytes { try interpreter.copy($0, toInputAt: i) } }
                    try interpreter.invoke()
                    for i in 0..<entry.outputs {
                        let reference = try NumPyArray(contentsOf: folder.appendingPathComponent("output_\(i)\(run).npy").path)
                        compare(try interpreter.output(at: i).numpy(), reference, "\(name) output \(i)\(run)")
                    }
                }
            }
            checked += 1
        }
        return checked
    }

    /// A WHILE body planned from its loop variables' values keeps its plan and skips preparing unchanged nodes from
    /// one step and one invocation to the next: every invocation must still give LiteRT's outputs, with other input
    /// values run in between.
    func testLoopsGiveTheSameResultsOnEveryInvocation() throws {
        var checked = 0
        for (name, entry) in try cases() where entry.ops.contains("WHILE") {
            let (folder, inputs, interpreter) = try loaded(name, entry)
            for round in 0..<3 {
                for (i, array) in inputs.enumerated() {
                    // Round 1 runs on other values (each byte halved), rounds 0 and 2 on the golden inputs.
                    let bytes = round == 1 ? array.bytes.map { $0 / 2 } : array.bytes
                    try bytes.withUnsafeBytes { try interpreter.copy($0, toInputAt: i) }
                }
                try interpreter.invoke()
                guard round != 1 else { continue }
                for i in 0..<entry.outputs {
                    let reference = try NumPyArray(contentsOf: folder.appendingPathComponent("output_\(i).npy").path)
                    assertClose(try interpreter.output(at: i).numpy(), reference, "\(name) output \(i), invocation \(round + 1)")
                }
                for loop in interpreter.kernels.compactMap({ $0 as? While }) {
                    XCTAssertTrue(loop.condition.tensorsFitTheirRegions() && loop.body.tensorsFitTheirRegions(), "\(name): a tensor outgrew its region")
                }
            }
            checked += 1
        }
        if !filtered { XCTAssertGreaterThanOrEqual(checked, 8) }
    }

    /// Every loop split however small (the default keeps small ops on one thread).
    func testEveryOpMatchesLiteRTWithTwoThreads() throws {
        let saved = minimumWorkPerThread
        minimumWorkPerThread = 1
        defer { minimumWorkPerThread = saved }
        for (name, entry) in try cases() {
            do {
                try check(name, entry, threads: 2)
            } catch {
                XCTFail("\(name) (\(entry.ops.joined(separator: ", "))): \(error)")
            }
        }
    }

    /// Every golden model run on hostile values in place of its inputs (NaN, ±inf, ±3e38, subnormals for float inputs;
    /// the type's extremes for integer ones; the same shapes): each node must finish or throw a typed error, never
    /// trap. Outputs are not checked (LiteRT's own differ between its kernels on such values).
    func testEveryOpSurvivesSpecialInputValues() throws {
        let floats: [Float] = [.nan, .infinity, -.infinity, 3e38, -3e38, .leastNonzeroMagnitude, -0.0, 1, -1, 65504, 1e10, -1e10]
        var ran = 0, failed = 0
        for (name, entry) in try cases() {
            let folder = OpTable.folder(name)
            let inputs = try (0..<entry.inputs).map { try NumPyArray(contentsOf: folder.appendingPathComponent("input_\($0).npy").path) }
            for pattern in 0..<3 {
                let hostile = inputs.map { array -> NumPyArray in
                    let size = array.type.byteSize ?? 1, count = array.bytes.count / size
                    var bytes = array.bytes
                    for i in 0..<count {
                        let k = (i + pattern * 5) % floats.count
                        switch array.type {
                        case .float32: withUnsafeBytes(of: floats[k].bitPattern.littleEndian) { bytes.replaceSubrange(i * 4..<(i * 4 + 4), with: $0) }
                        case .int32: withUnsafeBytes(of: [Int32.min, Int32.max, 0, -1][k % 4].littleEndian) { bytes.replaceSubrange(i * 4..<(i * 4 + 4), with: $0) }
                        case .int16: withUnsafeBytes(of: [Int16.min, Int16.max, 0, -1][k % 4].littleEndian) { bytes.replaceSubrange(i * 2..<(i * 2 + 2), with: $0) }
                        case .int8, .uint8: bytes[i] = [0, 255, 128, 127][k % 4]
                        default: break
                        }
                    }
                    return NumPyArray(type: array.type, shape: array.shape, bytes: bytes)
                }
                do {
                    // A loop bound read from a hostile input ends in an error at 10,000 steps.
                    _ = try runModel(folder.appendingPathComponent("model.tflite").path, inputs: hostile, options: .init(maximumLoopIterations: 10_000))
                    ran += 1
                } catch {
                    failed += 1
                    print("special inputs: \(name) pattern \(pattern): \(error)")
                }
            }
        }
        XCTAssertGreaterThan(ran, failed, "most models should still run on special values")
        print("special inputs: \(ran) runs finished, \(failed) ended in a typed error")
    }
}
