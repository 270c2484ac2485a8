import LiteFormat

/// SPACE_TO_DEPTH: [N, H, W, C] -> [N, H/bs, W/bs, bs*bs*C], the inverse of DEPTH_TO_SPACE.
final class SpaceToDepth: Kernel {
    let blockSize: Int

    required init(_ node: NodeContext) throws {
        blockSize = try BlockSizeOptions(node.options).blockSize
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        _ = try elementSize(input)
        try expectRank(input, 4)
        let bs = blockSize
        guard bs > 0, input.dim(1) % bs == 0, input.dim(2) % bs == 0 else { throw KernelError.invalid("\(input.shape) does not divide by block \(bs)") }
        output.type = input.type
        output.shape = [input.dim(0), input.dim(1) / bs, input.dim(2) / bs, input.dim(3) * bs * bs]
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!
        let (n, h, w, c) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let bs = blockSize
        // Output viewed as [N, H/bs, W/bs, dy, dx, C].
        stridedCopy(source: input.data!, start: 0, sourceStrides: [h * w * c, bs * w * c, bs * c, w * c, c, 1],
                    shape: [n, h / bs, w / bs, bs, bs, c], destination: node.outputs[0].data!, elementSize: input.type.byteSize!)
    }
}
