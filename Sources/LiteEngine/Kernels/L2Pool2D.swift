import LiteFormat

/// L2_POOL_2D: the root mean square of each window's in-bounds values, `sqrt(Σx² / count)`, over NHWC float32.
///
/// As TFLite's `L2Pool` (pooling.cc, float32 only): windows are clipped to the input and `count` is the number of
/// in-bounds taps, never the full window; the fused activation clamps the root. Squares are summed in the window's
/// row-major order, the order of TFLite's reference and optimized kernels.
final class L2Pool2D: Kernel {
    let options: Pool2DOptions
    let activation: (Float, Float)
    var geometryH: SpatialGeometry!
    var geometryW: SpatialGeometry!

    required init(_ node: NodeContext) throws {
        options = try Pool2DOptions(node.options)
        activation = try builtinActivationRange(options.activation)
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32)
        try expectRank(input, 4)
        geometryH = try SpatialGeometry(input: input.dim(1), filter: options.filterH, stride: options.strideH, dilation: 1, padding: options.padding)
        geometryW = try SpatialGeometry(input: input.dim(2), filter: options.filterW, stride: options.strideW, dilation: 1, padding: options.padding)
        output.type = .float32
        output.shape = [input.dim(0), geometryH.output, geometryW.output, input.dim(3)]
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        // No channels (or a batch of none): nothing to pool, however many positions the other dimensions span.
        guard output.elementCount > 0 else { return }
        let (batches, inH, inW, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (geometryH.output, geometryW.output)
        let (strideH, strideW, filterH, filterW) = (options.strideH, options.strideW, options.filterH, options.filterW)
        let (padH, padW) = (geometryH.padBefore, geometryW.padBefore)
        let (low, high) = activation
        let src = input.floats, dst = output.floats
        let rowWork = poolingRowWork(outW: outW, channels: channels, filterH: filterH, filterW: filterW, inH: inH, inW: inW)
        parallelFor(batches * outH, threads: context.threads, workPerItem: saturatingProduct(2, rowWork)) { rows in
            for row in rows {
                let b = row / outH, oy = row % outH
                let y0 = max(oy * strideH - padH, 0), y1 = max(y0, min(oy * strideH - padH + filterH, inH))
                for ox in 0..<outW {
                    let x0 = max(ox * strideW - padW, 0), x1 = max(x0, min(ox * strideW - padW + filterW, inW))
                    let count = Float(max((y1 - y0) * (x1 - x0), 1))
                    let out = dst + ((b * outH + oy) * outW + ox) * channels
                    out.update(repeating: 0, count: channels)
                    for y in y0..<y1 {
                        for x in x0..<x1 {
                            let v = src + ((b * inH + y) * inW + x) * channels
                            for c in 0..<channels { out[c] += v[c] * v[c] }
                        }
                    }
                    for c in 0..<channels { out[c] = min(max((out[c] / count).squareRoot(), low), high) }
                }
            }
        }
    }
}
