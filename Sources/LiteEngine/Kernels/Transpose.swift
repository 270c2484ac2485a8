import LiteFormat

/// TRANSPOSE: output dimension d is input dimension perm[d] (perm is the constant second input).
final class Transpose: Kernel {
    var permutation: [Int] = []

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        _ = try elementSize(input)
        permutation = try integers(try self.input(1)).map { try normalizedAxis($0, rank: input.rank) }
        guard permutation.count == input.rank, Set(permutation).count == input.rank else {
            throw KernelError.invalid("permutation \(permutation) does not fit rank \(input.rank)")
        }
        output.type = input.type
        output.shape = permutation.map { input.shape[$0] }
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let strides = rowMajorStrides(input.shape)
        stridedCopy(source: input.data!, start: 0, sourceStrides: permutation.map { strides[$0] }, shape: output.shape,
                    destination: output.data!, elementSize: input.type.byteSize!)
    }
}
