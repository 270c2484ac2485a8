import LiteFormat

/// REVERSE_V2: reverses the order of elements along the axes in the constant second input.
final class ReverseV2: Kernel {
    var axes: Set<Int> = []

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        _ = try elementSize(input)
        axes = try Set(integers(try self.input(1)).map { try normalizedAxis($0, rank: input.rank) })
        output.type = input.type
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        guard input.elementCount > 0 else { return }
        var strides = rowMajorStrides(input.shape)
        var start = 0
        for axis in axes where input.shape[axis] > 0 {
            start += (input.shape[axis] - 1) * strides[axis]
            strides[axis] = -strides[axis]
        }
        stridedCopy(source: input.data!, start: start, sourceStrides: strides, shape: input.shape,
                    destination: output.data!, elementSize: input.type.byteSize!)
    }
}
