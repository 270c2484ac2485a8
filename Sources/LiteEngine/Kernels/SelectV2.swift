/// SELECT_V2: `condition ? x : y` elementwise, the three inputs broadcast together (numpy rules); x and y of one type
/// (any fixed-size type), condition bool.
class SelectV2: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 3...3, outputs: 1)
    }

    /// The shape the condition is broadcast from (SELECT reads a rank-1 condition along the first axis).
    func conditionShape(_ condition: Tensor, _ x: Tensor) throws -> [Int] { condition.shape }

    override func prepare() throws {
        let condition = try input(0), x = try input(1), y = try input(2), output = try self.output(0)
        try expectType(condition, .bool)
        _ = try elementSize(x)
        guard y.type == x.type else { throw KernelError.unsupported("branches of types \(x.type) and \(y.type)") }
        output.type = x.type
        output.shape = try broadcastShape(broadcastShape(try conditionShape(condition, x), x.shape), y.shape)
    }

    override func run(_ context: RunContext) throws {
        let condition = node.inputs[0]!, x = node.inputs[1]!, y = node.inputs[2]!, output = node.outputs[0]
        let shape = output.shape, rank = shape.count, size = output.type.byteSize!
        func strides(_ operand: [Int]) -> [Int] {
            let padded = Array(repeating: 1, count: rank - operand.count) + operand
            let natural = rowMajorStrides(padded)
            return (0..<rank).map { padded[$0] == 1 ? 0 : natural[$0] }
        }
        let sc = strides(try conditionShape(condition, x)), sx = strides(x.shape), sy = strides(y.shape)
        let flags = condition.pointer(UInt8.self), a = UnsafeRawPointer(x.data!), b = UnsafeRawPointer(y.data!), out = output.data!
        var index = [Int](repeating: 0, count: rank)
        var (ic, ix, iy) = (0, 0, 0)
        for o in 0..<output.elementCount {
            (out + o * size).copyMemory(from: flags[ic] != 0 ? a + ix * size : b + iy * size, byteCount: size)
            var d = rank - 1
            while d >= 0 {
                index[d] += 1
                ic += sc[d]; ix += sx[d]; iy += sy[d]
                if index[d] < shape[d] { break }
                ic -= sc[d] * shape[d]; ix -= sx[d] * shape[d]; iy -= sy[d] * shape[d]
                index[d] = 0
                d -= 1
            }
        }
    }
}
