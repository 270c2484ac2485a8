/// TILE: the input repeated `multiples[i]` times along each axis i (multiples int32 or int64, known when planning).
final class Tile: Kernel {
    override var foldsAtPlanning: Bool { true }

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        _ = try elementSize(input)
        let multiples = try integers(try self.input(1))
        guard multiples.count == input.rank, multiples.allSatisfy({ $0 >= 0 }) else {
            throw KernelError.invalid("TILE multiples \(multiples) for an input of shape \(input.shape)")
        }
        output.type = input.type
        output.shape = zip(input.shape, multiples).map { saturatingProduct($0, $1) }
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        guard input.elementCount > 0 else { return }
        copyRepeating(input.data!, inputShape: input.shape, into: output.data!, outputShape: output.shape, elementSize: input.type.byteSize!)
    }
}
