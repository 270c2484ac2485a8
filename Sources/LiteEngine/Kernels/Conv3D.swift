import LiteFormat

/// CONV_3D (float32): input `[n, d, h, w, c]`, filter `[kd, kh, kw, c, o]`, optional bias `[o]`, strides, dilations,
/// SAME/VALID padding and a fused activation. One output depth slice at a time: its patches gathered (im2col,
/// zeros where a tap falls in the padding) and multiplied by the filter (a `kd·kh·kw·c` x `o` matrix) with sgemm.
final class Conv3D: Kernel {
    var options: Conv3DOptions
    var activation: (Float, Float) = (-.infinity, .infinity)
    var geometry: [SpatialGeometry] = []

    required init(_ node: NodeContext) throws {
        options = try Conv3DOptions(node.options)
        try super.init(node)
        try expectCounts(inputs: 2...3, outputs: 1)
    }

    override func prepare() throws {
        activation = try builtinActivationRange(options.activation)
        let input = try self.input(0), filter = try self.input(1), output = try self.output(0)
        try expectType(input, .float32)
        try expectType(filter, .float32)
        try expectRank(input, 5)
        try expectRank(filter, 5)
        guard filter.dim(3) == input.dim(4) else { throw KernelError.invalid("filter \(filter.shape) for input channels \(input.dim(4))") }
        if let bias = optionalInput(2) {
            guard bias.type == .float32, bias.elementCount == filter.dim(4) else { throw KernelError.invalid("bias \(bias.shape) for \(filter.dim(4)) outputs") }
        }
        geometry = try [
            SpatialGeometry(input: input.dim(1), filter: filter.dim(0), stride: options.strideD, dilation: options.dilationD, padding: options.padding),
            SpatialGeometry(input: input.dim(2), filter: filter.dim(1), stride: options.strideH, dilation: options.dilationH, padding: options.padding),
            SpatialGeometry(input: input.dim(3), filter: filter.dim(2), stride: options.strideW, dilation: options.dilationW, padding: options.padding),
        ]
        output.type = .float32
        output.shape = [input.dim(0), geometry[0].output, geometry[1].output, geometry[2].output, filter.dim(4)]
    }

    override var scratchBytes: Int {
        guard let input = node.inputs[0], let filter = node.inputs[1], geometry.count == 3 else { return 0 }
        return saturatingProduct(geometry[1].output, geometry[2].output, filter.dim(0), filter.dim(1), filter.dim(2), input.dim(4), 4)
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, filter = node.inputs[1]!, output = node.outputs[0]
        let (batches, depth, height, width, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3), input.dim(4))
        let (kd, kh, kw, outputs) = (filter.dim(0), filter.dim(1), filter.dim(2), filter.dim(4))
        let (od, oh, ow) = (geometry[0].output, geometry[1].output, geometry[2].output)
        let patch = kd * kh * kw * channels, pixels = oh * ow
        guard output.elementCount > 0 else { return }
        let columns = context.scratch.assumingMemoryBound(to: Float.self)
        let source = input.floats, destination = output.floats
        for b in 0..<batches {
            for z in 0..<od {
                // The patches of this depth slice, rows of output pixels split over threads.
                parallelFor(oh, threads: context.threads, workPerItem: ow * patch) { ys in
                    for y in ys {
                        for x in 0..<ow {
                            var row = columns + (y * ow + x) * patch
                            for fz in 0..<kd {
                                let iz = z * options.strideD - geometry[0].padBefore + fz * options.dilationD
                                for fy in 0..<kh {
                                    let iy = y * options.strideH - geometry[1].padBefore + fy * options.dilationH
                                    for fx in 0..<kw {
                                        let ix = x * options.strideW - geometry[2].padBefore + fx * options.dilationW
                                        if iz >= 0, iz < depth, iy >= 0, iy < height, ix >= 0, ix < width {
                                            row.update(from: source + (((b * depth + iz) * height + iy) * width + ix) * channels, count: channels)
                                        } else {
                                            row.update(repeating: 0, count: channels)
                                        }
                                        row += channels
                                    }
                                }
                            }
                        }
                    }
                }
                let slice = destination + (b * od + z) * pixels * outputs
                if let bias = optionalInput(2) {
                    for p in 0..<pixels { (slice + p * outputs).update(from: bias.floats, count: outputs) }
                }
                BLAS.sgemm(transposeB: false, m: pixels, n: outputs, k: patch, a: columns, lda: patch, b: filter.floats, ldb: outputs,
                           beta: optionalInput(2) == nil ? 0 : 1, c: slice, ldc: outputs, threads: context.threads)
                Self.clampNaNToHigh(slice, count: pixels * outputs, activation.0, activation.1)
            }
        }
    }
}

extension Conv3D {
    /// The activation clamp of LiteRT's built-in CONV_3D, which clamps in its GEMM's output stage: a NaN sum becomes
    /// the upper bound (+FLT_MAX for no activation), where the other convolutions keep NaN.
    static func clampNaNToHigh(_ values: UnsafeMutablePointer<Float>, count: Int, _ low: Float, _ high: Float) {
        for i in 0..<count {
            let v = values[i]
            values[i] = v <= high ? (v < low ? low : v) : high
        }
    }

    /// The definition, for tests: each output is the bias plus every tap inside the input times its weight, clamped.
    static func reference(input: [Float], inputShape: [Int], filter: [Float], filterShape: [Int], bias: [Float]?,
                          options: Conv3DOptions) throws -> (values: [Float], shape: [Int]) {
        let (n, d, h, w, c) = (inputShape[0], inputShape[1], inputShape[2], inputShape[3], inputShape[4])
        let (kd, kh, kw, o) = (filterShape[0], filterShape[1], filterShape[2], filterShape[4])
        let gd = try SpatialGeometry(input: d, filter: kd, stride: options.strideD, dilation: options.dilationD, padding: options.padding)
        let gh = try SpatialGeometry(input: h, filter: kh, stride: options.strideH, dilation: options.dilationH, padding: options.padding)
        let gw = try SpatialGeometry(input: w, filter: kw, stride: options.strideW, dilation: options.dilationW, padding: options.padding)
        let (low, high) = try builtinActivationRange(options.activation)
        var out = [Float]()
        for b in 0..<n { for z in 0..<gd.output { for y in 0..<gh.output { for x in 0..<gw.output { for oc in 0..<o {
            var sum = bias?[oc] ?? 0
            for fz in 0..<kd { for fy in 0..<kh { for fx in 0..<kw {
                let iz = z * options.strideD - gd.padBefore + fz * options.dilationD
                let iy = y * options.strideH - gh.padBefore + fy * options.dilationH
                let ix = x * options.strideW - gw.padBefore + fx * options.dilationW
                guard iz >= 0, iz < d, iy >= 0, iy < h, ix >= 0, ix < w else { continue }
                for ic in 0..<c {
                    sum += input[(((b * d + iz) * h + iy) * w + ix) * c + ic] * filter[(((fz * kh + fy) * kw + fx) * c + ic) * o + oc]
                }
            } } }
            out.append(sum <= high ? max(sum, low) : high)
        } } } } }
        return (out, [n, gd.output, gh.output, gw.output, o])
    }
}
