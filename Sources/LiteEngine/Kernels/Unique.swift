import LiteFormat

/// UNIQUE: the distinct values of a 1-D tensor in order of first appearance, and for each input element the
/// position of its value among them (int32 or int64, the `idx_out_type` option). float32, int32, int64, int8,
/// uint8 values compared by value (floats: -0 and 0 are one value, each NaN its own, as TFLite's `std::map`).
/// The number of distinct values is known only when running: the plan holds them all distinct
/// (``Kernel/shrinksOutputsWhenRunning``).
final class Unique: Kernel {
    override var shrinksOutputsWhenRunning: Bool { true }
    var indexType: TensorType = .int32

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 2)
        // UniqueOptions { idx_out_type: TensorType = INT32 }
        indexType = try node.options.map { try $0.scalar(0, default: TensorType.int32.rawValue) }.flatMap { TensorType(rawValue: $0) } ?? .int32
        guard indexType == .int32 || indexType == .int64 else { throw KernelError.unsupported("UNIQUE index type \(indexType)") }
    }

    override func prepare() throws {
        let input = try self.input(0), values = try output(0), positions = try output(1)
        try expectType(input, .float32, .int32, .int64, .int8, .uint8)
        try expectRank(input, 1)
        values.type = input.type
        values.shape = input.shape
        positions.type = indexType
        positions.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        switch node.inputs[0]!.type {
        case .float32: distinct(Float.self)
        case .int32: distinct(Int32.self)
        case .int64: distinct(Int64.self)
        case .int8: distinct(Int8.self)
        default: distinct(UInt8.self)
        }
    }

    private func distinct<T: Hashable>(_: T.Type) {
        let input = node.inputs[0]!, values = node.outputs[0], positions = node.outputs[1]
        let source = input.pointer(T.self), out = values.pointer(T.self)
        var seen: [T: Int] = [:]
        var count = 0
        for i in 0..<input.elementCount {
            let value = source[i]
            let position: Int
            if let known = seen[value] {
                position = known
            } else {
                position = count
                out[count] = value
                count += 1
                // NaN is never equal to itself, so each NaN stays a value of its own, as in TFLite's map.
                if value == value { seen[value] = position }
            }
            if indexType == .int32 { positions.pointer(Int32.self)[i] = Int32(position) } else { positions.pointer(Int64.self)[i] = Int64(position) }
        }
        values.shape = [count]
    }
}
