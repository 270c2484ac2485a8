import LiteFormat

/// SPLIT: inputs (axis, value); `num_splits` equal parts along the axis.
class Split: Kernel {
    /// Integer results may be shape arithmetic, which folds while planning (``Kernel/foldsAtPlanning``).
    override var foldsAtPlanning: Bool { node.outputs.allSatisfy { $0.type == .int32 || $0.type == .int64 } }

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

    /// Each output is `outer` blocks of `size · inner` elements, one from every `shape[axis] · inner` of the input
    /// (outer: the product of the dimensions before the axis, inner: after it).
    override func run(_ context: RunContext) throws {
        let input = node.inputs[valueIndex]!, shape = input.shape, elementSize = input.type.byteSize!
        guard let source = input.data, input.elementCount > 0 else { return }
        var outer = 1, inner = 1
        for d in shape.indices where d != axis { if d < axis { outer *= shape[d] } else { inner *= shape[d] } }
        let rowBytes = shape[axis] * inner * elementSize
        var offset = 0
        for (output, size) in zip(node.outputs, sizes) {
            let blockBytes = size * inner * elementSize
            if blockBytes > 0, let destination = output.data {
                for o in 0..<outer {
                    (destination + o * blockBytes).copyMemory(from: source + o * rowBytes + offset * inner * elementSize, byteCount: blockBytes)
                }
            }
            offset += size
        }
    }
}
