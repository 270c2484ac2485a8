/// MATRIX_DIAG: `[..., n]` to `[..., n, n]` matrices with the input on their diagonal and zeros elsewhere. Any
/// fixed-size type.
final class MatrixDiag: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        _ = try elementSize(input)
        guard input.rank >= 1 else { throw KernelError.invalid("MATRIX_DIAG needs rank >= 1") }
        output.type = input.type
        output.shape = input.shape + [input.dim(-1)]
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let size = input.type.byteSize!, n = input.dim(-1)
        let destination = output.data!
        destination.initializeMemory(as: UInt8.self, repeating: 0, count: output.byteCount)
        guard n > 0 else { return }
        for matrix in 0..<(input.elementCount / n) {
            for i in 0..<n {
                (destination + ((matrix * n + i) * n + i) * size).copyMemory(from: input.data! + (matrix * n + i) * size, byteCount: size)
            }
        }
    }
}
