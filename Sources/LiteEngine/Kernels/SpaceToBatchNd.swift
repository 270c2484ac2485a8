/// SPACE_TO_BATCH_ND: a [batch, height, width, depth] input (or [batch, height, depth]) padded by `paddings` and cut
/// into block_shape[0] x block_shape[1] interleaved tiles stacked along the batch (both constant int32), as TFLite's
/// reference kernel orders them: output batch `(shift_h · block_w + shift_w) · batch + b`. Padding is 0, or the
/// output zero point of uint8/int8 tensors.
final class SpaceToBatchNd: Kernel {
    /// The input as [batch, height, width, depth], the block and the paddings (top, bottom, left, right).
    private var shape4 = [Int](), block = (1, 1), padding = (0, 0, 0, 0)

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 3...3, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        _ = try elementSize(input)
        (shape4, block) = try spatialBlock(input, try integers(try self.input(1)))
        let pads = try integers(try self.input(2))
        guard pads.count == 2 * (input.rank - 2), pads.allSatisfy({ $0 >= 0 }) else { throw KernelError.invalid("SPACE_TO_BATCH_ND paddings \(pads)") }
        padding = (pads[0], pads[1], pads.count == 4 ? pads[2] : 0, pads.count == 4 ? pads[3] : 0)
        let height = shape4[1] + padding.0 + padding.1, width = shape4[2] + padding.2 + padding.3
        guard height % block.0 == 0, width % block.1 == 0 else {
            throw KernelError.invalid("SPACE_TO_BATCH_ND: padded \(height)x\(width) is not a multiple of the block \(block)")
        }
        output.type = input.type
        let batch = shape4[0] * block.0 * block.1
        output.shape = input.rank == 4 ? [batch, height / block.0, width / block.1, shape4[3]] : [batch, height / block.0, shape4[3]]
    }

    override func run(_ context: RunContext) throws {
        // An empty output (a dimension of 0) has nothing to compute, however large the other dimensions are.
        guard node.outputs[0].elementCount > 0 else { return }
        let input = node.inputs[0]!, output = node.outputs[0]
        let size = input.type.byteSize!, depthBytes = shape4[3] * size
        let fill: UInt8 = (input.type == .uint8 || input.type == .int8) ? UInt8(truncatingIfNeeded: (try? QuantizedTensorInfo(output).zeroPoint) ?? 0) : 0
        let (batch, height, width) = (shape4[0], shape4[1], shape4[2])
        let outHeight = (height + padding.0 + padding.1) / block.0, outWidth = (width + padding.2 + padding.3) / block.1
        var out = output.data!
        for outBatch in 0..<(batch * block.0 * block.1) {
            let b = outBatch % batch, shiftW = (outBatch / batch) % block.1, shiftH = (outBatch / batch) / block.1
            for oh in 0..<outHeight {
                for ow in 0..<outWidth {
                    let h = oh * block.0 + shiftH - padding.0, w = ow * block.1 + shiftW - padding.2
                    if h < 0 || h >= height || w < 0 || w >= width {
                        out.initializeMemory(as: UInt8.self, repeating: fill, count: depthBytes)
                    } else {
                        out.copyMemory(from: input.data! + ((b * height + h) * width + w) * depthBytes, byteCount: depthBytes)
                    }
                    out += depthBytes
                }
            }
        }
    }
}

/// A SPACE_TO_BATCH_ND or BATCH_TO_SPACE_ND operand as [batch, height, width, depth] (a rank-3 one with width 1) and
/// its block of 2 (or 1) positive sizes.
func spatialBlock(_ input: Tensor, _ blockShape: [Int]) throws -> ([Int], (Int, Int)) {
    guard input.rank == 4 || input.rank == 3, blockShape.count == input.rank - 2, blockShape.allSatisfy({ $0 >= 1 }) else {
        throw KernelError.unsupported("block \(blockShape) for an input of shape \(input.shape) (ranks 3 and 4 supported)")
    }
    let shape = input.rank == 4 ? input.shape : [input.dim(0), input.dim(1), 1, input.dim(2)]
    return (shape, (blockShape[0], blockShape.count == 2 ? blockShape[1] : 1))
}
