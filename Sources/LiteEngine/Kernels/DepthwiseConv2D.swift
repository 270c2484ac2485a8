import CLiteKernels
import LiteFormat

/// DEPTHWISE_CONV_2D: input [N, H, W, Cin], filter [1, KH, KW, Cin * M], bias [Cin * M].
/// Output channel `c * M + m` convolves input channel `c` (M is the depth multiplier, `Cout / Cin`).
///
/// Fast paths (M = 1): 3x3 filters (MobileNet's) a row at a time, each group of 16 channels with its nine weights in
/// registers while the row's pixels go by (``row3x3``); other filters 16 channels at a time (then 8 and 4), four
/// horizontally adjacent output pixels at once away from the left and right edges. The bias is the accumulators'
/// start value, taps are added in the same order everywhere, and the activation clamps the finished pixels. Where
/// ``KernelConfiguration/current`` has one (the avx2 level and above), the float kernel is the C microkernel
/// `lite_f32_dwconv_rows__avx2`, the same loops with fused multiply-adds; the Swift code below (``MultiplyAdd``,
/// unfused) is the baseline.
final class DepthwiseConv2D: Kernel {
    var options: DepthwiseConv2DOptions
    var geometryH: SpatialGeometry!
    var geometryW: SpatialGeometry!
    var multiplier = 1
    var activation: (Float, Float) = (-.infinity, .infinity)
    /// Zeros around the input before `options.padding`'s: a PAD folded into this node (``SpatialPadAbsorbing``).
    var zeroPadding = SpatialZeroPadding.none

    required init(_ node: NodeContext) throws {
        options = try DepthwiseConv2DOptions(node.options)
        try super.init(node)
        try expectCounts(inputs: 2...3, outputs: 1)
        activation = try builtinActivationRange(options.activation)
    }

    func takeClamp(_ range: (Float, Float)) -> Bool {
        node.inputs[0]?.type == .float32 && narrowActivation(&activation, to: range, output: node.outputs[0])
    }

    /// The path `run` takes, chosen by `prepare` (nil before it).
    private(set) var plan: DepthwiseConv2DPlan?

    override func prepare() throws {
        let input = try self.input(0), filter = try self.input(1), output = try self.output(0)
        try expectType(input, .float32, .uint8, .int8, .int16)
        try expectType(filter, .float32, .uint8, .int8)
        try expectRank(input, 4)
        try expectRank(filter, 4)
        let inC = input.dim(3), outC = filter.dim(3)
        guard filter.dim(0) == 1, inC > 0, outC % inC == 0 else {
            throw KernelError.invalid("filter \(filter.shape) does not fit input \(input.shape)")
        }
        multiplier = outC / inC
        geometryH = try SpatialGeometry(input: input.dim(1), filter: filter.dim(1), stride: options.strideH, dilation: options.dilationH, padding: options.padding,
                                        zeros: zeroPadding.height)
        geometryW = try SpatialGeometry(input: input.dim(2), filter: filter.dim(2), stride: options.strideW, dilation: options.dilationW, padding: options.padding,
                                        zeros: zeroPadding.width)
        switch input.type {
        case .int16:
            plan = try prepareInt16(input, filter, output, previous: plan)
            output.shape = [input.dim(0), geometryH.output, geometryW.output, outC]
        case .uint8, .int8:
            let quantized = try plan?.quantized
                ?? QuantizedDepthwiseConvolution(input: input, filter: filter, bias: optionalInput(2), output: output, activation: options.activation,
                                                 numerics: node.numerics)
            output.shape = [input.dim(0), geometryH.output, geometryW.output, outC]
            plan = quantizedPlan(quantized)
        default:
            plan = try prepareFloat(input, filter, output, previous: plan)
        }
    }

    /// The uint8/int8 kernel for the current geometry.
    private func quantizedPlan(_ quantized: QuantizedDepthwiseConvolution) -> DepthwiseConv2DPlan {
        if let dotProduct = quantized.dotProduct, dotProduct.scratchBytes(geometry) <= QuantizedDepthwiseDotProduct.maximumScratchBytes {
            return .quantizedDotProduct(quantized, dotProduct)
        }
        if quantized.exactRequantization != nil { return .quantizedIntegerSIMD(quantized) }
        if quantized.exactInFloat { return .quantizedExactInFloat(quantized) }
        return .quantizedInteger(quantized)
    }

    /// Float input with a float filter, or an int8 one (hybrid).
    private func prepareFloat(_ input: Tensor, _ filter: Tensor, _ output: Tensor, previous: DepthwiseConv2DPlan?) throws -> DepthwiseConv2DPlan {
        let outC = filter.dim(3)
        var hybrid: (weights: [Float], scales: [Float])?
        if case .hybrid(let weights, let scales) = previous { hybrid = (weights, scales) }
        if filter.type == .int8, hybrid == nil {
            // Sums of more taps could leave the exact integer range of a float (TFLite's int32 sum has no such limit).
            guard filter.dim(1) * filter.dim(2) < 518 else { throw KernelError.unsupported("hybrid DEPTHWISE_CONV_2D with \(filter.dim(1) * filter.dim(2)) taps") }
            guard filter.storage != .arena, filter.data != nil else { throw KernelError.unsupported("hybrid weights must be constant") }
            let info = try QuantizedTensorInfo(filter)
            guard info.zeroPoints.allSatisfy({ $0 == 0 }) else { throw KernelError.unsupported("hybrid weights must be symmetric (zero point 0)") }
            guard info.scales.count == 1 || info.scales.count == outC else { throw KernelError.invalid("\(info.scales.count) weight scales for \(outC) channels") }
            let raw = filter.pointer(Int8.self)
            hybrid = ((0..<filter.elementCount).map { Float(raw[$0]) }, info.scales.count == 1 ? Array(repeating: info.scales[0], count: outC) : info.scales)
        }
        if filter.type != .int8 { try expectType(filter, .float32) }
        if let bias = optionalInput(2) {
            try expectType(bias, .float32)
            guard bias.elementCount == outC else { throw KernelError.invalid("bias has \(bias.elementCount) values for \(outC) channels") }
        }
        output.type = .float32
        output.shape = [input.dim(0), geometryH.output, geometryW.output, outC]
        if let hybrid { return .hybrid(weights: hybrid.weights, scales: hybrid.scales) }
        return .float
    }

    /// The shapes and options as the kernels take them (valid after `prepare`).
    var geometry: Geometry {
        let input = node.inputs[0]!, filter = node.inputs[1]!
        return Geometry(
            batches: input.dim(0), inH: input.dim(1), inW: input.dim(2), inC: input.dim(3),
            kh: filter.dim(1), kw: filter.dim(2), outC: filter.dim(3), outH: geometryH.output, outW: geometryW.output,
            strideH: options.strideH, strideW: options.strideW, dilationH: options.dilationH, dilationW: options.dilationW,
            padH: geometryH.padBefore, padW: geometryW.padBefore, multiplier: multiplier)
    }

    override var scratchBytes: Int {
        guard let plan, let input = node.inputs[0] else { return 0 }
        switch plan {
        case .hybrid: return saturatingProduct(input.elementCount, 4)
        case .quantizedDotProduct(let quantized, _), .quantizedIntegerSIMD(let quantized), .quantizedExactInFloat(let quantized),
             .quantizedInteger(let quantized):
            return quantized.exactRequantization == nil ? QuantizedDepthwiseConvolution.scratchBytes(input: input, output: node.outputs[0]) : 0
        case .float, .int16: return 0
        }
    }

    override func run(_ context: RunContext) throws {
        guard let plan else { throw KernelError.invalid("DEPTHWISE_CONV_2D ran before it was prepared") }
        // An empty output (a dimension of 0) has nothing to compute, however many rows the other dimensions span.
        guard node.outputs[0].elementCount > 0 else { return }
        let input = node.inputs[0]!, filter = node.inputs[1]!, output = node.outputs[0], geometry = self.geometry
        switch plan {
        case .float:
            let bias = optionalInput(2).map { UnsafePointer($0.floats) }
            Self.floatDepthwise(geometry, UnsafePointer(input.floats), UnsafePointer(filter.floats), bias, output.floats,
                                activation: activation, threads: context.threads)
        case .hybrid(let weights, let scales): runHybrid(geometry, (weights, scales), context)
        case .quantizedDotProduct(_, let dotProduct): dotProduct.run(input: input, output: output, geometry: geometry, threads: context.threads)
        case .quantizedIntegerSIMD(let quantized): quantized.runIntegerSIMD(input: input, output: output, geometry: geometry, threads: context.threads)
        case .quantizedExactInFloat(let quantized):
            quantized.run(input: input, output: output, geometry: geometry, activation: activation, scratch: context.scratch, threads: context.threads)
        case .quantizedInteger(let quantized):
            quantized.runInteger(input: input, bias: optionalInput(2), output: output, geometry: geometry, threads: context.threads)
        case .int16(let requantization, let bias): runInt16(geometry, requantization, bias, threads: context.threads)
        }
    }

    /// Hybrid path (float input, int8 weights: dynamic-range quantization): the weights as floats and one scale per
    /// channel. TFLite's EvalHybridPerChannel quantizes each image asymmetrically as a whole (`AsymmetricQuantizeFloats`)
    /// and sums `w · (x_q − offset)` over the taps inside the image in int32; here those offsets run through the float
    /// kernel, whose sums are exact integers (each below 127·255·taps < 2^24 for fewer than 518 taps), then
    /// `Float(sum) · (w_scale[c] · image_scale) + bias`, clamped.
    private func runHybrid(_ g: Geometry, _ h: (weights: [Float], scales: [Float]), _ context: RunContext) {
        let input = node.inputs[0]!, output = node.outputs[0]
        let offsets = context.scratch.assumingMemoryBound(to: Float.self)
        let imageScales = HybridQuantization.quantizeImages(input, offsets: offsets, threads: context.threads)
        let out = output.floats
        h.weights.withUnsafeBufferPointer { w in
            Self.floatDepthwise(g, UnsafePointer(offsets), w.baseAddress!, nil, out, activation: (-.infinity, .infinity), threads: context.threads)
        }
        HybridQuantization.rescale(out, images: g.batches, rows: g.outH * g.outW, channels: g.outC, imageScales: imageScales, weightScales: h.scales,
                                   bias: optionalInput(2), activation: activation, depthwiseOrder: true, threads: context.threads)
    }

    /// 16x8 path (int16 input, int8 filter, int64 bias): TFLite's reference `DepthwiseConvPerChannel` for int16.
    private func prepareInt16(_ input: Tensor, _ filter: Tensor, _ output: Tensor, previous: DepthwiseConv2DPlan?) throws -> DepthwiseConv2DPlan {
        if case .int16 = previous { return previous! }
        try expectType(filter, .int8)
        guard output.type == .int16 else { throw KernelError.unsupported("DEPTHWISE_CONV_2D of int16 into \(output.type)") }
        guard filter.storage != .arena, filter.data != nil else { throw KernelError.unsupported("quantized filters must be constant") }
        try Int16Activations.expectSymmetric(input, output)
        let channels = filter.dim(3)
        let filterInfo = try QuantizedTensorInfo(filter)
        guard filterInfo.zeroPoints.allSatisfy({ $0 == 0 }) else { throw KernelError.unsupported("16x8 DEPTHWISE_CONV_2D with a filter zero point") }
        let bias = try Int16Activations.bias(optionalInput(2), channels: channels)
        let requantization = try ChannelRequantization(input: try QuantizedTensorInfo(input), filter: filterInfo, output: try QuantizedTensorInfo(output),
                                                       channels: channels, activation: options.activation, outputType: .int16)
        try requantization.checkWideShifts("DEPTHWISE_CONV_2D")
        return .int16(requantization, bias: bias)
    }

    /// Each output pixel's channels summed tap by tap (taps outside the input skipped, as TFLite's loop skips them), then
    /// the int64 bias added and rescaled. TFLite sums in int64; a product is below 2^22 in magnitude, so sums of fewer
    /// than 512 taps are the same in int32, which vectorizes (with a depth multiplier of 1, channel by channel).
    private func runInt16(_ g: Geometry, _ requantization: ChannelRequantization, _ bias: [Int64], threads: Int) {
        let src = node.inputs[0]!.pointer(Int16.self), weights = node.inputs[1]!.pointer(Int8.self), dst = node.outputs[0].pointer(Int16.self)
        if g.kh * g.kw < 512 {
            runInt16(g, requantization, bias, src, weights, dst, Int32.self, threads: threads)
        } else {
            runInt16(g, requantization, bias, src, weights, dst, Int64.self, threads: threads)
        }
    }

    @inline(__always)
    private func runInt16<Sum: FixedWidthInteger>(_ g: Geometry, _ requantization: ChannelRequantization, _ bias: [Int64], _ src: UnsafePointer<Int16>,
                                                  _ weights: UnsafePointer<Int8>, _ dst: UnsafeMutablePointer<Int16>, _: Sum.Type, threads: Int) {
        parallelFor(g.batches * g.outH, threads: threads, workPerItem: g.outW * g.outC * g.kh * g.kw) { range in
            var sums = [Sum](repeating: 0, count: g.outC)
            sums.withUnsafeMutableBufferPointer { buffer in
                let acc = buffer.baseAddress!
                for by in range {
                    let b = by / g.outH, oy = by % g.outH
                    let (ky0, ky1) = g.insideTaps(origin: oy * g.strideH - g.padH, size: g.inH, kernel: g.kh, dilation: g.dilationH)
                    for ox in 0..<g.outW {
                        acc.update(repeating: 0, count: g.outC)
                        let (kx0, kx1) = g.insideTaps(origin: ox * g.strideW - g.padW, size: g.inW, kernel: g.kw, dilation: g.dilationW)
                        for ky in ky0..<max(ky0, ky1) {
                            let iy = oy * g.strideH - g.padH + ky * g.dilationH
                            for kx in kx0..<max(kx0, kx1) {
                                let ix = ox * g.strideW - g.padW + kx * g.dilationW
                                let pixel = src + ((b * g.inH + iy) * g.inW + ix) * g.inC, tap = weights + (ky * g.kw + kx) * g.outC
                                if g.multiplier == 1 {
                                    for c in 0..<g.outC { acc[c] &+= Sum(truncatingIfNeeded: Int32(pixel[c]) &* Int32(tap[c])) }
                                } else {
                                    for c in 0..<g.outC { acc[c] &+= Sum(truncatingIfNeeded: Int32(pixel[c / g.multiplier]) &* Int32(tap[c])) }
                                }
                            }
                        }
                        let out = dst + ((b * g.outH + oy) * g.outW + ox) * g.outC
                        for c in 0..<g.outC {
                            let total = Int64(acc[c]) &+ (bias.isEmpty ? 0 : bias[c])
                            out[c] = Int16(truncatingIfNeeded: requantization.applyWide(total, channel: c))
                        }
                    }
                }
            }
        }
    }

    /// The float kernel on raw pointers (also the exact engine of the quantized path, see QuantizedDepthwiseConvolution).
    static func floatDepthwise(_ geometry: Geometry, _ src: UnsafePointer<Float>, _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>?,
                               _ dst: UnsafeMutablePointer<Float>, activation: (Float, Float), threads: Int) {
        let (low, high) = activation
        let work = geometry.outW * geometry.outC * geometry.kh * geometry.kw * 4
        if let kernel = KernelConfiguration.current.float?.depthwiseRows {
            let g = geometry
            let layout = lite_f32_dwconv_geometry(
                batches: g.batches, in_h: g.inH, in_w: g.inW, in_c: g.inC, kh: g.kh, kw: g.kw, out_c: g.outC, out_h: g.outH, out_w: g.outW,
                stride_h: g.strideH, stride_w: g.strideW, dilation_h: g.dilationH, dilation_w: g.dilationW, pad_h: g.padH, pad_w: g.padW,
                multiplier: g.multiplier)
            withUnsafePointer(to: layout) { layout in
                parallelFor(g.batches * g.outH, threads: threads, workPerItem: work) { range in
                    kernel(layout, src, weights, bias, dst, range.lowerBound, range.upperBound, low, high)
                }
            }
            return
        }
        // The multiply-adds count 4x in the work estimate, so that small layers split too (MobileNetV1 0.25's 7x7 ones,
        // 56,000 multiply-adds, would stay on one thread at 1x).
        parallelFor(geometry.batches * geometry.outH, threads: threads, workPerItem: work) { range in
            for by in range {
                let b = by / geometry.outH, oy = by % geometry.outH
                if geometry.multiplier == 1 && geometry.kh == 3 && geometry.kw == 3 && geometry.outC >= 4 {
                    let outputRow = dst + (b * geometry.outH + oy) * geometry.outW * geometry.outC
                    @inline(__always) func channelGroups<Clamp: ClampMode>(_ clamped: Clamp.Type) {
                        var c = 0
                        while c + 16 <= geometry.outC {
                            row3x3(SIMD16<Float>.self, geometry, src, weights, bias, outputRow, b: b, oy: oy, channel: c, clamped, to: activation)
                            c += 16
                        }
                        if c + 8 <= geometry.outC {
                            row3x3(SIMD8<Float>.self, geometry, src, weights, bias, outputRow, b: b, oy: oy, channel: c, clamped, to: activation)
                            c += 8
                        }
                        if c + 4 <= geometry.outC {
                            row3x3(SIMD4<Float>.self, geometry, src, weights, bias, outputRow, b: b, oy: oy, channel: c, clamped, to: activation)
                            c += 4
                        }
                        if c < geometry.outC {
                            // The last 1-3 channels as the last four, overlapping channels already done: SIMD4 and SIMD8
                            // lanes add the same taps in the same order, so those are written again with the same values.
                            // (One pixel at a time, they took longer than the whole rest of a narrow layer.)
                            row3x3(SIMD4<Float>.self, geometry, src, weights, bias, outputRow, b: b, oy: oy, channel: geometry.outC - 4,
                                   clamped, to: activation)
                        }
                    }
                    if low != -.infinity || high != .infinity { channelGroups(Clamped.self) } else { channelGroups(Unclamped.self) }
                    continue
                }
                var ox = 0
                while ox < geometry.outW {
                    let out = dst + ((b * geometry.outH + oy) * geometry.outW + ox) * geometry.outC
                    if geometry.multiplier == 1 && ox + 4 <= geometry.outW && geometry.isInteriorX(ox) && geometry.isInteriorX(ox + 3) {
                        fourPixels(geometry, src, weights, bias, out, b: b, oy: oy, ox: ox)
                        clamp(out, count: 4 * geometry.outC, low, high)
                        ox += 4
                    } else {
                        onePixel(geometry, src, weights, bias, out, b: b, oy: oy, ox: ox)
                        clamp(out, count: geometry.outC, low, high)
                        ox += 1
                    }
                }
            }
        }
    }

    struct Geometry {
        let batches, inH, inW, inC, kh, kw, outC, outH, outW, strideH, strideW, dilationH, dilationW, padH, padW, multiplier: Int

        /// The taps `k` with `0 <= origin + k·dilation < size`, as the range first..<end of k (empty: first >= end).
        @inline(__always) func insideTaps(origin: Int, size: Int, kernel: Int, dilation: Int) -> (Int, Int) {
            let first = origin >= 0 ? 0 : (-origin + dilation - 1) / dilation
            let end = origin >= size ? 0 : min(kernel, (size - 1 - origin) / dilation + 1)
            return (first, end)
        }

        /// Every horizontal tap of output column `ox` lies inside the input.
        @inline(__always) func isInteriorX(_ ox: Int) -> Bool {
            let ix = ox * strideW - padW
            return ix >= 0 && ix + (kw - 1) * dilationW < inW
        }
    }

    /// Output row `oy` of a 3x3 filter (depth multiplier 1) for the `V.scalarCount` channels from `channel` on: their
    /// nine weight vectors and bias stay in registers while the row's pixels go by, nine multiply-adds
    /// each, in the one-channel loop's tap order; taps outside the input are skipped (a loop of its own for the
    /// columns whose taps are all inside, on rows whose taps are too), clamped to `activation` as it is stored when
    /// `Clamp` is ``Clamped`` (a pass of its own over the output costs a noticeable share of a layer's time). A type,
    /// so that each case is its own specialization: with a Bool the layers without an activation run slower, their loop
    /// testing it and holding the bounds in registers the weights need (AVX2: nine SIMD16 weights are already 18 of 16).
    /// (Loading the weights once per four pixels, as ``fourPixels`` does, is slower than XNNPACK on MobileNetV2's
    /// layers: the products are scheduled ahead of their sums and spilled, and edge pixels take a slow path.)
    @inline(__always)
    static func row3x3<V: SIMD & MultiplyAdd, Clamp: ClampMode>(_: V.Type, _ g: Geometry, _ src: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                                              _ bias: UnsafePointer<Float>?, _ outputRow: UnsafeMutablePointer<Float>, b: Int, oy: Int,
                                              channel c: Int, _: Clamp.Type, to activation: (Float, Float)) where V.Scalar == Float {
        let iy0 = oy &* g.strideH &- g.padH
        @inline(__always) func rowInside(_ ky: Int) -> Bool { iy0 &+ ky &* g.dilationH >= 0 && iy0 &+ ky &* g.dilationH < g.inH }
        let (top, middle, bottom) = (rowInside(0), rowInside(1), rowInside(2))
        let interior = interiorOutputs(output: g.outW, input: g.inW, filter: g.kw, stride: g.strideW, dilation: g.dilationW, padBefore: g.padW)
        let row = g.dilationH &* g.inW &* g.inC, column = g.dilationW &* g.inC, pixel = g.strideW &* g.inC
        // Input offset of tap (0, 0) of output column 0, which may lie outside the input; only taps inside are read.
        let origin = ((b &* g.inH &+ iy0) &* g.inW &- g.padW) &* g.inC
        @inline(__always) func weight(_ tap: Int) -> V { UnsafeRawPointer(weights + (tap &* g.outC &+ c)).loadUnaligned(as: V.self) }
        let w0 = weight(0), w1 = weight(1), w2 = weight(2), w3 = weight(3), w4 = weight(4)
        let w5 = weight(5), w6 = weight(6), w7 = weight(7), w8 = weight(8)
        let start = bias.map { UnsafeRawPointer($0 + c).loadUnaligned(as: V.self) } ?? V()
        let low = V(repeating: activation.0), high = V(repeating: activation.1), clamps = Clamp.isClamped
        let base = src + c
        @inline(__always) func compute(_ ox: Int, rows: (Bool, Bool, Bool), columns: (Bool, Bool, Bool)) {
            let p = base + (origin &+ ox &* pixel)
            @inline(__always) func input(_ offset: Int) -> V { UnsafeRawPointer(p + offset).loadUnaligned(as: V.self) }
            var a = start
            if rows.0 {
                if columns.0 { a = .multiplyAdd(a, input(0), w0) }
                if columns.1 { a = .multiplyAdd(a, input(column), w1) }
                if columns.2 { a = .multiplyAdd(a, input(2 &* column), w2) }
            }
            if rows.1 {
                if columns.0 { a = .multiplyAdd(a, input(row), w3) }
                if columns.1 { a = .multiplyAdd(a, input(row &+ column), w4) }
                if columns.2 { a = .multiplyAdd(a, input(row &+ 2 &* column), w5) }
            }
            if rows.2 {
                if columns.0 { a = .multiplyAdd(a, input(2 &* row), w6) }
                if columns.1 { a = .multiplyAdd(a, input(2 &* row &+ column), w7) }
                if columns.2 { a = .multiplyAdd(a, input(2 &* row &+ 2 &* column), w8) }
            }
            UnsafeMutableRawPointer(outputRow + (ox &* g.outC &+ c)).storeBytes(of: clamps ? .clamp(a, low, high) : a, as: V.self)
        }
        @inline(__always) func edge(_ ox: Int) {
            let ix0 = ox &* g.strideW &- g.padW
            @inline(__always) func inside(_ kx: Int) -> Bool { ix0 &+ kx &* g.dilationW >= 0 && ix0 &+ kx &* g.dilationW < g.inW }
            compute(ox, rows: (top, middle, bottom), columns: (inside(0), inside(1), inside(2)))
        }
        for ox in 0..<interior.lowerBound { edge(ox) }
        if top && middle && bottom && !interior.isEmpty {
            // Three row pointers that advance a pixel at a time, each tap an offset of one (offsets per tap let the
            // compiler keep nine pointers, and spill them).
            var r0 = UnsafeRawPointer(base + (origin &+ interior.lowerBound &* pixel))
            var r1 = r0 + 4 &* row, r2 = r0 + 8 &* row
            var o = UnsafeMutableRawPointer(outputRow + (interior.lowerBound &* g.outC &+ c))
            let step = 4 &* pixel, columnBytes = 4 &* column, outputStep = 4 &* g.outC
            for _ in interior {
                var a = V.multiplyAdd(start, r0.loadUnaligned(as: V.self), w0)
                a = .multiplyAdd(a, r0.loadUnaligned(fromByteOffset: columnBytes, as: V.self), w1)
                a = .multiplyAdd(a, r0.loadUnaligned(fromByteOffset: 2 &* columnBytes, as: V.self), w2)
                a = .multiplyAdd(a, r1.loadUnaligned(as: V.self), w3)
                a = .multiplyAdd(a, r1.loadUnaligned(fromByteOffset: columnBytes, as: V.self), w4)
                a = .multiplyAdd(a, r1.loadUnaligned(fromByteOffset: 2 &* columnBytes, as: V.self), w5)
                a = .multiplyAdd(a, r2.loadUnaligned(as: V.self), w6)
                a = .multiplyAdd(a, r2.loadUnaligned(fromByteOffset: columnBytes, as: V.self), w7)
                a = .multiplyAdd(a, r2.loadUnaligned(fromByteOffset: 2 &* columnBytes, as: V.self), w8)
                o.storeBytes(of: clamps ? .clamp(a, low, high) : a, as: V.self)
                r0 += step; r1 += step; r2 += step; o += outputStep
            }
        } else {
            for ox in interior { compute(ox, rows: (top, middle, bottom), columns: (true, true, true)) }
        }
        for ox in interior.upperBound..<g.outW { edge(ox) }
    }

    /// Four horizontally adjacent output pixels whose taps are all inside the input in x: each weight vector is
    /// loaded once and used four times, 16 channels per step, then 8 and 4 for the channels left (layers of 8, 24
    /// or 36 channels), then one at a time.
    @inline(__always)
    static func fourPixels(_ g: Geometry, _ src: UnsafePointer<Float>, _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>?,
                           _ out: UnsafeMutablePointer<Float>, b: Int, oy: Int, ox: Int) {
        let iy0 = oy * g.strideH - g.padH, ix0 = ox * g.strideW - g.padW
        var c = 0
        while c + 16 <= g.outC {
            fourPixelsLanes(SIMD16<Float>.self, g, src, weights, bias, out, b: b, iy0: iy0, ix0: ix0, channel: c)
            c += 16
        }
        if c + 8 <= g.outC {
            fourPixelsLanes(SIMD8<Float>.self, g, src, weights, bias, out, b: b, iy0: iy0, ix0: ix0, channel: c)
            c += 8
        }
        if c + 4 <= g.outC {
            fourPixelsLanes(SIMD4<Float>.self, g, src, weights, bias, out, b: b, iy0: iy0, ix0: ix0, channel: c)
            c += 4
        }
        while c < g.outC {
            for pixel in 0..<4 {
                var sum = bias?[c] ?? 0
                for ky in 0..<g.kh {
                    let iy = iy0 + ky * g.dilationH
                    guard iy >= 0 && iy < g.inH else { continue }
                    for kx in 0..<g.kw {
                        let ix = ix0 + pixel * g.strideW + kx * g.dilationW
                        sum = .multiplyAdd(sum, src[((b * g.inH + iy) * g.inW + ix) * g.inC + c], weights[(ky * g.kw + kx) * g.outC + c])
                    }
                }
                out[pixel * g.outC + c] = sum
            }
            c += 1
        }
    }

    /// `V.scalarCount` channels from `channel` on of four adjacent output pixels. Every lane adds its taps in the
    /// same order as the one-channel loop, so the width chosen does not change a result.
    @inline(__always)
    static func fourPixelsLanes<V: SIMD>(_: V.Type, _ g: Geometry, _ src: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                                         _ bias: UnsafePointer<Float>?, _ out: UnsafeMutablePointer<Float>,
                                         b: Int, iy0: Int, ix0: Int, channel c: Int) where V.Scalar == Float, V: MultiplyAdd {
        let step = g.strideW * g.inC
        var a0 = bias.map { UnsafeRawPointer($0 + c).loadUnaligned(as: V.self) } ?? V()
        var a1 = a0, a2 = a0, a3 = a0
        if g.kh == 3 && g.kw == 3 && iy0 >= 0 && iy0 &+ 2 &* g.dilationH < g.inH {
            // The common 3x3 filter with every row inside: nine taps unrolled, addresses by adding strides.
            let rowStep: Int = g.dilationH &* g.inW &* g.inC &* 4
            let columnStep: Int = g.dilationW &* g.inC &* 4, pixelStep: Int = step &* 4
            let pixelIndex: Int = (b &* g.inH &+ iy0) &* g.inW &+ ix0
            let first = UnsafeRawPointer(src + (pixelIndex &* g.inC &+ c))
            let filter = UnsafeRawPointer(weights + c), filterStep = g.outC &* 4
            @inline(__always) func tap(_ ky: Int, _ kx: Int) {
                let tapIndex: Int = ky &* 3 &+ kx, offset: Int = ky &* rowStep &+ kx &* columnStep
                let w = filter.loadUnaligned(fromByteOffset: tapIndex &* filterStep, as: V.self)
                let p = first + offset
                a0 = .multiplyAdd(a0, p.loadUnaligned(as: V.self), w)
                a1 = .multiplyAdd(a1, p.loadUnaligned(fromByteOffset: pixelStep, as: V.self), w)
                a2 = .multiplyAdd(a2, p.loadUnaligned(fromByteOffset: 2 &* pixelStep, as: V.self), w)
                a3 = .multiplyAdd(a3, p.loadUnaligned(fromByteOffset: 3 &* pixelStep, as: V.self), w)
            }
            tap(0, 0); tap(0, 1); tap(0, 2)
            tap(1, 0); tap(1, 1); tap(1, 2)
            tap(2, 0); tap(2, 1); tap(2, 2)
            let o = UnsafeMutableRawPointer(out + c)
            o.storeBytes(of: a0, as: V.self)
            o.storeBytes(of: a1, toByteOffset: 4 &* g.outC, as: V.self)
            o.storeBytes(of: a2, toByteOffset: 8 &* g.outC, as: V.self)
            o.storeBytes(of: a3, toByteOffset: 12 &* g.outC, as: V.self)
            return
        }
        for ky in 0..<g.kh {
            let iy = iy0 + ky * g.dilationH
            guard iy >= 0 && iy < g.inH else { continue }
            let row = src + ((b * g.inH + iy) * g.inW + ix0) * g.inC + c
            let wrow = weights + ky * g.kw * g.outC + c
            for kx in 0..<g.kw {
                let w = UnsafeRawPointer(wrow + kx * g.outC).loadUnaligned(as: V.self)
                let p = UnsafeRawPointer(row + kx * g.dilationW * g.inC)
                a0 = .multiplyAdd(a0, p.loadUnaligned(as: V.self), w)
                a1 = .multiplyAdd(a1, p.loadUnaligned(fromByteOffset: 4 * step, as: V.self), w)
                a2 = .multiplyAdd(a2, p.loadUnaligned(fromByteOffset: 8 * step, as: V.self), w)
                a3 = .multiplyAdd(a3, p.loadUnaligned(fromByteOffset: 12 * step, as: V.self), w)
            }
        }
        let o = UnsafeMutableRawPointer(out + c)
        o.storeBytes(of: a0, as: V.self)
        o.storeBytes(of: a1, toByteOffset: 4 * g.outC, as: V.self)
        o.storeBytes(of: a2, toByteOffset: 8 * g.outC, as: V.self)
        o.storeBytes(of: a3, toByteOffset: 12 * g.outC, as: V.self)
    }

    /// One output pixel, any position and depth multiplier (its channels from `firstChannel` on).
    @inline(__always)
    static func onePixel(_ g: Geometry, _ src: UnsafePointer<Float>, _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>?,
                         _ out: UnsafeMutablePointer<Float>, b: Int, oy: Int, ox: Int, firstChannel: Int = 0) {
        let iy0 = oy * g.strideH - g.padH, ix0 = ox * g.strideW - g.padW
        if g.multiplier != 1 {
            for oc in firstChannel..<g.outC { out[oc] = scalarChannel(g, src, weights, bias, b: b, iy0: iy0, ix0: ix0, channel: oc) }
            return
        }
        var c = firstChannel
        while c + 16 <= g.outC {
            onePixelLanes(SIMD16<Float>.self, g, src, weights, bias, out, b: b, iy0: iy0, ix0: ix0, channel: c)
            c += 16
        }
        if c + 8 <= g.outC {
            onePixelLanes(SIMD8<Float>.self, g, src, weights, bias, out, b: b, iy0: iy0, ix0: ix0, channel: c)
            c += 8
        }
        if c + 4 <= g.outC {
            onePixelLanes(SIMD4<Float>.self, g, src, weights, bias, out, b: b, iy0: iy0, ix0: ix0, channel: c)
            c += 4
        }
        while c < g.outC {
            out[c] = scalarChannel(g, src, weights, bias, b: b, iy0: iy0, ix0: ix0, channel: c)
            c += 1
        }
    }

    /// `V.scalarCount` channels from `channel` on of one output pixel (depth multiplier 1), skipping taps outside
    /// the input; the taps are added in the one-channel loop's order.
    @inline(__always)
    static func onePixelLanes<V: SIMD>(_: V.Type, _ g: Geometry, _ src: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                                       _ bias: UnsafePointer<Float>?, _ out: UnsafeMutablePointer<Float>,
                                       b: Int, iy0: Int, ix0: Int, channel c: Int) where V.Scalar == Float, V: MultiplyAdd {
        var acc = bias.map { UnsafeRawPointer($0 + c).loadUnaligned(as: V.self) } ?? V()
        // The taps inside the input in x, kx in first..<end, found once for all rows (the edge columns of a layer
        // are about a tenth of its pixels, but tested tap by tap they took a far larger share of its time).
        let (first, end) = g.insideTaps(origin: ix0, size: g.inW, kernel: g.kw, dilation: g.dilationW)
        guard first < end else {
            UnsafeMutableRawPointer(out + c).storeBytes(of: acc, as: V.self)
            return
        }
        let tapStep = g.dilationW &* g.inC, weightStep = g.outC
        for ky in 0..<g.kh {
            let iy = iy0 &+ ky &* g.dilationH
            guard iy >= 0 && iy < g.inH else { continue }
            var p = src + (((b &* g.inH &+ iy) &* g.inW &+ ix0 &+ first &* g.dilationW) &* g.inC &+ c)
            var w = weights + ((ky &* g.kw &+ first) &* g.outC &+ c)
            for _ in first..<end {
                acc = .multiplyAdd(acc, UnsafeRawPointer(p).loadUnaligned(as: V.self), UnsafeRawPointer(w).loadUnaligned(as: V.self))
                p += tapStep
                w += weightStep
            }
        }
        UnsafeMutableRawPointer(out + c).storeBytes(of: acc, as: V.self)
    }

    /// One output channel of one pixel, any depth multiplier, skipping taps outside the input.
    @inline(__always)
    static func scalarChannel(_ g: Geometry, _ src: UnsafePointer<Float>, _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>?,
                              b: Int, iy0: Int, ix0: Int, channel oc: Int) -> Float {
        let ic = oc / g.multiplier
        var sum = bias?[oc] ?? 0
        for ky in 0..<g.kh {
            let iy = iy0 + ky * g.dilationH
            guard iy >= 0 && iy < g.inH else { continue }
            for kx in 0..<g.kw {
                let ix = ix0 + kx * g.dilationW
                guard ix >= 0 && ix < g.inW else { continue }
                sum = .multiplyAdd(sum, src[((b * g.inH + iy) * g.inW + ix) * g.inC + ic], weights[(ky * g.kw + kx) * g.outC + oc])
            }
        }
        return sum
    }

    /// The definition, for tests.
    static func reference(input: [Float], inputShape: [Int], filter: [Float], filterShape: [Int], bias: [Float]?,
                          options: DepthwiseConv2DOptions) throws -> (values: [Float], shape: [Int]) {
        let (batches, inH, inW, inC) = (inputShape[0], inputShape[1], inputShape[2], inputShape[3])
        let (kh, kw, outC) = (filterShape[1], filterShape[2], filterShape[3])
        let multiplier = outC / inC
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
                sum += input[((b * inH + iy) * inW + ix) * inC + oc / multiplier] * filter[(ky * kw + kx) * outC + oc]
            } }
            out[((b * gh.output + oy) * gw.output + ox) * outC + oc] = min(max(sum, low), high)
        } } } }
        return (out, [batches, gh.output, gw.output, outC])
    }
}

/// Whether a kernel specialized on it clamps its results to the activation range (see ``DepthwiseConv2D/row3x3``).
protocol ClampMode { static var isClamped: Bool { get } }
enum Clamped: ClampMode { static var isClamped: Bool { true } }
enum Unclamped: ClampMode { static var isClamped: Bool { false } }

extension DepthwiseConv2D: ClampAbsorbing {}

extension DepthwiseConv2D: SpatialPadAbsorbing {}
