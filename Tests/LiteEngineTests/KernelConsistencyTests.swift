@testable import LiteEngine
import LiteFormat
import XCTest

/// Each fast kernel against the plain reference kernel beside it, over a sweep of random shapes, strides,
/// dilations, paddings and activations (ggml's test-backend-ops style: normalized max error).
final class KernelConsistencyTests: XCTestCase {
    /// Seeded, so that a failing case can be run again: every test method starts from the same state.
    var generator = SplitMix64(seed: 0x5EED_2026)
    var model: TFLiteModel!

    override func setUpWithError() throws {
        model = try TFLiteModel(path: TestPaths.goldens.appendingPathComponent("ops/conv_1x1/model.tflite").path)
    }

    /// A float tensor with its own bytes; `variable` makes it a tensor whose values may change between runs (not
    /// known at load), as a graph input is.
    func tensor(_ index: Int, _ shape: [Int], _ values: [Float]? = nil, variable: Bool = false) -> Tensor {
        let description = TensorDescription(name: "t\(index)", type: .float32, shape: shape, shapeSignature: shape, buffer: 0,
                                            quantization: nil, isVariable: variable, sparsity: nil)
        let t = Tensor(index: index, description: description, constant: nil)
        t.makePersistent(byteCount: max(t.byteCount, 4))
        if let values { t.floats.update(from: values, count: values.count) }
        return t
    }

    /// A constant int32 operand (an output shape, FFT lengths), as the file's constants are: known while planning.
    func constantInts(_ index: Int, _ values: [Int]) -> Tensor {
        let t = quantizedTensor(index, [values.count], .int32, values.map { Int32($0) }, scales: [1], zeroPoints: [0])
        t.storage = Tensor.Storage.constant
        return t
    }

    func random(_ count: Int) -> [Float] { (0..<count).map { _ in Float.random(in: -1...1, using: &generator) } }

    func node(_ inputs: [Tensor?], _ outputs: [Tensor], numerics: Numerics = .fast) -> NodeContext {
        NodeContext(model: model, index: 0, code: OperatorCode(builtin: .add, customName: nil, version: 1), options: nil,
                    customOptions: nil, inputs: inputs, outputs: outputs, intermediates: [], numerics: numerics)
    }

    /// A quantized tensor holding `values` (its bytes), with per-tensor or per-channel (last dimension) parameters.
    func quantizedTensor<T: FixedWidthInteger>(_ index: Int, _ shape: [Int], _ type: TensorType, _ values: [T], scales: [Float], zeroPoints: [Int64],
                                               channelDimension: Int? = nil) -> Tensor {
        let quantization = Quantization(scale: scales, zeroPoint: zeroPoints, quantizedDimension: scales.count > 1 ? channelDimension ?? shape.count - 1 : 0)
        let description = TensorDescription(name: "t\(index)", type: type, shape: shape, shapeSignature: shape, buffer: 0,
                                            quantization: quantization, isVariable: false, sparsity: nil)
        let t = Tensor(index: index, description: description, constant: nil)
        t.makePersistent(byteCount: max(values.count * MemoryLayout<T>.stride, 4))
        values.withUnsafeBytes { t.data!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return t
    }

    func run(_ kernel: Kernel, threads: Int = 1) throws {
        // These shapes are too small to be split by default; with more than one thread they must be.
        let saved = minimumWorkPerThread
        if threads > 1 { minimumWorkPerThread = 1 }
        defer { minimumWorkPerThread = saved }
        try kernel.prepare()
        for output in kernel.node.outputs { output.makePersistent(byteCount: max(output.byteCount, 4)) }
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: max(kernel.scratchBytes, 64), alignment: 64)
        defer { scratch.deallocate() }
        try kernel.run(RunContext(scratch: scratch, threads: threads))
    }

    /// Within 1e-5 of the reference, relative to its largest magnitude, or to `magnitude` when the sums were larger
    /// before an activation clamped them (the rounding error is the sum's, and clamping does not shrink it).
    func assertNear(_ fast: [Float], _ reference: [Float], _ label: String, magnitude: Float = 0) {
        XCTAssertEqual(fast.count, reference.count, label)
        let scale = max(1, reference.map(abs).max() ?? 0, magnitude)
        let error = zip(fast, reference).map { abs($0 - $1) }.max() ?? 0
        XCTAssertLessThanOrEqual(error, 1e-5 * scale, label)
    }

    let activations: [FusedActivation] = [.none, .relu, .relu6, .reluN1To1]

    func testConv2DMatchesReference() throws {
        for trial in 0..<60 {
            var options = try Conv2DOptions(nil)
            options.padding = Bool.random(using: &generator) ? .same : .valid
            options.strideH = Int.random(in: 1...3, using: &generator); options.strideW = Int.random(in: 1...3, using: &generator)
            options.dilationH = Int.random(in: 1...2, using: &generator); options.dilationW = Int.random(in: 1...2, using: &generator)
            options.activation = activations.randomElement(using: &generator)!
            if trial % 4 == 0 { options.strideH = 1; options.strideW = 1; options.dilationH = 1; options.dilationW = 1 }
            let kh = trial % 4 == 0 ? 1 : Int.random(in: 1...4, using: &generator), kw = trial % 4 == 0 ? 1 : Int.random(in: 1...4, using: &generator)
            let inputShape = [Int.random(in: 1...2, using: &generator), Int.random(in: kh * 2...12, using: &generator), Int.random(in: kw * 2...12, using: &generator), Int.random(in: 1...20, using: &generator)]
            let filterShape = [1 + trial * 37 % 70, kh, kw, inputShape[3]]   // 60 different output channel counts of 1...70
            try checkConv2D(inputShape: inputShape, filterShape: filterShape, options: options, threads: 1 + trial % 2)
        }
    }

    /// Runs a float convolution of random values with `Conv2D` and checks it against `Conv2D.reference`.
    func checkConv2D(inputShape: [Int], filterShape: [Int], options: Conv2DOptions, threads: Int) throws {
        let x = random(inputShape.reduce(1, *)), w = random(filterShape.reduce(1, *)), b = random(filterShape[0])
        let output = tensor(3, [1])
        let kernel = try Conv2D(node([tensor(0, inputShape, x), tensor(1, filterShape, w), tensor(2, [filterShape[0]], b)], [output]))
        kernel.options = options
        kernel.activation = try activationRange(options.activation)
        try run(kernel, threads: threads)
        let expected = try Conv2D.reference(input: x, inputShape: inputShape, filter: w, filterShape: filterShape, bias: b, options: options)
        var unclamped = options
        unclamped.activation = .none
        let sums = try Conv2D.reference(input: x, inputShape: inputShape, filter: w, filterShape: filterShape, bias: b, options: unclamped)
        XCTAssertEqual(output.shape, expected.shape)
        assertNear(output.toArray(of: Float.self), expected.values, "conv \(inputShape) * \(filterShape) \(options)",
                   magnitude: sums.values.map(abs).max() ?? 0)
    }

    /// A classifier's last layer: a 1x1 (or whole-input) convolution with one output pixel, which the AVX2 and
    /// AVX-512 builds run one row at a time over groups of 64 output channels (any count of 1...200 here).
    func testConv2DWithOneOutputPixelMatchesReference() throws {
        for trial in 0..<24 {
            var options = try Conv2DOptions(nil)
            options.padding = .valid
            options.strideH = 1; options.strideW = 1; options.dilationH = 1; options.dilationW = 1
            options.activation = activations[trial % activations.count]
            let side = trial % 3 == 2 ? 3 : 1
            let inputShape = [1, side, side, Int.random(in: 1...300, using: &generator)]
            let filterShape = [1 + trial * 83 % 200, side, side, inputShape[3]]
            try checkConv2D(inputShape: inputShape, filterShape: filterShape, options: options, threads: 1 + trial % 2)
        }
    }

    /// A convolution that reads its input in place keeps a table of pointers into the input: running the same
    /// kernel again on another input, then on the same number of values in another shape, must not read through a
    /// stale table.
    func testConv2DReadingInPlaceFollowsItsInput() throws {
        var options = try Conv2DOptions(nil)
        options.padding = .same
        options.strideH = 2; options.strideW = 2
        let filterShape = [8, 3, 3, 3]
        let w = random(filterShape.reduce(1, *)), b = random(8)
        let input = tensor(0, [1, 10, 6, 3], random(180))
        let output = tensor(3, [1])
        let kernel = try Conv2D(node([input, tensor(1, filterShape, w), tensor(2, [8], b)], [output]))
        kernel.options = options
        let elsewhere = UnsafeMutableRawPointer.allocate(byteCount: 180 * 4, alignment: 64)
        defer { elsewhere.deallocate() }
        for (shape, fresh) in [([1, 10, 6, 3], false), ([1, 10, 6, 3], true), ([1, 6, 10, 3], false)] {
            if fresh { input.data = elsewhere }
            let x = random(180)
            input.shape = shape
            input.floats.update(from: x, count: x.count)
            try run(kernel)
            var readsInPlace = false, unfolds = false
            if case .floatIndirect = kernel.plan { readsInPlace = true }
            if case .floatBLAS(unfolds: true) = kernel.plan { unfolds = true }
            if KernelConfiguration.current.float != nil {
                XCTAssertTrue(readsInPlace, "the packed filter reads the input in place")
            } else {
                XCTAssertTrue(unfolds, "the baseline level has no packed filter: im2col and sgemm")
            }
            let expected = try Conv2D.reference(input: x, inputShape: shape, filter: w, filterShape: filterShape, bias: b, options: options)
            XCTAssertEqual(output.shape, expected.shape)
            assertNear(output.toArray(of: Float.self), expected.values, "conv of \(shape), new input buffer: \(fresh)")
        }
    }

    /// TFLite's int8 CONCATENATION refuses inputs quantized unlike the output (LiteRT fails to prepare such a
    /// model); uint8 ones are requantized (op goldens q_concatenation_uint8_rescaled and COCO SSD).
    func testInt8ConcatenationOfDifferentScalesIsRefused() throws {
        let values: [Int8] = [1, 2, 3, 4]
        let a = quantizedTensor(0, [1, 4], .int8, values, scales: [0.5], zeroPoints: [0])
        let b = quantizedTensor(1, [1, 4], .int8, values, scales: [0.25], zeroPoints: [0])
        let output = quantizedTensor(2, [1, 8], .int8, [Int8](repeating: 0, count: 8), scales: [0.5], zeroPoints: [0])
        let kernel = try Concatenation(node([a, b], [output]))
        XCTAssertThrowsError(try kernel.prepare()) { error in
            XCTAssertTrue("\(error)".contains("TFLite requires them equal"), "\(error)")
        }
        let same = try Concatenation(node([a, quantizedTensor(1, [1, 4], .int8, values, scales: [0.5], zeroPoints: [0])], [output]))
        XCTAssertNoThrow(try same.prepare())
    }

    /// Float RESIZE_BILINEAR (the configuration's row kernel from avx2 up, the Swift loop at baseline) bit for bit
    /// equal to TFLite's formula evaluated here in order, each product and sum rounded on its own: channel counts with
    /// and without a tail past the last 8, up- and downsampling, one and two threads.
    func testFloatResizeBilinearMatchesItsFormulaExactly() throws {
        for trial in 0..<24 {
            let batches = 1 + trial % 2, inH = Int.random(in: 1...9, using: &generator), inW = Int.random(in: 1...9, using: &generator)
            let channels = [1, 3, 8, 13, 21, 37][trial % 6]
            let outH = Int.random(in: 1...20, using: &generator), outW = Int.random(in: 1...20, using: &generator)
            let x = random(batches * inH * inW * channels)
            let output = tensor(2, [1])
            let kernel = try ResizeBilinear(node([tensor(0, [batches, inH, inW, channels], x), constantInts(1, [outH, outW])], [output]))
            try run(kernel, threads: 1 + trial % 2)
            let scaleH = ResizeBilinear.scale(input: inH, output: outH, alignCorners: false)
            let scaleW = ResizeBilinear.scale(input: inW, output: outW, alignCorners: false)
            var expected = [Float]()
            for b in 0..<batches {
                for oy in 0..<outH {
                    let (iy, y0, y1) = ResizeBilinear.interpolation(oy, scale: scaleH, halfPixel: false, inputSize: inH)
                    for ox in 0..<outW {
                        let (ix, x0, x1) = ResizeBilinear.interpolation(ox, scale: scaleW, halfPixel: false, inputSize: inW)
                        let dy = iy - Float(y0), dx = ix - Float(x0)
                        let w00 = (1 - dy) * (1 - dx), w10 = dy * (1 - dx), w01 = (1 - dy) * dx, w11 = dy * dx
                        for c in 0..<channels {
                            let at = { (y: Int, column: Int) in x[((b * inH + y) * inW + column) * channels + c] }
                            expected.append(at(y0, x0) * w00 + at(y1, x0) * w10 + at(y0, x1) * w01 + at(y1, x1) * w11)
                        }
                    }
                }
            }
            let got = output.toArray(of: Float.self)
            XCTAssertEqual(got.map(\.bitPattern), expected.map(\.bitPattern),
                           "[\(batches), \(inH), \(inW), \(channels)] -> [\(outH), \(outW)]")
        }
    }

    /// MediaPipe's Convolution2DTransposeBias bit for bit equal to its sums evaluated here in order (bias, then input
    /// rows, columns and channels ascending), for filters as large as their stride (each output one input pixel: eight
    /// outputs' chains side by side) and larger ones (the general loop), SAME and VALID, rows with and without a tail
    /// past the last eight outputs.
    func testTransposeConvBiasMatchesItsSumsExactly() throws {
        for trial in 0..<24 {
            let stride = 1 + trial % 3, k = trial % 4 == 3 ? stride + 1 : stride, same = trial % 2 == 0
            let (inH, inW) = (Int.random(in: 1...6, using: &generator), Int.random(in: 1...9, using: &generator))
            let (inC, outC) = ([1, 3, 8, 16, 17][trial % 5], [1, 2, 5][trial % 3])
            let x = random(inH * inW * inC), w = random(outC * k * k * inC), bias = random(outC)
            var options = [UInt8]()
            for field in [Int32(same ? 1 : 2), Int32(stride), Int32(stride)] { withUnsafeBytes(of: field.littleEndian) { options += $0 } }
            let output = tensor(3, [1])
            let inputs = [tensor(0, [1, inH, inW, inC], x), tensor(1, [outC, k, k, inC], w), tensor(2, [outC], bias)]
            // The options are read while the kernel is made.
            let kernel = try options.withUnsafeBytes { raw in
                try Convolution2DTransposeBias(NodeContext(model: model, index: 0,
                                                           code: OperatorCode(builtin: .custom, customName: "Convolution2DTransposeBias", version: 1),
                                                           options: nil, customOptions: raw, inputs: inputs, outputs: [output], intermediates: [],
                                                           numerics: .fast))
            }
            try run(kernel, threads: 1 + trial % 2)
            let total = same ? max(0, k - (inH - 1) % stride - 1) : 0, totalW = same ? max(0, k - (inW - 1) % stride - 1) : 0
            let (outH, outW) = (stride * (inH - 1) + k - total, stride * (inW - 1) + k - totalW)
            XCTAssertEqual(output.shape, [1, outH, outW, outC])
            var expected = [Float]()
            for oy in 0..<outH {
                for ox in 0..<outW {
                    for oc in 0..<outC {
                        var sum = bias[oc]
                        for iy in 0..<inH {
                            let ky = oy + total / 2 - iy * stride
                            guard ky >= 0 && ky < k else { continue }
                            for ix in 0..<inW {
                                let kx = ox + totalW / 2 - ix * stride
                                guard kx >= 0 && kx < k else { continue }
                                for ic in 0..<inC { sum += x[(iy * inW + ix) * inC + ic] * w[((oc * k + ky) * k + kx) * inC + ic] }
                            }
                        }
                        expected.append(sum)
                    }
                }
            }
            XCTAssertEqual(output.toArray(of: Float.self).map(\.bitPattern), expected.map(\.bitPattern),
                           "[\(inH), \(inW), \(inC)] * \(k)x\(k)/\(stride) -> \(outC) \(same ? "SAME" : "VALID")")
        }
    }

    func testDepthwiseConv2DMatchesReference() throws {
        for trial in 0..<60 {
            var options = try DepthwiseConv2DOptions(nil)
            options.padding = Bool.random(using: &generator) ? .same : .valid
            options.strideH = Int.random(in: 1...2, using: &generator); options.strideW = Int.random(in: 1...2, using: &generator)
            options.dilationH = trial % 3 == 0 ? 2 : 1; options.dilationW = options.dilationH
            options.activation = activations.randomElement(using: &generator)!
            let k = [1, 3, 5, 7].randomElement(using: &generator)!, multiplier = trial % 5 == 0 ? 2 : 1
            // Channels 1...40 each at least once: every mix of the 16-, 8-, 4- and one-channel steps.
            let inputShape = [Int.random(in: 1...2, using: &generator), Int.random(in: k * 2...14, using: &generator), Int.random(in: k * 2...14, using: &generator), 1 + trial * 7 % 40]
            let filterShape = [1, k, k, inputShape[3] * multiplier]
            let x = random(inputShape.reduce(1, *)), w = random(filterShape.reduce(1, *)), b = random(filterShape[3])
            let output = tensor(3, [1])
            let kernel = try DepthwiseConv2D(node([tensor(0, inputShape, x), tensor(1, filterShape, w), tensor(2, [filterShape[3]], b)], [output]))
            kernel.options = options
            kernel.activation = try activationRange(options.activation)
            try run(kernel, threads: 1 + trial % 2)
            let expected = try DepthwiseConv2D.reference(input: x, inputShape: inputShape, filter: w, filterShape: filterShape, bias: b, options: options)
            XCTAssertEqual(output.shape, expected.shape)
            assertNear(output.toArray(of: Float.self), expected.values, "depthwise \(inputShape) * \(filterShape) \(options)")
        }
    }

    /// Quantized DEPTHWISE_CONV_2D: `fast` numerics (in VNNI builds the dot-product kernel, for the layers it takes,
    /// and the int32 SIMD kernel for the rest; in other AVX2 builds the int32 SIMD kernel) byte for byte equal to `exact` numerics, whose kernel is checked
    /// against LiteRT by the op and model goldens. int8 layers (per-channel filters, zero point 0) and uint8 layers
    /// (one filter zero point, or one per channel), random zero points and scales, biases up to 2^14 and now and
    /// then 2^30 (which the dot-product kernel must leave to the other one), strides, dilations, paddings,
    /// activations.
    func testQuantizedDepthwiseFastMatchesExact() throws {
        var dotProductLayers = 0, spreadLayers = 0, integerLayers = 0
        for trial in 0..<100 {
            let signed = (trial / 2) % 3 != 2
            var options = try DepthwiseConv2DOptions(nil)
            options.padding = Bool.random(using: &generator) ? .same : .valid
            options.strideH = Int.random(in: 1...2, using: &generator); options.strideW = Int.random(in: 1...2, using: &generator)
            options.dilationH = trial % 4 == 0 ? 2 : 1; options.dilationW = trial % 8 == 0 ? 1 : options.dilationH
            options.activation = [FusedActivation.none, .relu, .relu6][trial % 3]
            if trial == 97 {
                // A filter wider than the input, unpadded: no output columns.
                options.padding = .valid; options.dilationW = 20
            }
            if trial == 98 {
                // Dilated across 6 MB of interleaved columns: the dot-product kernel hands it to the bufferless one.
                options.padding = .same; options.dilationW = 100_000
            }
            let kh = [3, 3, 1, 2, 4, 5][trial % 6], kw = [3, 3, 1, 4, 2, 5][(trial / 6) % 6]
            let channels = trial % 10 == 9 ? 144 : 1 + trial * 7 % 40
            let inputShape = [1 + trial % 2, Int.random(in: kh * 2...13, using: &generator), Int.random(in: kw * 2...13, using: &generator), channels]
            let filterShape = [1, kh, kw, channels]
            func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
            let x = bytes(inputShape.reduce(1, *))
            let w = signed ? bytes(filterShape.reduce(1, *)).map { $0 == 0x80 ? 0x81 : $0 } : bytes(filterShape.reduce(1, *))
            let biasLimit: Int32 = trial % 7 == 6 ? 1 << 30 : 1 << 14
            let b = (0..<channels).map { _ in Int32.random(in: -biasLimit...biasLimit, using: &generator) }
            let inputScale = Float.random(in: 0.005...0.05, using: &generator), outputScale = Float.random(in: 0.01...0.2, using: &generator)
            // Requantization multipliers of 2^-14...2^-8 spread the outputs over the output range; every fifth layer
            // also has channels from 2^-24 (a right shift past 22, left to the other kernel) to 2 (a left shift).
            let perChannel = signed || trial % 4 == 1
            let filterScales = (0..<(perChannel ? channels : 1)).map { c in
                outputScale / inputScale * Float(pow(2, trial % 5 == 0 && c % 3 == 0 ? Double.random(in: -24...1, using: &generator) : Double.random(in: -14...(-8), using: &generator)))
            }
            let filterZeros = signed ? [Int64](repeating: 0, count: channels) : (0..<filterScales.count).map { _ in Int64.random(in: 0...255, using: &generator) }
            // A relu's output zero point is the type's minimum, as converters give it, so that the clamp keeps most outputs.
            let typeMin: Int64 = signed ? -128 : 0, type: TensorType = signed ? .int8 : .uint8
            let inputZero = typeMin + Int64.random(in: 0...255, using: &generator)
            let outputZero = options.activation == .none ? typeMin + Int64.random(in: 68...188, using: &generator) : typeMin
            func outputs(_ numerics: Numerics) throws -> ([UInt8], DepthwiseConv2D) {
                let output = quantizedTensor(3, [1], type, [UInt8](), scales: [outputScale], zeroPoints: [outputZero])
                let inputs = [quantizedTensor(0, inputShape, type, x, scales: [inputScale], zeroPoints: [inputZero]),
                              quantizedTensor(1, filterShape, type, w, scales: filterScales, zeroPoints: filterZeros),
                              quantizedTensor(2, [channels], .int32, b, scales: filterScales.map { $0 * inputScale },
                                              zeroPoints: [Int64](repeating: 0, count: filterScales.count))]
                let kernel = try DepthwiseConv2D(node(inputs, [output], numerics: numerics))
                kernel.options = options
                try run(kernel, threads: 1 + trial % 2)
                return (output.toArray(of: UInt8.self), kernel)
            }
            let (fast, kernel) = try outputs(.fast)
            let (exact, _) = try outputs(.exact)
            XCTAssertEqual(fast.count, exact.count)
            let differing = zip(fast, exact).filter { $0 != $1 }.count
            XCTAssertEqual(differing, 0, "\(type) depthwise \(inputShape) * \(filterShape) \(options): \(differing) of \(exact.count) outputs differ")
            if kernel.plan?.quantized?.dotProduct != nil { dotProductLayers += 1 }
            if kernel.plan?.quantized?.exactRequantization != nil { integerLayers += 1 }
            if biasLimit < 1 << 30 && Set(exact).count >= min(exact.count / 8, 16) { spreadLayers += 1 }
        }
        if QuantizedGEMM.isUsed { XCTAssertGreaterThan(dotProductLayers, 30, "the dot-product kernel ran on too few layers") }
        if QuantizedGEMMAVX2.isUsed { XCTAssertGreaterThan(integerLayers, 50, "the int32 SIMD kernel ran on too few layers") }
        // Layers whose outputs are mostly clamped would not test the rounding; most must spread over many values.
        XCTAssertGreaterThan(spreadLayers, 60, "too few layers with outputs spread over the output range")
    }

    /// Quantized CONV_2D: `fast` numerics (in VNNI builds the 8-bit GEMM with its folded requantization, in other AVX2
    /// builds the int16 GEMM) byte for byte equal to `exact` numerics (checked against LiteRT by the op and model goldens), on int8 layers with
    /// per-channel filters and uint8 layers with one or per-channel filter zero points, random geometry, zero points and
    /// multipliers (every fifth layer with channels whose right shift passes 22, where the output zero point is no
    /// longer folded into the rounding addend, or that shift left, and with small accumulators).
    func testQuantizedConvFastMatchesExact() throws {
        var spreadLayers = 0, widenedLayers = 0
        for trial in 0..<60 {
            let signed = trial % 3 != 2
            var options = try Conv2DOptions(nil)
            options.padding = Bool.random(using: &generator) ? .same : .valid
            options.strideH = Int.random(in: 1...2, using: &generator); options.strideW = Int.random(in: 1...2, using: &generator)
            options.dilationH = trial % 6 == 1 ? 2 : 1; options.dilationW = options.dilationH
            options.activation = [FusedActivation.none, .relu, .relu6][trial % 3]
            if trial % 4 == 0 { options.strideH = 1; options.strideW = 1; options.dilationH = 1; options.dilationW = 1 }
            let kh = trial % 4 == 0 ? 1 : Int.random(in: 1...3, using: &generator), kw = trial % 4 == 0 ? 1 : Int.random(in: 1...3, using: &generator)
            let inputShape = [Int.random(in: 1...2, using: &generator), Int.random(in: kh * 2...10, using: &generator), Int.random(in: kw * 2...10, using: &generator), [3, 4, 5, 8, 16, 24, 37][trial % 7]]
            let channels = 1 + trial * 37 % 70
            let filterShape = [channels, kh, kw, inputShape[3]]
            let inputScale = Float.random(in: 0.005...0.05, using: &generator), outputScale = Float.random(in: 0.01...0.2, using: &generator)
            // uint8 layers alternate one filter zero point (as converters write) with one per channel, which takes
            // the GEMM's per-channel row-sum term.
            let perChannel = signed || trial % 2 == 0
            let filterScales = (0..<(perChannel ? channels : 1)).map { c in
                outputScale / inputScale * Float(pow(2, trial % 5 != 0 || c % 3 != 0 ? Double.random(in: -16...(-10), using: &generator) : Bool.random(using: &generator) ? Double.random(in: -30...(-24), using: &generator) : Double.random(in: -2...1, using: &generator)))
            }
            let type: TensorType = signed ? .int8 : .uint8
            func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
            let inputZero = signed ? Int64.random(in: -128...127, using: &generator) : Int64.random(in: 0...255, using: &generator)
            // int8 filters have zero points 0 as TFLite writes them, except every sixth layer's, which takes the VNNI GEMM's
            // row sums for int8.
            let filterZeros = signed
                ? (0..<channels).map { _ in trial % 6 == 1 ? Int64.random(in: -4...4, using: &generator) : 0 }
                : (0..<filterScales.count).map { _ in Int64.random(in: 0...255, using: &generator) }
            // The layers with channels that shift left or far right hold inputs within 2 of their zero point and weights
            // within 3 of theirs: small accumulators, so that the channels that shift left are not all clamped.
            let small = trial % 5 == 0
            func near(_ zero: Int64) -> UInt8 { UInt8(truncatingIfNeeded: min(max(zero + Int64.random(in: -2...2, using: &generator), signed ? -128 : 0), signed ? 127 : 255)) }
            let x = small ? (0..<inputShape.reduce(1, *)).map { _ in near(inputZero) } : bytes(inputShape.reduce(1, *))
            let w = small ? (0..<filterShape.reduce(1, *)).map { i in
                UInt8(truncatingIfNeeded: filterZeros[filterZeros.count == 1 ? 0 : i / (filterShape.reduce(1, *) / channels)] + Int64.random(in: -3...3, using: &generator))
            } : bytes(filterShape.reduce(1, *))
            let b = (0..<channels).map { _ in small ? Int32.random(in: -64...64, using: &generator) : Int32.random(in: -(1 << 16)...(1 << 16), using: &generator) }
            let typeMin: Int64 = signed ? -128 : 0
            let outputZero = options.activation == .none ? typeMin + Int64.random(in: 68...188, using: &generator) : typeMin
            func outputs(_ numerics: Numerics) throws -> ([UInt8], Conv2D) {
                let output = quantizedTensor(3, [1], type, [UInt8](), scales: [outputScale], zeroPoints: [outputZero])
                let inputs = [quantizedTensor(0, inputShape, type, x, scales: [inputScale], zeroPoints: [inputZero]),
                              quantizedTensor(1, filterShape, type, w, scales: filterScales, zeroPoints: filterZeros, channelDimension: 0),
                              quantizedTensor(2, [channels], .int32, b, scales: filterScales.map { $0 * inputScale },
                                              zeroPoints: [Int64](repeating: 0, count: filterScales.count), channelDimension: 0)]
                let kernel = try Conv2D(node(inputs, [output], numerics: numerics))
                kernel.options = options
                try run(kernel, threads: 1 + trial % 2)
                return (output.toArray(of: UInt8.self), kernel)
            }
            let (fast, kernel) = try outputs(.fast), (exact, _) = try outputs(.exact)
            if kernel.plan?.quantized?.widenedGEMM != nil { widenedLayers += 1 }
            XCTAssertEqual(fast.count, exact.count)
            let differing = zip(fast, exact).filter { $0 != $1 }.count
            XCTAssertEqual(differing, 0, "\(type) conv \(inputShape) * \(filterShape) \(options): \(differing) of \(exact.count) outputs differ")
            if Set(exact).count >= min(exact.count / 8, 16) { spreadLayers += 1 }
        }
        XCTAssertGreaterThan(spreadLayers, 35, "too few layers with outputs spread over the output range")
        if QuantizedGEMMAVX2.isUsed { XCTAssertGreaterThan(widenedLayers, 40, "the int16 GEMM ran on too few layers") }
    }

    /// Quantized FULLY_CONNECTED: `fast` numerics (on AVX2 the int16 GEMM of CONV_2D: one row alone, one block of rows
    /// split by channels, several blocks split by rows) byte for byte equal to `exact` numerics (dgemm, checked against
    /// LiteRT by the op and model goldens), uint8 and int8, one weight zero point or one per unit.
    func testQuantizedFullyConnectedFastMatchesExact() throws {
        var widenedLayers = 0, spreadLayers = 0
        for trial in 0..<40 {
            let signed = trial % 2 == 0, type: TensorType = signed ? .int8 : .uint8
            let rows = [1, 1, 3, 16, 17, 40][trial % 6], depth = Int.random(in: 1...300, using: &generator), units = Int.random(in: 1...70, using: &generator)
            let inputScale = Float.random(in: 0.005...0.05, using: &generator), outputScale = Float.random(in: 0.01...0.2, using: &generator)
            let perUnit = signed && trial % 4 == 0
            // Products of offsets up to 255 in magnitude, summed over the depth: scaled so that most outputs land inside the range.
            let weightScales = (0..<(perUnit ? units : 1)).map { _ in
                outputScale / inputScale * Float(pow(2, Double.random(in: -9...(-6), using: &generator)) / Double(depth).squareRoot())
            }
            func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
            let x = bytes(rows * depth), w = bytes(units * depth)
            let b = (0..<units).map { _ in Int32.random(in: -(1 << 16)...(1 << 16), using: &generator) }
            let typeMin: Int64 = signed ? -128 : 0
            let inputZero = typeMin + Int64.random(in: 0...255, using: &generator)
            let weightZeros = signed ? [Int64](repeating: 0, count: weightScales.count) : [Int64.random(in: 0...255, using: &generator)]
            let outputZero = typeMin + Int64.random(in: 68...188, using: &generator)
            func outputs(_ numerics: Numerics) throws -> ([UInt8], FullyConnected) {
                let output = quantizedTensor(3, [1], type, [UInt8](), scales: [outputScale], zeroPoints: [outputZero])
                let inputs = [quantizedTensor(0, [rows, depth], type, x, scales: [inputScale], zeroPoints: [inputZero]),
                              quantizedTensor(1, [units, depth], type, w, scales: weightScales, zeroPoints: weightZeros, channelDimension: 0),
                              quantizedTensor(2, [units], .int32, b, scales: weightScales.map { $0 * inputScale },
                                              zeroPoints: [Int64](repeating: 0, count: weightScales.count), channelDimension: 0)]
                let kernel = try FullyConnected(node(inputs, [output], numerics: numerics))
                try run(kernel, threads: 1 + trial / 2 % 2)
                return (output.toArray(of: UInt8.self), kernel)
            }
            let (fast, kernel) = try outputs(.fast), (exact, _) = try outputs(.exact)
            if case .quantizedWidened = kernel.plan { widenedLayers += 1 }
            XCTAssertEqual(fast.count, rows * units)
            XCTAssertEqual(fast, exact, "\(type) fully connected \(rows)x\(depth) -> \(units): \(zip(fast, exact).filter { $0 != $1 }.count) outputs differ")
            if Set(exact).count >= min(rows * units / 8, 8) { spreadLayers += 1 }
        }
        XCTAssertGreaterThan(spreadLayers, 25, "too few layers with outputs spread over the output range")
        if QuantizedGEMMAVX2.isUsed { XCTAssertEqual(widenedLayers, 40, "the int16 GEMM did not run") }
    }

    /// Quantized ADD and SUB of one shape: `fast` numerics (in AVX-512 builds the exact 16-lane kernel, else the
    /// double replay) byte for byte equal to `exact` numerics (the scalar integer kernel, checked against LiteRT by
    /// the op and model goldens), with random scales, zero points and lengths.
    func testQuantizedAddFastMatchesExact() throws {
        for trial in 0..<60 {
            let signed = trial % 2 == 0, type: TensorType = signed ? .int8 : .uint8
            let count = Int.random(in: 1...300, using: &generator)
            func bytes() -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
            let a = bytes(), b = bytes()
            let typeMin: Int64 = signed ? -128 : 0
            // Every fifth trial has scales powers of two apart: half of its outputs are then rounding ties. Every
            // seventh has one input's scale 2^-13 to 2^-16 of the other's, an input shift past 11 (the AVX-512
            // kernel's 64-bit input rescale rather than its 32-bit one).
            let base = Float.random(in: 0.01...0.1, using: &generator)
            let scales = trial % 5 == 3
                ? (base, base * Float(1 << Int.random(in: 0...1, using: &generator)), base * Float(1 << Int.random(in: 1...2, using: &generator)))
                : trial % 7 == 6
                ? (base, base / Float(1 << Int.random(in: 13...16, using: &generator)), base * Float.random(in: 0.5...2, using: &generator))
                : (Float.random(in: 0.01...0.1, using: &generator), Float.random(in: 0.01...0.1, using: &generator), Float.random(in: 0.02...0.3, using: &generator))
            let zeros = (typeMin + Int64.random(in: 0...255, using: &generator), typeMin + Int64.random(in: 0...255, using: &generator), typeMin + Int64.random(in: 60...195, using: &generator))
            func outputs(_ numerics: Numerics) throws -> [UInt8] {
                let output = quantizedTensor(2, [count], type, [UInt8](), scales: [scales.2], zeroPoints: [zeros.2])
                let inputs = [quantizedTensor(0, [count], type, a, scales: [scales.0], zeroPoints: [zeros.0]),
                              quantizedTensor(1, [count], type, b, scales: [scales.1], zeroPoints: [zeros.1])]
                let kernel: Kernel = trial % 3 == 2 ? try Sub(node(inputs, [output], numerics: numerics)) : try Add(node(inputs, [output], numerics: numerics))
                try run(kernel, threads: 1 + trial % 2)
                return output.toArray(of: UInt8.self)
            }
            let fast = try outputs(.fast), exact = try outputs(.exact)
            XCTAssertEqual(fast, exact, "\(type) \(trial % 3 == 2 ? "SUB" : "ADD") of \(count): \(zip(fast, exact).filter { $0 != $1 }.count) outputs differ")
        }
    }

    /// int8/uint8/int16 MUL and int8 SQUARED_DIFFERENCE in `fast` numerics (eight lanes at a time in AVX2 builds)
    /// against `exact` (the scalar integer loop): same shapes and broadcasts (a layer norm's row of one, a vector along
    /// the last axis), scales whose ratios are powers of two (rounding ties) or not, any zero points (int16: 0), runs
    /// of any length.
    func testQuantizedMulAndSquaredDifferenceFastMatchExact() throws {
        var compared = 0
        for trial in 0..<160 {
            let squaredDifference = trial % 4 == 3
            let type: TensorType = trial % 8 == 5 ? .int16 : squaredDifference || trial % 2 == 0 ? .int8 : .uint8
            let typeMin: Int64 = type == .int8 ? -128 : 0
            let width = type == .int16 ? 2 : 1
            let rows = Int.random(in: 1...5, using: &generator), columns = Int.random(in: 1...37, using: &generator)
            let shapes: ([Int], [Int]) = [([rows, columns], [rows, columns]), ([rows, columns], [rows, 1]), ([1, columns], [rows, columns]),
                                          ([rows, 1], [1, columns])][trial / 4 % 4]
            func bytes(_ shape: [Int]) -> [UInt8] { (0..<shape.reduce(1, *) * width).map { _ in UInt8.random(in: 0...255, using: &generator) } }
            let a = bytes(shapes.0), b = bytes(shapes.1)
            let base = Float.random(in: 0.005...0.1, using: &generator)
            let scales = trial % 3 == 0
                ? (base, base * Float(1 << Int.random(in: 0...2, using: &generator)), base * Float(1 << Int.random(in: 0...3, using: &generator)))
                : (base, Float.random(in: 0.005...0.1, using: &generator), Float.random(in: 0.001...0.5, using: &generator))
            let zeros = type == .int16 ? (0, 0, 0)
                : (typeMin + Int64.random(in: 0...255, using: &generator), typeMin + Int64.random(in: 0...255, using: &generator),
                   typeMin + Int64.random(in: 0...255, using: &generator))
            let outputShape = try broadcastShape(shapes.0, shapes.1)
            func outputs(_ numerics: Numerics) throws -> [UInt8] {
                let output = quantizedTensor(2, outputShape, type, [UInt8](), scales: [scales.2], zeroPoints: [zeros.2])
                let inputs = [quantizedTensor(0, shapes.0, type, a, scales: [scales.0], zeroPoints: [zeros.0]),
                              quantizedTensor(1, shapes.1, type, b, scales: [scales.1], zeroPoints: [zeros.1])]
                let kernel: Kernel = squaredDifference ? try SquaredDifference(node(inputs, [output], numerics: numerics))
                    : try Mul(node(inputs, [output], numerics: numerics))
                do {
                    try run(kernel)
                } catch {
                    // Scales whose rescale TFLite refuses too (an output multiplier above one).
                    if (error as? KernelError)?.unsupported == true { return [] }
                    throw error
                }
                return Array(UnsafeRawBufferPointer(start: output.data, count: output.elementCount * width))
            }
            let fast = try outputs(.fast), exact = try outputs(.exact)
            XCTAssertEqual(fast, exact, "\(type) \(squaredDifference ? "SQUARED_DIFFERENCE" : "MUL") of \(shapes) with \(scales), \(zeros)")
            if !exact.isEmpty { compared += 1 }
        }
        XCTAssertGreaterThan(compared, 120)
    }

    /// The integer LSTM's gate product in C (`lite_s8_matvec_s16__avx2`) against TFLite's arithmetic written out in
    /// Swift: row counts that are not multiples of eight, both accumulating and initializing, shifts over the whole
    /// range, sums large enough to saturate int16.
    func testIntegerLSTMGateProductMatchesReference() throws {
        guard let kernel = KernelConfiguration.current.widenedQuantized?.matrixVectorAccumulate else {
            XCTAssertEqual(KernelConfiguration.current.level, .baseline, "the avx2 level and above configure the kernel")
            return
        }
        var saturated = 0
        for trial in 0..<200 {
            let rows = Int.random(in: 1...41, using: &generator), columns = Int.random(in: 1...70, using: &generator)
            let x = (0..<columns).map { _ in Int8.random(in: -128...127, using: &generator) }
            let w = (0..<rows * columns).map { _ in Int8.random(in: -128...127, using: &generator) }
            let bias = (0..<rows).map { _ in Int32.random(in: -300_000...300_000, using: &generator) }
            let multiplier = Int32.random(in: 1 << 30...Int32.max, using: &generator)
            let shift = trial % 10 == 0 ? Int.random(in: 1...6, using: &generator) : Int.random(in: -31...0, using: &generator)
            let prior = (0..<rows).map { _ in Int16.random(in: -32768...32767, using: &generator) }
            let accumulate = trial % 2 == 0
            var expected = [Int16](repeating: 0, count: rows)
            for r in 0..<rows {
                var sum = bias[r]
                for c in 0..<columns { sum &+= Int32(x[c]) * Int32(w[r * columns + c]) }
                let value = IntegerArithmetic.multiplyByQuantizedMultiplier(sum, multiplier, shift) + (accumulate ? Int32(prior[r]) : 0)
                expected[r] = Int16(min(max(value, -32768), 32767))
                if expected[r] == .max || expected[r] == .min { saturated += 1 }
            }
            var actual = prior
            kernel(x, w, bias, rows, columns, multiplier, Int32(shift), &actual, accumulate ? 1 : 0)
            XCTAssertEqual(actual, expected, "rows \(rows), columns \(columns), multiplier \(multiplier), shift \(shift), accumulate \(accumulate)")
        }
        XCTAssertGreaterThan(saturated, 0, "some sums saturate")
    }

    /// The float ADD kernel against the portable clamp, bit for bit (NaN as NaN): NaN, infinities and signed zeros among the
    /// values, activations none/ReLU/ReLU6, counts that are not multiples of eight, with and without a second row.
    func testFloatSumKernelMatchesThePortableLoop() {
        guard let kernel = KernelConfiguration.current.float?.addMinMax else {
            XCTAssertEqual(KernelConfiguration.current.level, .baseline, "the avx2 level and above configure the kernel")
            return
        }
        let specials: [Float] = [.nan, -.nan, .infinity, -.infinity, 0, -0.0, 6, -6, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
        for trial in 0..<120 {
            let count = Int.random(in: 0...45, using: &generator)
            func value() -> Float {
                Int.random(in: 0..<4, using: &generator) == 0 ? specials.randomElement(using: &generator)! : Float.random(in: -8...8, using: &generator)
            }
            let a = (0..<count).map { _ in value() }, b = (0..<count).map { _ in value() }
            let (low, high): (Float, Float) = [(-.infinity, .infinity), (0, .infinity), (0, 6)][trial % 3]
            let withSecond = trial % 4 != 3
            var actual = [Float](repeating: 1, count: count)
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    kernel(a.baseAddress, withSecond ? b.baseAddress : nil, &actual, count, low, high)
                }
            }
            let expected = (0..<count).map { Float.clamp(a[$0] + (withSecond ? b[$0] : 0), low, high) }
            // Bits, except that any NaN equals any NaN: which operand's payload (and sign) a sum of two NaNs, or the
            // default NaN of inf - inf, carries depends on the instruction's operand order, which the compiler picks.
            func bits(_ values: [Float]) -> [UInt32] { values.map { $0.isNaN ? Float.nan.bitPattern : $0.bitPattern } }
            XCTAssertEqual(bits(actual), bits(expected), "count \(count), clamp [\(low), \(high)], second row \(withSecond)")
        }
    }

    func testFullyConnectedMatchesReference() throws {
        for trial in 0..<60 {
            let rows = Int.random(in: 1...9, using: &generator), depth = Int.random(in: 1...70, using: &generator), units = Int.random(in: 1...40, using: &generator)
            let activation = activations[trial % activations.count]
            let x = random(rows * depth), w = random(units * depth), b = random(units)
            let output = tensor(3, [1])
            // Weights known at load take the packed GEMM; weights that may change between runs take sgemm.
            let weightsKnownAtLoad = trial % 2 == 0
            let weights = tensor(1, [units, depth], w, variable: !weightsKnownAtLoad)
            let kernel = try FullyConnected(node([tensor(0, [rows, depth], x), weights, tensor(2, [units], b)], [output]))
            kernel.activation = try activationRange(activation)
            try run(kernel, threads: 1 + trial / 2 % 2)
            XCTAssertEqual(kernel.plan?.packed != nil, weightsKnownAtLoad && PackedFilterGEMM.make(filter: w, n: units, k: depth, bias: b) != nil)
            assertNear(output.toArray(of: Float.self), try FullyConnected.reference(input: x, rows: rows, weights: w, units: units, bias: b, activation: activation),
                       "fully connected \(rows)x\(depth) -> \(units), weights known at load: \(weightsKnownAtLoad)")
        }
    }

    /// Widths whose last panel of the packed product is narrower than 32 (24, 32 + 8, 32 + 16, 32 + 24, 64 + 8, ...), on one
    /// row (the column-group path), on several (the tiles; 10, 17 and 49 end in one or two single rows), split over one
    /// and two threads.
    func testPackedProductWithANarrowLastPanelMatchesReference() throws {
        for (trial, units) in [24, 36, 40, 42, 47, 48, 56, 72, 80, 88, 1001].enumerated() {
            for rows in [1, 2, 3, 10, 17, 49] {
                let depth = 5 + trial * 7
                let x = random(rows * depth), w = random(units * depth), b = random(units)
                let output = tensor(3, [1])
                let kernel = try FullyConnected(node([tensor(0, [rows, depth], x), tensor(1, [units, depth], w), tensor(2, [units], b)], [output]))
                kernel.activation = try activationRange(activations[trial % activations.count])
                try run(kernel, threads: 1 + rows % 2)
                XCTAssertEqual(kernel.plan?.packed != nil, PackedFilterGEMM.make(filter: w, n: units, k: depth, bias: b) != nil)
                assertNear(output.toArray(of: Float.self),
                           try FullyConnected.reference(input: x, rows: rows, weights: w, units: units, bias: b, activation: activations[trial % activations.count]),
                           "fully connected \(rows)x\(depth) -> \(units)")
            }
        }
    }

    /// Products with filters of 512 KB and more whose row tiles do not share evenly over two threads (25 rows: three
    /// tiles and a row; 100 rows: thirteen tiles; 9 rows: one tile and a row) share their panels instead: the same
    /// sums, so the same bits as one thread, and the reference's values.
    func testPackedProductSharedByPanelsMatchesOneThread() throws {
        let savedWork = minimumWorkPerThread
        minimumWorkPerThread = 1
        defer { minimumWorkPerThread = savedWork }
        for (rows, depth, units) in [(25, 1728, 384), (100, 768, 768), (9, 2048, 256), (25, 700, 200)] {
            let x = random(rows * depth), w = random(units * depth), b = random(units)
            var results = [[Float]]()
            for threads in [1, 2] {
                let output = tensor(3, [1])
                let kernel = try FullyConnected(node([tensor(0, [rows, depth], x), tensor(1, [units, depth], w), tensor(2, [units], b)], [output]))
                kernel.activation = try activationRange(.relu6)
                try run(kernel, threads: threads)
                results.append(output.toArray(of: Float.self))
            }
            let label = "fully connected \(rows)x\(depth) -> \(units)"
            assertNear(results[1], try FullyConnected.reference(input: x, rows: rows, weights: w, units: units, bias: b, activation: .relu6), label)
            XCTAssertEqual(results[1].map(\.bitPattern), results[0].map(\.bitPattern), label)
        }
    }

    /// Hybrid FULLY_CONNECTED (float input, int8 weights, inputs quantized per row) against TFLite's integer sums
    /// computed here, from one value a row to rows of three slices: the packed float product must give the exact sums.
    func testHybridFullyConnectedSumsAreExact() throws {
        for trial in 0..<20 {
            let rows = Int.random(in: 1...5, using: &generator), depth = [1, 7, 517, 518, 1100][trial % 5], units = Int.random(in: 1...20, using: &generator)
            let x = random(rows * depth), w = (0..<(units * depth)).map { _ in Int8.random(in: -127...127, using: &generator) }
            let scales = (0..<units).map { _ in Float.random(in: 0.001...0.1, using: &generator) }
            let weights = quantizedTensor(1, [units, depth], .int8, w, scales: scales, zeroPoints: [Int64](repeating: 0, count: units), channelDimension: 0)
            let output = tensor(3, [1])
            try run(try FullyConnected(node([tensor(0, [rows, depth], x), weights, nil], [output])), threads: 1 + trial % 2)
            var q = [Int8](repeating: 0, count: depth), expected: [Float] = []
            for r in 0..<rows {
                let scale = x.withUnsafeBufferPointer { HybridQuantization.quantizeSymmetric($0.baseAddress! + r * depth, count: depth, into: &q) }
                for u in 0..<units {
                    var dot: Int32 = 0
                    for k in 0..<depth { dot += Int32(q[k]) * Int32(w[u * depth + k]) }
                    expected.append(0 + Float(dot) * (scale * scales[u]))
                }
            }
            XCTAssertEqual(output.toArray(of: Float.self), expected, "hybrid fully connected \(rows)x\(depth) -> \(units)")
        }
    }

    func testBatchMatMulMatchesReference() throws {
        for trial in 0..<80 {
            let (m, n, k) = (Int.random(in: 1...12, using: &generator), Int.random(in: 1...12, using: &generator), Int.random(in: 0...20, using: &generator))
            let batchRank = Int.random(in: 0...3, using: &generator)
            let batch = (0..<batchRank).map { _ in Int.random(in: 1...3, using: &generator) }
            // Each operand keeps a suffix of the batch dimensions, some of them 1 (broadcast).
            func operandBatch() -> [Int] {
                Array(batch.suffix(Int.random(in: 0...batchRank, using: &generator)).map { Bool.random(using: &generator) ? $0 : 1 })
            }
            var options = try BatchMatMulOptions(nil)
            options.adjointLHS = trial % 4 >= 2
            options.adjointRHS = trial % 2 == 1
            let lhsShape = operandBatch() + (options.adjointLHS ? [k, m] : [m, k]), rhsShape = operandBatch() + (options.adjointRHS ? [n, k] : [k, n])
            let x = random(lhsShape.reduce(1, *)), y = random(rhsShape.reduce(1, *))
            let output = tensor(2, [1])
            let kernel = try BatchMatMul(node([tensor(0, lhsShape, x), tensor(1, rhsShape, y)], [output]))
            kernel.options = options
            try run(kernel, threads: 1 + trial / 4 % 2)
            let expected = try BatchMatMul.reference(lhs: x, lhsShape: lhsShape, rhs: y, rhsShape: rhsShape,
                                                     adjointLHS: options.adjointLHS, adjointRHS: options.adjointRHS)
            XCTAssertEqual(output.shape, expected.shape)
            assertNear(output.toArray(of: Float.self), expected.values, "batch matmul \(lhsShape) x \(rhsShape) \(options)")
        }
    }

    /// int8 RSQRT of a stored value below the input zero point (a negative number) is an error when it runs, as in
    /// LiteRT; the zero point itself reads as the largest output.
    /// The hybrid kernels' input quantization (vectorized rounding) against `rounded(.toNearestOrAwayFromZero)`: exact
    /// ties of both signs, the floats just below them, values past the range, and random values.
    /// The broadcast walks (``broadcastBinary`` of the float ops, ``forEachBroadcastRun`` of the quantized ones), whose
    /// dimensions merge where both operands allow, against numpy's rule index by index: random shapes with scalars,
    /// size-1 dimensions anywhere and operands of lower rank.
    func testBroadcastWalksMatchNumpyIndexByIndex() throws {
        for _ in 0..<400 {
            let rank = Int.random(in: 0...5, using: &generator)
            let full = (0..<rank).map { _ in Int.random(in: 1...4, using: &generator) }
            func operand() -> [Int] {
                Array(full.suffix(Int.random(in: 0...rank, using: &generator))).map { Bool.random(using: &generator) ? 1 : $0 }
            }
            let aShape = operand(), bShape = operand()
            let outShape = try broadcastShape(aShape, bShape), total = outShape.reduce(1, *)
            func sourceIndex(_ shape: [Int], _ flat: Int) -> Int {
                var rest = flat, index = 0, step = 1
                for d in (0..<outShape.count).reversed() {
                    let coordinate = rest % outShape[d]
                    rest /= outShape[d]
                    let k = d - (outShape.count - shape.count)
                    if k >= 0 {
                        if shape[k] != 1 { index += coordinate * step }
                        step *= shape[k]
                    }
                }
                return index
            }
            let expectedA = (0..<total).map { sourceIndex(aShape, $0) }, expectedB = (0..<total).map { sourceIndex(bShape, $0) }
            let a = (0..<aShape.reduce(1, *)).map(Float.init), b = (0..<bShape.reduce(1, *)).map(Float.init)
            var out = [Float](repeating: .nan, count: total)
            broadcastBinary(a: a, aShape: aShape, b: b, bShape: bShape, out: &out, outShape: outShape, activation: (-.infinity, .infinity)) { $0 * 1000 + $1 }
            XCTAssertEqual(out, zip(expectedA, expectedB).map { Float($0 * 1000 + $1) }, "\(aShape) and \(bShape)")
            // In two pieces of rows, as threads split it.
            let rowCount = broadcastRowCount(aShape: aShape, bShape: bShape, outShape: outShape), cut = Int.random(in: 0...rowCount, using: &generator)
            var pieces = [Float](repeating: .nan, count: total)
            for rows in [0..<cut, cut..<rowCount] {
                broadcastBinary(a: a, aShape: aShape, b: b, bShape: bShape, out: &pieces, outShape: outShape, activation: (-.infinity, .infinity),
                                rows: rows) { $0 * 1000 + $1 }
            }
            XCTAssertEqual(pieces, out, "\(aShape) and \(bShape) cut after row \(cut) of \(rowCount)")
            var visitedA = [Int](repeating: -1, count: total), visitedB = visitedA
            forEachBroadcastRun(aShape: aShape, bShape: bShape, outShape: outShape) { o, ia, stepA, ib, stepB, count in
                for k in 0..<count {
                    visitedA[o + k] = ia + k * stepA
                    visitedB[o + k] = ib + k * stepB
                }
            }
            XCTAssertEqual(visitedA, expectedA, "\(aShape) and \(bShape)")
            XCTAssertEqual(visitedB, expectedB, "\(aShape) and \(bShape)")
        }
    }

    /// The hybrid kernels' input quantization against a transcription of LiteRT's x86 quantizers
    /// (`NeonSymmetricQuantizeFloats`, `NeonAsymmetricQuantizeFloats` through NEON_2_SSE): the product rounded on its
    /// own, p ± 1/2 truncated in the eight-lane loop and `std::round` in the remainder, the zero point added after.
    /// The op goldens `hybrid_*_rounding_ties` check the same against LiteRT itself.
    func testHybridInputQuantizationRoundsAsLiteRT() {
        // With a largest magnitude of 127 the symmetric scale is 1: each value is its own rounding.
        var values: [Float] = [127, -127, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 126.5, -126.5, 0.49999997, -0.49999997, 1.4999999, -1.4999999, 0]
        values += (0..<200).map { _ in Float.random(in: -127...127, using: &generator) }
        values += (0..<60).map { Float($0 - 30) + 0.5 }
        values += [0.49999997, -0.49999997, 0.5]  // 278 values: these three in the remainder loop
        func liteRT(_ values: [Float], inverse: Float, zeroPoint: Float, low: Float) -> [Int8] {
            let laneEnd = values.count & ~7
            return values.enumerated().map { i, x in
                let p = x * inverse
                let r = i < laneEnd ? (p + (p < 0 ? -0.5 : 0.5)).rounded(.towardZero) : p.rounded(.toNearestOrAwayFromZero)
                return Int8(max(min(r + zeroPoint, 127), low))
            }
        }
        var symmetric = [Int8](repeating: 0, count: values.count)
        let scale = HybridQuantization.quantizeSymmetric(values, count: values.count, into: &symmetric)
        XCTAssertEqual(scale, 1)
        XCTAssertEqual(symmetric, liteRT(values, inverse: 1, zeroPoint: 0, low: -127))
        XCTAssertEqual(symmetric[10], 1, "1/2 − 2^-25 in the lanes: p + 1/2 rounds up to 1")
        XCTAssertEqual(symmetric[values.count - 3], 0, "1/2 − 2^-25 in the remainder: std::round")
        var asymmetric = [Int8](repeating: 0, count: values.count)
        let (step, offset) = HybridQuantization.quantizeAsymmetric(values, count: values.count, into: &asymmetric)
        XCTAssertEqual(asymmetric, liteRT(values, inverse: Float(1.0 / Double(step)), zeroPoint: Float(offset), low: -128))
        // The convolutions' path writes q − offset as floats, eight lanes at a time.
        let image = tensor(0, [1, values.count], values)
        var offsets = [Float](repeating: .nan, count: values.count)
        XCTAssertEqual(HybridQuantization.quantizeImages(image, asymmetric: false, offsets: &offsets), [1])
        XCTAssertEqual(offsets, symmetric.map { Float($0) })
        XCTAssertEqual(HybridQuantization.quantizeImages(image, offsets: &offsets), [step])
        XCTAssertEqual(offsets, asymmetric.map { Float(Int32($0) - offset) })
        // A long image is split over threads (its range from the pieces'): the same scale and values as in one piece.
        var long = (0..<40_000).map { _ in Float.random(in: -3...5, using: &generator) }
        (long[0], long[39_999]) = (-7, 9)
        var whole = [Float](repeating: .nan, count: long.count), split = whole
        let wholeScale = HybridQuantization.quantizeRows(long, rows: 1, length: long.count, asymmetric: true, offsets: &whole, threads: 1)
        XCTAssertEqual(HybridQuantization.quantizeRows(long, rows: 1, length: long.count, asymmetric: true, offsets: &split, threads: 2), wholeScale)
        XCTAssertEqual(wholeScale, [16 / 255])
        XCTAssertEqual(split, whole)
        // Infinite and NaN inputs (the zero point becomes NaN: inf / inf) quantize without trapping, as the fuzzer found.
        for row: [Float] in [[.infinity, 1, -2], [-.infinity, 3], [.nan, .infinity, -.infinity], [.nan]] {
            var q = [Int8](repeating: 0, count: row.count), floats = [Float](repeating: 0, count: row.count)
            _ = HybridQuantization.quantizeAsymmetric(row, count: row.count, into: &q)
            _ = HybridQuantization.quantizeRows(row, rows: 1, length: row.count, asymmetric: true, offsets: &floats)
        }
    }

    func testInt8RsqrtAndSqrtOfANegativeValueAreErrors() throws {
        func rsqrt(_ values: [Int8]) throws -> [Int8] {
            let output = quantizedTensor(1, [values.count], .int8, [Int8](repeating: 0, count: values.count), scales: [0.05], zeroPoints: [-20])
            try run(try Rsqrt(node([quantizedTensor(0, [values.count], .int8, values, scales: [0.02], zeroPoints: [-100])], [output])))
            return output.toArray(of: Int8.self)
        }
        XCTAssertEqual(try rsqrt([-100, -99, 127]).first, 127)
        XCTAssertThrowsError(try rsqrt([-100, -101, 0])) { XCTAssertTrue($0 is KernelError, "\($0)") }
        let sqrtOutput = quantizedTensor(1, [3], .int8, [Int8](repeating: 0, count: 3), scales: [0.05], zeroPoints: [-20])
        let sqrt = try Sqrt(node([quantizedTensor(0, [3], .int8, [Int8](arrayLiteral: -100, -101, 0), scales: [0.02], zeroPoints: [-100])], [sqrtOutput]))
        XCTAssertThrowsError(try run(sqrt), "int8 SQRT of a negative value") { XCTAssertTrue($0 is KernelError, "\($0)") }
    }

    /// What only the values can make wrong is a typed error when the node runs, as LiteRT's kernels fail: an int32
    /// division by zero (a float FLOOR_DIV's too), an int32 power with a negative exponent, a GATHER_ND, EMBEDDING_LOOKUP or SCATTER_ND index
    /// out of range; and a RANGE that
    /// cannot end or would be too long is refused when planning.
    func testValueDependentFailuresAreTypedErrors() throws {
        func ints(_ index: Int, _ values: [Int32], shape: [Int]? = nil) -> Tensor {
            quantizedTensor(index, shape ?? [values.count], .int32, values, scales: [1], zeroPoints: [0])
        }
        func fails(_ make: () throws -> Kernel, _ label: String) {
            XCTAssertThrowsError(try run(try make()), label) { XCTAssertTrue($0 is KernelError, "\(label): \($0)") }
        }
        fails({ try FloorDiv(self.node([ints(0, [7, 8]), ints(1, [2, 0])], [ints(2, [0, 0])])) }, "FLOOR_DIV by 0")
        fails({ try FloorDiv(self.node([self.tensor(0, [2], [7, 8]), self.tensor(1, [2], [2, -0.0])], [self.tensor(2, [2])])) }, "float FLOOR_DIV by -0")
        fails({ try FloorMod(self.node([ints(0, [7, 8]), ints(1, [0, 3])], [ints(2, [0, 0])])) }, "FLOOR_MOD by 0")
        fails({ try Pow(self.node([ints(0, [2, 3]), ints(1, [1, -1])], [ints(2, [0, 0])])) }, "POW to -1")
        fails({ try GatherNd(self.node([self.tensor(0, [3, 2], self.random(6)), ints(1, [1, 3], shape: [2, 1])], [self.tensor(2, [1])])) }, "GATHER_ND index 3 of 3")
        fails({ try RangeOp(self.node([ints(0, [0]), ints(1, [5]), ints(2, [0])], [ints(3, [0])])) }, "RANGE by 0")
        fails({ try RangeOp(self.node([ints(0, [0]), ints(1, [5]), ints(2, [-1])], [ints(3, [0])])) }, "RANGE away from its limit")
        fails({ try RangeOp(self.node([ints(0, [-2_000_000_000]), ints(1, [2_000_000_000]), ints(2, [1])], [ints(3, [0])])) }, "RANGE of 4e9")
        fails({ try EmbeddingLookup(self.node([ints(0, [0, 2]), self.tensor(1, [2, 3], self.random(6))], [self.tensor(2, [1])])) }, "EMBEDDING_LOOKUP id 2 of 2")
        fails({ try ScatterNd(self.node([ints(0, [4], shape: [1, 1]), self.tensor(1, [1, 2], self.random(2)), ints(2, [4, 2])], [self.tensor(3, [1])])) },
              "SCATTER_ND index 4 of 4")
        let divided = ints(2, [0, 0, 0, 0])
        try run(try FloorDiv(node([ints(0, [7, -7, 7, -7]), ints(1, [2, 2, -2, -2])], [divided])))
        XCTAssertEqual(divided.toArray(of: Int32.self), [3, -4, -4, 3])
    }

    func testBatchMatMulRefusesShapesThatDoNotMultiply() throws {
        for (lhs, rhs) in [([2, 3, 4], [2, 5, 6]), ([2, 3, 4], [3, 4, 6]), ([1, 1, 1, 1, 1, 2, 2], [2, 2]), ([4], [4, 2])] {
            let kernel = try BatchMatMul(node([tensor(0, lhs), tensor(1, rhs)], [tensor(2, [1])]))
            XCTAssertThrowsError(try kernel.prepare(), "\(lhs) x \(rhs)") { XCTAssertTrue($0 is KernelError, "\($0)") }
        }
    }

    /// The lazy heap NMS keeps exactly the boxes the op's sort-everything loop keeps: clustered boxes that overlap
    /// heavily, tied scores, scores below the threshold, NaN scores and NaN or empty boxes.
    func testNonMaxSuppressionMatchesTheOpsLoop() {
        for trial in 0..<300 {
            let count = Int.random(in: 0...300, using: &generator)
            let centres = (0..<Int.random(in: 1...8, using: &generator)).map { _ in
                (Float.random(in: 0...1, using: &generator), Float.random(in: 0...1, using: &generator))
            }
            var boxes = (0..<count).map { _ -> DetectionBox in
                let (y, x) = centres.randomElement(using: &generator)!
                let dy = Float.random(in: -0.05...0.05, using: &generator), dx = Float.random(in: -0.05...0.05, using: &generator)
                let h = Float.random(in: 0...0.3, using: &generator), w = Float.random(in: 0...0.3, using: &generator)
                return DetectionBox(ymin: y + dy - h, xmin: x + dx - w, ymax: y + dy + h, xmax: x + dx + w)
            }
            let levels = Int.random(in: 2...50, using: &generator)
            var scores = (0..<count).map { _ in Float(Int.random(in: 0..<levels, using: &generator)) / Float(levels) }
            if trial % 5 == 0, count > 2 {
                scores[Int.random(in: 0..<count, using: &generator)] = .nan
                boxes[Int.random(in: 0..<count, using: &generator)].ymax = .nan
            }
            let threshold = Float.random(in: 0...0.5, using: &generator), iou = Float.random(in: 0.05...1, using: &generator)
            let limit = Int.random(in: 0...40, using: &generator)
            XCTAssertEqual(CenterSizeBoxCoding.nonMaxSuppression(boxes: boxes, scores: scores, scoreThreshold: threshold, iouThreshold: iou, maxDetections: limit),
                           CenterSizeBoxCoding.referenceNonMaxSuppression(boxes: boxes, scores: scores, scoreThreshold: threshold, iouThreshold: iou, maxDetections: limit),
                           "\(count) boxes, threshold \(threshold), IoU \(iou), at most \(limit)")
        }
    }

    /// The sigmoid and tanh the float LOGISTIC and TANH kernels run (the sigmoid eight lanes at a time in AVX2 builds),
    /// against libm, from tiny to saturated values and the non-finite ones. Worst at every float in (0, 12), measured
    /// once: sigmoid 2 ulp, tanh 3.
    func testVectorizableSigmoidAndTanhFollowLibm() {
        var values: [Float] = [0, -0.0, .nan, .infinity, -.infinity, 1e-30, -1e-30, 0.125, -0.125, 88, -88, 100, -100]
        for _ in 0..<20_000 { values.append(Float.random(in: -20...20, using: &generator)) }
        for _ in 0..<2_000 { values.append(Float.random(in: -0.2...0.2, using: &generator)) }
        var sigmoids = values
        applySigmoid(&sigmoids, sigmoids.count)
        for (x, sigmoid) in zip(values, sigmoids) {
            for (name, fast, exact) in [("sigmoid", sigmoid, 1 / (1 + expf(-x))), ("tanh", vectorizableTanh(x), tanhf(x))] {
                if exact.isNaN { XCTAssert(fast.isNaN, "\(name)(\(x)) = \(fast)"); continue }
                let ulps = abs(fast - exact) / max(exact.ulp, 1e-37)
                XCTAssertLessThanOrEqual(ulps, 4, "\(name)(\(x)) = \(fast), libm \(exact)")
            }
        }
    }

    /// The sigmoid (and SiLU) kernel of every level this CPU runs (AVX2's eight lanes, AVX-512's sixteen, their last
    /// partial registers) gives the same bits as the avx2 level's, on the same values as above and at every count of
    /// 1...40 (each tail length of both).
    func testSigmoidKernelsOfEveryLevelAgree() throws {
        guard let reference = KernelConfiguration(level: .avx2).float?.sigmoid else {
            // The baseline level has no vector kernels: the Swift loop is the only one (checked above).
            XCTAssertEqual(InstructionSetLevel.detected, .baseline)
            return
        }
        var values: [Float] = [0, -0.0, .nan, .infinity, -.infinity, 1e-30, -1e-30, 0.125, -0.125, 88, -88, 100, -100]
        for _ in 0..<2_000 { values.append(Float.random(in: -20...20, using: &generator)) }
        let levels = [InstructionSetLevel.avx2, .avx512, .avx512vnni].filter { $0 <= InstructionSetLevel.detected }
        for level in levels {
            let kernel = try XCTUnwrap(KernelConfiguration(level: level).float?.sigmoid)
            for count in Array(1...40) + [values.count] {
                for silu: Int32 in [0, 1] {
                    var expected = [Float](repeating: 0, count: count), actual = expected
                    reference(values, &expected, count, silu)
                    kernel(values, &actual, count, silu)
                    XCTAssertEqual(actual.map(\.bitPattern), expected.map(\.bitPattern), "\(level), \(count) values, SiLU \(silu)")
                }
            }
        }
    }

    /// The byte-table lookup of every level this CPU runs (AVX2's sixteen shuffles, AVX-512 VBMI's permutes) reads
    /// every one of the 256 entries of random tables, at every count of 0...100 (each tail length) and a long run.
    func testByteTableLookupOfEveryLevelReadsEveryEntry() throws {
        let levels = [InstructionSetLevel.avx2, .avx512, .avx512vnni].filter { $0 <= InstructionSetLevel.detected }
        XCTAssertEqual(levels.isEmpty, InstructionSetLevel.detected == .baseline)
        for level in levels {
            let lookup = try XCTUnwrap(KernelConfiguration(level: level).elementwise?.lookupU8, "\(level)")
            for _ in 0..<8 {
                let table = (0..<256).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let everyByte = (0..<256).map(UInt8.init).shuffled(using: &generator)
                let input = everyByte + (0..<1_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
                for count in Array(0...100) + [256, input.count] {
                    var output = [UInt8](repeating: 0xA5, count: count + 1)
                    lookup(table, input, &output, count)
                    XCTAssertEqual(Array(output[..<count]), input[..<count].map { table[Int($0)] }, "\(level), \(count) bytes")
                    XCTAssertEqual(output[count], 0xA5, "\(level): nothing written past \(count) bytes")
                }
            }
        }
    }

    /// GELU's float kernel (``vectorizableErfc``) against libm's `erfcf`, the function TFLite's kernels call, within
    /// 2e-6 relative to max(1, |x|) (the op goldens allow 1e-4).
    func testVectorizableGeluFollowsLibm() {
        var values: [Float] = [0, -0.0, .nan, .infinity, 1e-30, -1e-30, 0.5, -0.5, 9, -9, 13, -13, 30, -30]
        for _ in 0..<20_000 { values.append(Float.random(in: -14...14, using: &generator)) }
        for x in values {
            let fast = Gelu.ExactForm.apply(x), exact = Gelu.exact(x)
            if exact.isNaN || exact.isInfinite { XCTAssert(fast.isNaN ? exact.isNaN : fast == exact, "gelu(\(x)) = \(fast)"); continue }
            XCTAssertLessThanOrEqual(abs(fast - exact), 2e-6 * max(1, abs(x)), "gelu(\(x)) = \(fast), with libm \(exact)")
        }
    }

    func testPoolingMatchesReference() throws {
        for trial in 0..<40 {
            var options = try Pool2DOptions(nil)
            options.padding = Bool.random(using: &generator) ? .same : .valid
            options.filterH = Int.random(in: 1...4, using: &generator); options.filterW = Int.random(in: 1...4, using: &generator)
            options.strideH = Int.random(in: 1...3, using: &generator); options.strideW = Int.random(in: 1...3, using: &generator)
            options.activation = activations.randomElement(using: &generator)!
            let shape = [Int.random(in: 1...2, using: &generator), Int.random(in: 4...11, using: &generator), Int.random(in: 4...11, using: &generator), Int.random(in: 1...33, using: &generator)]
            let x = random(shape.reduce(1, *))
            let average = trial % 2 == 0
            let output = tensor(1, [1])
            let kernel: Pool2D = average ? try AveragePool2D(node([tensor(0, shape, x)], [output])) : try MaxPool2D(node([tensor(0, shape, x)], [output]))
            kernel.options = options
            kernel.activation = try activationRange(options.activation)
            try run(kernel)
            let expected = try Pool2D.reference(input: x, shape: shape, options: options, average: average)
            XCTAssertEqual(output.shape, expected.shape)
            assertNear(output.toArray(of: Float.self), expected.values, "\(average ? "average" : "max") pool \(shape) \(options)")
        }
    }

    func testTransposeConvMatchesReference() throws {
        for _ in 0..<30 {
            var options = try TransposeConvOptions(nil)
            options.padding = Bool.random(using: &generator) ? .same : .valid
            options.strideH = Int.random(in: 1...3, using: &generator); options.strideW = Int.random(in: 1...3, using: &generator)
            let k = Int.random(in: 1...4, using: &generator), inC = Int.random(in: 1...6, using: &generator), outC = Int.random(in: 1...6, using: &generator)
            let inputShape = [1, Int.random(in: 1...6, using: &generator), Int.random(in: 1...6, using: &generator), inC]
            let outH = options.padding == .same ? inputShape[1] * options.strideH : (inputShape[1] - 1) * options.strideH + k
            let outW = options.padding == .same ? inputShape[2] * options.strideW : (inputShape[2] - 1) * options.strideW + k
            let outputShape = [1, outH, outW, outC], weightsShape = [outC, k, k, inC]
            let x = random(inputShape.reduce(1, *)), w = random(weightsShape.reduce(1, *)), b = random(outC)
            let shapeTensor = constantInts(0, outputShape)
            let output = tensor(4, [1])
            let kernel = try TransposeConv(node([shapeTensor, tensor(1, weightsShape, w), tensor(2, inputShape, x), tensor(3, [outC], b)], [output]))
            kernel.options = options
            try run(kernel)
            let expected = try TransposeConv.reference(input: x, inputShape: inputShape, weights: w, weightsShape: weightsShape,
                                                       outputShape: outputShape, bias: b, options: options)
            assertNear(output.toArray(of: Float.self), expected, "transpose conv \(inputShape) -> \(outputShape) \(options)")
        }
    }

    /// CONV_3D and CONV_3D_TRANSPOSE against their definitions over random shapes, strides, dilations, paddings, bias
    /// or none, and activations.
    func testConv3DAndItsTransposeMatchReference() throws {
        for trial in 0..<40 {
            var options = try Conv3DOptions(nil)
            options.padding = Bool.random(using: &generator) ? .same : .valid
            (options.strideD, options.strideH, options.strideW) = (Int.random(in: 1...2, using: &generator), Int.random(in: 1...3, using: &generator),
                                                                   Int.random(in: 1...2, using: &generator))
            (options.dilationD, options.dilationH, options.dilationW) = (Int.random(in: 1...2, using: &generator), Int.random(in: 1...2, using: &generator),
                                                                         Int.random(in: 1...3, using: &generator))
            options.activation = [FusedActivation.none, .relu, .relu6, .reluN1To1][trial % 4]
            let c = Int.random(in: 1...5, using: &generator), o = Int.random(in: 1...5, using: &generator)
            let kernelShape = (0..<3).map { _ in Int.random(in: 1...3, using: &generator) }
            let inputShape = [Int.random(in: 1...2, using: &generator)] + (0..<3).map { _ in Int.random(in: 1...6, using: &generator) } + [c]
            let x = random(inputShape.reduce(1, *)), bias: [Float]? = trial % 3 == 0 ? nil : random(o)
            let forwardFilter = kernelShape + [c, o]
            let w = random(forwardFilter.reduce(1, *))
            var inputs = [tensor(0, inputShape, x), tensor(1, forwardFilter, w)]
            if let bias { inputs.append(tensor(2, [o], bias)) }
            let output = tensor(3, [1])
            let forward = try Conv3D(node(inputs, [output]))
            forward.options = options
            if let expected = try? Conv3D.reference(input: x, inputShape: inputShape, filter: w, filterShape: forwardFilter, bias: bias, options: options),
               expected.shape.allSatisfy({ $0 > 0 }) {
                try run(forward)
                XCTAssertEqual(output.shape, expected.shape)
                assertNear(output.toArray(of: Float.self), expected.values, "conv3d \(inputShape) \(forwardFilter) \(options)")
            }

            let outputShape = [inputShape[0]] + (0..<3).map { inputShape[$0 + 1] * [options.strideD, options.strideH, options.strideW][$0] } + [o]
            let transposedFilter = kernelShape + [o, c]
            let shapeTensor = constantInts(4, outputShape)
            var transposeInputs = [shapeTensor, tensor(5, transposedFilter, w), tensor(6, inputShape, x)]
            if let bias { transposeInputs.append(tensor(7, [o], bias)) }
            let transposeOutput = tensor(8, [1])
            let transpose = try Conv3DTranspose(node(transposeInputs, [transposeOutput]))
            transpose.options = options
            try run(transpose)
            let expected = try Conv3DTranspose.reference(input: x, inputShape: inputShape, filter: w, filterShape: transposedFilter,
                                                         outputShape: outputShape, bias: bias, options: options)
            assertNear(transposeOutput.toArray(of: Float.self), expected, "conv3d transpose \(inputShape) -> \(outputShape) \(options)")
        }
    }

    /// RFFT2D's half-length transforms against the direct DFT: random batches, input sizes below, at and above the
    /// FFT lengths (zero-padded or cut), one row or several, at 1 and 2 threads.
    func testRfft2dMatchesTheDirectTransform() throws {
        for trial in 0..<40 {
            let height = 1 << Int.random(in: 0...3, using: &generator), width = 1 << Int.random(in: 0...6, using: &generator)
            let shape = [Int.random(in: 1...3, using: &generator), Int.random(in: 1...10, using: &generator), Int.random(in: 1...70, using: &generator)]
            let x = random(shape.reduce(1, *))
            let lengths = constantInts(1, [height, width])
            let output = Tensor(index: 2, description: TensorDescription(name: "out", type: .complex64, shape: [1], shapeSignature: [1], buffer: 0,
                                                                         quantization: nil, isVariable: false, sparsity: nil), constant: nil)
            try run(try Rfft2d(node([tensor(0, shape, x), lengths], [output])), threads: trial % 2 + 1)
            XCTAssertEqual(output.shape, [shape[0], height, width / 2 + 1])
            let ours = UnsafeBufferPointer(start: output.pointer(Float.self), count: 2 * output.elementCount).map { $0 }
            assertNear(ours, Rfft2d.reference(input: x, shape: shape, height: height, width: width), "rfft2d \(shape) -> [\(height), \(width)]")
        }
    }

    /// The LSTM's recurrent product three ways: all gates at once from stacked constant weights (`StackedGateWeights`,
    /// one sgemv, or one sgemm for a batch), and, for weights that are not constant, per-gate SIMD rows (small steps)
    /// or sgemm (larger ones).
    func testLSTMRecurrencePathsAgree() throws {
        for trial in 0..<12 {
            let cells = [3, 20, 33, 64, 70, 96][trial % 6], batches = trial < 6 ? 1 : Int.random(in: 2...3, using: &generator)
            let steps = Int.random(in: 1...9, using: &generator), inputSize = Int.random(in: 1...6, using: &generator), cifg = trial % 4 == 3
            let values: [Int: [Float]] = Dictionary(uniqueKeysWithValues: (1...15).map { i in
                let count = i <= 4 ? cells * inputSize : i <= 8 ? cells * cells : cells
                return (i, random(count).map { $0 * 0.3 })
            })
            let x = random(batches * steps * inputSize)
            func runLSTM(constantWeights: Bool) throws -> [Float] {
                var inputs = [Tensor?](repeating: nil, count: 24)
                inputs[0] = tensor(0, [batches, steps, inputSize], x)
                for i in 1...15 where !(cifg && [1, 5, 9].contains(i)) && !(9...11).contains(i) {
                    let shape = i <= 4 ? [cells, inputSize] : i <= 8 ? [cells, cells] : [cells]
                    let t = tensor(i, shape, values[i])
                    if !constantWeights { t.storage = .arena }
                    inputs[i] = t
                }
                for (i, count) in [(18, cells), (19, cells)] {
                    let description = TensorDescription(name: "state\(i)", type: .float32, shape: [batches, count], shapeSignature: [batches, count],
                                                        buffer: 0, quantization: nil, isVariable: true, sparsity: nil)
                    let state = Tensor(index: i, description: description, constant: nil)
                    state.makePersistent(byteCount: batches * count * 4)
                    inputs[i] = state
                }
                let output = tensor(24, [1])
                let kernel = try UnidirectionalSequenceLSTM(node(inputs, [output]))
                try run(kernel)
                XCTAssertEqual(kernel.float?.stackedRecurrentWeights != nil, constantWeights)
                return output.toArray(of: Float.self)
            }
            assertNear(try runLSTM(constantWeights: true), try runLSTM(constantWeights: false),
                       "LSTM \(cells) cells, batch \(batches), \(steps) steps, cifg \(cifg)")
        }
    }
}
