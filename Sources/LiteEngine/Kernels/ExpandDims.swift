import LiteFormat

/// EXPAND_DIMS: inserts a size-1 dimension at the axis given by the second (constant) input.
final class ExpandDims: ShapeOnly {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func outputShape(for input: Tensor) throws -> [Int] {
        guard let axis = try integers(try self.input(1)).first else { throw KernelError.invalid("empty axis") }
        let position = axis < 0 ? axis + input.rank + 1 : axis
        guard position >= 0, position <= input.rank else { throw KernelError.invalid("axis \(axis) out of range for \(input.shape)") }
        var shape = input.shape
        shape.insert(1, at: position)
        return shape
    }
}
