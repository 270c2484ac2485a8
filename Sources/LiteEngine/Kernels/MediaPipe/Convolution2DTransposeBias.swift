import LiteFormat

/// MediaPipe's custom op `Convolution2DTransposeBias` (mediapipe/util/tflite/operations/transpose_conv_bias.cc): a float
/// transposed convolution with a bias, the output size following from the input (no output-shape operand).
///
/// Inputs: input [N, H, W, Cin], weights [Cout, KH, KW, Cin] (OHWI), bias [Cout]; options: the raw
/// `TfLiteTransposeConvParams` (padding, stride width, stride height as int32s). With SAME padding the total padding is
/// `max(0, K - (in - 1) % stride - 1)` and the output `stride·(in - 1) + K - padding`, of which the first `padding / 2`
/// rows and columns are cut; with VALID nothing is cut (output `stride·(in - 1) + K`).
///
/// Each output is its bias plus every input·weight product landing on it, added in MediaPipe's order (input row,
/// column, channel ascending).
final class Convolution2DTransposeBias: Kernel {
    let padding: Padding
    let strideW: Int, strideH: Int
    var padH = 0, padW = 0

    required init(_ node: NodeContext) throws {
        let f = try MediaPipeCustomOptions.int32Fields(node.customOptions, count: 3, "TfLiteTransposeConvParams")
        padding = try MediaPipeCustomOptions.padding(f[0])
        (strideW, strideH) = (Int(f[1]), Int(f[2]))
        try super.init(node)
        try expectCounts(inputs: 3...3, outputs: 1)
        guard strideW > 0, strideH > 0, strideW <= 1 << 16, strideH <= 1 << 16 else {
            throw KernelError.invalid("stride \(strideH)x\(strideW) must be positive")
        }
    }

    override func prepare() throws {
        let input = try self.input(0), weights = try self.input(1), bias = try self.input(2), output = try self.output(0)
        for t in [input, weights, bias] { try expectType(t, .float32) }
        try expectRank(input, 4)
        try expectRank(weights, 4)
        try expectRank(bias, 1)
        guard weights.dim(0) == bias.dim(0), weights.dim(3) == input.dim(3) else {
            throw KernelError.invalid("input \(input.shape), weights \(weights.shape) and bias \(bias.shape) do not fit")
        }
        let (inH, inW, kH, kW) = (input.dim(1), input.dim(2), weights.dim(1), weights.dim(2))
        guard inH > 0, inW > 0, kH > 0, kW > 0 else { throw KernelError.invalid("empty input \(input.shape) or weights \(weights.shape)") }
        var totalH = 0, totalW = 0
        if padding == .same {
            totalH = max(0, kH - (inH - 1) % strideH - 1)
            totalW = max(0, kW - (inW - 1) % strideW - 1)
        }
        padH = totalH / 2
        padW = totalW / 2
        output.type = .float32
        output.shape = [input.dim(0), strideH * (inH - 1) + kH - totalH, strideW * (inW - 1) + kW - totalW, weights.dim(0)]
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, weights = node.inputs[1]!, bias = node.inputs[2]!, output = node.outputs[0]
        let (batches, inH, inW, inC) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (kH, kW) = (weights.dim(1), weights.dim(2))
        let (outH, outW, outC) = (output.dim(1), output.dim(2), output.dim(3))
        // An empty output (a zero batch) may have a huge width; nothing to compute.
        guard output.elementCount > 0 else { return }
        let src = input.floats, filter = weights.floats, biases = bias.floats, dst = output.floats
        let (strideH, strideW, padH, padW) = (self.strideH, self.strideW, self.padH, self.padW)
        let work = saturatingProduct(outW, outC, kH, kW, inC) / max(saturatingProduct(strideH, strideW), 1)
        if kH == strideH && kW == strideW {
            runOneTapEach(src, filter, biases, dst, batches: batches, inH: inH, inW: inW, inC: inC, outH: outH, outW: outW, outC: outC,
                          threads: context.threads, work: work)
            return
        }
        parallelFor(batches * outH, threads: context.threads, workPerItem: work) { rows in
            for row in rows {
                let b = row / outH, oy = row % outH
                // Input rows iy with a tap ky = oy + padH - iy·strideH in 0..<kH, ascending.
                let yShifted = oy + padH
                let iyFirst = max(0, (yShifted - kH + strideH) / strideH), iyLast = min(inH - 1, yShifted / strideH)
                for ox in 0..<outW {
                    let xShifted = ox + padW
                    let ixFirst = max(0, (xShifted - kW + strideW) / strideW), ixLast = min(inW - 1, xShifted / strideW)
                    let out = dst + ((b * outH + oy) * outW + ox) * outC
                    for oc in 0..<outC {
                        var sum = biases[oc]
                        if iyFirst <= iyLast && ixFirst <= ixLast {
                            for iy in iyFirst...iyLast {
                                let ky = yShifted - iy * strideH
                                for ix in ixFirst...ixLast {
                                    let kx = xShifted - ix * strideW
                                    let pixel = src + ((b * inH + iy) * inW + ix) * inC
                                    let taps = filter + ((oc * kH + ky) * kW + kx) * inC
                                    for ic in 0..<inC { sum += pixel[ic] * taps[ic] }
                                }
                            }
                        }
                        out[oc] = sum
                    }
                }
            }
        }
    }

    /// Filters as large as their stride (the segmenters' 2x2, stride 2): each output pixel takes exactly one input
    /// pixel and one filter tap (`y = oy + padH` gives input row `y / stride` and tap row `y % stride`; the padding
    /// never exceeds what the cut removes, so every output has its pixel), so each output is `bias` plus one chain of
    /// `inC` products. Eight outputs of a row run their chains side by side: the same sums in the same order, but eight
    /// independent additions in flight instead of one chain's latency per product.
    private func runOneTapEach(_ src: UnsafeMutablePointer<Float>, _ filter: UnsafeMutablePointer<Float>, _ biases: UnsafeMutablePointer<Float>,
                               _ dst: UnsafeMutablePointer<Float>, batches: Int, inH: Int, inW: Int, inC: Int, outH: Int, outW: Int, outC: Int,
                               threads: Int, work: Int) {
        let (stride, kW, padH, padW) = (strideH, strideW, self.padH, self.padW)
        // Per output column: its input pixel's offset in an input row, and its tap's offset in a filter row.
        let pixels = (0..<outW).map { ((($0 + padW) / kW) * inC) }, taps = (0..<outW).map { ((($0 + padW) % kW) * inC) }
        parallelFor(batches * outH, threads: threads, workPerItem: work) { rows in
            for row in rows {
                let b = row / outH, y = row % outH + padH
                let inputRow = src + (b * inH + y / stride) * inW * inC
                let out = dst + row * outW * outC
                for oc in 0..<outC {
                    let filterRow = filter + (oc * stride + y % stride) * kW * inC
                    let bias = biases[oc]
                    var ox = 0
                    while ox + 8 <= outW {
                        let p0 = inputRow + pixels[ox], p1 = inputRow + pixels[ox + 1], p2 = inputRow + pixels[ox + 2], p3 = inputRow + pixels[ox + 3]
                        let p4 = inputRow + pixels[ox + 4], p5 = inputRow + pixels[ox + 5], p6 = inputRow + pixels[ox + 6], p7 = inputRow + pixels[ox + 7]
                        let w0 = filterRow + taps[ox], w1 = filterRow + taps[ox + 1], w2 = filterRow + taps[ox + 2], w3 = filterRow + taps[ox + 3]
                        let w4 = filterRow + taps[ox + 4], w5 = filterRow + taps[ox + 5], w6 = filterRow + taps[ox + 6], w7 = filterRow + taps[ox + 7]
                        var (s0, s1, s2, s3, s4, s5, s6, s7) = (bias, bias, bias, bias, bias, bias, bias, bias)
                        for ic in 0..<inC {
                            s0 += p0[ic] * w0[ic]; s1 += p1[ic] * w1[ic]; s2 += p2[ic] * w2[ic]; s3 += p3[ic] * w3[ic]
                            s4 += p4[ic] * w4[ic]; s5 += p5[ic] * w5[ic]; s6 += p6[ic] * w6[ic]; s7 += p7[ic] * w7[ic]
                        }
                        out[ox * outC + oc] = s0; out[(ox + 1) * outC + oc] = s1; out[(ox + 2) * outC + oc] = s2; out[(ox + 3) * outC + oc] = s3
                        out[(ox + 4) * outC + oc] = s4; out[(ox + 5) * outC + oc] = s5; out[(ox + 6) * outC + oc] = s6; out[(ox + 7) * outC + oc] = s7
                        ox += 8
                    }
                    while ox < outW {
                        let p = inputRow + pixels[ox], w = filterRow + taps[ox]
                        var sum = bias
                        for ic in 0..<inC { sum += p[ic] * w[ic] }
                        out[ox * outC + oc] = sum
                        ox += 1
                    }
                }
            }
        }
    }
}
