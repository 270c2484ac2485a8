import LiteFormat

/// MIRROR_PAD: pads by reflecting the input, without (REFLECT) or with (SYMMETRIC) the edge element.
final class MirrorPad: Kernel {
    let mode: MirrorPadOptions.Mode
    var before: [Int] = []

    required init(_ node: NodeContext) throws {
        mode = try MirrorPadOptions(node.options).mode
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        let paddings = try integers(try self.input(1))
        guard paddings.count == 2 * input.rank else { throw KernelError.invalid("paddings has \(paddings.count) values for rank \(input.rank)") }
        let limit = mode == .reflect ? -1 : 0
        for d in 0..<input.rank {
            let (b, a) = (paddings[2 * d], paddings[2 * d + 1])
            guard b >= 0, a >= 0, b <= input.shape[d] + limit, a <= input.shape[d] + limit else {
                throw KernelError.invalid("padding \(b), \(a) too large for dimension \(d) of \(input.shape) in \(mode) mode")
            }
        }
        guard input.type.byteSize != nil else { throw KernelError.unsupported("type \(input.type)") }
        before = stride(from: 0, to: paddings.count, by: 2).map { paddings[$0] }
        output.type = input.type
        output.shape = (0..<input.rank).map { input.shape[$0] + paddings[2 * $0] + paddings[2 * $0 + 1] }
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        guard let src = input.data, let dst = output.data else { return }
        let size = input.type.byteSize!
        let rank = input.rank
        let inStrides = rowMajorStrides(input.shape)
        let reflect = mode == .reflect ? 1 : 0
        var index = Array(repeating: 0, count: rank)
        for o in 0..<output.elementCount {
            var offset = 0
            for d in 0..<rank {
                var i = index[d] - before[d]
                let n = input.shape[d]
                if i < 0 { i = -i - 1 + reflect } else if i >= n { i = 2 * n - i - 1 - reflect }
                offset += i * inStrides[d]
            }
            (dst + o * size).copyMemory(from: src + offset * size, byteCount: size)
            var d = rank - 1
            while d >= 0 {
                index[d] += 1
                if index[d] < output.shape[d] { break }
                index[d] = 0
                d -= 1
            }
        }
    }
}
