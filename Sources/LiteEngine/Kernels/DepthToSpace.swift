import LiteFormat

/// DEPTH_TO_SPACE: [N, H, W, bs*bs*C] -> [N, H*bs, W*bs, C]; output (h*bs+dy, w*bs+dx, c) reads depth (dy*bs+dx)*C+c.
final class DepthToSpace: Kernel {
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
        guard bs > 0, input.dim(3) % (bs * bs) == 0 else { throw KernelError.invalid("depth \(input.dim(3)) is not a multiple of \(bs)²") }
        output.type = input.type
        output.shape = [input.dim(0), input.dim(1) * bs, input.dim(2) * bs, input.dim(3) / (bs * bs)]
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let (n, h, w, d) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let bs = blockSize, c = d / (bs * bs)
        // Output viewed as [N, H, dy, W, dx, C].
        stridedCopy(source: input.data!, start: 0, sourceStrides: [h * w * d, w * d, bs * c, d, c, 1], shape: [n, h, bs, w, bs, c],
                    destination: output.data!, elementSize: input.type.byteSize!)
    }
}
