/// MATRIX_SET_DIAG: `[..., m, n]` matrices with their diagonal replaced by `[..., min(m, n)]`. Any fixed-size type.
final class MatrixSetDiag: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), diagonal = try self.input(1), output = try self.output(0)
        _ = try elementSize(input)
        guard input.rank >= 2, diagonal.type == input.type,
              diagonal.shape == Array(input.shape.dropLast(2)) + [min(input.dim(-2), input.dim(-1))] else {
            throw KernelError.invalid("MATRIX_SET_DIAG of \(input.type) \(input.shape) with \(diagonal.type) \(diagonal.shape)")
        }
        output.type = input.type
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, diagonal = node.inputs[1]!, output = node.outputs[0]
        let size = input.type.byteSize!, (m, n) = (input.dim(-2), input.dim(-1)), k = min(m, n)
        output.data!.copyMemory(from: input.data!, byteCount: input.byteCount)
        guard m > 0, n > 0 else { return }
        for matrix in 0..<(input.elementCount / (m * n)) {
            for i in 0..<k {
                (output.data! + (matrix * m * n + i * n + i) * size).copyMemory(from: diagonal.data! + (matrix * k + i) * size, byteCount: size)
            }
        }
    }
}
