@testable import LiteEngine
import LiteFormat
import ModelFuzzing
import XCTest

/// The CI-sized run of tools/model-fuzz: mutated copies of every shared model must load or fail with a typed
/// error. (A crash would end the test process, failing the run.) The full run is
/// `swift run -c release model-fuzz --cases 100000`.
final class FuzzTests: XCTestCase {
    /// No mutant may take longer, in seconds (wider under a sanitizer).
    static let slowestBound = 5.0 * Double(SanitizedBuild.boundFactor)

    /// Runs `count` mutated cases of `models` (WHILE loops ended at the fuzzer's 10,000 steps, so that a loop whose bound
    /// was made huge ends in an error quickly): some must load, none may take `slowestBound`.
    func fuzz(_ models: [String], seed: UInt64, count: Int) throws -> ModelFuzzer.Outcome {
        var fuzzer = ModelFuzzer(seed: seed, runBelowBytes: 300_000)
        let outcome = try fuzzer.run(models: models, count: count)
        XCTAssertGreaterThan(outcome.loaded, 0)
        XCTAssertLessThan(outcome.slowest, Self.slowestBound, "one mutant took \(outcome.slowest) s: \(outcome.slowestCase)")
        print("fuzz: \(outcome)")
        return outcome
    }

    func testMutatedModelsNeverCrash() throws {
        let models = ModelFuzzer.models(under: TestPaths.models.path)
        XCTAssertGreaterThanOrEqual(models.count, 19)
        var fuzzer = ModelFuzzer(seed: 2026, runBelowBytes: 300_000)
        let outcome = try fuzzer.run(models: models, count: 3000)
        XCTAssertEqual(outcome.cases, 3000)
        XCTAssertGreaterThan(outcome.loaded, 0, "no mutant loaded: the mutations are too destructive to test the engine")
        XCTAssertGreaterThan(outcome.formatErrors, 0)
        XCTAssertLessThan(outcome.slowest, Self.slowestBound, "one mutant took \(outcome.slowest) s: \(outcome.slowestCase)")
        print("fuzz: \(outcome)")
    }

    /// The WHILE and IF goldens: subgraph indices, loop variables and loop bounds mutated. The fuzzer's iteration limit
    /// (10,000) ends a loop whose bound was made huge in an error quickly.
    func testMutatedControlFlowModelsNeverCrash() throws {
        let models = ["while_counted", "while_data_dependent", "while_keras3_lstm", "while_keras3_lstm_sequences", "if_then_branch"].map {
            TestPaths.goldens.appendingPathComponent("ops/\($0)/model.tflite").path
        }
        var fuzzer = ModelFuzzer(seed: 2027, runBelowBytes: 300_000)
        let outcome = try fuzzer.run(models: models, count: 1500)
        XCTAssertGreaterThan(outcome.loaded, 0)
        XCTAssertLessThan(outcome.slowest, Self.slowestBound, "one mutant took \(outcome.slowest) s: \(outcome.slowestCase)")
        print("fuzz: \(outcome)")
    }

    /// The goldens of the ops whose shapes or reads follow their inputs' values (TILE, FILL, RANGE, GATHER_ND, ONE_HOT,
    /// TOPK_V2, SPACE_TO_BATCH_ND, ...), BATCH_MATMUL's broadcasting and the Transformer blocks, mutated.
    func testMutatedShapeAndIndexOpModelsNeverCrash() throws {
        let names = ["batch_matmul_broadcast_4d", "batch_matmul_rank5", "q_batch_matmul_adjoint_b_broadcast", "gelu", "q_rsqrt",
                     "q_squared_difference_broadcast", "select_v2_broadcast", "tile", "tile_int32", "fill_dynamic_shape", "broadcast_to",
                     "zeros_and_ones_like", "range_from_shape", "gather_nd", "gather_nd_batch_of_slices", "cumsum_exclusive_reverse", "one_hot",
                     "top_k", "space_to_batch_nd", "batch_to_space_nd", "floor_div_int32", "floor_mod_int32", "pow_int32",
                     "keras3_transformer_encoder_block", "q_keras3_transformer_encoder_block", "dynamic_update_slice", "scatter_nd",
                     "embedding_lookup", "reduce_any_all", "local_response_normalization"]
        let models = names.map { TestPaths.goldens.appendingPathComponent("ops/\($0)/model.tflite").path }
        var fuzzer = ModelFuzzer(seed: 2028, runBelowBytes: 300_000)
        let outcome = try fuzzer.run(models: models, count: 5000)
        XCTAssertGreaterThan(outcome.loaded, 0)
        XCTAssertLessThan(outcome.slowest, Self.slowestBound, "one mutant took \(outcome.slowest) s: \(outcome.slowestCase)")
        print("fuzz: \(outcome)")
    }

    /// The ops added on 2026-11-26's last session (NMS V4/V5 and the padded NMS loop, segment sums, RFFT2D, CONV_3D and
    /// its transpose, hybrid BATCH_MATMUL, REVERSE_SEQUENCE, BUCKETIZE, shifts, ...), mutated. `FUZZ_SEED` and
    /// `FUZZ_CASES` run it longer by hand (three seeds of 40,000 cases on 2026-11-26: no crash).
    func testMutatedModelsOfTheNewerOpsNeverCrash() throws {
        let names = ["nms_v4_ties", "nms_v5_soft_and_hard", "nms_padded_while_loop", "gather_batch_dims", "reverse_sequence", "matrix_diag",
                     "matrix_set_diag", "segment_sum", "unsorted_segment_max", "bucketize", "right_shift_int32", "bitwise_xor_int32",
                     "rfft2d_cropped_real_imag", "stft_magnitude", "conv3d_same_relu", "conv3d_transpose_same_stride2", "conv3d_dilated_relu6",
                     "add_n", "hybrid_batch_matmul", "q_sqrt", "q_l2_normalization", "special_cast_float_to_integers", "one_hot_axis0",
                     "lstm_keras_float16_weights", "int32_mul_minimum_maximum_sum", "where_coordinates", "boolean_mask_sum",
                     "unique_values_and_positions", "sparse_to_dense", "resource_variable_state", "svdf_rank1", "random_uniform_dynamic_shape",
                     "random_normal_seeded", "multinomial_int64", "broadcast_args_dynamic", "bitcast_types", "pad_channels_into_add",
                     "q16_conv_grouped_two_groups_stride2_relu", "q_reduce_prod_axes_0_2_keep", "special_convolutions_and_pools"]
        let models = names.map { TestPaths.goldens.appendingPathComponent("ops/\($0)/model.tflite").path }
        let environment = ProcessInfo.processInfo.environment
        _ = try fuzz(models, seed: UInt64(environment["FUZZ_SEED"] ?? "2029") ?? 2029, count: Int(environment["FUZZ_CASES"] ?? "5000") ?? 5000)
    }

    /// Every op golden (about 420 single-op models, quantized and float, control flow, value-dependent shapes),
    /// mutated: the broadest set the fuzzer has. Fuzzing them by hand on 2026-11-26 (model-fuzz --models
    /// Tests/LiteEngineTests/Goldens/ops, seeds 7-9, 220,000 cases) found four traps the shared models never reached.
    func testMutatedOpGoldensNeverCrash() throws {
        let models = ModelFuzzer.models(under: TestPaths.goldens.appendingPathComponent("ops").path)
        XCTAssertGreaterThan(models.count, 400)
        _ = try fuzz(models, seed: 2030, count: 30_000)
    }
}

/// Mutants the fuzzer found (Goldens/hostile, each a few bit flips of an op golden): each must fail fast with a typed error.
final class HostileModelTests: XCTestCase {
    func testHugeOutputsAreRefusedBeforeTheyAreAllocated() throws {
        // A DENSIFY whose dense shape became [32, 268435520] (34 GB, once allocated outside the arena: a failed
        // allocation ended the process) and a CONV_2D whose input width became 2^28 (its layout allocated and
        // cleared 2 GB before the planner refused the output).
        for name in ["densify_huge_output", "conv_huge_width"] {
            let path = TestPaths.goldens.appendingPathComponent("hostile/\(name).tflite").path
            let start = Date()
            XCTAssertThrowsError(try Interpreter(modelPath: path)) { error in
                XCTAssertTrue("\(error)".contains("memory limit"), "\(name): \(error)")
            }
            XCTAssertLessThan(Date().timeIntervalSince(start), 1, name)
        }
    }

    /// Zero points at the ends of Int32 (found by the model-invoke fuzzer: |Int32.min| trapped in the zero point's
    /// range check) and beyond it: a typed error when the node is prepared.
    func testZeroPointsAtTheEndsOfInt32AreRefused() throws {
        for zeroPoint: Int64 in [Int64(Int32.min), Int64(Int32.max), Int64(Int32.min) - 1, -(1 << 16) - 1] {
            var builder = ModelBuilder()
            let input = builder.addTensor(name: "x", type: .float32, shape: [1, 4])
            let output = builder.addTensor(name: "y", type: .int8, shape: [1, 4], quantization: Quantization(scale: [0.5], zeroPoint: [zeroPoint]))
            builder.addOperator(.quantize, inputs: [input], outputs: [output])
            builder.inputs = [input]
            builder.outputs = [output]
            XCTAssertThrowsError(try Interpreter(model: TFLiteModel(bytes: builder.build()))) { error in
                XCTAssertTrue("\(error)".contains("zero point \(zeroPoint) out of range"), "\(zeroPoint): \(error)")
            }
            // DEQUANTIZE of an input and of a constant (converted while the plan is built).
            for constant in [false, true] {
                var builder = ModelBuilder()
                let q = Quantization(scale: [0.5], zeroPoint: [zeroPoint])
                let input = builder.addTensor(name: "q", type: .int8, shape: [1, 4], buffer: constant ? builder.addBuffer([1, 2, 3, 4]) : 0, quantization: q)
                let output = builder.addTensor(name: "y", type: .float32, shape: [1, 4])
                builder.addOperator(.dequantize, inputs: [input], outputs: [output])
                builder.inputs = constant ? [] : [input]
                builder.outputs = [output]
                XCTAssertThrowsError(try Interpreter(model: TFLiteModel(bytes: builder.build()))) { error in
                    XCTAssertTrue("\(error)".contains("zero point \(zeroPoint) out of range"), "DEQUANTIZE \(zeroPoint): \(error)")
                }
            }
        }
    }

    /// ARG_MAX and ARG_MIN along an axis without elements have nothing to choose from: a typed error, not a read of
    /// the first (absent) element.
    func testArgMaxAlongAnEmptyAxisIsRefused() throws {
        for op in [BuiltinOperator.argMax, .argMin] {
            var builder = ModelBuilder()
            let input = builder.addTensor(name: "x", type: .float32, shape: [2, 0, 3])
            let axis = builder.addConstant(name: "axis", shape: [], values: [1] as [Int32])
            let output = builder.addTensor(name: "y", type: .int32, shape: [2, 3])
            builder.addOperator(op, inputs: [input, axis], outputs: [output])
            builder.inputs = [input]
            builder.outputs = [output]
            XCTAssertThrowsError(try Interpreter(model: TFLiteModel(bytes: builder.build()))) { error in
                XCTAssertTrue("\(error)".contains("which has no elements"), "\(op): \(error)")
            }
        }
    }

    /// A 16x8 CONV_2D on an input of no channels (a fuzzer's mutant: 0 % filter channels passed the whole-groups check,
    /// then zero groups divided the filter count): a typed error.
    func testInt16ConvolutionOfAnInputWithoutChannelsIsRefused() throws {
        var builder = ModelBuilder()
        let int16 = Quantization(scale: [0.01], zeroPoint: [0], quantizedDimension: 0)
        let input = builder.addTensor(name: "x", type: .int16, shape: [1, 4, 4, 0], quantization: int16)
        let filterBytes = [UInt8](repeating: 1, count: 4 * 3 * 3 * 4)
        let filter = builder.addTensor(name: "w", type: .int8, shape: [4, 3, 3, 4], buffer: builder.addBuffer(filterBytes),
                                       quantization: Quantization(scale: [0.02], zeroPoint: [0], quantizedDimension: 0))
        let output = builder.addTensor(name: "y", type: .int16, shape: [1, 4, 4, 4], quantization: int16)
        var options = FlatTableBuilder()
        options[0] = .int8(0)
        options[1] = .int32(1)
        options[2] = .int32(1)
        builder.addOperator(.conv2d, inputs: [input, filter, -1], outputs: [output], optionsType: 1, options: options)
        builder.inputs = [input]
        builder.outputs = [output]
        XCTAssertThrowsError(try Interpreter(model: TFLiteModel(bytes: builder.build()))) { error in
            XCTAssertTrue("\(error)".contains("not a whole number of groups"), "\(error)")
        }
    }

    /// A random op asked for 2^40 values or 2^31 samples a row is refused by the size or memory limit before anything is drawn.
    func testHugeRandomOutputsAreRefused() throws {
        var uniform = ModelBuilder()
        let shape = uniform.addConstant(name: "shape", shape: [2], values: [Int32(1 << 20), Int32(1 << 20)])
        let values = uniform.addTensor(name: "values", type: .float32, shape: [1, 1])
        uniform.addOperator(.randomUniform, inputs: [shape], outputs: [values])
        uniform.outputs = [values]
        var multinomial = ModelBuilder()
        let logits = multinomial.addConstant(name: "logits", shape: [4, 3], values: [Float](repeating: 0, count: 12))
        let count = multinomial.addConstant(name: "count", shape: [], values: [Int32.max])
        let samples = multinomial.addTensor(name: "samples", type: .int64, shape: [4, 1])
        multinomial.addOperator(.multinomial, inputs: [logits, count], outputs: [samples])
        multinomial.outputs = [samples]
        for builder in [uniform, multinomial] {
            let start = Date()
            XCTAssertThrowsError(try Interpreter(model: TFLiteModel(bytes: builder.build()))) { error in
                XCTAssertTrue("\(error)".contains("limit"), "\(error)")
            }
            XCTAssertLessThan(Date().timeIntervalSince(start), 1)
        }
    }
}
