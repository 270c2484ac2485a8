import Foundation
import LiteFormat

/// MediaPipe's custom op `TransformTensorBilinear`, version 2 (mediapipe/util/tflite/operations/
/// transform_tensor_bilinear.cc, the version MediaPipe's CPU op resolver registers): samples a feature map at the
/// points an affine matrix maps the output pixels to, bilinearly.
///
/// Inputs: data [1, H, W, C] float and a [1, 4, 4] float matrix whose first two rows map (x, y, 0, 1) of an output
/// pixel to input coordinates, pixel centers aligned (the matrix is applied to the pixel's center and the result
/// shifted back by half a pixel). Output [1, output_height, output_width, C] (FlexBuffer options `output_height`,
/// `output_width`). A point outside [0, W-1]×[0, H-1] gives 0; inside, the four neighbours are blended with
/// MediaPipe's mix of single and double precision.
final class TransformTensorBilinear: Kernel {
    let outputHeight: Int, outputWidth: Int

    required init(_ node: NodeContext) throws {
        let map = try MediaPipeCustomOptions.flexMap(node.customOptions)
        guard let height = map["output_height"]?.intValue, let width = map["output_width"]?.intValue,
              height > 0, width > 0, height <= 1 << 20, width <= 1 << 20 else {
            throw KernelError.invalid("output_height and output_width must be positive")
        }
        (outputHeight, outputWidth) = (Int(height), Int(width))
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), matrix = try self.input(1), output = try self.output(0)
        try expectType(input, .float32)
        try expectType(matrix, .float32)
        try expectRank(input, 4)
        guard matrix.elementCount >= 8 else { throw KernelError.invalid("transform matrix \(matrix.shape) has fewer than 8 values") }
        output.type = .float32
        output.shape = [1, outputHeight, outputWidth, input.dim(3)]
    }

    override func run(_ context: RunContext) throws {
        // An empty output (a dimension of 0) has nothing to compute, however large the other dimensions are.
        guard node.outputs[0].elementCount > 0 else { return }
        let input = node.inputs[0]!, m = node.inputs[1]!.floats, dst = node.outputs[0].floats
        let (inH, inW, channels) = (input.dim(1), input.dim(2), input.dim(3))
        let src = input.floats
        var xRow = (m[0], m[1], m[2], m[3]), yRow = (m[4], m[5], m[6], m[7])
        // Align corners: T·A then S, A adding and S subtracting half a pixel (in double, as MediaPipe's 0.5 literals).
        xRow.3 = Float(Double(xRow.3) + (Double(xRow.0) * 0.5 + Double(xRow.1) * 0.5 - 0.5))
        yRow.3 = Float(Double(yRow.3) + (Double(yRow.0) * 0.5 + Double(yRow.1) * 0.5 - 0.5))
        let (outH, outW) = (outputHeight, outputWidth)
        parallelFor(outH, threads: context.threads, workPerItem: outW * channels * 4) { rows in
            for oy in rows {
                for ox in 0..<outW {
                    let (fx, fy) = (Float(ox), Float(oy))
                    let tx = xRow.0 * fx + xRow.1 * fy + xRow.2 * 0 + xRow.3 * 1
                    let ty = yRow.0 * fx + yRow.1 * fy + yRow.2 * 0 + yRow.3 * 1
                    let out = dst + (oy * outW + ox) * channels
                    // Written as negations so that NaN coordinates count as outside.
                    guard tx >= 0, tx <= Float(inW - 1), ty >= 0, ty <= Float(inH - 1) else {
                        out.update(repeating: 0, count: channels)
                        continue
                    }
                    let x0 = Int(tx.rounded(.down)), y0 = Int(ty.rounded(.down))
                    let right = tx - tx.rounded(.down), lower = ty - ty.rounded(.down)
                    for c in 0..<channels {
                        func value(_ y: Int, _ x: Int) -> Float { y >= inH || x >= inW ? 0 : src[(y * inW + x) * channels + c] }
                        let q11 = value(y0, x0), q21 = value(y0, x0 + 1), q12 = value(y0 + 1, x0), q22 = value(y0 + 1, x0 + 1)
                        let upper = Float((1.0 - Double(right)) * Double(q11) + Double(right * q21))
                        let below = Float((1.0 - Double(right)) * Double(q12) + Double(right * q22))
                        out[c] = Float(Double(lower * below) + (1.0 - Double(lower)) * Double(upper))
                    }
                }
            }
        }
    }
}
