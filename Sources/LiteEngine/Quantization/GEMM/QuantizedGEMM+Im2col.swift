import CLiteKernels
import LiteFormat

/// The VNNI GEMM's left matrix: a convolution's input as rows of bytes (im2col), each padded to a multiple of four.
extension QuantizedGEMM {
    /// Writes the shifted activation rows (im2col for non-pointwise filters) into `rows`, each `paddedDepth` long.
    func pack(input: Tensor, kernelH kh: Int, kernelW kw: Int, geometryH: SpatialGeometry, geometryW: SpatialGeometry, options: Conv2DOptions,
              into rows: UnsafeMutablePointer<Int8>, threads: Int) {
        let (batches, inH, inW, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (geometryH.output, geometryW.output)
        let source = UnsafePointer<UInt8>(OpaquePointer(input.data!))
        let padValue = shiftedInputZero, rowLength = paddedDepth, depth = self.depth
        let span = kw * channels
        // Output columns whose taps are all inside the input (dilation 1): each filter row is `span` contiguous bytes.
        let interior = options.dilationW == 1
            ? interiorOutputs(output: outW, input: inW, filter: kw, stride: options.strideW, dilation: 1, padBefore: geometryW.padBefore) : 0..<0
        parallelFor(batches * outH, threads: threads, workPerItem: outW * rowLength) { range in
            for by in range {
                let b = by / outH, oy = by % outH
                let outputRow = rows + (b * outH + oy) * outW * rowLength
                /// Row `ox` of this output row, tap by tap (any dilation, any padding).
                func packByTap(_ ox: Int) {
                    let row = outputRow + ox * rowLength
                    let bytes = UnsafeMutablePointer<UInt8>(OpaquePointer(row))
                    var dst = 0
                    for ky in 0..<kh {
                        let iy = oy * options.strideH - geometryH.padBefore + ky * options.dilationH
                        for kx in 0..<kw {
                            let ix = ox * options.strideW - geometryW.padBefore + kx * options.dilationW
                            if iy >= 0 && iy < inH && ix >= 0 && ix < inW {
                                let src = source + ((b * inH + iy) * inW + ix) * channels
                                for i in 0..<channels { bytes[dst + i] = src[i] }
                            } else {
                                (row + dst).update(repeating: padValue, count: channels)
                            }
                            dst += channels
                        }
                    }
                    if depth < rowLength { (row + depth).update(repeating: 0, count: rowLength - depth) }
                }
                for ox in 0..<outW where !interior.contains(ox) { packByTap(ox) }
                if interior.isEmpty { continue }
                #if arch(x86_64)
                if let kernels {
                    // Filter rows of at most 16 bytes (a first layer's 3x3 taps of 3 channels: 9) go one 16-byte store
                    // each, longer ones in masked 16-byte pieces.
                    kernels.gemmPackInterior(source, source + input.elementCount, outputRow, rowLength, interior.lowerBound,
                                             interior.upperBound, kh, span, options.strideW * channels,
                                             (interior.lowerBound * options.strideW - geometryW.padBefore) * channels,
                                             oy * options.strideH - geometryH.padBefore, options.dilationH, inH, b * inH * inW * channels,
                                             inW * channels, padValue)
                    continue
                }
                #endif
                for ox in interior {
                    let row = outputRow + ox * rowLength
                    let ix0 = ox * options.strideW - geometryW.padBefore
                    var dst = 0
                    for ky in 0..<kh {
                        let iy = oy * options.strideH - geometryH.padBefore + ky * options.dilationH
                        if iy >= 0 && iy < inH {
                            Self.copy(source + ((b * inH + iy) * inW + ix0) * channels, to: UnsafeMutablePointer(OpaquePointer(row + dst)), count: span)
                        } else {
                            (row + dst).update(repeating: padValue, count: span)
                        }
                        dst += span
                    }
                    if depth < rowLength { (row + depth).update(repeating: 0, count: rowLength - depth) }
                }
            }
        }
    }

    /// `count` bytes (the portable path; the VNNI kernels' packing copies in masked 16-byte pieces).
    @inline(__always)
    static func copy(_ source: UnsafePointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>, count: Int) {
        destination.update(from: source, count: count)
    }
}
