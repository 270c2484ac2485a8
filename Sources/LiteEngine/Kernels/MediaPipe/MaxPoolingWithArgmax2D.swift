import LiteFormat

/// MediaPipe's custom op `MaxPoolingWithArgmax2D` (mediapipe/util/tflite/operations/max_pool_argmax.cc): MAX_POOL_2D
/// that also says where in its window each maximum was.
///
/// Input [N, H, W, C] float; options: the raw `TfLitePoolParams`. Outputs, both float and of the pooled shape: the
/// window maxima (clamped to the fused activation) and their positions `y·filterWidth + x + 0.1` inside the window
/// (the 0.1 keeps a float-to-int truncation on the right integer). Windows are clipped to the input; the first of
/// equal maxima wins; a window whose values are all below -FLT_MAX (or NaN) gives -FLT_MAX at position 0.
final class MaxPoolingWithArgmax2D: Kernel {
    let params: MediaPipePoolParams
    var geometryH: SpatialGeometry!
    var geometryW: SpatialGeometry!

    required init(_ node: NodeContext) throws {
        params = try MediaPipePoolParams(node.customOptions)
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 2)
    }

    override func prepare() throws {
        let input = try self.input(0)
        try expectType(input, .float32)
        try expectRank(input, 4)
        geometryH = try SpatialGeometry(input: input.dim(1), filter: params.filterH, stride: params.strideH, dilation: 1, padding: params.padding)
        geometryW = try SpatialGeometry(input: input.dim(2), filter: params.filterW, stride: params.strideW, dilation: 1, padding: params.padding)
        for output in node.outputs {
            output.type = .float32
            output.shape = [input.dim(0), geometryH.output, geometryW.output, input.dim(3)]
        }
    }

    override func run(_ context: RunContext) throws {
        // No channels (or a batch of none): nothing to pool, however many positions the other dimensions span.
        guard node.outputs[0].elementCount > 0 else { return }
        let input = node.inputs[0]!, values = node.outputs[0].floats, positions = node.outputs[1].floats
        let (batches, inH, inW, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (geometryH.output, geometryW.output)
        let src = input.floats, params = self.params, padH = geometryH.padBefore, padW = geometryW.padBefore
        let (low, high) = MediaPipeCustomOptions.activationRange(params.activation)
        let rowWork = poolingRowWork(outW: outW, channels: channels, filterH: params.filterH, filterW: params.filterW, inH: inH, inW: inW)
        parallelFor(batches * outH, threads: context.threads, workPerItem: rowWork) { rows in
            for row in rows {
                let b = row / outH, oy = row % outH
                let yOrigin = oy * params.strideH - padH
                let fyRange = max(0, -yOrigin)..<max(max(0, -yOrigin), min(params.filterH, inH - yOrigin))
                for ox in 0..<outW {
                    let xOrigin = ox * params.strideW - padW
                    let fxRange = max(0, -xOrigin)..<max(max(0, -xOrigin), min(params.filterW, inW - xOrigin))
                    let out = ((b * outH + oy) * outW + ox) * channels
                    for c in 0..<channels {
                        var maximum = -Float.greatestFiniteMagnitude, maxX = 0, maxY = 0
                        for fy in fyRange {
                            for fx in fxRange {
                                let value = src[((b * inH + yOrigin + fy) * inW + xOrigin + fx) * channels + c]
                                if value > maximum { (maximum, maxX, maxY) = (value, fx, fy) }
                            }
                        }
                        values[out + c] = min(max(maximum, low), high)
                        positions[out + c] = Float(maxY * params.filterW + maxX) + 0.1
                    }
                }
            }
        }
    }
}
