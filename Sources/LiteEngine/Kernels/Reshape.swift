import LiteFormat

/// Ops that change only the shape: the output's bytes are a copy of the input's.
class ShapeOnly: Kernel {
    /// A reshaped index or shape vector is shape arithmetic too (a WHILE body's slice bounds).
    override var foldsAtPlanning: Bool { true }

    /// The output shape for the current input shape.
    func outputShape(for input: Tensor) throws -> [Int] { input.shape }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        let shape = try outputShape(for: input)
        guard Tensor.checkedCount(shape) == input.elementCount else {
            throw KernelError.invalid("cannot reshape \(input.shape) (\(input.elementCount) values) to \(shape)")
        }
        output.type = input.type
        output.shape = shape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        guard let src = input.data, let dst = output.data, src != dst else { return }
        dst.copyMemory(from: src, byteCount: input.byteCount)
    }
}

/// RESHAPE: the shape comes from the second input (a constant) or else from the options; one -1 is inferred.
final class Reshape: ShapeOnly {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...2, outputs: 1)
    }

    override func outputShape(for input: Tensor) throws -> [Int] {
        var shape: [Int]
        if let operand = optionalInput(1), operand.rank == 1, operand.type == .int32 {
            shape = try integers(operand)
        } else if let newShape = try ReshapeOptions(node.options).newShape {
            shape = newShape
        } else {
            shape = node.outputs[0].shape
        }
        if let unknown = shape.firstIndex(of: -1) {
            let known = Tensor.checkedCount(shape.enumerated().filter { $0.offset != unknown }.map(\.element)) ?? 0
            guard known > 0, input.elementCount % known == 0 else {
                throw KernelError.invalid("cannot infer -1 in \(shape) for \(input.elementCount) values")
            }
            shape[unknown] = input.elementCount / known
        }
        guard shape.allSatisfy({ $0 >= 0 }) else { throw KernelError.invalid("bad shape \(shape)") }
        return shape
    }
}
