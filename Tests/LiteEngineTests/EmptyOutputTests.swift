import LiteEngine
import LiteFormat
import XCTest

/// An output with no elements (a batch of zero) may still be huge along another dimension: the ops that build a table
/// per output row or column must not build one for it (a RESIZE_BILINEAR to a width of `Int32.max` would allocate
/// tens of gigabytes outside the memory limit).
final class EmptyOutputTests: XCTestCase {
    /// A resize of a [0, 2, 2, 1] float input to [1, Int32.max].
    func resizeModel(_ op: BuiltinOperator) throws -> TFLiteModel {
        var builder = ModelBuilder()
        let x = builder.addTensor(name: "x", type: .float32, shape: [0, 2, 2, 1])
        let size = builder.addConstant(name: "size", shape: [2], values: [1, Int32.max] as [Int32])
        let y = builder.addTensor(name: "y", type: .float32, shape: [0, 1, Int(Int32.max), 1])
        builder.addOperator(op, inputs: [x, size], outputs: [y])
        builder.inputs = [x]
        builder.outputs = [y]
        return try TFLiteModel(bytes: builder.build())
    }

    func testResizingABatchOfZeroToAHugeWidthDoesNothing() throws {
        for op in [BuiltinOperator.resizeBilinear, .resizeNearestNeighbor] {
            let interpreter = try Interpreter(model: try resizeModel(op))
            try interpreter.invoke()
            let output = try interpreter.output(at: 0)
            XCTAssertEqual(output.shape, [0, 1, Int(Int32.max), 1], "\(op)")
            XCTAssertEqual(output.elementCount, 0, "\(op)")
        }
    }
}

/// A tensor with no channels may still span billions of pixels: the spatial ops must not walk their output positions
/// doing nothing at each (found by the model-invoke fuzzer: a MAX_POOL_2D over [2, 8, 50331656, 0] took 0.7 s, 28 s
/// under the fuzzer's sanitizers). Each model runs in a child `vision-cli bench`, killed past the time bound, so that a
/// regression fails instead of hanging the suite.
final class ChannellessSpatialOpTests: XCTestCase {
    /// [1, 8, Int32.max, 0]: 17 billion positions (the most a model may declare, 2^34 elements before the zero), hours
    /// of empty loops.
    static let shape = [1, 8, Int(Int32.max), 0]
    /// [8, Int32.max, 0, 4]: 17 billion rows without width.
    static let noWidth = [8, Int(Int32.max), 0, 4]

    /// A model of one `op` node from an input of `inputShape` (by default ``shape``) to `outputs` outputs of
    /// `outputShape` (by default ``shape``),
    /// with the constants (filters, biases, axes) that `constants` adds as further inputs.
    func model(_ op: BuiltinOperator, type: TensorType = .float32, outputs: Int = 1, inputShape: [Int] = shape, outputShape: [Int] = shape,
               optionsType: UInt8 = 0,
               options: FlatTableBuilder? = nil, customName: String? = nil, customOptions: [UInt8]? = nil,
               constants: (inout ModelBuilder) -> [Int] = { _ in [] }) -> [UInt8] {
        var builder = ModelBuilder()
        let quantization = type == .float32 ? nil : Quantization(scale: [0.5], zeroPoint: [0])
        let x = builder.addTensor(name: "x", type: type, shape: inputShape, quantization: quantization)
        let extra = constants(&builder)
        let ys = (0..<outputs).map { builder.addTensor(name: "y\($0)", type: type, shape: outputShape, quantization: quantization) }
        builder.addOperator(op, customName: customName, inputs: [x] + extra, outputs: ys, optionsType: optionsType, options: options,
                            customOptions: customOptions)
        builder.inputs = [x]
        builder.outputs = ys
        return builder.build()
    }

    /// Options with stride 1 and SAME padding: the fields after padding (0) and the strides (1, 2) set by `more`.
    static func stridedOptions(_ more: [Int: FlatTableBuilder.Value] = [:]) -> FlatTableBuilder {
        var options = FlatTableBuilder()
        options[0] = .int8(0)
        options[1] = .int32(1)
        options[2] = .int32(1)
        for (field, value) in more { options[field] = value }
        return options
    }

    /// The pools, CUMSUM, SUM and the convolutions of an input without width return an empty output at once; the
    /// convolutions refuse a filter without channels (a model error, exit 3) when they are prepared.
    func testSpatialOpsOnAnInputWithoutChannelsReturnAtOnce() throws {
        let pool = Self.stridedOptions([3: .int32(3), 4: .int32(3)])  // Pool2DOptions: a 3x3 window
        let filter = { (builder: inout ModelBuilder, shape: [Int]) -> [Int] in
            [builder.addConstant(name: "w", shape: shape, values: [Float](repeating: 0.5, count: shape.reduce(1, *))),
             builder.addConstant(name: "b", shape: [shape[shape[0] == 1 ? 3 : 0]], values: [Float](repeating: 1, count: shape[shape[0] == 1 ? 3 : 0]))]
        }
        let emptyFilter = { (builder: inout ModelBuilder, shape: [Int]) -> [Int] in
            [builder.addTensor(name: "w", type: .float32, shape: shape, buffer: builder.addBuffer([])),
             builder.addTensor(name: "b", type: .float32, shape: [0], buffer: builder.addBuffer([]))]
        }
        // MediaPipe's TfLitePoolParams: padding SAME (1), stride w and h, filter w and h, no activation.
        let argmaxPool = MediaPipeOpGoldenTests.int32s([1, 1, 1, 3, 3, 0])
        let cases: [(name: String, model: [UInt8], status: Int32)] = [
            ("MAX_POOL_2D float32", model(.maxPool2d, optionsType: 5, options: pool), 0),
            ("MAX_POOL_2D int8", model(.maxPool2d, type: .int8, optionsType: 5, options: pool), 0),
            ("AVERAGE_POOL_2D float32", model(.averagePool2d, optionsType: 5, options: pool), 0),
            ("AVERAGE_POOL_2D int8", model(.averagePool2d, type: .int8, optionsType: 5, options: pool), 0),
            ("L2_POOL_2D", model(.l2Pool2d, optionsType: 5, options: pool), 0),
            ("MaxPoolingWithArgmax2D", model(.custom, outputs: 2, customName: "MaxPoolingWithArgmax2D", customOptions: argmaxPool), 0),
            ("CUMSUM along the empty axis", model(.cumsum) { [$0.addConstant(name: "axis", shape: [], values: [3] as [Int32])] }, 0),
            ("SUM over the rows", model(.sum, outputShape: [1, Int(Int32.max), 0]) { [$0.addConstant(name: "axes", shape: [1], values: [1] as [Int32])] }, 0),
            ("CONV_2D", model(.conv2d, optionsType: 1, options: Self.stridedOptions()) { emptyFilter(&$0, [0, 3, 3, 0]) }, 3),
            // Width 0, four channels, Int32.max rows (found by the model-invoke fuzzer: [1, 202113024, 0, 17], minutes).
            ("DEPTHWISE_CONV_2D of no width", model(.depthwiseConv2d, inputShape: Self.noWidth, outputShape: Self.noWidth, optionsType: 2,
                                                     options: Self.stridedOptions([3: .int32(1)])) { filter(&$0, [1, 3, 3, 4]) }, 0),
            ("CONV_2D of no width", model(.conv2d, inputShape: Self.noWidth, outputShape: Self.noWidth, optionsType: 1,
                                          options: Self.stridedOptions()) { filter(&$0, [4, 3, 3, 4]) }, 0),
            ("DEPTHWISE_CONV_2D", model(.depthwiseConv2d, optionsType: 2, options: Self.stridedOptions([3: .int32(1)])) {
                emptyFilter(&$0, [1, 3, 3, 0])
            }, 3),
        ]
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, bytes, status) in cases {
            let path = folder.appendingPathComponent("\(name.replacingOccurrences(of: " ", with: "_")).tflite").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let run = try MeasuredRun.run(CLITests.binary.path, ["bench", path, "--runs", "1", "--warmup", "0"],
                                          timeLimit: HostileInputResourceTests.timeBound)
            XCTAssertEqual(run.exitStatus, status, "\(name): \(run.signal.map { "killed by signal \($0) after \(run.seconds) s" } ?? run.standardError)")
        }
    }
}
