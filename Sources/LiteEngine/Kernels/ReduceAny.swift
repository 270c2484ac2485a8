/// REDUCE_ANY: whether any bool over the axes of the second (constant) input is true, with keep_dims (an empty
/// reduction is false).
class ReduceAny: Reduce {
    /// The value of an empty reduction, and the one that decides it once seen (true for ANY, false for ALL).
    class var deciding: Bool { true }

    override var foldsAtPlanning: Bool { true }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .bool)
        axes = try reducedAxes(of: input)
        output.type = .bool
        output.shape = reducedShape(of: input)
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let deciding: UInt8 = Self.deciding ? 1 : 0
        let src = input.pointer(UInt8.self), dst = output.pointer(UInt8.self)
        dst.update(repeating: 1 - deciding, count: output.elementCount)
        forEachInputElement(input.shape) { i, o in if (src[i] != 0) == Self.deciding { dst[o] = deciding } }
    }
}
