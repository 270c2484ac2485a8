import CLiteKernels
import LiteFormat

/// The integer DEPTHWISE_CONV_2D of TFLite (reference/depthwiseconv_uint8.h, reference/integer_ops/depthwise_conv.h):
/// for output channel `oc = ic * M + m`, `acc = bias[oc] + Σ (x[ic] - x_zero) · (w[oc] - w_zero[oc])` over the
/// in-bounds taps, then the per-channel requantization.
///
/// Speed without losing exactness: every product of two 8-bit offsets is below 2^16, so when
/// `taps · 255² + max|bias| < 2^24` every partial sum is an integer that float32 represents exactly, and the
/// float SIMD depthwise kernel computes the int32 accumulators bit for bit. Otherwise an int32 loop runs.
final class QuantizedDepthwiseConvolution {
    let signed: Bool
    let inputZeroPoint: Int32
    let requantization: ChannelRequantization
    /// [KH*KW, Cout] filter minus its zero point, as float (exact small integers).
    let filter: [Float]
    let bias: [Float]
    let exactInFloat: Bool
    /// `fast` numerics on AVX2 CPUs, channel multiplier 1: the int32 SIMD kernel (`runIntegerSIMD`), with the
    /// filter widened to int32 minus its zero point as [KH*KW, padded channels] and the bias padded alike.
    let integerFilter: [Int32]
    let integerBias: [Int32]
    /// `bias - x_zero·Σ_taps w` per channel: the bias of a pixel whose taps are all inside the input.
    let interiorBias: [Int32]
    let paddedChannels: Int
    let exactRequantization: ExactRequantization?
    /// The configuration's C kernels when prepared: `runIntegerSIMD` runs `lite_qs8_dwconv_rows__avx2`.
    let kernels: WidenedQuantizedKernels?
    /// `fast` numerics: float requantization (see ``ChannelRequantization/requantizeFast``).
    let fast: Bool
    /// `fast` numerics in AVX-512 VNNI builds, for the int8 layers it takes: the dot-product kernel.
    let dotProduct: QuantizedDepthwiseDotProduct?

    init(input: Tensor, filter filterTensor: Tensor, bias biasTensor: Tensor?, output: Tensor, activation: FusedActivation,
         numerics: Numerics = .exact) throws {
        fast = numerics == .fast
        guard filterTensor.type == input.type, output.type == input.type else {
            throw KernelError.unsupported("\(input.type) input with \(filterTensor.type) filter and \(output.type) output")
        }
        guard filterTensor.storage != .arena, filterTensor.data != nil else {
            throw KernelError.unsupported("quantized filters must be constant (tensor \(filterTensor.index) is not)")
        }
        let channels = filterTensor.dim(3)
        if let biasTensor {
            guard biasTensor.type == .int32, biasTensor.elementCount == channels, biasTensor.storage != .arena, biasTensor.data != nil else {
                throw KernelError.unsupported("bias must be a constant int32 [\(channels)], is \(biasTensor)")
            }
        }
        let inputInfo = try QuantizedTensorInfo(input), filterInfo = try QuantizedTensorInfo(filterTensor), outputInfo = try QuantizedTensorInfo(output)
        signed = input.type == .int8
        inputZeroPoint = inputInfo.zeroPoint
        var requantization = try ChannelRequantization(input: inputInfo, filter: filterInfo, output: outputInfo, channels: channels,
                                                       activation: activation, outputType: output.type)
        // LiteRT's int8 kernel rounds ties up in whole groups of 8 channels (see `upwardChannels`); uint8 never.
        if signed { requantization.upwardChannels = channels / 8 * 8 }
        self.requantization = requantization
        let raw = UnsafeRawPointer(filterTensor.data!)
        let signedFilter = filterTensor.type == .int8
        filter = (0..<filterTensor.elementCount).map { i in
            let c = i % channels
            let zero = filterInfo.zeroPoints.count == 1 ? filterInfo.zeroPoints[0] : filterInfo.zeroPoints[c]
            return Float(loadQuantized(raw, i, signed: signedFilter) - zero)
        }
        let biasValues = (0..<channels).map { c in biasTensor.map { Int64($0.pointer(Int32.self)[c]) } ?? 0 }
        bias = biasValues.map { Float($0) }
        let taps = Int64(filterTensor.dim(1) * filterTensor.dim(2))
        let maxOffset = Int64(256 + abs(Int(inputInfo.zeroPoint)))
        exactInFloat = taps * maxOffset * 256 + (biasValues.map(abs).max() ?? 0) < 1 << 24
        paddedChannels = (channels + 15) & ~15
        kernels = KernelConfiguration.current.widenedQuantized
        dotProduct = fast ? QuantizedDepthwiseDotProduct.make(input: input, filter: filterTensor, bias: biasTensor, filterZeroPoints: filterInfo.zeroPoints,
                                                              inputZeroPoint: inputInfo.zeroPoint, requantization: requantization) : nil
        if fast && (QuantizedGEMM.isUsed || QuantizedGEMMAVX2.isUsed) && requantization.shifts.allSatisfy({ $0 >= -31 }) && input.dim(3) == channels {
            var widened = [Int32](repeating: 0, count: Int(taps) * paddedChannels)
            for t in 0..<Int(taps) {
                for c in 0..<channels { widened[t * paddedChannels + c] = Int32(filter[t * channels + c]) }
            }
            integerFilter = widened
            let biases = biasValues.map { Int32(truncatingIfNeeded: $0) } + [Int32](repeating: 0, count: paddedChannels - channels)
            integerBias = biases
            exactRequantization = ExactRequantization(requantization, paddedChannels: paddedChannels)
            let (padded, zero) = (paddedChannels, inputInfo.zeroPoint)
            interiorBias = (0..<padded).map { c in
                (0..<Int(taps)).reduce(biases[c]) { $0 &- zero &* widened[$1 * padded + c] }
            }
        } else {
            integerFilter = []
            integerBias = []
            interiorBias = []
            exactRequantization = nil
        }
    }

    /// Bytes of scratch: the input as float offsets and the float accumulators.
    static func scratchBytes(input: Tensor, output: Tensor) -> Int {
        saturatingProduct(input.elementCount + output.elementCount, 4)
    }

    func run(input: Tensor, output: Tensor, geometry: DepthwiseConv2D.Geometry, activation _: (Float, Float), scratch: UnsafeMutableRawPointer, threads: Int) {
        let x = scratch.assumingMemoryBound(to: Float.self)
        let acc = x + input.elementCount
        convertQuantized(input, zeroPoint: inputZeroPoint, into: x)
        filter.withUnsafeBufferPointer { w in
            bias.withUnsafeBufferPointer { b in
                DepthwiseConv2D.floatDepthwise(geometry, UnsafePointer(x), w.baseAddress!, b.baseAddress!, acc, activation: (-.infinity, .infinity), threads: threads)
            }
        }
        let outC = geometry.outC
        let dst = output.data!
        let requantization = self.requantization, signed = self.signed
        let fast = self.fast
        parallelFor(output.elementCount / max(outC, 1), threads: threads, minimumChunk: 64, workPerItem: 4 * outC) { range in
            if fast {
                requantization.requantizeFast(UnsafePointer(acc), rows: range, channels: outC, bias: nil, into: dst, signed: signed, roundingUp: false)
            } else {
                requantization.requantize(UnsafePointer(acc), rows: range, channels: outC, bias: nil, into: dst, signed: signed, roundingUp: false)
            }
        }
    }

    /// `acc[c] = bias[c] + Σ_taps (x[c] - x_zero)·w[c]` in int32 SIMD lanes, 16 channels at a time with the
    /// accumulators in registers across the taps, then the exact requantization of each output pixel. Products of
    /// two 8-bit offsets are below 2^16 and a 3x3 filter sums nine, so int32 never overflows for real filters
    /// (the wrap-around arithmetic matches TFLite's int32 loop in any case).
    func runIntegerSIMD(input: Tensor, output: Tensor, geometry g: DepthwiseConv2D.Geometry, threads: Int) {
        #if arch(x86_64)
        if let kernels, let requantization = exactRequantization {
            return runKernel(kernels, requantization, input: input, output: output, geometry: g, threads: threads)
        }
        #endif
        if signed {
            runIntegerSIMD(Int8.self, input: input, output: output, geometry: g, threads: threads)
        } else {
            runIntegerSIMD(UInt8.self, input: input, output: output, geometry: g, threads: threads)
        }
    }

    #if arch(x86_64)
    /// `runIntegerSIMD` in the C kernel, a range of output rows per call.
    private func runKernel(_ kernels: WidenedQuantizedKernels, _ requantization: ExactRequantization, input: Tensor, output: Tensor,
                           geometry g: DepthwiseConv2D.Geometry, threads: Int) {
        let padded = paddedChannels
        integerFilter.withUnsafeBufferPointer { filterBuffer in
            integerBias.withUnsafeBufferPointer { biasBuffer in
                interiorBias.withUnsafeBufferPointer { interiorBuffer in
                    requantization.withKernelParameters { parameters in
                        var convolution = lite_qs8_dwconv(
                            input: UnsafeRawPointer(input.data!), output: UnsafeMutableRawPointer(output.data!), weights: filterBuffer.baseAddress,
                            bias: biasBuffer.baseAddress, interior_bias: interiorBuffer.baseAddress, requantization: parameters,
                            batches: g.batches, in_h: g.inH, in_w: g.inW, channels: g.outC, kh: g.kh, kw: g.kw, out_h: g.outH, out_w: g.outW,
                            stride_h: g.strideH, stride_w: g.strideW, dilation_h: g.dilationH, dilation_w: g.dilationW, pad_h: g.padH, pad_w: g.padW,
                            padded_channels: padded, input_zero_point: inputZeroPoint, is_signed: signed)
                        withUnsafePointer(to: &convolution) { convolution in
                            parallelFor(g.batches * g.outH, threads: threads, workPerItem: g.outW * g.outC * g.kh * g.kw) { range in
                                let acc = allocateAligned(Int32.self, count: 4 * padded)
                                defer { deallocateAligned(acc) }
                                kernels.depthwiseRows(convolution, range.lowerBound, range.upperBound, acc)
                            }
                        }
                    }
                }
            }
        }
    }
    #endif

    private func runIntegerSIMD<Byte: QuantizedByte>(_: Byte.Type, input: Tensor, output: Tensor,
                                                                     geometry g: DepthwiseConv2D.Geometry, threads: Int) {
        guard let requantization = exactRequantization else { return }
        let src = UnsafePointer<Byte>(OpaquePointer(input.data!)), dst = output.data!
        let zero = SIMD16<Int32>(repeating: inputZeroPoint), zero8 = SIMD8<Int32>(repeating: inputZeroPoint)
        let channels = g.outC, padded = paddedChannels
        integerFilter.withUnsafeBufferPointer { filterBuffer in
            integerBias.withUnsafeBufferPointer { biasBuffer in
                let weights = filterBuffer.baseAddress!, bias = biasBuffer.baseAddress!
                parallelFor(g.batches * g.outH, threads: threads, workPerItem: g.outW * g.outC * g.kh * g.kw) { range in
                    let acc = allocateAligned(Int32.self, count: 4 * padded)
                    defer { deallocateAligned(acc) }
                    let noFactors = allocateAligned(Int32.self, count: padded)
                    defer { deallocateAligned(noFactors) }
                    noFactors.initialize(repeating: 0, count: padded)
                    for by in range {
                        let b = by / g.outH, oy = by % g.outH
                        let iy0 = oy * g.strideH - g.padH
                        let kyFirst = max(0, (-iy0 + g.dilationH - 1) / g.dilationH)
                        let kyEnd = min(g.kh, (g.inH - iy0 + g.dilationH - 1) / g.dilationH)
                        var ox = 0
                        while ox < g.outW {
                            if kyFirst == 0 && kyEnd == g.kh && channels % 16 == 0 && ox + 3 < g.outW && g.isInteriorX(ox) && g.isInteriorX(ox + 3) {
                                fourInteriorPixels(src, g, weights: weights, b: b, oy: oy, ox: ox, into: acc)
                                let out = dst + ((b * g.outH + oy) * g.outW + ox) * channels
                                for i in 0..<4 {
                                    requantization.requantizeRow(acc + i * padded, constants: noFactors, rowSumFactors: noFactors, rowSum: 0,
                                                                 channels: channels, into: out + i * channels, roundingUp: false)
                                }
                                ox += 4
                                continue
                            }
                            defer { ox += 1 }
                            let ix0 = ox * g.strideW - g.padW
                            let kxFirst = max(0, (-ix0 + g.dilationW - 1) / g.dilationW)
                            let kxEnd = min(g.kw, (g.inW - ix0 + g.dilationW - 1) / g.dilationW)
                            // Tap pointers for channel 0; the loops below only add offsets (no overflow checks).
                            let firstRow = src + ((b * g.inH + iy0 + kyFirst * g.dilationH) * g.inW + ix0 + kxFirst * g.dilationW) * g.inC
                            let firstWeights = weights + (kyFirst * g.kw + kxFirst) * padded
                            let rowStep = g.dilationH * g.inW * g.inC, columnStep = g.dilationW * g.inC
                            let (rowsUsed, columnsUsed) = (max(kyEnd - kyFirst, 0), max(kxEnd - kxFirst, 0))
                            var c = 0
                            while c + 16 <= channels {
                                var sum = UnsafeRawPointer(bias + c).loadUnaligned(as: SIMD16<Int32>.self)
                                var row = UnsafeRawPointer(firstRow + c), weightRow = UnsafeRawPointer(firstWeights + c)
                                for _ in 0..<rowsUsed {
                                    var x = row, w = weightRow
                                    for _ in 0..<columnsUsed {
                                        let values = Byte.widen16(x)
                                        sum &+= (values &- zero) &* w.loadUnaligned(as: SIMD16<Int32>.self)
                                        x += columnStep &* MemoryLayout<Byte>.stride
                                        w += padded &* 4
                                    }
                                    row += rowStep &* MemoryLayout<Byte>.stride
                                    weightRow += g.kw &* padded &* 4
                                }
                                UnsafeMutableRawPointer(acc + c).storeBytes(of: sum, as: SIMD16<Int32>.self)
                                c += 16
                            }
                            while c < channels {
                                // The last channels, eight at a time where possible, then one by one (a 16-byte load
                                // could read past the input's end).
                                let width = channels - c >= 8 ? 8 : 1
                                var sum = UnsafeRawPointer(bias + c).loadUnaligned(as: SIMD8<Int32>.self)
                                for ky in kyFirst..<max(kyFirst, kyEnd) {
                                    let row = src + ((b * g.inH + iy0 + ky * g.dilationH) * g.inW + ix0) * g.inC + c
                                    for kx in kxFirst..<max(kxFirst, kxEnd) {
                                        let p = row + kx * g.dilationW * g.inC
                                        let x = width == 8 ? UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Byte>.self) : SIMD8<Byte>(repeating: p[0])
                                        let w = UnsafeRawPointer(weights + (ky * g.kw + kx) * padded + c).loadUnaligned(as: SIMD8<Int32>.self)
                                        sum &+= (SIMD8<Int32>(truncatingIfNeeded: x) &- zero8) &* w
                                    }
                                }
                                if width == 8 {
                                    UnsafeMutableRawPointer(acc + c).storeBytes(of: sum, as: SIMD8<Int32>.self)
                                } else {
                                    acc[c] = sum[0]
                                }
                                c += width
                            }
                            let out = dst + ((b * g.outH + oy) * g.outW + ox) * channels
                            requantization.requantizeRow(acc, constants: noFactors, rowSumFactors: noFactors, rowSum: 0, channels: channels,
                                                         into: out, roundingUp: false)
                        }
                    }
                }
            }
        }
    }

    /// Four horizontally adjacent output pixels whose taps are all inside the input: every weight vector is loaded
    /// once for the four, and `-x_zero·Σw` is already in `interiorBias`, so a tap is a widening load, a multiply
    /// and an add. Writes the four pixels' accumulators `paddedChannels` apart.
    @inline(__always)
    private func fourInteriorPixels<Byte: QuantizedByte>(_ src: UnsafePointer<Byte>, _ g: DepthwiseConv2D.Geometry,
                                                                         weights: UnsafePointer<Int32>, b: Int, oy: Int, ox: Int,
                                                                         into acc: UnsafeMutablePointer<Int32>) {
        let padded = paddedChannels
        let origin = src + ((b * g.inH + oy * g.strideH - g.padH) * g.inW + ox * g.strideW - g.padW) * g.inC
        let rowStep = g.dilationH * g.inW * g.inC, columnStep = g.dilationW * g.inC, pixelStep = g.strideW * g.inC
        interiorBias.withUnsafeBufferPointer { biasBuffer in
            let bias = UnsafeRawPointer(biasBuffer.baseAddress!)
            var c = 0
            while c < g.outC {
                var a0 = bias.loadUnaligned(fromByteOffset: c &* 4, as: SIMD16<Int32>.self)
                var a1 = a0, a2 = a0, a3 = a0
                var row = UnsafeRawPointer(origin + c), weightPointer = UnsafeRawPointer(weights + c)
                for _ in 0..<g.kh {
                    var x = row
                    for _ in 0..<g.kw {
                        let w = weightPointer.loadUnaligned(as: SIMD16<Int32>.self)
                        a0 &+= Byte.widen16(x) &* w
                        a1 &+= Byte.widen16(x + pixelStep) &* w
                        a2 &+= Byte.widen16(x + 2 &* pixelStep) &* w
                        a3 &+= Byte.widen16(x + 3 &* pixelStep) &* w
                        x += columnStep
                        weightPointer += padded &* 4
                    }
                    row += rowStep
                }
                let out = UnsafeMutableRawPointer(acc + c)
                out.storeBytes(of: a0, as: SIMD16<Int32>.self)
                out.storeBytes(of: a1, toByteOffset: padded &* 4, as: SIMD16<Int32>.self)
                out.storeBytes(of: a2, toByteOffset: padded &* 8, as: SIMD16<Int32>.self)
                out.storeBytes(of: a3, toByteOffset: padded &* 12, as: SIMD16<Int32>.self)
                c += 16
            }
        }
    }

    /// The exact int32 path for filters too large for float accumulation.
    func runInteger(input: Tensor, bias biasTensor: Tensor?, output: Tensor, geometry g: DepthwiseConv2D.Geometry, threads: Int) {
        let src = UnsafeRawPointer(input.data!), dst = output.data!
        let bias = biasTensor.map { UnsafePointer($0.pointer(Int32.self)) }
        let signed = self.signed, zero = inputZeroPoint, requantization = self.requantization
        let weights = filter.map { Int32($0) }
        parallelFor(g.batches * g.outH, threads: threads, workPerItem: g.outW * g.outC * g.kh * g.kw) { range in
            var acc = [Int32](repeating: 0, count: g.outC)
            for by in range {
                let b = by / g.outH, oy = by % g.outH
                for ox in 0..<g.outW {
                    for c in 0..<g.outC { acc[c] = bias?[c] ?? 0 }
                    for ky in 0..<g.kh {
                        let iy = oy * g.strideH - g.padH + ky * g.dilationH
                        guard iy >= 0 && iy < g.inH else { continue }
                        for kx in 0..<g.kw {
                            let ix = ox * g.strideW - g.padW + kx * g.dilationW
                            guard ix >= 0 && ix < g.inW else { continue }
                            let base = ((b * g.inH + iy) * g.inW + ix) * g.inC
                            let w = (ky * g.kw + kx) * g.outC
                            for c in 0..<g.outC {
                                acc[c] &+= (loadQuantized(src, base + c / g.multiplier, signed: signed) - zero) &* weights[w + c]
                            }
                        }
                    }
                    let out = ((b * g.outH + oy) * g.outW + ox) * g.outC
                    for c in 0..<g.outC { storeQuantized(dst, out + c, requantization.apply(acc[c], channel: c), signed: signed) }
                }
            }
        }
    }
}
