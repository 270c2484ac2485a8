import LiteFormat
import XCTest

@testable import LiteEngine

/// The float ADD and PRELU nodes folded into a convolution's stores give the bits they give as nodes of their own, for
/// every form the AVX-512 tiles compile (an ADD, a channel-padded ADD, a PRELU, an ADD then a PRELU) at every tile
/// shape: panels of 8, 16, 24 and 32 columns and partial ones, tiles of 8 and of 7 rows, a row left over for the
/// one-row kernel, threads splitting the row tiles or the panels. At the avx2 level the same steps run on the stored
/// rows, and the test (which tools/test.sh runs at every level the CPU has) holds that route to the same bits.
final class StoreEpilogueConsistencyTests: XCTestCase {
    /// A float NaN with a payload of its own, to tell which operand of a sum a NaN came from.
    private static let markedNaN = Float(bitPattern: 0x7FC0_1234)

    func testFoldedStepsGiveTheUnfoldedBitsAtEveryTileShape() throws {
        let savedWork = minimumWorkPerThread
        minimumWorkPerThread = 1
        defer { minimumWorkPerThread = savedWork }
        // (height, width): 24 rows (three 8-row tiles), 25 (three tiles and one row), 15 (a whole tile and one of seven
        // rows), 49 and 196 (7-row tiles).
        let maps = [(4, 6), (5, 5), (3, 5), (7, 7), (14, 14)]
        // Output channels: one panel of 8 or 16; 24 and 40 (a last panel of 24 or 8 after 32); 72 (32, 32, 8); 96.
        let channelCounts = [8, 12, 16, 24, 40, 72, 96]
        // At the baseline level the convolution is OpenBLAS's sgemm, whose sums at two threads vary from call to call
        // (its split of the work), and the folded nodes run as Swift loops, whose operand order in the instruction the
        // compiler picks: there, one thread, and two NaNs compare equal whatever their payloads.
        let baseline = KernelConfiguration.current.float == nil
        let threadCounts = baseline ? [1] : [1, 2]
        func identical(_ a: Float, _ b: Float) -> Bool { a.bitPattern == b.bitPattern || (baseline && a.isNaN && b.isNaN) }
        var checked = 0
        for (height, width) in maps {
            for channels in channelCounts {
                for kernelSize in [1, 3] {
                    let model = try Self.model(height: height, width: width, inputChannels: 5, channels: channels, kernelSize: kernelSize)
                    let inputs = Self.inputs(height: height, width: width, inputChannels: 5, channels: channels)
                    for threads in threadCounts {
                        let unfused = try Self.run(model, inputs, threads: threads, fusing: false)
                        let interpreter = try Interpreter(model: model, options: .init(threads: threads))
                        // Every ADD, PRELU and PAD folds: the last PRELU too, whose slopes a DEQUANTIZE after it writes.
                        XCTAssertEqual(interpreter.folded.filter { $0 }.count, 8, "\(height)x\(width)x\(channels)")
                        let fused = try Self.run(interpreter, inputs)
                        for (i, (ours, plain)) in zip(fused, unfused).enumerated() {
                            let differing = zip(ours, plain).filter { !identical($0, $1) }.count
                            XCTAssertEqual(differing, 0, "\(height)x\(width), \(channels) channels, \(kernelSize)x\(kernelSize) filter, "
                                           + "\(threads) threads: output \(i) differs in \(differing) of \(ours.count) values")
                            checked += 1
                        }
                    }
                }
            }
        }
        XCTAssertEqual(checked, maps.count * channelCounts.count * 2 * threadCounts.count * 5)
    }

    /// A convolution whose filter (2.6 MB) the threads share by panels, its row tiles being uneven (25 rows: three tiles
    /// and a row), with an ADD then a PRELU folded in: each thread applies the steps to the columns it stores.
    func testFoldedStepsWithThePanelsSharedBetweenThreads() throws {
        let savedWork = minimumWorkPerThread
        minimumWorkPerThread = 1
        defer { minimumWorkPerThread = savedWork }
        var builder = ModelBuilder()
        let (channels, depth) = (384, 192), shape = [1, 5, 5, channels]
        let x = builder.addTensor(name: "x", type: .float32, shape: [1, 5, 5, depth])
        let r = builder.addTensor(name: "r", type: .float32, shape: shape)
        let weights = (0..<(channels * 9 * depth)).map { (i: Int) -> Float in Float((i * 37) % 23) / 110 - 0.1 }
        let filter = builder.addConstant(name: "w", shape: [channels, 3, 3, depth], values: weights)
        let bias = builder.addConstant(name: "b", shape: [channels], values: (0..<channels).map { Float($0 % 7) / 4 - 0.75 })
        let slopes = builder.addConstant(name: "alpha", shape: [1, 1, channels], values: (0..<channels).map { Float($0 % 5) / 8 - 0.2 })
        var convolution = FlatTableBuilder()  // Conv2DOptions: SAME padding, strides 1
        convolution[0] = .int8(0)
        convolution[1] = .int32(1)
        convolution[2] = .int32(1)
        let (c, sum, out) = (builder.addTensor(name: "c", type: .float32, shape: shape), builder.addTensor(name: "sum", type: .float32, shape: shape),
                             builder.addTensor(name: "out", type: .float32, shape: shape))
        builder.addOperator(.conv2d, inputs: [x, filter, bias], outputs: [c], optionsType: 1, options: convolution)
        builder.addOperator(.add, inputs: [r, c], outputs: [sum], optionsType: 11, options: FlatTableBuilder())
        builder.addOperator(.prelu, inputs: [sum, slopes], outputs: [out])
        builder.inputs = [x, r]
        builder.outputs = [out]
        let model = try TFLiteModel(bytes: builder.build())
        let xValues = (0..<(25 * depth)).map { (i: Int) -> Float in Float((i * 53) % 29) / 7 - 2 }
        let rValues = (0..<(25 * channels)).map { (i: Int) -> Float in Float((i * 31) % 41) / 9 - 2.2 }
        let inputs = [xValues, rValues]
        let oneThread = try Self.run(model, inputs, threads: 1, fusing: false)
        for threads in [1, 2] {
            let fused = try Interpreter(model: model, options: .init(threads: threads))
            XCTAssertEqual(fused.folded, [false, true, true])
            let outputs = try Self.run(fused, inputs)
            // At the baseline level the product is OpenBLAS's sgemm, whose two-thread sums differ from its one-thread ones.
            let reference = KernelConfiguration.current.float == nil ? try Self.run(model, inputs, threads: threads, fusing: false) : oneThread
            let (ours, expected): ([UInt32], [UInt32]) = (outputs[0].map { $0.bitPattern }, reference[0].map { $0.bitPattern })
            XCTAssertEqual(ours, expected, "\(threads) threads")
        }
    }

    /// A PRELU whose slopes a DEQUANTIZE writes after the convolution folds only when the DEQUANTIZE reads a constant:
    /// not a variable to which the file gives a first value (its DEQUANTIZE runs after the convolution, whose store
    /// would read slopes not yet written).
    func testSlopesDequantizedFromAVariableDoNotFold() throws {
        for variable in [false, true] {
            var builder = ModelBuilder()
            let channels = 16, shape = [1, 6, 6, channels]
            let x = builder.addTensor(name: "x", type: .float32, shape: [1, 6, 6, 3])
            let filter = builder.addConstant(name: "w", shape: [channels, 1, 1, 3], values: (0..<(channels * 3)).map { Float(($0 * 37) % 23) / 11 - 1 })
            let half = builder.addBuffer((0..<channels).flatMap { c in
                withUnsafeBytes(of: Float16(Float(c % 3) / 4 + 0.1).bitPattern.littleEndian, Array.init)
            })
            let slopes16 = builder.addTensor(name: "alpha16", type: .float16, shape: [1, 1, channels], buffer: half, isVariable: variable)
            var convolution = FlatTableBuilder()  // Conv2DOptions: SAME padding, strides 1
            convolution[0] = .int8(0)
            convolution[1] = .int32(1)
            convolution[2] = .int32(1)
            let (c0, slopes, out) = (builder.addTensor(name: "c0", type: .float32, shape: shape),
                                     builder.addTensor(name: "alpha32", type: .float32, shape: [1, 1, channels]),
                                     builder.addTensor(name: "out", type: .float32, shape: shape))
            builder.addOperator(.conv2d, inputs: [x, filter, -1], outputs: [c0], optionsType: 1, options: convolution)
            builder.addOperator(.dequantize, inputs: [slopes16], outputs: [slopes])
            builder.addOperator(.prelu, inputs: [c0, slopes], outputs: [out])
            builder.inputs = [x]
            builder.outputs = [out]
            let model = try TFLiteModel(bytes: builder.build())
            let input = [(0..<108).map { Float(($0 * 53) % 29) / 7 - 2 }]
            let fused = try Interpreter(model: model)
            XCTAssertEqual(fused.folded, [false, false, !variable], "variable slopes: \(variable)")
            let plain = try Self.run(model, input, threads: 1, fusing: false)
            XCTAssertEqual(try Self.run(fused, input).map { $0.map(\.bitPattern) }, plain.map { $0.map(\.bitPattern) }, "variable slopes: \(variable)")
        }
    }

    /// A model of five convolutions of the same input `x` ([1, height, width, inputChannels]), each followed by folded
    /// nodes: (0) ADD of `r` then PRELU, (1) `r` + conv with a RELU, (2) PRELU alone, (3) ADD of `s` padded from
    /// `channels - 5` channels to `channels`, (4) conv + `r` then a PRELU whose slopes a DEQUANTIZE of float16
    /// constants writes after the convolution (MediaPipe's float16 models).
    private static func model(height: Int, width: Int, inputChannels: Int, channels: Int, kernelSize: Int) throws -> TFLiteModel {
        var builder = ModelBuilder()
        let shape = [1, height, width, channels]
        let x = builder.addTensor(name: "x", type: .float32, shape: [1, height, width, inputChannels])
        let r = builder.addTensor(name: "r", type: .float32, shape: shape)
        let s = builder.addTensor(name: "s", type: .float32, shape: [1, height, width, channels - 5])
        let weightCount = channels * kernelSize * kernelSize * inputChannels
        let filter = builder.addConstant(name: "w", shape: [channels, kernelSize, kernelSize, inputChannels],
                                         values: (0..<weightCount).map { Float(($0 * 37) % 23) / 11 - 1 })
        let bias = builder.addConstant(name: "b", shape: [channels], values: (0..<channels).map { Float($0 % 7) / 4 - 0.75 })
        // Every sixth slope a NaN of its own payload: where the value is NaN too, the product keeps the value's.
        let slopeValues = (0..<channels).map { (c: Int) -> Float in c % 6 == 5 ? Float(bitPattern: 0x7FC0_0ABC) : Float(c % 5) / 8 - 0.2 }
        let slopes = builder.addConstant(name: "alpha", shape: [1, 1, channels], values: slopeValues)
        let halfSlopes = builder.addBuffer((0..<channels).flatMap { c in
            withUnsafeBytes(of: Float16(Float(c % 3) / 4 + 0.1).bitPattern.littleEndian, Array.init)
        })
        let slopes16 = builder.addTensor(name: "alpha16", type: .float16, shape: [1, 1, channels], buffer: halfSlopes)
        let padding = builder.addConstant(name: "pad", shape: [4, 2], values: [Int32(0), 0, 0, 0, 0, 0, 0, 5])
        var convolution = FlatTableBuilder()  // Conv2DOptions: SAME padding, strides 1
        convolution[0] = .int8(0)
        convolution[1] = .int32(1)
        convolution[2] = .int32(1)
        var relu = FlatTableBuilder()  // AddOptions: RELU
        relu[0] = .int8(1)
        var count = 0
        func tensor() -> Int { count += 1; return builder.addTensor(name: "t\(count)", type: .float32, shape: shape) }
        func conv() -> Int {
            let output = tensor()
            builder.addOperator(.conv2d, inputs: [x, filter, bias], outputs: [output], optionsType: 1, options: convolution)
            return output
        }
        var outputs = [Int]()
        let c0 = conv(), sum0 = tensor(), out0 = tensor()
        builder.addOperator(.add, inputs: [c0, r], outputs: [sum0], optionsType: 11, options: FlatTableBuilder())
        builder.addOperator(.prelu, inputs: [sum0, slopes], outputs: [out0])
        outputs.append(out0)
        let c1 = conv(), out1 = tensor()
        builder.addOperator(.add, inputs: [r, c1], outputs: [out1], optionsType: 11, options: relu)
        outputs.append(out1)
        let c2 = conv(), out2 = tensor()
        builder.addOperator(.prelu, inputs: [c2, slopes], outputs: [out2])
        outputs.append(out2)
        let c3 = conv(), padded = tensor(), out3 = tensor()
        builder.addOperator(.pad, inputs: [s, padding], outputs: [padded])
        builder.addOperator(.add, inputs: [padded, c3], outputs: [out3], optionsType: 11, options: FlatTableBuilder())
        outputs.append(out3)
        let c4 = conv(), sum4 = tensor(), dequantized = builder.addTensor(name: "alpha32", type: .float32, shape: [1, 1, channels]), out4 = tensor()
        builder.addOperator(.add, inputs: [c4, r], outputs: [sum4], optionsType: 11, options: FlatTableBuilder())
        builder.addOperator(.dequantize, inputs: [slopes16], outputs: [dequantized])
        builder.addOperator(.prelu, inputs: [sum4, dequantized], outputs: [out4])
        outputs.append(out4)
        builder.inputs = [x, r, s]
        builder.outputs = outputs
        return try TFLiteModel(bytes: builder.build())
    }

    /// `x` with NaN (with a payload) at a few pixels, `r` and `s` with their own NaN, infinities and negative zeros.
    private static func inputs(height: Int, width: Int, inputChannels: Int, channels: Int) -> [[Float]] {
        let pixels = height * width
        let x = (0..<pixels * inputChannels).map { i -> Float in i % 97 == 41 ? markedNaN : Float((i * 53) % 29) / 7 - 2 }
        func operand(_ count: Int) -> [Float] {
            (0..<count).map { i -> Float in
                switch i % 89 {
                case 3: Float(bitPattern: 0x7FC0_0077)
                case 17: -.infinity
                case 29: -0.0
                default: Float((i * 31) % 41) / 9 - 2.2
                }
            }
        }
        return [x, operand(pixels * channels), operand(pixels * (channels - 5))]
    }

    private static func run(_ model: TFLiteModel, _ inputs: [[Float]], threads: Int, fusing: Bool) throws -> [[Float]] {
        try run(Interpreter(model: model, options: .init(threads: threads, fusesActivations: fusing)), inputs)
    }

    private static func run(_ interpreter: Interpreter, _ inputs: [[Float]]) throws -> [[Float]] {
        for (i, values) in inputs.enumerated() { try interpreter.copy(values, toInputAt: i) }
        try interpreter.invoke()
        return try (0..<interpreter.outputCount).map { try interpreter.output(at: $0).toArray(of: Float.self) }
    }
}
