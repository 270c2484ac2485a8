import CLiteKernels
import LiteFormat

/// AVERAGE_POOL_2D and MAX_POOL_2D over NHWC float tensors.
///
/// Windows are clipped to the input: the average divides by the number of in-bounds taps (TFLite's
/// `filter_count`), never by the full window; padding never takes part in a max.
class Pool2D: Kernel {
    var options: Pool2DOptions
    var geometryH: SpatialGeometry!
    var geometryW: SpatialGeometry!
    var activation: (Float, Float) = (-.infinity, .infinity)
    var isAverage: Bool { false }

    required init(_ node: NodeContext) throws {
        options = try Pool2DOptions(node.options)
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
        activation = try builtinActivationRange(options.activation)
    }

    /// The path `run` takes, chosen by `prepare` from the input's type and the kernels this CPU has.
    enum Plan {
        /// float32, window by window in Swift (the baseline level).
        case float
        #if arch(x86_64)
        /// float32 by the C row kernel of ``KernelConfiguration/current`` for this op (maxima or averages).
        case floatRows(ElementwiseKernels.PoolRowF32)
        #endif
        /// uint8/int8/int16 (same scale and zero point in and out, as TFLite requires), clamped to `range`.
        case quantized(range: (Int32, Int32))
        #if arch(x86_64)
        /// uint8/int8/int16 MAX_POOL_2D whose pixels are at least 16 bytes (the row kernels take channels 16 bytes at a
        /// time), by the C row kernels; clamped to `range`.
        case quantizedMaximumRows(range: (Int32, Int32), ElementwiseKernels)
        #endif
    }

    #if arch(x86_64)
    typealias RowKernels = ElementwiseKernels
    #else
    typealias RowKernels = Never
    #endif

    /// The path `run` takes (nil before `prepare`).
    private(set) var plan: Plan?

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32, .uint8, .int8, .int16)
        try expectRank(input, 4)
        #if arch(x86_64)
        let rowKernels = KernelConfiguration.current.elementwise
        let maximumKernels = isAverage ? nil : rowKernels
        #endif
        switch input.type {
        case .float32:
            plan = .float
            #if arch(x86_64)
            if let rowKernels { plan = .floatRows(isAverage ? rowKernels.averagePoolF32 : rowKernels.maxPoolF32) }
            #endif
        default:
            guard output.type == input.type else { throw KernelError.unsupported("\(input.type) pooling into \(output.type)") }
            try Int16Activations.expectSymmetric(input, output)
            let qo = try QuantizedTensorInfo(output)
            let (typeMin, typeMax) = try LiteEngine.quantizedRange(input.type)
            let range = try IntegerArithmetic.activationRange(options.activation, scale: qo.scale, zeroPoint: qo.zeroPoint,
                                                              typeMin: typeMin, typeMax: typeMax)
            plan = .quantized(range: range)
            #if arch(x86_64)
            if let maximumKernels, input.dim(3) * (input.type.byteSize ?? 1) >= 16 { plan = .quantizedMaximumRows(range: range, maximumKernels) }
            #endif
        }
        geometryH = try SpatialGeometry(input: input.dim(1), filter: options.filterH, stride: options.strideH, dilation: 1, padding: options.padding)
        geometryW = try SpatialGeometry(input: input.dim(2), filter: options.filterW, stride: options.strideW, dilation: 1, padding: options.padding)
        if input.type == .float32 { output.type = .float32 }
        output.shape = [input.dim(0), geometryH.output, geometryW.output, input.dim(3)]
    }

    /// uint8/int8/int16 pooling as TFLite's reference kernels: int32 sums, the average rounded half away from zero
    /// (`(acc ± count/2) / count`), the maximum as is, then the activation clamp. Output rows are split over threads.
    /// `rowKernels`, when given, take every output row of a maximum.
    func runQuantized(_ input: Tensor, _ output: Tensor, range: (Int32, Int32), rowKernels: RowKernels?, threads: Int) {
        switch input.type {
        case .int8: runQuantized(input.pointer(Int8.self), output.pointer(Int8.self), input: input, range: range, rowKernels, threads: threads)
        case .int16: runQuantized(input.pointer(Int16.self), output.pointer(Int16.self), input: input, range: range, rowKernels, threads: threads)
        default: runQuantized(input.pointer(UInt8.self), output.pointer(UInt8.self), input: input, range: range, rowKernels, threads: threads)
        }
    }

    private func runQuantized<Element: FixedWidthInteger>(_ src: UnsafePointer<Element>, _ dst: UnsafeMutablePointer<Element>, input: Tensor,
                                                          range: (Int32, Int32), _ rowKernels: RowKernels?, threads: Int) {
        let (batches, inH, inW, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (geometryH.output, geometryW.output)
        let options = self.options, padH = geometryH.padBefore, padW = geometryW.padBefore, average = isAverage
        guard channels > 0 else { return }
        #if arch(x86_64)
        // Read by every thread: not an inout argument.
        let geometry = UnsafeMutablePointer<lite_pool_row_geometry>.allocate(capacity: 1)
        geometry.initialize(to: rowGeometry(width: inW, channels: channels))
        defer { geometry.deallocate() }
        #endif
        let rowWork = poolingRowWork(outW: outW, channels: channels, filterH: options.filterH, filterW: options.filterW, inH: inH, inW: inW)
        parallelFor(batches * outH, threads: threads, workPerItem: rowWork) { rowRange in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: average ? channels : 0) { acc in
                for by in rowRange {
                    let b = by / outH, oy = by % outH
                    let y0 = max(oy * options.strideH - padH, 0), rows = y0 ..< max(y0, min(oy * options.strideH - padH + options.filterH, inH))
                    let image = src + b * inH * inW * channels
                    #if arch(x86_64)
                    if let rowKernels {
                        Self.maximumRow(image, rows, geometry, dst + (b * outH + oy) * outW * channels, range, rowKernels)
                        continue
                    }
                    #endif
                    for ox in 0..<outW {
                        let x0 = max(ox * options.strideW - padW, 0), columns = x0 ..< max(x0, min(ox * options.strideW - padW + options.filterW, inW))
                        let out = dst + ((b * outH + oy) * outW + ox) * channels
                        if !average {
                            Self.windowMaximum(image, rows, columns, width: inW, channels: channels, out, range)
                            continue
                        }
                        let sums = acc.baseAddress!
                        sums.update(repeating: 0, count: channels)
                        for y in rows where !columns.isEmpty {
                            // A window row's pixels are consecutive in memory.
                            accumulatePixels(image + (y * inW + columns.lowerBound) * channels, pixels: columns.count, depth: channels, into: sums)
                        }
                        // The rounding in 64 bits: an int16 sum near Int32's limits plus half the count, or a count
                        // of more than 2^31 taps, would overflow 32 (LiteRT's int32 arithmetic does, there).
                        let count = Int64(rows.count * columns.count)
                        for c in 0..<channels {
                            var v = Int64(sums[c])
                            if count > 0 { v = v > 0 ? (v + count / 2) / count : (v - count / 2) / count }
                            out[c] = Element(truncatingIfNeeded: min(max(v, Int64(range.0)), Int64(range.1)))
                        }
                    }
                }
            }
        }
    }

    /// The largest value of each channel over a window of `image` (HWC, `width` pixels a row), clamped to `range` and
    /// stored at `out`. An empty window gives the type's lowest value, clamped, as TFLite's loop starting there does.
    @inline(__always)
    static func windowMaximum<Element: FixedWidthInteger>(_ image: UnsafePointer<Element>, _ rows: Range<Int>, _ columns: Range<Int>, width: Int,
                                                          channels: Int, _ out: UnsafeMutablePointer<Element>, _ range: (Int32, Int32)) {
        var c = 0
        while c < channels {
            var maximum = Element.min
            for y in rows { for x in columns { maximum = max(maximum, image[(y * width + x) * channels + c]) } }
            out[c] = Element(truncatingIfNeeded: min(max(Int32(truncatingIfNeeded: maximum), range.0), range.1))
            c += 1
        }
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        // No channels (or a batch of none): nothing to pool, however many positions the other dimensions span.
        guard output.elementCount > 0 else { return }
        switch plan {
        case .quantized(let range)?: runQuantized(input, output, range: range, rowKernels: nil, threads: context.threads)
        #if arch(x86_64)
        case .quantizedMaximumRows(let range, let kernels)?: runQuantized(input, output, range: range, rowKernels: kernels, threads: context.threads)
        case .floatRows(let kernel)?: runFloatRows(input, output, kernel, threads: context.threads)
        #endif
        case .float?: runFloat(input, output, threads: context.threads)
        case nil: throw KernelError.invalid("\(node.code) ran before it was prepared")
        }
    }

    #if arch(x86_64)
    /// float32 pooling, one output row per C call.
    private func runFloatRows(_ input: Tensor, _ output: Tensor, _ kernel: ElementwiseKernels.PoolRowF32, threads: Int) {
        let (batches, inH, inW, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (geometryH.output, geometryW.output)
        let src = input.floats, dst = output.floats
        let options = self.options, padH = geometryH.padBefore
        let (low, high) = activation
        let geometry = UnsafeMutablePointer<lite_pool_row_geometry>.allocate(capacity: 1)
        geometry.initialize(to: rowGeometry(width: inW, channels: channels))
        defer { geometry.deallocate() }
        let rowWork = poolingRowWork(outW: outW, channels: channels, filterH: options.filterH, filterW: options.filterW, inH: inH, inW: inW)
        parallelFor(batches * outH, threads: threads, workPerItem: saturatingProduct(4, rowWork)) { range in
            for by in range {
                let b = by / outH, oy = by % outH
                let y0 = max(oy * options.strideH - padH, 0), y1 = max(y0, min(oy * options.strideH - padH + options.filterH, inH))
                kernel(src + b * inH * inW * channels, y0, y1, geometry, dst + (b * outH + oy) * outW * channels, low, high)
            }
        }
    }
    #endif

    /// float32 pooling window by window: the mean or the maximum of each window's in-bounds values, then the clamp.
    private func runFloat(_ input: Tensor, _ output: Tensor, threads: Int) {
        let (batches, inH, inW, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (geometryH.output, geometryW.output)
        let src = input.floats, dst = output.floats
        let options = self.options, padH = geometryH.padBefore, padW = geometryW.padBefore, average = isAverage
        let (low, high) = activation
        let rowWork = poolingRowWork(outW: outW, channels: channels, filterH: options.filterH, filterW: options.filterW, inH: inH, inW: inW)
        parallelFor(batches * outH, threads: threads, workPerItem: rowWork) { range in
            for by in range {
                let b = by / outH, oy = by % outH
                let y0 = max(oy * options.strideH - padH, 0), y1 = min(oy * options.strideH - padH + options.filterH, inH)
                for ox in 0..<outW {
                    let x0 = max(ox * options.strideW - padW, 0), x1 = min(ox * options.strideW - padW + options.filterW, inW)
                    let count = Float(max((y1 - y0) * (x1 - x0), 1))
                    let out = dst + ((b * outH + oy) * outW + ox) * channels
                    if average {
                        out.update(repeating: 0, count: channels)
                    } else {
                        out.update(repeating: -.greatestFiniteMagnitude, count: channels)
                    }
                    for y in y0..<max(y0, y1) {
                        for x in x0..<max(x0, x1) {
                            let v = src + ((b * inH + y) * inW + x) * channels
                            if average {
                                for c in 0..<channels { out[c] += v[c] }
                            } else {
                                for c in 0..<channels { out[c] = v[c] > out[c] ? v[c] : out[c] }
                            }
                        }
                    }
                    if average {
                        for c in 0..<channels { out[c] /= count }
                    }
                    clamp(out, count: channels, low, high)
                }
            }
        }
    }
}

extension Pool2D {
    #if arch(x86_64)
    /// The row kernels' horizontal geometry for an input `width` pixels wide.
    func rowGeometry(width: Int, channels: Int) -> lite_pool_row_geometry {
        lite_pool_row_geometry(input_width: width, channels: channels, output_width: geometryW.output, stride: options.strideW,
                               pad_left: geometryW.padBefore, filter_width: options.filterW)
    }

    /// One output row of quantized MAX_POOL_2D (the rows `rows` of `image`) by the row kernel of `Element`: each window's
    /// maxima as ``windowMaximum(_:_:_:width:channels:_:_:)`` computes them, 16 bytes of channels at a time.
    @inline(__always)
    static func maximumRow<Element: FixedWidthInteger>(_ image: UnsafePointer<Element>, _ rows: Range<Int>, _ geometry: UnsafePointer<lite_pool_row_geometry>,
                                                       _ out: UnsafeMutablePointer<Element>, _ range: (Int32, Int32), _ kernels: ElementwiseKernels) {
        let (start, end) = (rows.lowerBound, rows.upperBound)
        if Element.self == UInt8.self {
            kernels.maxPoolU8(UnsafeRawPointer(image).assumingMemoryBound(to: UInt8.self), start, end, geometry,
                              UnsafeMutableRawPointer(out).assumingMemoryBound(to: UInt8.self),
                              UInt8(truncatingIfNeeded: range.0), UInt8(truncatingIfNeeded: range.1))
        } else if Element.self == Int8.self {
            kernels.maxPoolS8(UnsafeRawPointer(image).assumingMemoryBound(to: Int8.self), start, end, geometry,
                              UnsafeMutableRawPointer(out).assumingMemoryBound(to: Int8.self),
                              Int8(truncatingIfNeeded: range.0), Int8(truncatingIfNeeded: range.1))
        } else {
            kernels.maxPoolS16(UnsafeRawPointer(image).assumingMemoryBound(to: Int16.self), start, end, geometry,
                               UnsafeMutableRawPointer(out).assumingMemoryBound(to: Int16.self),
                               Int16(truncatingIfNeeded: range.0), Int16(truncatingIfNeeded: range.1))
        }
    }
    #endif

    /// The definition, for tests: each output is the mean or max of its window's in-bounds inputs.
    static func reference(input: [Float], shape: [Int], options: Pool2DOptions, average: Bool) throws -> (values: [Float], shape: [Int]) {
        let (batches, inH, inW, channels) = (shape[0], shape[1], shape[2], shape[3])
        let gh = try SpatialGeometry(input: inH, filter: options.filterH, stride: options.strideH, dilation: 1, padding: options.padding)
        let gw = try SpatialGeometry(input: inW, filter: options.filterW, stride: options.strideW, dilation: 1, padding: options.padding)
        let (low, high) = try builtinActivationRange(options.activation)
        var out: [Float] = []
        for b in 0..<batches { for oy in 0..<gh.output { for ox in 0..<gw.output { for c in 0..<channels {
            var values: [Float] = []
            for ky in 0..<options.filterH { for kx in 0..<options.filterW {
                let iy = oy * options.strideH - gh.padBefore + ky, ix = ox * options.strideW - gw.padBefore + kx
                if iy >= 0, iy < inH, ix >= 0, ix < inW { values.append(input[((b * inH + iy) * inW + ix) * channels + c]) }
            } }
            let v = average ? values.reduce(0, +) / Float(max(values.count, 1)) : (values.max() ?? 0)
            out.append(min(max(v, low), high))
        } } } }
        return (out, [batches, gh.output, gw.output, channels])
    }
}
