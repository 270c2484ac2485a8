import LiteFormat

/// ONE_HOT: for indices (int32 or int64) a new axis of `depth` (a constant scalar) holding `on_value` at the index and
/// `off_value` elsewhere (scalars of the output's type: float32, int32, int64, int8, uint8 or bool); an index outside
/// [0, depth) gives `off_value` all along, as in TFLite.
final class OneHot: Kernel {
    var axis = 0

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 4...4, outputs: 1)
    }

    override func prepare() throws {
        let indices = try input(0), on = try input(2), off = try input(3), output = try self.output(0)
        try expectType(indices, .int32, .int64)
        try expectType(on, .float32, .int32, .int64, .int8, .uint8, .bool)
        guard off.type == on.type, on.elementCount == 1, off.elementCount == 1 else {
            throw KernelError.invalid("ONE_HOT on and off values must be scalars of one type")
        }
        let depths = try integers(try input(1))
        guard depths.count == 1, depths[0] >= 0 else { throw KernelError.invalid("ONE_HOT depth \(depths)") }
        let requested = try OneHotOptions(node.options).axis
        axis = requested == -1 ? indices.rank : try normalizedAxis(requested, rank: indices.rank + 1)
        var shape = indices.shape
        shape.insert(depths[0], at: axis)
        output.type = on.type
        output.shape = shape
    }

    override func run(_ context: RunContext) throws {
        // An empty output (a dimension of 0) has nothing to compute, however large the other dimensions are.
        guard node.outputs[0].elementCount > 0 else { return }
        let indices = node.inputs[0]!, output = node.outputs[0]
        let size = output.type.byteSize!, depth = output.dim(axis)
        let on = node.inputs[2]!.data!, off = node.inputs[3]!.data!
        let outer = indices.shape[..<axis].reduce(1, *), inner = indices.shape[axis...].reduce(1, *)
        for o in 0..<outer {
            for d in 0..<depth {
                for i in 0..<inner {
                    let at = o * inner + i
                    let index = indices.integer(at: at)
                    (output.data! + ((o * depth + d) * inner + i) * size).copyMemory(from: index == d ? on : off, byteCount: size)
                }
            }
        }
    }
}
