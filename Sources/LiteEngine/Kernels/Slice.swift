import LiteFormat

/// SLICE: `size[d]` elements from `begin[d]` on each axis; a size of -1 takes the rest of the axis.
final class Slice: Kernel {
    override var foldsAtPlanning: Bool { true }

    var begin: [Int] = []

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 3...3, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        _ = try elementSize(input)
        let begin = try integers(try self.input(1)), size = try integers(try self.input(2))
        guard begin.count == input.rank, size.count == input.rank else { throw KernelError.invalid("begin/size do not fit rank \(input.rank)") }
        var shape: [Int] = []
        for d in 0..<input.rank {
            let extent = size[d] == -1 ? input.shape[d] - begin[d] : size[d]
            guard begin[d] >= 0, extent >= 0, begin[d] + extent <= input.shape[d] else {
                throw KernelError.invalid("slice begin \(begin) size \(size) out of range for \(input.shape)")
            }
            shape.append(extent)
        }
        self.begin = begin
        output.type = input.type
        output.shape = shape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let strides = rowMajorStrides(input.shape)
        stridedCopy(source: input.data!, start: zip(begin, strides).reduce(0) { $0 + $1.0 * $1.1 }, sourceStrides: strides,
                    shape: output.shape, destination: output.data!, elementSize: input.type.byteSize!)
    }
}
