/// BATCH_TO_SPACE_ND: the inverse of SPACE_TO_BATCH_ND: a [batch, height, width, depth] input (or [batch, height,
/// depth]) whose batch holds block_shape[0] x block_shape[1] interleaved tiles, reassembled and cropped by `crops`
/// (both constant int32), as TFLite's reference kernel.
final class BatchToSpaceNd: Kernel {
    private var shape4 = [Int](), block = (1, 1), crops = (0, 0, 0, 0)

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 3...3, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        _ = try elementSize(input)
        (shape4, block) = try spatialBlock(input, try integers(try self.input(1)))
        let values = try integers(try self.input(2))
        guard values.count == 2 * (input.rank - 2), values.allSatisfy({ $0 >= 0 }) else { throw KernelError.invalid("BATCH_TO_SPACE_ND crops \(values)") }
        crops = (values[0], values[1], values.count == 4 ? values[2] : 0, values.count == 4 ? values[3] : 0)
        guard shape4[0] % (block.0 * block.1) == 0 else { throw KernelError.invalid("BATCH_TO_SPACE_ND: batch \(shape4[0]) for the block \(block)") }
        let height = shape4[1] * block.0 - crops.0 - crops.1, width = shape4[2] * block.1 - crops.2 - crops.3
        guard height >= 0, width >= 0 else { throw KernelError.invalid("BATCH_TO_SPACE_ND crops \(values) larger than the output") }
        output.type = input.type
        let batch = shape4[0] / (block.0 * block.1)
        output.shape = input.rank == 4 ? [batch, height, width, shape4[3]] : [batch, height, shape4[3]]
    }

    override func run(_ context: RunContext) throws {
        // An empty output (a dimension of 0) has nothing to compute, however large the other dimensions are.
        guard node.outputs[0].elementCount > 0 else { return }
        let input = node.inputs[0]!, output = node.outputs[0]
        let depthBytes = shape4[3] * input.type.byteSize!
        let (inBatch, inHeight, inWidth) = (shape4[0], shape4[1], shape4[2])
        let outBatch = inBatch / (block.0 * block.1)
        let outHeight = inHeight * block.0 - crops.0 - crops.1, outWidth = inWidth * block.1 - crops.2 - crops.3
        for b in 0..<inBatch {
            let target = b % outBatch, offset = b / outBatch
            for h in 0..<inHeight {
                let oh = h * block.0 + offset / block.1 - crops.0
                guard oh >= 0, oh < outHeight else { continue }
                for w in 0..<inWidth {
                    let ow = w * block.1 + offset % block.1 - crops.2
                    guard ow >= 0, ow < outWidth else { continue }
                    (output.data! + ((target * outHeight + oh) * outWidth + ow) * depthBytes)
                        .copyMemory(from: input.data! + ((b * inHeight + h) * inWidth + w) * depthBytes, byteCount: depthBytes)
                }
            }
        }
    }
}
