import Foundation
import LiteFormat

/// RESIZE_NEAREST_NEIGHBOR of NHWC tensors (any element type) to the constant [height, width], with
/// TFLite's `GetNearestNeighbor` rounding for align_corners and half_pixel_centers.
final class ResizeNearestNeighbor: Kernel {
    let options: ResizeOptions

    required init(_ node: NodeContext) throws {
        options = try ResizeOptions(node.options, bilinear: false)
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        _ = try elementSize(input)
        try expectRank(input, 4)
        let size = try integers(try self.input(1))
        guard size.count == 2, size[0] > 0, size[1] > 0, Tensor.checkedCount(size) != nil else { throw KernelError.invalid("bad output size \(size)") }
        guard input.dim(1) > 0, input.dim(2) > 0 else { throw KernelError.invalid("resizing an image of no pixels (\(input.shape))") }
        output.type = input.type
        output.shape = [input.dim(0), size[0], size[1], input.dim(3)]
    }

    static func nearest(_ value: Int, inputSize: Int, outputSize: Int, alignCorners: Bool, halfPixel: Bool) -> Int {
        let scale = alignCorners && outputSize > 1 ? Float(inputSize - 1) / Float(outputSize - 1) : Float(inputSize) / Float(outputSize)
        let offset: Float = halfPixel ? 0.5 : 0
        let position = (Float(value) + offset) * scale
        var result = min(alignCorners ? Int(position.rounded(.toNearestOrAwayFromZero)) : Int(position.rounded(.down)), inputSize - 1)
        if halfPixel { result = max(0, result) }
        return result
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        // An empty output (a zero batch or channel count) may still be huge across: no tables of rows and columns.
        guard output.elementCount > 0 else { return }
        let (batches, inH, inW, channels) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (output.dim(1), output.dim(2))
        let rowBytes = channels * input.type.byteSize!
        let ys = (0..<outH).map { Self.nearest($0, inputSize: inH, outputSize: outH, alignCorners: options.alignCorners, halfPixel: options.halfPixelCenters) }
        let xs = (0..<outW).map { Self.nearest($0, inputSize: inW, outputSize: outW, alignCorners: options.alignCorners, halfPixel: options.halfPixelCenters) }
        for b in 0..<batches {
            for y in 0..<outH {
                for x in 0..<outW {
                    (output.data! + ((b * outH + y) * outW + x) * rowBytes)
                        .copyMemory(from: input.data! + ((b * inH + ys[y]) * inW + xs[x]) * rowBytes, byteCount: rowBytes)
                }
            }
        }
    }
}
