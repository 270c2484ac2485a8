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
    /// `fast` numerics: float requantization (see ``ChannelRequantization/requantizeFast``).
    let fast: Bool

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
        requantization = try ChannelRequantization(input: inputInfo, filter: filterInfo, output: outputInfo, channels: channels,
                                                   activation: activation, outputType: output.type)
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
        parallelFor(output.elementCount / max(outC, 1), threads: threads, minimumChunk: 64) { range in
            if fast {
                requantization.requantizeFast(UnsafePointer(acc), rows: range, channels: outC, bias: nil, into: dst, signed: signed, roundingUp: false)
            } else {
                requantization.requantize(UnsafePointer(acc), rows: range, channels: outC, bias: nil, into: dst, signed: signed, roundingUp: false)
            }
        }
    }

    /// The exact int32 path for filters too large for float accumulation.
    func runInteger(input: Tensor, bias biasTensor: Tensor?, output: Tensor, geometry g: DepthwiseConv2D.Geometry, threads: Int) {
        let src = UnsafeRawPointer(input.data!), dst = output.data!
        let bias = biasTensor.map { UnsafePointer($0.pointer(Int32.self)) }
        let signed = self.signed, zero = inputZeroPoint, requantization = self.requantization
        let weights = filter.map { Int32($0) }
        parallelFor(g.batches * g.outH, threads: threads) { range in
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
