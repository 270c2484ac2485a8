/// RANGE (`RangeOp`: `Range` is the standard library's): `start, start + delta, ...` up to but not including `limit`, from three scalars of one type (int32, int64
/// or float32) known when planning; the count is `⌈|limit − start| / |delta|⌉` (TFLite's GetSize). A zero delta, or
/// one pointing away from the limit, is an error.
final class RangeOp: Kernel {
    override var foldsAtPlanning: Bool { true }

    /// The most elements a RANGE may make (a hostile start and limit must not ask for unbounded memory here).
    static let maximumCount = 1 << 28

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 3...3, outputs: 1)
    }

    private func scalars() throws -> (Double, Double, Double) {
        let tensors = try (0..<3).map { try input($0) }
        let type = tensors[0].type
        guard tensors.allSatisfy({ $0.type == type && $0.elementCount == 1 }) else {
            throw KernelError.invalid("RANGE takes three scalars of one type, has \(tensors.map(\.description))")
        }
        if type == .float32 {
            readsValuesWhilePreparing = true
            guard tensors.allSatisfy({ $0.data != nil && $0.storage != .arena }) else { throw KernelError.unsupported("RANGE inputs must be known when planning") }
            let values = tensors.map { Double($0.floats[0]) }
            return (values[0], values[1], values[2])
        }
        let values = try tensors.map { Double(try integers($0)[0]) }
        return (values[0], values[1], values[2])
    }

    override func prepare() throws {
        let output = try self.output(0)
        try expectType(try input(0), .int32, .int64, .float32)
        let (start, limit, delta) = try scalars()
        guard delta != 0, !(start > limit && delta > 0), !(start < limit && delta < 0), start.isFinite, limit.isFinite, delta.isFinite else {
            throw KernelError.invalid("RANGE from \(start) to \(limit) by \(delta)")
        }
        let count = try input(0).type == .float32 ? (abs((limit - start) / delta)).rounded(.up) : (abs(limit - start) / abs(delta)).rounded(.up)
        guard count <= Double(Self.maximumCount) else { throw KernelError.unsupported("RANGE of \(count) elements") }
        output.type = try input(0).type
        output.shape = [Int(count)]
    }

    override func run(_ context: RunContext) throws {
        let output = node.outputs[0], count = output.elementCount
        switch output.type {
        case .float32:
            // Accumulated as TFLite's CalculateRange does (not start + i·delta, which rounds differently).
            var value = node.inputs[0]!.floats[0]
            let delta = node.inputs[2]!.floats[0], out = output.floats
            for i in 0..<count {
                out[i] = value
                value += delta
            }
        case .int32:
            let start = node.inputs[0]!.pointer(Int32.self)[0], delta = node.inputs[2]!.pointer(Int32.self)[0], out = output.pointer(Int32.self)
            for i in 0..<count { out[i] = start &+ Int32(truncatingIfNeeded: i) &* delta }
        default:
            let start = node.inputs[0]!.pointer(Int64.self)[0], delta = node.inputs[2]!.pointer(Int64.self)[0], out = output.pointer(Int64.self)
            for i in 0..<count { out[i] = start &+ Int64(i) &* delta }
        }
    }
}
