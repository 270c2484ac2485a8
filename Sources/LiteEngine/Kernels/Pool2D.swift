#if LITE_AVX2 || LITE_AVX512_VNNI
import _Builtin_intrinsics.intel
#endif
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

    /// Clamp range of the integer path (uint8/int8: same scale and zero point in and out, as TFLite requires).
    var quantizedRange: (Int32, Int32)?

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32, .uint8, .int8, .int16)
        try expectRank(input, 4)
        if input.type != .float32 {
            guard output.type == input.type else { throw KernelError.unsupported("\(input.type) pooling into \(output.type)") }
            try Int16Activations.expectSymmetric(input, output)
            let qo = try QuantizedTensorInfo(output)
            let (typeMin, typeMax) = try LiteEngine.quantizedRange(input.type)
            quantizedRange = try IntegerArithmetic.activationRange(options.activation, scale: qo.scale, zeroPoint: qo.zeroPoint, typeMin: typeMin, typeMax: typeMax)
        }
        geometryH = try SpatialGeometry(input: input.dim(1), filter: options.filterH, stride: options.strideH, dilation: 1, padding: options.padding)
        geometryW = try SpatialGeometry(input: input.dim(2), filter: options.filterW, stride: options.strideW, dilation: 1, padding: options.padding)
        if input.type == .float32 { output.type = .float32 }
        output.shape = [input.dim(0), geometryH.output, geometryW.output, input.dim(3)]
    }

    /// uint8/int8/int16 pooling as TFLite's reference kernels: int32 sums, the average rounded half away from zero
    /// (`(acc ± count/2) / count`), the maximum as is, then the activation clamp. Output rows are split over threads.
    func runQuantized(_ input: Tensor, _ output: Tensor, range: (Int32, Int32), threads: Int) {
        switch input.type {
        case .int8: runQuantized(input.pointer(Int8.self), output.pointer(Int8.self), input: input, range: range, threads: threads)
        case .int16: runQuantized(input.pointer(Int16.self), output.pointer(Int16.self), input: input, range: range, threads: threads)
        default: runQuantized(input.pointer(UInt8.self), output.pointer(UInt8.self), input: input, range: range, threads: threads)
        }
    }

    private func runQuantized<Element: FixedWidthInteger>(_ src: UnsafePointer<Element>, _ dst: UnsafeMutablePointer<Element>, input: Tensor,
                                                          range: (Int32, Int32), threads: Int) {
        let (batches, inH, inW, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (geometryH.output, geometryW.output)
        let options = self.options, padH = geometryH.padBefore, padW = geometryW.padBefore, average = isAverage
        guard channels > 0 else { return }
        parallelFor(batches * outH, threads: threads, workPerItem: outW * channels * options.filterH * options.filterW) { rowRange in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: average ? channels : 0) { acc in
                for by in rowRange {
                    let b = by / outH, oy = by % outH
                    let y0 = max(oy * options.strideH - padH, 0), rows = y0 ..< max(y0, min(oy * options.strideH - padH + options.filterH, inH))
                    let image = src + b * inH * inW * channels
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
                        let count = Int32(rows.count * columns.count)
                        for c in 0..<channels {
                            var v = sums[c]
                            if count > 0 { v = v > 0 ? (v + count / 2) / count : (v - count / 2) / count }
                            out[c] = Element(truncatingIfNeeded: min(max(v, range.0), range.1))
                        }
                    }
                }
            }
        }
    }

    /// The largest value of each channel over a window of `image` (HWC, `width` pixels a row), clamped to `range` and
    /// stored at `out`. An empty window gives the type's lowest value, clamped, as TFLite's loop starting there does.
    /// With AVX2 the channels go 16 bytes at a time (the last piece overlapping the one before: the same maxima again).
    @inline(__always)
    static func windowMaximum<Element: FixedWidthInteger>(_ image: UnsafePointer<Element>, _ rows: Range<Int>, _ columns: Range<Int>, width: Int,
                                                          channels: Int, _ out: UnsafeMutablePointer<Element>, _ range: (Int32, Int32)) {
        var c = 0
        #if LITE_AVX2 || LITE_AVX512_VNNI
        let lanes = 16 / MemoryLayout<Element>.size
        if channels >= lanes {
            let low = Element(truncatingIfNeeded: range.0), high = Element(truncatingIfNeeded: range.1)
            let lowVector = splat(low), highVector = splat(high)
            while c < channels {
                c = min(c, channels - lanes)
                var maximum = splat(Element.min)
                for y in rows {
                    for x in columns {
                        let v = _mm_loadu_si128(UnsafeRawPointer(image + ((y &* width &+ x) &* channels &+ c)).assumingMemoryBound(to: __m128i_u.self))
                        maximum = laneMaximum(maximum, v, Element.self)
                    }
                }
                maximum = laneMinimum(laneMaximum(maximum, lowVector, Element.self), highVector, Element.self)
                _mm_storeu_si128(UnsafeMutableRawPointer(out + c).assumingMemoryBound(to: __m128i_u.self), maximum)
                c += lanes
            }
            return
        }
        #endif
        while c < channels {
            var maximum = Element.min
            for y in rows { for x in columns { maximum = max(maximum, image[(y * width + x) * channels + c]) } }
            out[c] = Element(truncatingIfNeeded: min(max(Int32(truncatingIfNeeded: maximum), range.0), range.1))
            c += 1
        }
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        if let quantizedRange { return runQuantized(input, output, range: quantizedRange, threads: context.threads) }
        let (batches, inH, inW, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (geometryH.output, geometryW.output)
        let src = input.floats, dst = output.floats
        let options = self.options, padH = geometryH.padBefore, padW = geometryW.padBefore, average = isAverage
        let (low, high) = activation
        #if LITE_AVX2 || LITE_AVX512_VNNI
        if !average {
            parallelFor(batches * outH, threads: context.threads, workPerItem: 4 * outW * channels * options.filterH * options.filterW) { range in
                for by in range {
                    let b = by / outH, oy = by % outH
                    let y0 = max(oy * options.strideH - padH, 0), rows = y0 ..< max(y0, min(oy * options.strideH - padH + options.filterH, inH))
                    let image = UnsafePointer(src + b * inH * inW * channels)
                    for ox in 0..<outW {
                        let x0 = max(ox * options.strideW - padW, 0), columns = x0 ..< max(x0, min(ox * options.strideW - padW + options.filterW, inW))
                        let out = dst + ((b * outH + oy) * outW + ox) * channels
                        // Channels in sixteens (AVX-512) or eights, the last piece overlapping the ones before (the same
                        // values again).
                        var c = 0
                        #if LITE_AVX512_VNNI
                        while c < channels && channels >= 16 {
                            c = min(c, channels - 16)
                            Self.windowMaximum16(image, rows, columns, width: inW, channels: channels, from: c, out, low, high)
                            c += 16
                        }
                        #endif
                        while c < channels && channels >= 8 {
                            c = min(c, channels - 8)
                            Self.windowMaximum8(image, rows, columns, width: inW, channels: channels, from: c, out, low, high)
                            c += 8
                        }
                        while c < channels {
                            var maximum = -Float.greatestFiniteMagnitude
                            for y in rows { for x in columns { let v = image[(y * inW + x) * channels + c]; if v > maximum { maximum = v } } }
                            out[c] = min(max(maximum, low), high)
                            c += 1
                        }
                    }
                }
            }
            return
        }
        #endif
        parallelFor(batches * outH, threads: context.threads, workPerItem: outW * channels * options.filterH * options.filterW) { range in
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
    #if LITE_AVX2 || LITE_AVX512_VNNI
    /// The maximum of 8 channels from `channel` on over a window of `image` (HWC, `width` pixels a row), clamped
    /// and stored at `out + channel`, in one AVX register. The running maximum starts at -greatestFiniteMagnitude
    /// and `vmaxps(v, maximum)` keeps it when v is not larger, NaN included, as TFLite's `std::max` loop does.
    /// (Swift's SIMD comparisons compile to a lane-by-lane loop through memory here: 10x slower than the scalar code.)
    @inline(__always)
    static func windowMaximum8(_ image: UnsafePointer<Float>, _ rows: Range<Int>, _ columns: Range<Int>, width: Int,
                               channels: Int, from channel: Int, _ out: UnsafeMutablePointer<Float>, _ low: Float, _ high: Float) {
        var maximum = _mm256_set1_ps(-.greatestFiniteMagnitude)
        for y in rows {
            for x in columns {
                maximum = _mm256_max_ps(_mm256_loadu_ps(image + ((y &* width &+ x) &* channels &+ channel)), maximum)
            }
        }
        _mm256_storeu_ps(out + channel, _mm256_min_ps(_mm256_set1_ps(high), _mm256_max_ps(_mm256_set1_ps(low), maximum)))
    }
    #endif

    #if LITE_AVX2 || LITE_AVX512_VNNI
    /// `value` in every lane of a 128-bit register (16 int8/uint8 or 8 int16 lanes).
    @inline(__always)
    static func splat<Element: FixedWidthInteger>(_ value: Element) -> __m128i {
        switch MemoryLayout<Element>.size {
        case 1: return _mm_set1_epi8(CChar(truncatingIfNeeded: value))
        default: return _mm_set1_epi16(Int16(truncatingIfNeeded: value))
        }
    }

    /// Lane-wise maximum for the element type: signed or unsigned bytes, or signed 16-bit lanes.
    @inline(__always)
    static func laneMaximum<Element: FixedWidthInteger>(_ a: __m128i, _ b: __m128i, _: Element.Type) -> __m128i {
        if Element.self == UInt8.self { return _mm_max_epu8(a, b) }
        if Element.self == Int8.self { return _mm_max_epi8(a, b) }
        return _mm_max_epi16(a, b)
    }

    @inline(__always)
    static func laneMinimum<Element: FixedWidthInteger>(_ a: __m128i, _ b: __m128i, _: Element.Type) -> __m128i {
        if Element.self == UInt8.self { return _mm_min_epu8(a, b) }
        if Element.self == Int8.self { return _mm_min_epi8(a, b) }
        return _mm_min_epi16(a, b)
    }
    #endif

    #if LITE_AVX512_VNNI
    /// ``windowMaximum8(_:_:_:width:channels:from:_:_:_:)`` for 16 channels in one AVX-512 register.
    @inline(__always)
    static func windowMaximum16(_ image: UnsafePointer<Float>, _ rows: Range<Int>, _ columns: Range<Int>, width: Int,
                                channels: Int, from channel: Int, _ out: UnsafeMutablePointer<Float>, _ low: Float, _ high: Float) {
        var maximum = _mm512_set1_ps(-.greatestFiniteMagnitude)
        for y in rows {
            for x in columns {
                maximum = _mm512_max_ps(_mm512_loadu_ps(image + ((y &* width &+ x) &* channels &+ channel)), maximum)
            }
        }
        _mm512_storeu_ps(out + channel, _mm512_min_ps(_mm512_set1_ps(high), _mm512_max_ps(_mm512_set1_ps(low), maximum)))
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
