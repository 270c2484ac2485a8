import LiteFormat

/// TRANSPOSE_CONV: inputs (output_shape, weights [Cout, KH, KW, Cin], input [N, H, W, Cin], optional bias).
/// Every input pixel scatters `input · weights` into the output window it maps to; the padding is the one a
/// forward convolution from the output shape would use (TFLite computes it the same way).
///
/// Fast path: one sgemm gives every pixel's contribution [N*H*W, Cout*KH*KW], then a col2im pass adds them in.
/// int8 (per-channel) and int16 (16x8): the same contributions of `x − x_zero` and `w` as exact doubles (dgemm), summed
/// by col2im (exact: below 2^53), plus the int32 (int16: int64) bias, rescaled per channel with
/// `MultiplyByQuantizedMultiplier` (int16: its int64 form; int8: ties up in whole groups of 8 channels, as LiteRT's
/// vector requantization rounds them), then clamped.
final class TransposeConv: Kernel {
    var options: TransposeConvOptions
    var padH = 0, padW = 0
    var activation: (Float, Float) = (-.infinity, .infinity)

    required init(_ node: NodeContext) throws {
        options = try TransposeConvOptions(node.options)
        try super.init(node)
        try expectCounts(inputs: 3...4, outputs: 1)
        activation = try builtinActivationRange(options.activation)
    }

    /// The code path `run` takes, chosen once by `prepare` from the input's and weights' types.
    enum Plan {
        /// Float: one sgemm for every pixel's contributions, col2im, then bias and activation.
        case float
        /// Hybrid (float input, int8 weights, dynamic-range quantization): each image quantized to int8 asymmetrically
        /// as a whole (`AsymmetricQuantizeFloats`, as TFLite's EvalHybrid does), its integer contributions summed
        /// exactly, then scaled by the image's and the channel's scales in float. The contributions come from the
        /// packed float GEMM when its sums are exact floats (fewer than 518 input channels)...
        case hybridPacked(HybridMatrixProduct, scales: [Float])
        /// ... and otherwise from dgemm on the weights as doubles.
        case hybridDoubles(weights: [Double], scales: [Float])
        /// int8 or int16: the weights less their zero points as doubles, the bias, the per-channel rescale.
        case quantized(weights: [Double], bias: [Int64], requantization: ChannelRequantization, inputZeroPoint: Int32)
    }

    /// The path `run` takes, chosen by `prepare` (nil before it).
    private(set) var plan: Plan?

    override func prepare() throws {
        let shape = try integers(try input(0)), weights = try input(1), input = try self.input(2), output = try self.output(0)
        if input.type == .int8 || input.type == .int16 {
            plan = try prepareQuantized(shape, weights, input, output, previous: plan)
            return
        }
        try expectType(input, .float32)
        try expectType(weights, .float32, .int8)
        var plan = Plan.float
        switch self.plan {
        case .hybridPacked?, .hybridDoubles?: plan = self.plan!
        default:
            if weights.type == .int8 {
                let channels = weights.dim(0)
                let hybridWeights = try HybridWeights(weights, channels: channels)
                let product = HybridMatrixProduct(values: hybridWeights.values, channels: weights.elementCount / max(weights.dim(3), 1), depth: weights.dim(3))
                plan = product.sumsAreExactFloats ? .hybridPacked(product, scales: hybridWeights.scales)
                    : .hybridDoubles(weights: hybridWeights.values.map { Double($0) }, scales: hybridWeights.scales)
            }
        }
        try expectRank(input, 4)
        try expectRank(weights, 4)
        guard shape.count == 4, shape.allSatisfy({ $0 > 0 }), shape[0] == input.dim(0), shape[3] == weights.dim(0), weights.dim(3) == input.dim(3) else {
            throw KernelError.invalid("output shape \(shape), weights \(weights.shape) and input \(input.shape) do not fit")
        }
        if let bias = optionalInput(3) {
            try expectType(bias, .float32)
            guard bias.elementCount == shape[3] else { throw KernelError.invalid("bias has \(bias.elementCount) values for \(shape[3]) channels") }
        }
        padH = try SpatialGeometry(input: shape[1], filter: weights.dim(1), stride: options.strideH, dilation: 1, padding: options.padding).padBefore
        padW = try SpatialGeometry(input: shape[2], filter: weights.dim(2), stride: options.strideW, dilation: 1, padding: options.padding).padBefore
        output.type = .float32
        output.shape = shape
        self.plan = plan
    }

    private func prepareQuantized(_ shape: [Int], _ weights: Tensor, _ input: Tensor, _ output: Tensor, previous: Plan?) throws -> Plan {
        try expectType(weights, .int8)
        try expectRank(input, 4)
        try expectRank(weights, 4)
        guard output.type == input.type else { throw KernelError.unsupported("\(input.type) TRANSPOSE_CONV into \(output.type)") }
        guard weights.storage != .arena, weights.data != nil else { throw KernelError.unsupported("quantized weights must be constant") }
        guard shape.count == 4, shape.allSatisfy({ $0 > 0 }), shape[0] == input.dim(0), shape[3] == weights.dim(0), weights.dim(3) == input.dim(3) else {
            throw KernelError.invalid("output shape \(shape), weights \(weights.shape) and input \(input.shape) do not fit")
        }
        padH = try SpatialGeometry(input: shape[1], filter: weights.dim(1), stride: options.strideH, dilation: 1, padding: options.padding).padBefore
        padW = try SpatialGeometry(input: shape[2], filter: weights.dim(2), stride: options.strideW, dilation: 1, padding: options.padding).padBefore
        output.shape = shape
        if case .quantized? = previous { return previous! }
        let channels = weights.dim(0), wide = input.type == .int16
        try Int16Activations.expectSymmetric(input, output)
        var bias: [Int64] = []
        if let biasTensor = optionalInput(3) {
            guard biasTensor.storage != .arena, biasTensor.data != nil else { throw KernelError.unsupported("quantized biases must be constant") }
            if wide { bias = try Int16Activations.bias(biasTensor, channels: channels) } else {
                guard biasTensor.type == .int32, biasTensor.elementCount == channels else { throw KernelError.unsupported("bias must be int32 [\(channels)], is \(biasTensor)") }
                bias = (0..<channels).map { Int64(biasTensor.pointer(Int32.self)[$0]) }
            }
        }
        let weightInfo = try QuantizedTensorInfo(weights), inputInfo = try QuantizedTensorInfo(input)
        var requantization = try ChannelRequantization(input: inputInfo, filter: weightInfo, output: try QuantizedTensorInfo(output), channels: channels,
                                                       activation: options.activation, outputType: input.type)
        if wide { try requantization.checkWideShifts("TRANSPOSE_CONV") }
        // LiteRT requantizes int8 in whole groups of 8 channels with vector code that rounds ties up, the channels left
        // over with MultiplyByQuantizedMultiplier (`q_transpose_conv_int8_ties`: channels 0-7 and 8-9 of 10).
        if !wide { requantization.upwardChannels = channels / 8 * 8 }
        let depth = weights.elementCount / max(channels, 1), raw = weights.pointer(Int8.self)
        let values = (0..<channels).flatMap { c -> [Double] in
            let zero = Double(weightInfo.zeroPoints.count == 1 ? weightInfo.zeroPoints[0] : weightInfo.zeroPoints[c])
            return (0..<depth).map { Double(raw[c * depth + $0]) - zero }
        }
        return .quantized(weights: values, bias: bias, requantization: requantization, inputZeroPoint: inputInfo.zeroPoint)
    }

    override var scratchBytes: Int {
        guard let input = node.inputs[2], let weights = node.inputs[1] else { return 0 }
        let columns = saturatingProduct(input.dim(0), input.dim(1), input.dim(2), weights.dim(0), weights.dim(1), weights.dim(2))
        switch plan {
        case .hybridPacked?, .hybridDoubles?:
            // The sums, then the image less its offset and the contributions (as doubles, or as floats for the packed
            // product, which needs no scratch of its own with one slice).
            return saturatingProduct(input.elementCount + columns + node.outputs[0].elementCount, 8)
        case .quantized?:
            return saturatingProduct(saturatingProduct(input.elementCount) + columns + saturatingProduct(node.outputs[0].elementCount), 8)
        case .float?, nil:
            return saturatingProduct(columns, 4)
        }
    }

    /// Adds each input pixel's contributions (`columns`, [N·H·W, Cout·KH·KW]) into the output window it maps to.
    private func col2im<Value: BinaryFloatingPoint, Sum: BinaryFloatingPoint>(_ columns: UnsafePointer<Value>, into out: UnsafeMutablePointer<Sum>) {
        let weights = node.inputs[1]!, input = node.inputs[2]!, output = node.outputs[0]
        let (batches, inH, inW) = (input.dim(0), input.dim(1), input.dim(2))
        let (outC, kh, kw) = (weights.dim(0), weights.dim(1), weights.dim(2))
        let (outH, outW) = (output.dim(1), output.dim(2))
        let taps = outC * kh * kw
        out.update(repeating: 0, count: output.elementCount)
        for b in 0..<batches {
            for y in 0..<inH {
                for x in 0..<inW {
                    let column = columns + ((b * inH + y) * inW + x) * taps
                    for ky in 0..<kh {
                        let oy = y * options.strideH + ky - padH
                        guard oy >= 0 && oy < outH else { continue }
                        for kx in 0..<kw {
                            let ox = x * options.strideW + kx - padW
                            guard ox >= 0 && ox < outW else { continue }
                            let target = out + ((b * outH + oy) * outW + ox) * outC
                            for oc in 0..<outC { target[oc] += Sum(column[(oc * kh + ky) * kw + kx]) }
                        }
                    }
                }
            }
        }
    }

    private func runQuantized(_ context: RunContext, _ q: (weights: [Double], bias: [Int64], requantization: ChannelRequantization, inputZeroPoint: Int32)) {
        let weights = node.inputs[1]!, input = node.inputs[2]!, output = node.outputs[0]
        let rows = input.dim(0) * input.dim(1) * input.dim(2), inC = input.dim(3), outC = weights.dim(0)
        let taps = outC * weights.dim(1) * weights.dim(2)
        let values = context.scratch.assumingMemoryBound(to: Double.self), columns = values + input.elementCount, sums = columns + rows * taps
        convertQuantized(input, zeroPoint: q.inputZeroPoint, into: values)
        q.weights.withUnsafeBufferPointer { w in
            BLAS.dgemmTransposedB(m: rows, n: taps, k: inC, a: values, b: w.baseAddress!, c: columns, threads: context.threads)
        }
        col2im(UnsafePointer(columns), into: sums)
        let requantization = q.requantization
        @inline(__always) func requantize<Element: FixedWidthInteger>(_ out: UnsafeMutablePointer<Element>, _ rescale: (Int64, Int) -> Int32) {
            for i in 0..<output.elementCount {
                let c = i % outC
                out[i] = Element(truncatingIfNeeded: rescale(Int64(sums[i]) &+ (q.bias.isEmpty ? 0 : q.bias[c]), c))
            }
        }
        if input.type == .int16 {
            requantize(output.pointer(Int16.self)) { requantization.applyWide($0, channel: $1) }
        } else {
            requantize(output.pointer(Int8.self)) { requantization.apply(Int32(truncatingIfNeeded: $0), channel: $1) }
        }
    }

    /// The hybrid path with the contributions from `product` (the packed float GEMM) or, without it, from dgemm on
    /// `weights`.
    private func runHybrid(_ context: RunContext, product: HybridMatrixProduct?, weights doubles: [Double], scales: [Float]) {
        let weights = node.inputs[1]!, input = node.inputs[2]!, output = node.outputs[0]
        let (batches, inC, outC) = (input.dim(0), input.dim(3), weights.dim(0))
        let rows = batches * input.dim(1) * input.dim(2)
        let taps = outC * weights.dim(1) * weights.dim(2), outImage = output.elementCount / max(batches, 1)
        // The contributions' sums in doubles, exact whatever the number of taps that land on an output.
        let sums = context.scratch.assumingMemoryBound(to: Double.self)
        let imageScales: [Float]
        if let product {
            let values = UnsafeMutableRawPointer(sums + output.elementCount).assumingMemoryBound(to: Float.self), columns = values + input.elementCount
            imageScales = HybridQuantization.quantizeImages(input, offsets: values, threads: context.threads)
            product.run(values, rows: rows, into: columns, scratch: UnsafeMutableRawPointer(columns + rows * taps), threads: context.threads)
            col2im(UnsafePointer(columns), into: sums)
        } else {
            let values = sums + output.elementCount, columns = values + input.elementCount
            imageScales = HybridQuantization.quantizeImages(input, offsets: values, threads: context.threads)
            doubles.withUnsafeBufferPointer { w in
                BLAS.dgemmTransposedB(m: rows, n: taps, k: inC, a: values, b: w.baseAddress!, c: columns, threads: context.threads)
            }
            col2im(UnsafePointer(columns), into: sums)
        }
        let out = output.floats, (low, high) = activation
        let bias = optionalInput(3).map { Array(UnsafeBufferPointer(start: $0.floats, count: outC)) } ?? [Float](repeating: 0, count: outC)
        for b in 0..<batches {
            let factors = scales.map { $0 * imageScales[b] }
            for pixel in 0..<(outImage / max(outC, 1)) {
                let start = b * outImage + pixel * outC
                for c in 0..<outC { out[start + c] = min(max(Float(sums[start + c]) * factors[c] + bias[c], low), high) }
            }
        }
    }

    override func run(_ context: RunContext) throws {
        guard let plan else { throw KernelError.invalid("TRANSPOSE_CONV ran before it was prepared") }
        // An empty output (a dimension of 0) has nothing to compute.
        guard node.outputs[0].elementCount > 0 else { return }
        switch plan {
        case .quantized(let weights, let bias, let requantization, let inputZeroPoint):
            return runQuantized(context, (weights, bias, requantization, inputZeroPoint))
        case .hybridPacked(let product, let scales): return runHybrid(context, product: product, weights: [], scales: scales)
        case .hybridDoubles(let weights, let scales): return runHybrid(context, product: nil, weights: weights, scales: scales)
        case .float: break
        }
        let weights = node.inputs[1]!, input = node.inputs[2]!, output = node.outputs[0]
        let (batches, inH, inW, inC) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outC, kh, kw) = (weights.dim(0), weights.dim(1), weights.dim(2))
        let (outH, outW) = (output.dim(1), output.dim(2))
        let columns = context.scratch.assumingMemoryBound(to: Float.self)
        let taps = outC * kh * kw
        BLAS.sgemm(transposeB: true, m: batches * inH * inW, n: taps, k: inC, a: input.floats, lda: inC,
                   b: weights.floats, ldb: inC, c: columns, ldc: taps, threads: context.threads)
        let out = output.floats
        col2im(UnsafePointer(columns), into: out)
        addBiasAndActivate(out, rows: batches * outH * outW, channels: outC, bias: optionalInput(3)?.floats,
                           activation: activation, threads: context.threads)
    }
}

extension TransposeConv {
    /// The definition, for tests: every input pixel adds input · weights into the output window it maps to.
    static func reference(input: [Float], inputShape: [Int], weights: [Float], weightsShape: [Int], outputShape: [Int],
                          bias: [Float]?, options: TransposeConvOptions) throws -> [Float] {
        let (batches, inH, inW, inC) = (inputShape[0], inputShape[1], inputShape[2], inputShape[3])
        let (outC, kh, kw) = (weightsShape[0], weightsShape[1], weightsShape[2])
        let (outH, outW) = (outputShape[1], outputShape[2])
        let padH = try SpatialGeometry(input: outH, filter: kh, stride: options.strideH, dilation: 1, padding: options.padding).padBefore
        let padW = try SpatialGeometry(input: outW, filter: kw, stride: options.strideW, dilation: 1, padding: options.padding).padBefore
        var out = [Float](repeating: 0, count: batches * outH * outW * outC)
        for b in 0..<batches { for y in 0..<inH { for x in 0..<inW { for ky in 0..<kh { for kx in 0..<kw {
            let oy = y * options.strideH + ky - padH, ox = x * options.strideW + kx - padW
            guard oy >= 0, oy < outH, ox >= 0, ox < outW else { continue }
            for oc in 0..<outC { for ic in 0..<inC {
                out[((b * outH + oy) * outW + ox) * outC + oc] += input[((b * inH + y) * inW + x) * inC + ic] * weights[((oc * kh + ky) * kw + kx) * inC + ic]
            } }
        } } } } }
        let (low, high) = try builtinActivationRange(options.activation)
        return out.enumerated().map { min(max($0.element + (bias?[$0.offset % outC] ?? 0), low), high) }
    }
}
