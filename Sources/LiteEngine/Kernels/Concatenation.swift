import LiteFormat

/// CONCATENATION along `axis` (negative counts from the end), any element type, with an optional fused activation for floats.
final class Concatenation: Kernel {
    let options: ConcatenationOptions
    var axis = 0
    var activation: (Float, Float) = (-.infinity, .infinity)

    required init(_ node: NodeContext) throws {
        options = try ConcatenationOptions(node.options)
        try super.init(node)
        guard !node.inputs.isEmpty, node.outputs.count == 1 else { throw KernelError.invalid("needs inputs and one output") }
        activation = try activationRange(options.activation)
    }

    override func prepare() throws {
        let first = try input(0), output = try self.output(0)
        let rank = first.rank
        axis = options.axis < 0 ? options.axis + rank : options.axis
        guard axis >= 0, axis < rank else { throw KernelError.invalid("axis \(options.axis) out of range for rank \(rank)") }
        var shape = first.shape
        shape[axis] = 0
        for i in 0..<node.inputs.count {
            let t = try input(i)
            guard t.type == first.type else { throw KernelError.invalid("input \(i) is \(t.type), input 0 is \(first.type)") }
            guard t.rank == rank, (0..<rank).allSatisfy({ $0 == axis || t.shape[$0] == first.shape[$0] }) else {
                throw KernelError.invalid("input \(i) shape \(t.shape) does not fit \(first.shape) along axis \(axis)")
            }
            shape[axis] += t.shape[axis]
        }
        if first.type != .float32 && options.activation != .none { throw KernelError.unsupported("fused activation on \(first.type)") }
        guard first.type.byteSize != nil else { throw KernelError.unsupported("type \(first.type)") }
        output.type = first.type
        output.shape = shape
    }

    override func run(_ context: RunContext) throws {
        let output = node.outputs[0]
        let element = output.type.byteSize!
        let outer = output.shape[..<axis].reduce(1, *)
        let inner = output.shape[(axis + 1)...].reduce(1, *) * element
        let outRow = output.shape[axis] * inner
        var offset = 0
        for tensor in node.inputs {
            let t = tensor!
            let row = t.shape[axis] * inner
            if row > 0, let src = t.data, let dst = output.data {
                for o in 0..<outer {
                    (dst + o * outRow + offset).copyMemory(from: src + o * row, byteCount: row)
                }
            }
            offset += row
        }
        if output.type == .float32 {
            clamp(output.floats, count: output.elementCount, activation.0, activation.1)
        }
    }
}
