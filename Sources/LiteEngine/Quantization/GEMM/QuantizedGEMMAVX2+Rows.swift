import CLiteKernels
import LiteFormat

/// The widened AVX2 GEMM's left matrix: rows of `x - x_zero` as int16, contiguous or gathered from a convolution's input (im2col).
extension QuantizedGEMMAVX2 {
    /// The GEMM's rows, `x - x_zero` widened to int16, written a block at a time just before they are multiplied
    /// (so they are read back from L1, not from a matrix of the whole input in memory).
    struct Rows {
        let source: UnsafePointer<UInt8>
        let depth: Int
        let paddedDepth: Int
        let signed: Bool
        let zero: Int32
        /// For a convolution that is not pointwise: its geometry, to gather each row's taps (im2col).
        let convolution: Convolution?

        struct Convolution {
            let inH: Int, inW: Int, channels: Int, outH: Int, outW: Int, kh: Int, kw: Int
            let geometryH: SpatialGeometry, geometryW: SpatialGeometry
            let options: Conv2DOptions
            /// Output columns whose taps are all inside the input's width (each filter row then is one run of bytes).
            let interior: Range<Int>
        }

        /// Rows of `depth` bytes one after another: a pointwise convolution's pixels or a fully connected layer's rows.
        init(contiguous source: UnsafePointer<UInt8>, depth: Int, signed: Bool, zero: Int32) {
            self.source = source
            self.depth = depth
            paddedDepth = (depth + 1) & ~1
            self.signed = signed
            self.zero = zero
            convolution = nil
        }

        /// The im2col rows of a convolution's input, one per output pixel.
        init(input: Tensor, kernelH kh: Int, kernelW kw: Int, geometryH: SpatialGeometry, geometryW: SpatialGeometry, options: Conv2DOptions,
             zero: Int32) {
            let (inH, inW, channels) = (input.dim(1), input.dim(2), input.dim(3))
            source = UnsafePointer(OpaquePointer(input.data!))
            depth = kh * kw * channels
            paddedDepth = (depth + 1) & ~1
            signed = input.type == .int8
            self.zero = zero
            let interior = options.dilationW == 1
                ? interiorOutputs(output: geometryW.output, input: inW, filter: kw, stride: options.strideW, dilation: 1, padBefore: geometryW.padBefore)
                : 0..<0
            convolution = Convolution(inH: inH, inW: inW, channels: channels, outH: geometryH.output, outW: geometryW.output, kh: kh, kw: kw,
                                      geometryH: geometryH, geometryW: geometryW, options: options, interior: interior)
        }

        #if arch(x86_64)
        /// Writes rows `rows` into `destination`, each `paddedDepth` long (padding taps and the depth's padding 0),
        /// widening with the kernel `widen` (`x - zero` as int16).
        @inline(__always)
        func write(_ rows: Range<Int>, into destination: UnsafeMutablePointer<Int16>, kernels: WidenedQuantizedKernels) {
            @inline(__always) func widen(_ source: UnsafePointer<UInt8>, count: Int, into destination: UnsafeMutablePointer<Int16>) {
                kernels.widen(source, count, zero, signed, destination)
            }
            guard let c = convolution else {
                if depth == paddedDepth {
                    widen(source + rows.lowerBound * depth, count: rows.count * depth, into: destination)
                } else {
                    for (i, r) in rows.enumerated() {
                        widen(source + r * depth, count: depth, into: destination + i * paddedDepth)
                        destination[i * paddedDepth + depth] = 0
                    }
                }
                return
            }
            let span = c.kw * c.channels
            for (i, r) in rows.enumerated() {
                let b = r / (c.outH * c.outW), oy = r / c.outW % c.outH, ox = r % c.outW
                let row = destination + i * paddedDepth
                let ix0 = ox * c.options.strideW - c.geometryW.padBefore
                var dst = 0
                for ky in 0..<c.kh {
                    let iy = oy * c.options.strideH - c.geometryH.padBefore + ky * c.options.dilationH
                    let rowInside = iy >= 0 && iy < c.inH
                    if rowInside && c.interior.contains(ox) {
                        widen(source + ((b * c.inH + iy) * c.inW + ix0) * c.channels, count: span, into: row + dst)
                        dst += span
                        continue
                    }
                    for kx in 0..<c.kw {
                        let ix = ix0 + kx * c.options.dilationW
                        if rowInside && ix >= 0 && ix < c.inW {
                            widen(source + ((b * c.inH + iy) * c.inW + ix) * c.channels, count: c.channels, into: row + dst)
                        } else {
                            (row + dst).update(repeating: 0, count: c.channels)
                        }
                        dst += c.channels
                    }
                }
                if depth < paddedDepth { row[depth] = 0 }
            }
        }
        #endif
    }
}
