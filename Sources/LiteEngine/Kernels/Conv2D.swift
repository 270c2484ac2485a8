import LiteFormat

/// CONV_2D: input [N, H, W, Cin], filter [Cout, KH, KW, Cin], optional bias [Cout] -> [N, OH, OW, Cout].
///
/// Fast path: the convolution as one matrix product `im2col(input) [N*OH*OW, KH*KW*Cin] x filterᵀ`; a 1x1
/// convolution with stride 1 and no padding uses the input itself as the left matrix. `PackedFilterGEMM` (C microkernels at
/// the avx2 level and above, filter known at load) adds bias and the fused activation in its tiles, and reads the input in place
/// through a pointer per output pixel and filter row instead of unfolding it (XNNPACK's indirect GEMM: a first
/// layer's unfolded input, 1.35 MB for 224x224x3, cost as much as its products); BLAS sgemm (elsewhere) is
/// followed by one pass that adds them.
final class Conv2D: Kernel {
    var options: Conv2DOptions
    var geometryH: SpatialGeometry!
    var geometryW: SpatialGeometry!
    var activation: (Float, Float) = (-.infinity, .infinity)
    /// Zeros around the input before `options.padding`'s: a PAD folded into this node (``SpatialPadAbsorbing``).
    var zeroPadding = SpatialZeroPadding.none

    required init(_ node: NodeContext) throws {
        options = try Conv2DOptions(node.options)
        try super.init(node)
        try expectCounts(inputs: 2...3, outputs: 1)
        activation = try builtinActivationRange(options.activation)
    }

    /// Nodes folded into the store (``StoreEpilogueAbsorbing``), in order, each with the input that reads this node's
    /// output (or the step before's).
    private var storeSteps: [(kernel: FoldableIntoStore, operand: Int)] = []

    func takeClamp(_ range: (Float, Float)) -> Bool {
        // A clamp after folded steps would come after them, not at the product's store.
        storeSteps.isEmpty && node.inputs[0]?.type == .float32 && narrowActivation(&activation, to: range, output: node.outputs[0])
    }

    func takeStoreStep(_ step: FoldableIntoStore, operand: Int) -> Bool {
        guard let input = node.inputs[0], let filter = node.inputs[1], input.type == .float32, filter.type == .float32,
              filter.rank == 4, input.rank == 4, filter.dim(3) == input.dim(3) else { return false }
        storeSteps.append((step, operand))
        return true
    }

    var isPointwise: Bool {
        let filter = node.inputs[1]!
        return filter.dim(1) == 1 && filter.dim(2) == 1 && options.strideH == 1 && options.strideW == 1
    }

    /// The path `run` takes, chosen by `prepare` (nil before it).
    private(set) var plan: Conv2DPlan?

    override func prepare() throws {
        let input = try self.input(0), filter = try self.input(1), output = try self.output(0)
        try expectRank(input, 4)
        try expectRank(filter, 4)
        pointerTableKey = (nil, nil, 0)  // shapes may have changed: build the table again
        plan = try makePlan(input, filter, output, previous: plan)
    }

    /// The plan for the input's and filter's types and shapes; what `previous` built at load (packed filters, nested
    /// kernels, integer constants) is taken over.
    private func makePlan(_ input: Tensor, _ filter: Tensor, _ output: Tensor, previous: Conv2DPlan?) throws -> Conv2DPlan {
        switch input.type {
        case .int16:
            return try prepareInt16(input, filter, output, previous: previous)
        case .uint8, .int8:
            try makeGeometry(input, filter)
            if filter.dim(3) != input.dim(3) { return try prepareInt8Grouped(input, filter, output, previous: previous) }
            return .quantized(try QuantizedConvolution(input: input, filter: filter, bias: optionalInput(2), output: output, activation: options.activation,
                                                       outputShape: [input.dim(0), geometryH.output, geometryW.output, filter.dim(0)],
                                                       numerics: node.numerics, existing: previous?.quantized))
        default:
            try expectType(input, .float32)
            try expectType(filter, .float32, .int8)
            return try prepareFloat(input, filter, output, previous: previous)
        }
    }

    /// Float input: a float filter (packed, sgemm, grouped or depthwise) or an int8 one (hybrid).
    private func prepareFloat(_ input: Tensor, _ filter: Tensor, _ output: Tensor, previous: Conv2DPlan?) throws -> Conv2DPlan {
        var hybrid: Conv2DPlan?
        if filter.type == .int8 {
            guard let q = filter.quantization, q.scale.count == filter.dim(0) || q.scale.count == 1 else {
                throw KernelError.invalid("hybrid CONV_2D filter needs one scale or one per output channel")
            }
            if case .hybrid(let weights, let product, _) = previous {
                hybrid = .hybrid(weights, product, perChannel: q.scale.count > 1)
            } else {
                let weights = try HybridWeights(filter, channels: filter.dim(0))
                hybrid = .hybrid(weights, HybridMatrixProduct(weights), perChannel: q.scale.count > 1)
            }
        }
        if filter.dim(3) == 1, input.dim(3) > 1, filter.type == .float32 { return try prepareDepthwise(input, filter, output, previous: previous) }
        guard filter.dim(3) > 0, input.dim(3) > 0, input.dim(3) % filter.dim(3) == 0 else {
            throw KernelError.invalid("input has \(input.dim(3)) channels, filter \(filter.dim(3)): not a whole number of groups")
        }
        if groups > 1 {
            guard filter.type == .float32, filter.dim(0) % groups == 0 else {
                throw KernelError.unsupported("grouped convolution of \(filter.type) with \(filter.dim(0)) filters in \(groups) groups")
            }
        }
        if let bias = optionalInput(2) {
            try expectType(bias, .float32)
            guard bias.elementCount == filter.dim(0) else { throw KernelError.invalid("bias has \(bias.elementCount) values for \(filter.dim(0)) filters") }
        }
        try makeGeometry(input, filter)
        output.type = .float32
        output.shape = [input.dim(0), geometryH.output, geometryW.output, filter.dim(0)]
        // The layout below has a slot per output column: a hostile width (2^28 columns from a flipped bit) would
        // allocate and clear gigabytes here before the planner refuses the output.
        guard let count = Tensor.checkedCount(output.shape), saturatingProduct(count, 4) <= node.interpreterOptions.memoryLimit else {
            throw KernelError.invalid("output \(output.shape) needs more than the memory limit of \(node.interpreterOptions.memoryLimit) bytes")
        }
        if let hybrid { return hybrid }
        if groups > 1 { return .floatGrouped }
        var packed = previous?.packedFilter
        if packed == nil, isLoadTimeConstant(filter), optionalInput(2).map(isLoadTimeConstant) ?? true {
            packed = PackedFilterGEMM.make(filter: filter.floats, n: filter.dim(0), k: filter.dim(1) * filter.dim(2) * filter.dim(3),
                                           bias: optionalInput(2)?.floats)
        }
        guard let packed else { return .floatBLAS(unfolds: !readsInputInPlace) }
        if let layout = makeIndirectLayout() { return .floatIndirect(packed, layout) }
        return .floatPacked(packed, unfolds: !readsInputInPlace)
    }

    private func makeGeometry(_ input: Tensor, _ filter: Tensor) throws {
        geometryH = try SpatialGeometry(input: input.dim(1), filter: filter.dim(1), stride: options.strideH, dilation: options.dilationH, padding: options.padding,
                                        zeros: zeroPadding.height)
        geometryW = try SpatialGeometry(input: input.dim(2), filter: filter.dim(2), stride: options.strideW, dilation: options.dilationW, padding: options.padding,
                                        zeros: zeroPadding.width)
    }

    /// A 1x1 filter with stride 1 and no padding: the input is the left matrix as it is, with no unfolding.
    private var readsInputInPlace: Bool { isPointwise && geometryH.padBefore == 0 && geometryW.padBefore == 0 && zeroPadding == .none }

    /// Groups of input channels (input channels / the filter's): ResNeXt and RegNet convolve each group with its own
    /// share of the filters. More than one channel a group runs ``runGrouped(_:)``; one channel a group is depthwise.
    private var groups: Int {
        guard let input = node.inputs[0], let filter = node.inputs[1], filter.dim(3) > 0 else { return 1 }
        return max(input.dim(3) / filter.dim(3), 1)
    }

    /// A grouped float convolution: for each group, its channels unfolded (im2col) and one sgemm with the group's
    /// filters into its share of the output channels (ldc the whole output's), then bias and activation.
    private func runGrouped(_ context: RunContext) {
        let input = node.inputs[0]!, filter = node.inputs[1]!, output = node.outputs[0]
        let (batches, inH, inW, inC) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outC, kh, kw, groupC) = (filter.dim(0), filter.dim(1), filter.dim(2), filter.dim(3))
        let (outH, outW) = (geometryH.output, geometryW.output)
        let rows = batches * outH * outW, depth = kh * kw * groupC, groupOut = outC / groups
        let columns = context.scratch.assumingMemoryBound(to: Float.self), src = input.floats
        for g in 0..<groups {
            for n in 0..<batches {
                for oy in 0..<outH {
                    for ox in 0..<outW {
                        var column = columns + ((n * outH + oy) * outW + ox) * depth
                        for ky in 0..<kh {
                            let y = oy * options.strideH - geometryH.padBefore + ky * options.dilationH
                            for kx in 0..<kw {
                                let x = ox * options.strideW - geometryW.padBefore + kx * options.dilationW
                                if y >= 0, y < inH, x >= 0, x < inW {
                                    column.update(from: src + ((n * inH + y) * inW + x) * inC + g * groupC, count: groupC)
                                } else {
                                    column.update(repeating: 0, count: groupC)
                                }
                                column += groupC
                            }
                        }
                    }
                }
            }
            BLAS.sgemm(transposeB: true, m: rows, n: groupOut, k: depth, a: columns, lda: depth, b: filter.floats + g * groupOut * depth, ldb: depth,
                       c: output.floats + g * groupOut, ldc: outC, threads: context.threads)
        }
        addBiasAndActivate(output.floats, rows: rows, channels: outC, bias: optionalInput(2)?.floats, activation: activation, threads: context.threads)
    }

    /// int8 grouped convolution: TFLite's reference `ConvPerChannel` with groups (LiteRT runs no other kernel for it),
    /// int32 sums of (x − zp_in)·(w − zp_w) over the receptive field inside the image, requantized per channel with
    /// `MultiplyByQuantizedMultiplier` (ties away from zero). One input channel and one filter a group, with the filter
    /// known at load, takes ``runInt8Depthwise(_:_:scratch:)``.
    private func prepareInt8Grouped(_ input: Tensor, _ filter: Tensor, _ output: Tensor, previous: Conv2DPlan?) throws -> Conv2DPlan {
        guard input.type == .int8, filter.type == .int8, output.type == .int8 else {
            throw KernelError.unsupported("grouped convolution of \(input.type) with \(filter.type) filters (int8 and float are supported)")
        }
        guard filter.dim(3) > 0, input.dim(3) > 0, input.dim(3) % filter.dim(3) == 0 else {
            throw KernelError.invalid("input has \(input.dim(3)) channels, filter \(filter.dim(3)): not a whole number of groups")
        }
        guard filter.dim(0) % groups == 0 else { throw KernelError.invalid("\(filter.dim(0)) filters in \(groups) groups") }
        if let bias = optionalInput(2) {
            guard bias.type == .int32, bias.elementCount == filter.dim(0) else { throw KernelError.unsupported("bias must be int32 [\(filter.dim(0))], is \(bias)") }
        }
        let filterInfo = try QuantizedTensorInfo(filter)
        guard filterInfo.zeroPoints.count == 1 || filterInfo.zeroPoints.count == filter.dim(0) else {
            throw KernelError.invalid("\(filterInfo.zeroPoints.count) filter zero points for \(filter.dim(0)) filters")
        }
        let requantization = try ChannelRequantization(input: try QuantizedTensorInfo(input), filter: filterInfo, output: try QuantizedTensorInfo(output),
                                                       channels: filter.dim(0), activation: options.activation, outputType: .int8)
        output.shape = [input.dim(0), geometryH.output, geometryW.output, filter.dim(0)]
        if case .int8Depthwise(_, let taps) = previous { return .int8Depthwise(requantization, taps: taps) }
        if filter.dim(3) == 1, filter.dim(0) == input.dim(3), isLoadTimeConstant(filter) {
            let (channels, taps) = (filter.dim(0), filter.dim(1) * filter.dim(2)), w = filter.pointer(Int8.self)
            var laidOut = [Int32](repeating: 0, count: channels * taps)
            for c in 0..<channels {
                let zero = filterInfo.zeroPoints.count == 1 ? filterInfo.zeroPoints[0] : filterInfo.zeroPoints[c]
                for t in 0..<taps { laidOut[t * channels + c] = Int32(w[c * taps + t]) - zero }
            }
            return .int8Depthwise(requantization, taps: laidOut)
        }
        return .int8Grouped(requantization)
    }

    /// One input channel and one filter a group (ConvNeXt's int8 7x7): the filter less its zero points as int32, laid
    /// out [KH·KW, C] at load, so each output pixel's C sums run as one contiguous loop per tap that vectorizes (the
    /// same integer sums, in another order): several times faster than the loop below.

    private func runInt8Depthwise(_ requantization: ChannelRequantization, _ taps: [Int32], scratch: UnsafeMutableRawPointer) throws {
        let input = node.inputs[0]!, output = node.outputs[0], channels = input.dim(3)
        let inputZero = try QuantizedTensorInfo(input).zeroPoint
        let x = input.pointer(Int8.self), out = output.pointer(Int8.self)
        let bias = optionalInput(2).map { UnsafePointer($0.pointer(Int32.self)) }
        let sums = scratch.assumingMemoryBound(to: Int32.self)
        taps.withUnsafeBufferPointer { laidOut in
            forEachOutputPixel(filterStride: channels) { pixel, receptiveField in
                if let bias { sums.update(from: bias, count: channels) } else { sums.update(repeating: 0, count: channels) }
                for tap in receptiveField {
                    let values = x + tap.pixel, row = laidOut.baseAddress! + tap.filter
                    for c in 0..<channels { sums[c] &+= (Int32(values[c]) &- inputZero) &* row[c] }
                }
                let o = pixel * channels
                for c in 0..<channels { out[o + c] = Int8(truncatingIfNeeded: requantization.apply(sums[c], channel: c)) }
            }
        }
    }

    private func runInt8Grouped(_ requantization: ChannelRequantization) throws {
        let input = node.inputs[0]!, filter = node.inputs[1]!, output = node.outputs[0]
        let inputZero = try QuantizedTensorInfo(input).zeroPoint, filterZeros = try QuantizedTensorInfo(filter).zeroPoints
        let x = input.pointer(Int8.self), w = filter.pointer(Int8.self), out = output.pointer(Int8.self)
        let bias = optionalInput(2).map { UnsafePointer($0.pointer(Int32.self)) }, groupC = filter.dim(3)
        forEachGroupedOutput { o, channel, inputBase, filterBase, taps in
            let filterZero = filterZeros.count == 1 ? filterZeros[0] : filterZeros[channel]
            var sum: Int32 = bias?[channel] ?? 0
            for tap in taps {
                let pixel = x + inputBase + tap.pixel, weights = w + filterBase + tap.filter
                for c in 0..<groupC { sum &+= (Int32(pixel[c]) - inputZero) &* (Int32(weights[c]) - filterZero) }
            }
            out[o] = Int8(truncatingIfNeeded: requantization.apply(sum, channel: channel))
        }
    }

    /// Every output of a grouped convolution in order, for the integer reference loops (int8, int16):
    /// `body(output index, channel, input offset of the channel's group, filter offset of the channel, taps)`, the taps
    /// as ``forEachOutputPixel(filterStride:_:)`` gives them (the filter offsets within one channel's filter).
    @inline(__always)
    private func forEachGroupedOutput(_ body: (Int, Int, Int, Int, [(pixel: Int, filter: Int)]) -> Void) {
        let filter = node.inputs[1]!
        let (outC, kh, kw, groupC) = (filter.dim(0), filter.dim(1), filter.dim(2), filter.dim(3))
        let groupOut = outC / groups
        forEachOutputPixel(filterStride: groupC) { pixel, taps in
            for channel in 0..<outC {
                body(pixel * outC + channel, channel, channel / groupOut * groupC, channel * kh * kw * groupC, taps)
            }
        }
    }

    /// Every output pixel in order: `body(pixel index, taps)`, the taps being the receptive field's positions inside
    /// the image (padding left out) in (ky, kx) order, each as the offset of its input pixel and `(ky·kw + kx)·
    /// filterStride`; they are found once per output pixel.
    @inline(__always)
    private func forEachOutputPixel(filterStride: Int, _ body: (Int, [(pixel: Int, filter: Int)]) -> Void) {
        let input = node.inputs[0]!, filter = node.inputs[1]!
        let (batches, inH, inW, inC) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (kh, kw) = (filter.dim(1), filter.dim(2))
        var taps: [(pixel: Int, filter: Int)] = []
        var pixel = 0
        for n in 0..<batches {
            for oy in 0..<geometryH.output {
                for ox in 0..<geometryW.output {
                    taps.removeAll(keepingCapacity: true)
                    for ky in 0..<kh {
                        let y = oy * options.strideH - geometryH.padBefore + ky * options.dilationH
                        guard y >= 0, y < inH else { continue }
                        for kx in 0..<kw {
                            let px = ox * options.strideW - geometryW.padBefore + kx * options.dilationW
                            guard px >= 0, px < inW else { continue }
                            taps.append((((n * inH + y) * inW + px) * inC, (ky * kw + kx) * filterStride))
                        }
                    }
                    body(pixel, taps)
                    pixel += 1
                }
            }
        }
    }

    /// A float convolution grouped by single input channels (a filter of one input channel on an input of several:
    /// Keras 3 writes ConvNeXt's 7x7 `Conv2D(groups=channels)` so) is a depthwise convolution, run by
    /// ``DepthwiseConv2D``: output channel o of group o/m reads input channel o/m, as a depthwise output c·m + j reads
    /// input c, so the filter [Cout, KH, KW, 1] is only laid out again as [1, KH, KW, Cout].
    private func prepareDepthwise(_ input: Tensor, _ filter: Tensor, _ output: Tensor, previous: Conv2DPlan?) throws -> Conv2DPlan {
        let channels = input.dim(3), outChannels = filter.dim(0), taps = filter.dim(1) * filter.dim(2)
        guard outChannels % channels == 0 else {
            throw KernelError.invalid("grouped convolution of \(channels) channels into \(outChannels) (not a multiple)")
        }
        guard isLoadTimeConstant(filter) else { throw KernelError.unsupported("grouped convolution with a filter computed at run time") }
        let kernel: DepthwiseConv2D
        if case .floatDepthwise(let existing) = previous {
            kernel = existing
        } else {
            let description = TensorDescription(name: "\(filter.name) (depthwise layout)", type: .float32, shape: [1, filter.dim(1), filter.dim(2), outChannels],
                                                shapeSignature: [1, filter.dim(1), filter.dim(2), outChannels], buffer: 0, quantization: nil, isVariable: false, sparsity: nil)
            let laidOut = Tensor(index: filter.index, description: description, constant: nil)
            laidOut.makePersistent(byteCount: laidOut.byteCount)
            let source = filter.floats, target = laidOut.floats
            for o in 0..<outChannels {
                for t in 0..<taps { target[t * outChannels + o] = source[o * taps + t] }
            }
            let context = NodeContext(model: node.model, index: node.index, code: node.code, options: nil, customOptions: nil,
                                      inputs: [input, laidOut, optionalInput(2)], outputs: [output], intermediates: [], numerics: node.numerics)
            kernel = try DepthwiseConv2D(context)
        }
        kernel.options.padding = options.padding
        kernel.zeroPadding = zeroPadding
        (kernel.options.strideH, kernel.options.strideW) = (options.strideH, options.strideW)
        (kernel.options.dilationH, kernel.options.dilationW) = (options.dilationH, options.dilationW)
        kernel.options.depthMultiplier = outChannels / channels
        kernel.activation = activation
        try kernel.prepare()
        (geometryH, geometryW) = (kernel.geometryH, kernel.geometryW)
        return .floatDepthwise(kernel)
    }

    /// `HybridConvPerChannel`: each batch image quantized asymmetrically (`AsymmetricQuantizeFloats`), padding taps
    /// take the zero point, exact int32 sums, `float(acc − zero_point · Σw) · (channel_scale · input_scale) + bias`,
    /// clamped. `HybridConv` is the same with symmetric quantization (zero point 0). Here the images' `x_q − zero_point`
    /// (padding: 0, the same sums) go through im2col and ``HybridMatrixProduct`` with the int8 weights: every product
    /// and sum is an exact integer, in any order.
    private func runHybrid(_ weights: HybridWeights, _ product: HybridMatrixProduct, perChannel: Bool, _ context: RunContext) {
        let input = node.inputs[0]!, filter = node.inputs[1]!, output = node.outputs[0]
        let batches = input.dim(0), outC = filter.dim(0), (outH, outW) = (geometryH.output, geometryW.output)
        let rows = batches * outH * outW, depth = weights.depth
        let pointwise = readsInputInPlace
        let dst = output.floats, values = context.scratch.assumingMemoryBound(to: Float.self)
        let imageScales = HybridQuantization.quantizeImages(input, asymmetric: perChannel, offsets: values, threads: context.threads)
        let columns = pointwise ? values : values + input.elementCount
        if !pointwise {
            im2col(UnsafePointer(values), input: input, filter: filter, geometryH: geometryH, geometryW: geometryW, options: options,
                   into: columns, threads: context.threads)
        }
        product.run(columns, rows: rows, into: dst, scratch: UnsafeMutableRawPointer(columns + rows * depth), threads: context.threads)
        HybridQuantization.rescale(dst, images: batches, rows: outH * outW, channels: outC, imageScales: imageScales, weightScales: weights.scales,
                                   bias: optionalInput(2), activation: activation, threads: context.threads)
    }

    /// 16x8 path (int16 activations, int8 filter, int64 bias): exact sums by dgemm over im2col (``Int16MatrixProduct``),
    /// or grouped, ``runInt16Grouped(_:)``.
    private func prepareInt16(_ input: Tensor, _ filter: Tensor, _ output: Tensor, previous: Conv2DPlan?) throws -> Conv2DPlan {
        try makeGeometry(input, filter)
        guard filter.dim(3) > 0, input.dim(3) >= filter.dim(3), input.dim(3) % filter.dim(3) == 0,
              filter.dim(0) % (input.dim(3) / filter.dim(3)) == 0 else {
            throw KernelError.invalid("input has \(input.dim(3)) channels, filter \(filter.shape): not a whole number of groups")
        }
        let product = try previous?.int16Product
            ?? Int16MatrixProduct(weights: filter, units: filter.dim(0), bias: optionalInput(2), input: input, output: output,
                                  activation: options.activation, op: "CONV_2D", rescale: .multiplier)
        output.shape = [input.dim(0), geometryH.output, geometryW.output, filter.dim(0)]
        return groups > 1 ? .int16Grouped(product) : .int16(product)
    }

    /// 16x8 grouped convolution (Keras `Conv2D(groups=)` or `Conv1D(groups=)` in 16x8): TFLite's reference
    /// `ConvPerChannel` for int16, the only kernel LiteRT has for it: per output, the sum over the receptive field inside
    /// the image of x·(w − w_zero) over the group's channels, plus the int64 bias, rescaled as the ungrouped path.
    /// The sums are doubles: each product is below 2^22, so they are exact in any order.
    private func runInt16Grouped(_ product: Int16MatrixProduct) {
        let groupC = node.inputs[1]!.dim(3)
        let x = node.inputs[0]!.pointer(Int16.self), out = node.outputs[0].pointer(Int16.self)
        product.weights.withUnsafeBufferPointer { weights in
            forEachGroupedOutput { o, channel, inputBase, filterBase, taps in
                var sum = 0.0
                for tap in taps {
                    let pixel = x + inputBase + tap.pixel, w = weights.baseAddress! + filterBase + tap.filter
                    for c in 0..<groupC { sum += Double(pixel[c]) * w[c] }
                }
                let accumulator = Int64(sum) &+ (product.bias.isEmpty ? 0 : product.bias[channel])
                out[o] = Int16(truncatingIfNeeded: product.requantization.applyWide(accumulator, channel: channel))
            }
        }
    }

    private func runInt16(_ product: Int16MatrixProduct, _ context: RunContext) {
        let input = node.inputs[0]!, filter = node.inputs[1]!, output = node.outputs[0]
        let rows = input.dim(0) * geometryH.output * geometryW.output
        let pointwise = readsInputInPlace
        let values = context.scratch.assumingMemoryBound(to: Double.self)
        convertQuantized(input, zeroPoint: 0, into: values)
        let columns = pointwise ? values : values + input.elementCount
        if !pointwise {
            im2col(UnsafePointer(values), input: input, filter: filter, geometryH: geometryH, geometryW: geometryW, options: options,
                   into: columns, threads: context.threads)
        }
        product.run(rows: rows, columns: columns, products: columns + rows * product.depth, output: output.pointer(Int16.self), threads: context.threads)
    }

    override var scratchBytes: Int {
        guard let plan, let input = node.inputs[0], let filter = node.inputs[1] else { return 0 }
        let rows = saturatingProduct(input.dim(0), geometryH.output, geometryW.output)
        let depth = filter.dim(1) * filter.dim(2) * filter.dim(3)
        let unfolded = saturatingProduct(rows, depth, 4)
        switch plan {
        case .floatIndirect(_, let layout): return layout.bytes
        case .floatPacked(_, let unfolds), .floatBLAS(let unfolds): return unfolds ? unfolded : 0
        case .floatGrouped: return unfolded
        case .floatDepthwise(let kernel): return kernel.scratchBytes
        case .hybrid(_, let product, _):
            return saturatingProduct(saturatingProduct(input.elementCount) + saturatingProduct(rows, depth), 4) + product.scratchBytes(rows: rows)
        case .quantized(let quantized):
            if let gemm = quantized.integerGEMM {
                return gemm.readsInPlace(pointwise: readsInputInPlace) ? 0 : QuantizedGEMM.scratchBytes(rows: rows, depth: gemm.depth)
            }
            if quantized.widenedGEMM != nil { return 0 }
            return QuantizedConvolution.scratchBytes(input: input, filter: filter, rows: rows)
        case .int8Grouped, .int16Grouped: return 0
        case .int8Depthwise: return saturatingProduct(input.dim(3), 4)
        case .int16: return QuantizedConvolution.scratchBytes(input: input, filter: filter, rows: rows)
        }
    }

    /// How the convolution reads its input in place for ``PackedFilterGEMM`` (XNNPACK's indirect GEMM): a table of
    /// pointers, one per output pixel and filter row, to where the kw · Cin input values under that filter row
    /// start. Inside the image that is the input itself; rows above or below it point at a filter row of zeros, and
    /// filter rows that hang over the left or right edge at a zero-padded copy. The zeros and the copies live in the
    /// node's scratch and are refreshed on every run; the table depends only on the input's and the scratch's
    /// addresses, so it is built again only when one of them moves.
    struct IndirectLayout {
        /// Values in one filter row (kw · Cin) and filter rows (kh).
        let span: Int, segments: Int
        /// Each output column's slot among the columns whose receptive field crosses the left or right edge, or -1.
        let edgeSlot: [Int]
        let edgeColumns: Int
        /// Entries in the pointer table (output pixels times kh).
        let pointers: Int
        /// Scratch offsets: the zeros at 0, the edge copies at `edgesOffset`. `bytes` also counts the pointer table
        /// (the kernel's own memory), so that the interpreter's memory limit sees it.
        let edgesOffset: Int, bytes: Int
    }

    private var pointerTable: UnsafeMutablePointer<UnsafePointer<Float>>?
    private var pointerTableKey: (input: UnsafeMutableRawPointer?, scratch: UnsafeMutableRawPointer?, count: Int) = (nil, nil, 0)

    deinit { pointerTable?.deallocate() }

    /// The layout for reading the input in place with a packed filter, or nil when the convolution unfolds it (dilated
    /// columns) or reads it as it is (a pointwise layer).
    private func makeIndirectLayout() -> IndirectLayout? {
        guard options.dilationW == 1, let input = node.inputs[0], let filter = node.inputs[1], !readsInputInPlace else { return nil }
        let (inW, inC, kh, kw) = (input.dim(2), input.dim(3), filter.dim(1), filter.dim(2))
        let span = kw * inC
        var edgeSlot = [Int](repeating: -1, count: geometryW.output)
        var edgeColumns = 0
        for ox in 0..<geometryW.output {
            let ix0 = ox * options.strideW - geometryW.padBefore
            if ix0 < 0 || ix0 + kw > inW { edgeSlot[ox] = edgeColumns; edgeColumns += 1 }
        }
        let pointers = saturatingProduct(input.dim(0), geometryH.output, geometryW.output, kh)
        let edgesOffset = (span * 4 + 63) / 64 * 64
        let edgeBytes = saturatingProduct(input.dim(0), geometryH.output, edgeColumns, kh, span, 4)
        return IndirectLayout(span: span, segments: kh, edgeSlot: edgeSlot, edgeColumns: edgeColumns, pointers: pointers,
                              edgesOffset: edgesOffset, bytes: saturatingProduct(edgesOffset + edgeBytes + saturatingProduct(pointers, 8), 1))
    }

    /// Refreshes the zeros and the edge copies in `scratch`, rebuilds the pointer table if the input or the scratch
    /// moved, and returns the table.
    private func indirectRows(_ layout: IndirectLayout, input: Tensor, scratch: UnsafeMutableRawPointer) -> UnsafePointer<UnsafePointer<Float>> {
        let (batches, inH, inW, inC) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW, kh, kw) = (geometryH.output, geometryW.output, layout.segments, layout.span / max(inC, 1))
        let source = UnsafePointer(input.floats)
        let zeros = scratch.assumingMemoryBound(to: Float.self)
        zeros.initialize(repeating: 0, count: layout.span)
        let edges = (scratch + layout.edgesOffset).assumingMemoryBound(to: Float.self)
        let options = self.options, padH = geometryH.padBefore, padW = geometryW.padBefore
        let edgeColumns = layout.edgeColumns
        if edgeColumns > 0 {
            let edgeSlot = layout.edgeSlot
            var columns = [Int](repeating: 0, count: edgeColumns)
            for ox in 0..<outW where edgeSlot[ox] >= 0 { columns[edgeSlot[ox]] = ox }
            for by in 0..<(batches * outH) {
                let b = by / outH, oy = by % outH
                for (slot, ox) in columns.enumerated() {
                    let ix0 = ox * options.strideW - padW
                    for ky in 0..<kh {
                        let iy = oy * options.strideH - padH + ky * options.dilationH
                        guard iy >= 0 && iy < inH else { continue }
                        let row = source + ((b * inH + iy) * inW) * inC
                        let copy = edges + ((by * edgeColumns + slot) * kh + ky) * layout.span
                        for kx in 0..<kw {
                            let ix = ix0 + kx
                            if ix >= 0 && ix < inW {
                                (copy + kx * inC).update(from: row + ix * inC, count: inC)
                            } else {
                                (copy + kx * inC).update(repeating: 0, count: inC)
                            }
                        }
                    }
                }
            }
        }
        if let table = pointerTable, pointerTableKey == (UnsafeMutableRawPointer(input.floats), scratch, layout.pointers) { return UnsafePointer(table) }
        pointerTable?.deallocate()
        let table = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: max(layout.pointers, 1))
        pointerTable = table
        pointerTableKey = (UnsafeMutableRawPointer(input.floats), scratch, layout.pointers)
        for by in 0..<(batches * outH) {
            let b = by / outH, oy = by % outH
            for ox in 0..<outW {
                let ix0 = ox * options.strideW - padW
                let slot = layout.edgeSlot[ox]
                for ky in 0..<kh {
                    let iy = oy * options.strideH - padH + ky * options.dilationH
                    let target = table + (by * outW + ox) * kh + ky
                    if iy < 0 || iy >= inH {
                        target.initialize(to: UnsafePointer(zeros))
                    } else if slot < 0 {
                        target.initialize(to: source + ((b * inH + iy) * inW + ix0) * inC)
                    } else {
                        target.initialize(to: UnsafePointer(edges + ((by * edgeColumns + slot) * kh + ky) * layout.span))
                    }
                }
            }
        }
        return UnsafePointer(table)
    }

    override func run(_ context: RunContext) throws {
        guard let plan else { throw KernelError.invalid("CONV_2D ran before it was prepared") }
        // An empty output (a dimension of 0) has nothing to compute, however many rows the other dimensions span.
        guard node.outputs[0].elementCount > 0 else { return }
        let input = node.inputs[0]!, filter = node.inputs[1]!, output = node.outputs[0]
        for step in storeSteps where step.kernel.node.outputs[0].shape != output.shape {
            // Resized to shapes the folded node broadcasts over: its output, which shares this node's bytes, would not fit.
            throw KernelError.invalid("\(step.kernel.node.code) folded into this CONV_2D now writes shape \(step.kernel.node.outputs[0].shape), not the "
                                      + "convolution's \(output.shape) (load with fusesActivations off to run it)")
        }
        switch plan {
        case .floatIndirect(let packed, let layout):
            let table = indirectRows(layout, input: input, scratch: context.scratch)
            try withStoreEpilogue(context) { epilogue in
                packed.run(indirection: table, segments: layout.segments, rows: floatRows, c: output.floats, ldc: filter.dim(0), activation: activation,
                           threads: context.threads, epilogue: epilogue)
            }
        case .floatPacked(let packed, let unfolds):
            let left = floatLeftMatrix(unfolds: unfolds, context)
            try withStoreEpilogue(context) { epilogue in
                packed.run(a: left, lda: floatDepth, rows: floatRows, c: output.floats, ldc: filter.dim(0), activation: activation,
                           threads: context.threads, epilogue: epilogue)
            }
        case .floatBLAS(let unfolds):
            let left = floatLeftMatrix(unfolds: unfolds, context), (rows, depth, outChannels) = (floatRows, floatDepth, filter.dim(0))
            BLAS.sgemm(transposeB: true, m: rows, n: outChannels, k: depth, a: left, lda: depth,
                       b: filter.floats, ldb: depth, c: output.floats, ldc: outChannels, threads: context.threads)
            addBiasAndActivate(output.floats, rows: rows, channels: outChannels, bias: optionalInput(2)?.floats,
                               activation: activation, threads: context.threads)
        case .floatGrouped: runGrouped(context)
        case .floatDepthwise(let kernel): try kernel.run(context)
        case .hybrid(let weights, let product, let perChannel): runHybrid(weights, product, perChannel: perChannel, context)
        case .quantized(let quantized):
            quantized.run(input: input, filter: filter, bias: optionalInput(2), output: output, geometryH: geometryH, geometryW: geometryW, options: options,
                          scratch: context.scratch, threads: context.threads)
        case .int8Grouped(let requantization): try runInt8Grouped(requantization)
        case .int8Depthwise(let requantization, let taps): try runInt8Depthwise(requantization, taps, scratch: context.scratch)
        case .int16(let product): runInt16(product, context)
        case .int16Grouped(let product): runInt16Grouped(product)
        }
        switch plan {
        case .floatIndirect, .floatPacked: break
        default: for step in storeSteps { try step.kernel.run(context) }
        }
    }

    /// Runs `product` with the folded steps as its row epilogue when each has a form for rows
    /// (``FoldableIntoStore/storeStep(operand:channels:)``); otherwise with none, and then runs the steps whole.
    private func withStoreEpilogue(_ context: RunContext, _ product: (PackedFilterGEMM.Epilogue?) -> Void) throws {
        guard !storeSteps.isEmpty else { return product(nil) }
        let channels = node.inputs[1]!.dim(0), output = node.outputs[0].floats
        let steps = storeSteps.compactMap { $0.kernel.storeStep(operand: $0.operand, channels: channels) }
        guard steps.count == storeSteps.count else {
            product(nil)
            for step in storeSteps { try step.kernel.run(context) }
            return
        }
        product(PackedFilterGEMM.Epilogue(onStoredRows: { rows in
            for step in steps { step.apply(output, rows: rows, channels: channels) }
        }, inRegisters: StoreStep.inRegisters(steps, channels: channels)))
    }

    /// Output pixels, the rows of the float matrix product.
    private var floatRows: Int { node.inputs[0]!.dim(0) * geometryH.output * geometryW.output }
    /// Values in one receptive field, the depth of the float matrix product.
    private var floatDepth: Int { let filter = node.inputs[1]!; return filter.dim(1) * filter.dim(2) * filter.dim(3) }

    /// The left matrix of the float product: the input itself, or its im2col unfolding in the scratch.
    private func floatLeftMatrix(unfolds: Bool, _ context: RunContext) -> UnsafePointer<Float> {
        let input = node.inputs[0]!
        guard unfolds else { return UnsafePointer(input.floats) }
        let columns = context.scratch.assumingMemoryBound(to: Float.self)
        im2col(UnsafePointer(input.floats), input: input, filter: node.inputs[1]!, geometryH: geometryH, geometryW: geometryW, options: options,
               into: columns, threads: context.threads)
        return UnsafePointer(columns)
    }

    /// The definition, for tests: a direct sum over the receptive field.
    static func reference(input: [Float], inputShape: [Int], filter: [Float], filterShape: [Int], bias: [Float]?,
                          options: Conv2DOptions) throws -> (values: [Float], shape: [Int]) {
        let (batches, inH, inW, inC) = (inputShape[0], inputShape[1], inputShape[2], inputShape[3])
        let (outC, kh, kw) = (filterShape[0], filterShape[1], filterShape[2])
        let gh = try SpatialGeometry(input: inH, filter: kh, stride: options.strideH, dilation: options.dilationH, padding: options.padding)
        let gw = try SpatialGeometry(input: inW, filter: kw, stride: options.strideW, dilation: options.dilationW, padding: options.padding)
        let (low, high) = try builtinActivationRange(options.activation)
        var out = [Float](repeating: 0, count: batches * gh.output * gw.output * outC)
        for b in 0..<batches { for oy in 0..<gh.output { for ox in 0..<gw.output { for oc in 0..<outC {
            var sum: Float = bias?[oc] ?? 0
            for ky in 0..<kh { for kx in 0..<kw {
                let iy = oy * options.strideH - gh.padBefore + ky * options.dilationH
                let ix = ox * options.strideW - gw.padBefore + kx * options.dilationW
                guard iy >= 0, iy < inH, ix >= 0, ix < inW else { continue }
                for ic in 0..<inC {
                    sum += input[((b * inH + iy) * inW + ix) * inC + ic] * filter[((oc * kh + ky) * kw + kx) * inC + ic]
                }
            } }
            out[((b * gh.output + oy) * gw.output + ox) * outC + oc] = min(max(sum, low), high)
        } } } }
        return (out, [batches, gh.output, gw.output, outC])
    }
}

/// Each output pixel's receptive field as one row of `KH*KW*Cin` values of `source` (laid out like `input`),
/// zeros where it hangs over the edge. Shared by the float and the exact quantized convolution.
@inline(__always)
func im2col<Element: ExactAccumulator>(_ source: UnsafePointer<Element>, input: Tensor, filter: Tensor, geometryH: SpatialGeometry,
                                       geometryW: SpatialGeometry, options: Conv2DOptions, into columns: UnsafeMutablePointer<Element>, threads: Int) {
    let (batches, inH, inW, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
    let (kh, kw) = (filter.dim(1), filter.dim(2))
    let (outH, outW) = (geometryH.output, geometryW.output)
    let rowLength = kh * kw * channels
    let zero = Element(exactly: 0)
    parallelFor(batches * outH, threads: threads, workPerItem: outW * rowLength) { range in
        for by in range {
            let b = by / outH, oy = by % outH
            for ox in 0..<outW {
                var dst = columns + ((b * outH + oy) * outW + ox) * rowLength
                let ix0 = ox * options.strideW - geometryW.padBefore
                if Element.self == Float.self && options.dilationW == 1 && ix0 >= 0 && ix0 + kw <= inW {
                    // Every horizontal tap inside: each filter row is kw·channels contiguous floats, copied inline
                    // (a first layer's rows are a few floats, where a memmove call per tap cost more than the copy).
                    let span = kw * channels
                    for ky in 0..<kh {
                        let iy = oy * options.strideH - geometryH.padBefore + ky * options.dilationH
                        let target = UnsafeMutableRawPointer(dst).assumingMemoryBound(to: Float.self)
                        if iy >= 0 && iy < inH {
                            copyFloats(UnsafeRawPointer(source + ((b * inH + iy) * inW + ix0) * channels).assumingMemoryBound(to: Float.self),
                                       to: target, count: span)
                        } else {
                            target.update(repeating: 0, count: span)
                        }
                        dst += span
                    }
                    continue
                }
                for ky in 0..<kh {
                    let iy = oy * options.strideH - geometryH.padBefore + ky * options.dilationH
                    for kx in 0..<kw {
                        let ix = ox * options.strideW - geometryW.padBefore + kx * options.dilationW
                        if iy >= 0 && iy < inH && ix >= 0 && ix < inW {
                            dst.update(from: source + ((b * inH + iy) * inW + ix) * channels, count: channels)
                        } else {
                            dst.update(repeating: zero, count: channels)
                        }
                        dst += channels
                    }
                }
            }
        }
    }
}

/// `count` floats, eight at a time (the last eight overlapping the ones before when `count` is not a multiple of
/// eight; nothing is read or written outside the `count`), or one by one when fewer than eight.
@inline(__always)
func copyFloats(_ source: UnsafePointer<Float>, to destination: UnsafeMutablePointer<Float>, count: Int) {
    guard count >= 8 else {
        for i in 0..<count { destination[i] = source[i] }
        return
    }
    var i = 0
    while i + 8 <= count {
        UnsafeMutableRawPointer(destination + i).storeBytes(of: UnsafeRawPointer(source + i).loadUnaligned(as: SIMD8<Float>.self), as: SIMD8<Float>.self)
        i += 8
    }
    if i < count {
        let last = count - 8
        UnsafeMutableRawPointer(destination + last).storeBytes(of: UnsafeRawPointer(source + last).loadUnaligned(as: SIMD8<Float>.self), as: SIMD8<Float>.self)
    }
}

/// Adds `bias[c]` to every row of a [rows, channels] matrix and clamps to the activation range, in one pass.
func addBiasAndActivate(_ values: UnsafeMutablePointer<Float>, rows: Int, channels: Int, bias: UnsafePointer<Float>?,
                        activation: (Float, Float), threads: Int) {
    let (low, high) = activation
    guard bias != nil || low != -.infinity || high != .infinity else { return }
    parallelFor(rows, threads: threads, minimumChunk: 64, workPerItem: channels) { range in
        for r in range {
            let row = values + r * channels
            if let bias {
                for c in 0..<channels {
                    let v = row[c] + bias[c]
                    let x = v < low ? low : v
                    row[c] = x > high ? high : x
                }
            } else {
                clamp(row, count: channels, low, high)
            }
        }
    }
}

extension Conv2D: ClampAbsorbing {}

extension Conv2D: StoreEpilogueAbsorbing {}

extension Conv2D: SpatialPadAbsorbing {}
