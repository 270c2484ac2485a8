import LiteFormat

/// SPLIT: inputs (axis, value); `num_splits` equal parts along the axis.
class Split: Kernel {
    var axis = 0
    var sizes: [Int] = []
    var valueIndex: Int { 1 }

    required init(_ node: NodeContext) throws {
        try super.init(node)
        guard node.inputs.count >= 2, !node.outputs.isEmpty else { throw KernelError.invalid("expects 2 or 3 inputs and outputs") }
    }

    func splitSizes(axisSize: Int) throws -> [Int] {
        let parts = node.outputs.count
        guard axisSize % parts == 0 else { throw KernelError.invalid("axis of \(axisSize) does not split into \(parts)") }
        return Array(repeating: axisSize / parts, count: parts)
    }

    func axisTensor() throws -> Tensor { try input(0) }

    override func prepare() throws {
        let input = try self.input(valueIndex)
        _ = try elementSize(input)
        guard let rawAxis = try integers(try axisTensor()).first else { throw KernelError.invalid("empty axis") }
        axis = try normalizedAxis(rawAxis, rank: input.rank)
        sizes = try splitSizes(axisSize: input.shape[axis])
        guard sizes.count == node.outputs.count, sizes.reduce(0, +) == input.shape[axis], sizes.allSatisfy({ $0 >= 0 }) else {
            throw KernelError.invalid("split sizes \(sizes) do not fit \(input.shape) along axis \(axis)")
        }
        for (output, size) in zip(node.outputs, sizes) {
            output.type = input.type
            var shape = input.shape
            shape[axis] = size
            output.shape = shape
        }
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[valueIndex]!
        let strides = rowMajorStrides(input.shape)
        var offset = 0
        for (output, size) in zip(node.outputs, sizes) {
            stridedCopy(source: input.data!, start: offset * strides[axis], sourceStrides: strides, shape: output.shape,
                        destination: output.data!, elementSize: input.type.byteSize!)
            offset += size
        }
    }
}
