import LiteFormat

/// CONV_3D_TRANSPOSE (float32): inputs `output_shape` (int32 `[5]`, known when planning), filter
/// `[kd, kh, kw, o, c]`, input `[n, d, h, w, c]` and an optional bias `[o]`; each input pixel's channels times the
/// filter spread over the output at `position · stride − padding + tap · dilation`, the padding being the one a
/// forward CONV_3D from the output's size would use (TFLite's `ComputePadding3DValues`). One input depth slice at a
/// time: sgemm of its pixels by the filter (`c` x `kd·kh·kw·o`), then the products added into place (col2im).
final class Conv3DTranspose: Kernel {
    var options: Conv3DOptions
    var activation: (Float, Float) = (-.infinity, .infinity)
    var padding: [Int] = []

    required init(_ node: NodeContext) throws {
        options = try Conv3DOptions(node.options)
        try super.init(node)
        try expectCounts(inputs: 3...4, outputs: 1)
    }

    override func prepare() throws {
        activation = try builtinActivationRange(options.activation)
        let filter = try self.input(1), input = try self.input(2), output = try self.output(0)
        try expectType(input, .float32)
        try expectType(filter, .float32)
        try expectRank(input, 5)
        try expectRank(filter, 5)
        let shape = try integers(try self.input(0))
        guard shape.count == 5, shape.allSatisfy({ $0 >= 0 }), shape[0] == input.dim(0), shape[4] == filter.dim(3), filter.dim(4) == input.dim(4) else {
            throw KernelError.invalid("output shape \(shape) for input \(input.shape) and filter \(filter.shape)")
        }
        guard saturatingProduct(shape[0], shape[1], shape[2], shape[3], shape[4]) < 1 << 30 else { throw KernelError.unsupported("output of \(shape)") }
        if let bias = optionalInput(3) {
            guard bias.type == .float32, bias.elementCount == filter.dim(3) else { throw KernelError.invalid("bias \(bias.shape) for \(filter.dim(3)) outputs") }
        }
        let strides = [options.strideD, options.strideH, options.strideW], dilations = [options.dilationD, options.dilationH, options.dilationW]
        padding = try (0..<3).map {
            try SpatialGeometry(input: shape[$0 + 1], filter: filter.dim($0), stride: strides[$0], dilation: dilations[$0], padding: options.padding).padBefore
        }
        output.type = .float32
        output.shape = shape
    }

    override var scratchBytes: Int {
        guard let input = node.inputs[2], let filter = node.inputs[1], input.rank == 5, filter.rank == 5 else { return 0 }
        return saturatingProduct(input.dim(2), input.dim(3), filter.dim(0), filter.dim(1), filter.dim(2), filter.dim(3), 4)
    }

    override func run(_ context: RunContext) throws {
        let filter = node.inputs[1]!, input = node.inputs[2]!, output = node.outputs[0]
        let (batches, depth, height, width, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3), input.dim(4))
        let (kd, kh, kw, outputs) = (filter.dim(0), filter.dim(1), filter.dim(2), filter.dim(3))
        let (od, oh, ow) = (output.dim(1), output.dim(2), output.dim(3))
        let taps = kd * kh * kw * outputs, pixels = height * width
        let destination = output.floats
        destination.update(repeating: 0, count: output.elementCount)
        guard output.elementCount > 0, input.elementCount > 0 else { return finish(output) }
        let products = context.scratch.assumingMemoryBound(to: Float.self)
        for b in 0..<batches {
            for z in 0..<depth {
                BLAS.sgemm(transposeB: true, m: pixels, n: taps, k: channels, a: input.floats + (b * depth + z) * pixels * channels, lda: channels,
                           b: filter.floats, ldb: channels, c: products, ldc: taps, threads: context.threads)
                for y in 0..<height {
                    for x in 0..<width {
                        var tap = products + (y * width + x) * taps
                        for fz in 0..<kd {
                            let oz = z * options.strideD - padding[0] + fz * options.dilationD
                            for fy in 0..<kh {
                                let oy = y * options.strideH - padding[1] + fy * options.dilationH
                                for fx in 0..<kw {
                                    let ox = x * options.strideW - padding[2] + fx * options.dilationW
                                    if oz >= 0, oz < od, oy >= 0, oy < oh, ox >= 0, ox < ow {
                                        let to = destination + (((b * od + oz) * oh + oy) * ow + ox) * outputs
                                        for o in 0..<outputs { to[o] += tap[o] }
                                    }
                                    tap += outputs
                                }
                            }
                        }
                    }
                }
            }
        }
        finish(output)
    }

    /// The bias, then the fused activation.
    private func finish(_ output: Tensor) {
        let values = output.floats, outputs = output.dim(4)
        if let bias = optionalInput(3), outputs > 0 {
            for p in 0..<(output.elementCount / outputs) {
                for o in 0..<outputs { values[p * outputs + o] += bias.floats[o] }
            }
        }
        clamp(values, count: output.elementCount, activation.0, activation.1)
    }
}

extension Conv3DTranspose {
    /// The definition, for tests: every input pixel adds its channels times the filter into the output window it
    /// maps to; then the bias and the activation.
    static func reference(input: [Float], inputShape: [Int], filter: [Float], filterShape: [Int], outputShape: [Int], bias: [Float]?,
                          options: Conv3DOptions) throws -> [Float] {
        let (n, d, h, w, c) = (inputShape[0], inputShape[1], inputShape[2], inputShape[3], inputShape[4])
        let (kd, kh, kw, o) = (filterShape[0], filterShape[1], filterShape[2], filterShape[3])
        let (od, oh, ow) = (outputShape[1], outputShape[2], outputShape[3])
        let pd = try SpatialGeometry(input: od, filter: kd, stride: options.strideD, dilation: options.dilationD, padding: options.padding).padBefore
        let ph = try SpatialGeometry(input: oh, filter: kh, stride: options.strideH, dilation: options.dilationH, padding: options.padding).padBefore
        let pw = try SpatialGeometry(input: ow, filter: kw, stride: options.strideW, dilation: options.dilationW, padding: options.padding).padBefore
        var out = [Float](repeating: 0, count: n * od * oh * ow * o)
        for b in 0..<n { for z in 0..<d { for y in 0..<h { for x in 0..<w { for ic in 0..<c {
            let value = input[(((b * d + z) * h + y) * w + x) * c + ic]
            for fz in 0..<kd { for fy in 0..<kh { for fx in 0..<kw {
                let oz = z * options.strideD - pd + fz * options.dilationD
                let oy = y * options.strideH - ph + fy * options.dilationH
                let ox = x * options.strideW - pw + fx * options.dilationW
                guard oz >= 0, oz < od, oy >= 0, oy < oh, ox >= 0, ox < ow else { continue }
                for oc in 0..<o {
                    out[(((b * od + oz) * oh + oy) * ow + ox) * o + oc] += value * filter[(((fz * kh + fy) * kw + fx) * o + oc) * c + ic]
                }
            } } }
        } } } } }
        let (low, high) = try builtinActivationRange(options.activation)
        for i in out.indices { out[i] = min(max(out[i] + (bias?[i % o] ?? 0), low), high) }
        return out
    }
}
