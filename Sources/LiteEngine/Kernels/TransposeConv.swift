import LiteFormat

/// TRANSPOSE_CONV: inputs (output_shape, weights [Cout, KH, KW, Cin], input [N, H, W, Cin], optional bias).
/// Every input pixel scatters `input · weights` into the output window it maps to; the padding is the one a
/// forward convolution from the output shape would use (TFLite computes it the same way).
///
/// Fast path: one sgemm gives every pixel's contribution [N*H*W, Cout*KH*KW], then a col2im pass adds them in.
final class TransposeConv: Kernel {
    var options: TransposeConvOptions
    var padH = 0, padW = 0
    var activation: (Float, Float) = (-.infinity, .infinity)

    required init(_ node: NodeContext) throws {
        options = try TransposeConvOptions(node.options)
        try super.init(node)
        try expectCounts(inputs: 3...4, outputs: 1)
        activation = try activationRange(options.activation)
    }

    override func prepare() throws {
        let shape = try integers(try input(0)), weights = try input(1), input = try self.input(2), output = try self.output(0)
        try expectType(input, .float32)
        try expectType(weights, .float32)
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
    }

    override var scratchBytes: Int {
        guard let input = node.inputs[2], let weights = node.inputs[1] else { return 0 }
        return saturatingProduct(input.dim(0), input.dim(1), input.dim(2), weights.dim(0), weights.dim(1), weights.dim(2), 4)
    }

    override func run(_ context: RunContext) throws {
        let weights = node.inputs[1]!, input = node.inputs[2]!, output = node.outputs[0]
        let (batches, inH, inW, inC) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outC, kh, kw) = (weights.dim(0), weights.dim(1), weights.dim(2))
        let (outH, outW) = (output.dim(1), output.dim(2))
        let columns = context.scratch.assumingMemoryBound(to: Float.self)
        let taps = outC * kh * kw
        BLAS.sgemm(transposeB: true, m: batches * inH * inW, n: taps, k: inC, a: input.floats, lda: inC,
                   b: weights.floats, ldb: inC, c: columns, ldc: taps, threads: context.threads)
        let out = output.floats
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
                            for oc in 0..<outC { target[oc] += column[(oc * kh + ky) * kw + kx] }
                        }
                    }
                }
            }
        }
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
        let (low, high) = try activationRange(options.activation)
        return out.enumerated().map { min(max($0.element + (bias?[$0.offset % outC] ?? 0), low), high) }
    }
}
