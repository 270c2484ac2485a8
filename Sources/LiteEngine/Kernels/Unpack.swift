import LiteFormat

/// UNPACK: splits a tensor along an axis into that many tensors, dropping the axis.
final class Unpack: Kernel {
    /// Integer results may be shape arithmetic, which folds while planning (``Kernel/foldsAtPlanning``).
    override var foldsAtPlanning: Bool { node.outputs.allSatisfy { $0.type == .int32 || $0.type == .int64 } }

    var axis = 0

    required init(_ node: NodeContext) throws {
        try super.init(node)
        guard node.inputs.count == 1, !node.outputs.isEmpty else { throw KernelError.invalid("expects one input and outputs") }
    }

    override func prepare() throws {
        let input = try self.input(0)
        _ = try elementSize(input)
        axis = try normalizedAxis(try UnpackOptions(node.options).axis, rank: input.rank)
        guard input.shape[axis] == node.outputs.count else {
            throw KernelError.invalid("axis \(axis) of \(input.shape) does not unpack into \(node.outputs.count) outputs")
        }
        var shape = input.shape
        shape.remove(at: axis)
        for output in node.outputs {
            output.type = input.type
            output.shape = shape
        }
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!
        var strides = rowMajorStrides(input.shape)
        let step = strides.remove(at: axis)
        for (i, output) in node.outputs.enumerated() {
            stridedCopy(source: input.data!, start: i * step, sourceStrides: strides, shape: output.shape,
                        destination: output.data!, elementSize: input.type.byteSize!)
        }
    }
}
