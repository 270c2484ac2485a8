import LiteFormat

/// MediaPipe's custom op `MaxUnpooling2D` (mediapipe/util/tflite/operations/max_unpooling.cc): puts each value back
/// where ``MaxPoolingWithArgmax2D`` found it, zeros elsewhere.
///
/// Inputs: values [N, H, W, C] and positions [N, H, W, C] (float, as the pooling op writes them); options: the raw
/// `TfLitePoolParams`. The output is [N, H·filterHeight, W·filterWidth, C]. A position `p` (truncated to an integer)
/// of input pixel (y, x) names output pixel (`y·strideH - padH + p / filterWidth`, `x·strideW - padW + p %
/// filterWidth`), the padding being what pooling that output back to H×W would use; later pixels overwrite earlier
/// ones, positions outside the output (or not finite) are skipped.
final class MaxUnpooling2D: Kernel {
    let params: MediaPipePoolParams
    var padH = 0, padW = 0

    required init(_ node: NodeContext) throws {
        params = try MediaPipePoolParams(node.customOptions)
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), positions = try self.input(1), output = try self.output(0)
        try expectType(input, .float32)
        try expectType(positions, .float32)
        try expectRank(input, 4)
        try expectRank(positions, 4)
        guard positions.shape == input.shape else { throw KernelError.invalid("positions \(positions.shape) for values \(input.shape)") }
        let (inH, inW) = (input.dim(1), input.dim(2))
        let (outH, outW) = (inH * params.filterH, inW * params.filterW)
        // TFLite's ComputePadding(stride, 1, in: outH, filter, out: inH).
        padH = max(((inH - 1) * params.strideH + params.filterH - outH) / 2, 0)
        padW = max(((inW - 1) * params.strideW + params.filterW - outW) / 2, 0)
        output.type = .float32
        output.shape = [input.dim(0), outH, outW, input.dim(3)]
    }

    override func run(_ context: RunContext) throws {
        // An empty output (a dimension of 0) has nothing to compute, however large the other dimensions are.
        guard node.outputs[0].elementCount > 0 else { return }
        let input = node.inputs[0]!, output = node.outputs[0]
        let src = input.floats, positions = node.inputs[1]!.floats, dst = output.floats
        let (batches, inH, inW, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (output.dim(1), output.dim(2))
        dst.update(repeating: 0, count: output.elementCount)
        let filterW = params.filterW
        for b in 0..<batches {
            for iy in 0..<inH {
                for ix in 0..<inW {
                    let at = ((b * inH + iy) * inW + ix) * channels
                    for c in 0..<channels {
                        let p = positions[at + c]
                        guard p.isFinite, abs(p) < 1e9 else { continue }
                        let index = Int(p)  // toward zero, as C++'s float-to-int conversion
                        let oy = iy * params.strideH - padH + index / filterW
                        let ox = ix * params.strideW - padW + index % filterW
                        guard oy >= 0, oy < outH, ox >= 0, ox < outW else { continue }
                        dst[((b * outH + oy) * outW + ox) * channels + c] = src[at + c]
                    }
                }
            }
        }
    }
}
