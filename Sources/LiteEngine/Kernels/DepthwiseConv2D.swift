import LiteFormat

/// DEPTHWISE_CONV_2D: input [N, H, W, Cin], filter [1, KH, KW, Cin * M], bias [Cin * M].
/// Output channel `c * M + m` convolves input channel `c` (M is the depth multiplier, `Cout / Cin`).
///
/// Fast path (M = 1): for each output pixel, 16 channels at a time in SIMD registers, accumulating over the
/// in-bounds taps; bias is the accumulator's start value and the activation clamps before the store.
final class DepthwiseConv2D: Kernel {
    var options: DepthwiseConv2DOptions
    var geometryH: SpatialGeometry!
    var geometryW: SpatialGeometry!
    var multiplier = 1
    var activation: (Float, Float) = (-.infinity, .infinity)

    required init(_ node: NodeContext) throws {
        options = try DepthwiseConv2DOptions(node.options)
        try super.init(node)
        try expectCounts(inputs: 2...3, outputs: 1)
        activation = try activationRange(options.activation)
    }

    override func prepare() throws {
        let input = try self.input(0), filter = try self.input(1), output = try self.output(0)
        try expectType(input, .float32)
        try expectType(filter, .float32)
        try expectRank(input, 4)
        try expectRank(filter, 4)
        let inC = input.dim(3), outC = filter.dim(3)
        guard filter.dim(0) == 1, inC > 0, outC % inC == 0 else {
            throw KernelError.invalid("filter \(filter.shape) does not fit input \(input.shape)")
        }
        multiplier = outC / inC
        if let bias = optionalInput(2) {
            try expectType(bias, .float32)
            guard bias.elementCount == outC else { throw KernelError.invalid("bias has \(bias.elementCount) values for \(outC) channels") }
        }
        geometryH = try SpatialGeometry(input: input.dim(1), filter: filter.dim(1), stride: options.strideH, dilation: options.dilationH, padding: options.padding)
        geometryW = try SpatialGeometry(input: input.dim(2), filter: filter.dim(2), stride: options.strideW, dilation: options.dilationW, padding: options.padding)
        output.type = .float32
        output.shape = [input.dim(0), geometryH.output, geometryW.output, outC]
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, filter = node.inputs[1]!, output = node.outputs[0]
        let (batches, inH, inW, inC) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (kh, kw, outC) = (filter.dim(1), filter.dim(2), filter.dim(3))
        let (outH, outW) = (geometryH.output, geometryW.output)
        let src = input.floats, weights = UnsafePointer(filter.floats), dst = output.floats
        let bias = optionalInput(2).map { UnsafePointer($0.floats) }
        let (low, high) = activation
        let options = self.options, padH = geometryH.padBefore, padW = geometryW.padBefore, multiplier = self.multiplier

        parallelFor(batches * outH, threads: context.threads) { range in
            for by in range {
                let b = by / outH, oy = by % outH
                let iy0 = oy * options.strideH - padH
                for ox in 0..<outW {
                    let ix0 = ox * options.strideW - padW
                    let out = dst + ((b * outH + oy) * outW + ox) * outC
                    if multiplier != 1 {
                        for oc in 0..<outC {
                            let ic = oc / multiplier
                            var sum = bias?[oc] ?? 0
                            for ky in 0..<kh {
                                let iy = iy0 + ky * options.dilationH
                                guard iy >= 0 && iy < inH else { continue }
                                for kx in 0..<kw {
                                    let ix = ix0 + kx * options.dilationW
                                    guard ix >= 0 && ix < inW else { continue }
                                    sum += src[((b * inH + iy) * inW + ix) * inC + ic] * weights[(ky * kw + kx) * outC + oc]
                                }
                            }
                            out[oc] = Swift.min(Swift.max(sum, low), high)
                        }
                        continue
                    }
                    var c = 0
                    while c + 16 <= outC {
                        var acc = bias.map { UnsafeRawPointer($0 + c).loadUnaligned(as: SIMD16<Float>.self) } ?? SIMD16<Float>()
                        for ky in 0..<kh {
                            let iy = iy0 + ky * options.dilationH
                            guard iy >= 0 && iy < inH else { continue }
                            let row = src + ((b * inH + iy) * inW) * inC + c
                            let wrow = weights + ky * kw * outC + c
                            for kx in 0..<kw {
                                let ix = ix0 + kx * options.dilationW
                                guard ix >= 0 && ix < inW else { continue }
                                let x = UnsafeRawPointer(row + ix * inC).loadUnaligned(as: SIMD16<Float>.self)
                                let w = UnsafeRawPointer(wrow + kx * outC).loadUnaligned(as: SIMD16<Float>.self)
                                acc += x * w
                            }
                        }
                        UnsafeMutableRawPointer(out + c).storeBytes(of: acc, as: SIMD16<Float>.self)
                        c += 16
                    }
                    while c < outC {
                        var sum = bias?[c] ?? 0
                        for ky in 0..<kh {
                            let iy = iy0 + ky * options.dilationH
                            guard iy >= 0 && iy < inH else { continue }
                            for kx in 0..<kw {
                                let ix = ix0 + kx * options.dilationW
                                guard ix >= 0 && ix < inW else { continue }
                                sum += src[((b * inH + iy) * inW + ix) * inC + c] * weights[(ky * kw + kx) * outC + c]
                            }
                        }
                        out[c] = sum
                        c += 1
                    }
                    clamp(out, count: outC, low, high)
                }
            }
        }
    }

    /// The definition, for tests.
    static func reference(input: [Float], inputShape: [Int], filter: [Float], filterShape: [Int], bias: [Float]?,
                          options: DepthwiseConv2DOptions) throws -> (values: [Float], shape: [Int]) {
        let (batches, inH, inW, inC) = (inputShape[0], inputShape[1], inputShape[2], inputShape[3])
        let (kh, kw, outC) = (filterShape[1], filterShape[2], filterShape[3])
        let multiplier = outC / inC
        let gh = try SpatialGeometry(input: inH, filter: kh, stride: options.strideH, dilation: options.dilationH, padding: options.padding)
        let gw = try SpatialGeometry(input: inW, filter: kw, stride: options.strideW, dilation: options.dilationW, padding: options.padding)
        let (low, high) = try activationRange(options.activation)
        var out = [Float](repeating: 0, count: batches * gh.output * gw.output * outC)
        for b in 0..<batches { for oy in 0..<gh.output { for ox in 0..<gw.output { for oc in 0..<outC {
            var sum: Float = bias?[oc] ?? 0
            for ky in 0..<kh { for kx in 0..<kw {
                let iy = oy * options.strideH - gh.padBefore + ky * options.dilationH
                let ix = ox * options.strideW - gw.padBefore + kx * options.dilationW
                guard iy >= 0, iy < inH, ix >= 0, ix < inW else { continue }
                sum += input[((b * inH + iy) * inW + ix) * inC + oc / multiplier] * filter[(ky * kw + kx) * outC + oc]
            } }
            out[((b * gh.output + oy) * gw.output + ox) * outC + oc] = min(max(sum, low), high)
        } } } }
        return (out, [batches, gh.output, gw.output, outC])
    }
}
