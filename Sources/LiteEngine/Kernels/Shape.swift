import LiteFormat

/// SHAPE: the input's dimensions as a 1-D int32 (or int64, as the output is declared) tensor. It depends on the
/// input's shape only, so the interpreter computes it while planning and what reads it (a RESHAPE's shape built
/// with GATHER, REDUCE_PROD and PACK, as Keras emits for a Dense layer on a sequence) sees a constant.
final class Shape: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override var foldsAtPlanning: Bool { true }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        if output.type != .int64 { output.type = .int32 }
        output.shape = [input.rank]
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        for (i, d) in input.shape.enumerated() {
            if output.type == .int64 {
                output.data!.storeBytes(of: Int64(d), toByteOffset: 8 * i, as: Int64.self)
            } else {
                output.data!.storeBytes(of: Int32(d), toByteOffset: 4 * i, as: Int32.self)
            }
        }
    }
}
