import Foundation
import LiteFormat

/// RESIZE_BILINEAR of NHWC float to the [height, width] in the constant second input, with TFLite's
/// `align_corners` and `half_pixel_centers` coordinate rules (reference_ops::ResizeBilinear); int8 and int16 with
/// TFLite's integer version (reference_ops::ResizeBilinearInteger: 10-bit fixed-point coordinates, 20-bit
/// weights products, rounding half away from zero). The output keeps the input's quantization.
final class ResizeBilinear: Kernel {
    let options: ResizeOptions

    required init(_ node: NodeContext) throws {
        options = try ResizeOptions(node.options, bilinear: true)
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
        guard !(options.alignCorners && options.halfPixelCenters) else { throw KernelError.invalid("align_corners and half_pixel_centers are exclusive") }
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32, .int8, .uint8, .int16)
        try expectRank(input, 4)
        let size = try integers(try self.input(1))
        guard size.count == 2, size[0] > 0, size[1] > 0, Tensor.checkedCount(size) != nil else { throw KernelError.invalid("bad output size \(size)") }
        guard input.dim(1) > 0, input.dim(2) > 0 else { throw KernelError.invalid("resizing an image of no pixels (\(input.shape))") }
        if input.type == .int8 || input.type == .uint8 || input.type == .int16 {
            guard output.type == input.type, input.quantization?.scale == output.quantization?.scale,
                  input.quantization?.zeroPoint == output.quantization?.zeroPoint else {
                throw KernelError.unsupported("\(input.type) RESIZE_BILINEAR needs an output of that type with the input's quantization")
            }
            guard size[0] < 1 << 20, size[1] < 1 << 20, input.dim(1) < 1 << 20, input.dim(2) < 1 << 20 else {
                throw KernelError.unsupported("quantized RESIZE_BILINEAR sizes beyond 2^20")
            }
        }
        output.type = input.type
        output.shape = [input.dim(0), size[0], size[1], input.dim(3)]
    }

    /// The source coordinate of output index `value` and its two neighbours.
    static func interpolation(_ value: Int, scale: Float, halfPixel: Bool, inputSize: Int) -> (Float, Int, Int) {
        let scaled = halfPixel ? (Float(value) + 0.5) * scale - 0.5 : Float(value) * scale
        let lower = max(Int(scaled.rounded(.down)), 0)
        let upper = min(Int(scaled.rounded(.up)), inputSize - 1)
        return (scaled, lower, upper)
    }

    static func scale(input: Int, output: Int, alignCorners: Bool) -> Float {
        alignCorners && output > 1 ? Float(input - 1) / Float(output - 1) : Float(input) / Float(output)
    }

    /// `ComputeInterpolationValuesInteger`: the 10-bit fixed-point source coordinate and its neighbours (C division
    /// truncates toward zero, which matters for the negative coordinates of half-pixel centres).
    static func integerInterpolation(_ value: Int, scale10: Int, halfPixel: Bool, inputSize: Int) -> (Int, Int, Int) {
        let scaled = halfPixel ? value * scale10 + scale10 / 2 - (1 << 9) : value * scale10
        return (scaled, max(scaled / (1 << 10), 0), min((scaled + (1 << 10) - 1) / (1 << 10), inputSize - 1))
    }

    private func runInteger<Element: FixedWidthInteger>(_: Element.Type, _ input: Tensor, _ output: Tensor) {
        let (batches, inH, inW, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (output.dim(1), output.dim(2))
        var scaleH = ((1 << 10) * inH + outH / 2) / outH, scaleW = ((1 << 10) * inW + outW / 2) / outW
        if options.alignCorners && outH > 1 { scaleH = ((1 << 10) * (inH - 1) + (outH - 1) / 2) / (outH - 1) }
        if options.alignCorners && outW > 1 { scaleW = ((1 << 10) * (inW - 1) + (outW - 1) / 2) / (outW - 1) }
        let half = options.halfPixelCenters
        let src = input.pointer(Element.self), dst = output.pointer(Element.self)
        for b in 0..<batches {
            for y in 0..<outH {
                let (iy, y0, y1) = Self.integerInterpolation(y, scale10: scaleH, halfPixel: half, inputSize: inH)
                let wy1 = iy - (1 << 10) * y0, wy0 = (1 << 10) - wy1
                for x in 0..<outW {
                    let (ix, x0, x1) = Self.integerInterpolation(x, scale10: scaleW, halfPixel: half, inputSize: inW)
                    let wx1 = ix - (1 << 10) * x0, wx0 = (1 << 10) - wx1
                    let out = dst + ((b * outH + y) * outW + x) * channels
                    for c in 0..<channels {
                        func at(_ yy: Int, _ xx: Int) -> Int { Int(src[((b * inH + yy) * inW + xx) * channels + c]) }
                        let sum = at(y0, x0) * wy0 * wx0 + at(y1, x0) * wy1 * wx0 + at(y0, x1) * wy0 * wx1 + at(y1, x1) * wy1 * wx1
                        // Round half away from zero, then C's truncating division by 2^20.
                        let rounded = (sum + (sum > 0 ? 1 << 19 : -(1 << 19))) / (1 << 20)
                        out[c] = Element(truncatingIfNeeded: rounded)
                    }
                }
            }
        }
    }

    /// uint8 as LiteRT's built-in (optimized) kernel computes it: optimized_ops::ResizeBilinear for uint8. Exact x8
    /// upsampling with half-pixel centres and depth a multiple of 8 takes its 8.8 fixed-point kernel
    /// (ResizeBilinear888Uint8): the weights are odd multiples of 1/16, so 256 x the bilinear value is an integer,
    /// rounded half up by `+128 >> 8`. Every other case is ResizeBilinearGenericSmallChannel: float weights, the four
    /// products summed in the order (y0,x0), (y0,x1), (y1,x0), (y1,x1), plus 0.5, truncated.
    private func runUInt8(_ input: Tensor, _ output: Tensor) {
        let (batches, inH, inW, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (output.dim(1), output.dim(2))
        let src = input.pointer(UInt8.self), dst = output.pointer(UInt8.self)
        let half = options.halfPixelCenters
        let factor = outH / inH
        if !options.alignCorners && half && channels % 8 == 0 && outH >= 8 && outW >= 8 && factor == 8 && inH * 8 == outH && inW * 8 == outW {
            // Source of output o: (o + 0.5) / 8 - 0.5 = i + (2p + 1) / 16 - 1/2 for o = 8i + p; clamped at the borders.
            func taps(_ o: Int, _ size: Int) -> (Int, Int, Int) {
                let sixteenths = 2 * o + 1 - 8
                guard sixteenths > 0 else { return (0, 0, 0) }
                let lower = sixteenths / 16
                guard lower + 1 < size else { return (size - 1, size - 1, 0) }
                return (lower, lower + 1, sixteenths % 16)
            }
            let columns = (0..<outW).map { taps($0, inW) }
            for b in 0..<batches {
                for y in 0..<outH {
                    let (y0, y1, wy) = taps(y, inH)
                    for x in 0..<outW {
                        let (x0, x1, wx) = columns[x]
                        let out = dst + ((b * outH + y) * outW + x) * channels
                        let p00 = src + ((b * inH + y0) * inW + x0) * channels, p01 = src + ((b * inH + y0) * inW + x1) * channels
                        let p10 = src + ((b * inH + y1) * inW + x0) * channels, p11 = src + ((b * inH + y1) * inW + x1) * channels
                        for c in 0..<channels {
                            let top = Int(p00[c]) * (16 - wx) + Int(p01[c]) * wx
                            let bottom = Int(p10[c]) * (16 - wx) + Int(p11[c]) * wx
                            out[c] = UInt8(truncatingIfNeeded: (top * (16 - wy) + bottom * wy + 128) >> 8)
                        }
                    }
                }
            }
            return
        }
        let scaleH = Self.scale(input: inH, output: outH, alignCorners: options.alignCorners)
        let scaleW = Self.scale(input: inW, output: outW, alignCorners: options.alignCorners)
        let columns = (0..<outW).map { Self.interpolation($0, scale: scaleW, halfPixel: half, inputSize: inW) }
        for b in 0..<batches {
            for y in 0..<outH {
                let (iy, y0, y1) = Self.interpolation(y, scale: scaleH, halfPixel: half, inputSize: inH)
                for x in 0..<outW {
                    let (ix, x0, x1) = columns[x]
                    let dy = iy - Float(y0), dx = ix - Float(x0)
                    let s0 = (1 - dy) * (1 - dx), s1 = (1 - dy) * dx, s2 = dy * (1 - dx), s3 = dy * dx
                    let p00 = src + ((b * inH + y0) * inW + x0) * channels, p01 = src + ((b * inH + y0) * inW + x1) * channels
                    let p10 = src + ((b * inH + y1) * inW + x0) * channels, p11 = src + ((b * inH + y1) * inW + x1) * channels
                    let out = dst + ((b * outH + y) * outW + x) * channels
                    for c in 0..<channels {
                        let value = Float(p00[c]) * s0 + Float(p01[c]) * s1 + Float(p10[c]) * s2 + Float(p11[c]) * s3 + 0.5
                        // static_cast<uint8_t> truncates; the weights sum to one, so the value is below 256.
                        out[c] = UInt8(min(max(value, 0), 255).rounded(.towardZero))
                    }
                }
            }
        }
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        // An empty output (a zero batch or channel count) may still be huge across: no tables of rows and columns.
        guard output.elementCount > 0 else { return }
        switch input.type {
        case .int8: runInteger(Int8.self, input, output)
        case .int16: runInteger(Int16.self, input, output)
        case .uint8: runUInt8(input, output)
        default: runFloat(input, output, threads: context.threads)
        }
    }

    /// float32: each output pixel from its four neighbours, rows split over threads.
    private func runFloat(_ input: Tensor, _ output: Tensor, threads: Int) {
        let (batches, inH, inW, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (output.dim(1), output.dim(2))
        let scaleH = Self.scale(input: inH, output: outH, alignCorners: options.alignCorners)
        let scaleW = Self.scale(input: inW, output: outW, alignCorners: options.alignCorners)
        let half = options.halfPixelCenters
        let xs = (0..<outW).map { Self.interpolation($0, scale: scaleW, halfPixel: half, inputSize: inW) }
        let src = input.floats, dst = output.floats
        #if arch(x86_64)
        // The configuration's row kernel (avx2 and above): the same values, eight channels a step.
        if let kernel = KernelConfiguration.current.float?.resizeBilinearRow, xs.allSatisfy({ $0.1 <= Int32.max && $0.2 <= Int32.max }) {
            let x0 = xs.map { Int32($0.1) }, x1 = xs.map { Int32($0.2) }, dx = xs.map { $0.0 - Float($0.1) }
            parallelFor(batches * outH, threads: threads, workPerItem: 4 * outW * channels) { range in
                for by in range {
                    let b = by / outH, y = by % outH
                    let (iy, y0, y1) = Self.interpolation(y, scale: scaleH, halfPixel: half, inputSize: inH)
                    let row0 = src + (b * inH + y0) * inW * channels, row1 = src + (b * inH + y1) * inW * channels
                    kernel(row0, row1, x0, x1, dx, outW, channels, iy - Float(y0), dst + (b * outH + y) * outW * channels)
                }
            }
            return
        }
        #endif
        parallelFor(batches * outH, threads: threads, workPerItem: 4 * outW * channels) { range in
            for by in range {
                let b = by / outH, y = by % outH
                let (iy, y0, y1) = Self.interpolation(y, scale: scaleH, halfPixel: half, inputSize: inH)
                let dy = iy - Float(y0)
                let row0 = src + (b * inH + y0) * inW * channels, row1 = src + (b * inH + y1) * inW * channels
                for x in 0..<outW {
                    let (ix, x0, x1) = xs[x]
                    let dx = ix - Float(x0)
                    let w00 = (1 - dy) * (1 - dx), w10 = dy * (1 - dx), w01 = (1 - dy) * dx, w11 = dy * dx
                    let a = row0 + x0 * channels, bb = row1 + x0 * channels, c = row0 + x1 * channels, d = row1 + x1 * channels
                    let out = dst + ((b * outH + y) * outW + x) * channels
                    for k in 0..<channels {
                        out[k] = a[k] * w00 + bb[k] * w10 + c[k] * w01 + d[k] * w11
                    }
                }
            }
        }
    }
}
