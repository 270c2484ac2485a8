import LiteFormat

/// The integer DEPTHWISE_CONV_2D of TFLite (reference/depthwiseconv_uint8.h, reference/integer_ops/depthwise_conv.h):
/// for output channel `oc = ic * M + m`, `acc = bias[oc] + Σ (x[ic] - x_zero) · (w[oc] - w_zero[oc])` over the
/// in-bounds taps, then the per-channel requantization. Integer sums are exact in any order.
final class QuantizedDepthwiseConvolution {
    let signed: Bool
    let inputZeroPoint: Int32
    let requantization: ChannelRequantization
    /// [KH*KW, Cout] filter minus its zero point.
    let filter: [Int32]

    init(input: Tensor, filter filterTensor: Tensor, bias: Tensor?, output: Tensor, activation: FusedActivation) throws {
        guard filterTensor.type == input.type, output.type == input.type else {
            throw KernelError.unsupported("\(input.type) input with \(filterTensor.type) filter and \(output.type) output")
        }
        guard filterTensor.storage != .arena, filterTensor.data != nil else {
            throw KernelError.unsupported("quantized filters must be constant (tensor \(filterTensor.index) is not)")
        }
        let channels = filterTensor.dim(3)
        if let bias {
            guard bias.type == .int32, bias.elementCount == channels else { throw KernelError.unsupported("bias must be int32 [\(channels)], is \(bias)") }
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
            return loadQuantized(raw, i, signed: signedFilter) - zero
        }
    }

    func run(input: Tensor, bias biasTensor: Tensor?, output: Tensor, kh: Int, kw: Int, multiplier: Int,
             geometryH: SpatialGeometry, geometryW: SpatialGeometry, options: DepthwiseConv2DOptions, threads: Int) {
        let (batches, inH, inW, inC) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let outC = output.dim(3), outH = geometryH.output, outW = geometryW.output
        let src = UnsafeRawPointer(input.data!), dst = output.data!
        let bias = biasTensor.map { UnsafePointer($0.pointer(Int32.self)) }
        let signed = self.signed, zero = inputZeroPoint, requantization = self.requantization
        filter.withUnsafeBufferPointer { weights in
            parallelFor(batches * outH, threads: threads) { range in
                var acc = [Int32](repeating: 0, count: outC)
                for by in range {
                    let b = by / outH, oy = by % outH
                    for ox in 0..<outW {
                        for c in 0..<outC { acc[c] = bias?[c] ?? 0 }
                        for ky in 0..<kh {
                            let iy = oy * options.strideH - geometryH.padBefore + ky * options.dilationH
                            guard iy >= 0 && iy < inH else { continue }
                            for kx in 0..<kw {
                                let ix = ox * options.strideW - geometryW.padBefore + kx * options.dilationW
                                guard ix >= 0 && ix < inW else { continue }
                                let base = ((b * inH + iy) * inW + ix) * inC
                                let w = weights.baseAddress! + (ky * kw + kx) * outC
                                if multiplier == 1 {
                                    for c in 0..<outC { acc[c] &+= (loadQuantized(src, base + c, signed: signed) - zero) &* w[c] }
                                } else {
                                    for c in 0..<outC { acc[c] &+= (loadQuantized(src, base + c / multiplier, signed: signed) - zero) &* w[c] }
                                }
                            }
                        }
                        let out = ((b * outH + oy) * outW + ox) * outC
                        for c in 0..<outC { storeQuantized(dst, out + c, requantization.apply(acc[c], channel: c), signed: signed) }
                    }
                }
            }
        }
    }
}
