import Foundation
import LiteFormat

/// RESIZE_BILINEAR of NHWC float to the [height, width] in the constant second input, with TFLite's
/// `align_corners` and `half_pixel_centers` coordinate rules (reference_ops::ResizeBilinear).
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
        try expectType(input, .float32)
        try expectRank(input, 4)
        let size = try integers(try self.input(1))
        guard size.count == 2, size[0] > 0, size[1] > 0, Tensor.checkedCount(size) != nil else { throw KernelError.invalid("bad output size \(size)") }
        output.type = .float32
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

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let (batches, inH, inW, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (output.dim(1), output.dim(2))
        let scaleH = Self.scale(input: inH, output: outH, alignCorners: options.alignCorners)
        let scaleW = Self.scale(input: inW, output: outW, alignCorners: options.alignCorners)
        let half = options.halfPixelCenters
        let xs = (0..<outW).map { Self.interpolation($0, scale: scaleW, halfPixel: half, inputSize: inW) }
        let src = input.floats, dst = output.floats
        parallelFor(batches * outH, threads: context.threads) { range in
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
