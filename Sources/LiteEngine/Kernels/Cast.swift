import LiteFormat

/// CAST between float32, int32, int64, int16, int8, uint8 and bool, with C++ `static_cast` semantics
/// (float to integer truncates toward zero; anything non-zero to bool is true).
final class Cast: Kernel {
    static let types: [TensorType] = [.float32, .int32, .int64, .int16, .int8, .uint8, .bool]

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        guard Self.types.contains(input.type), Self.types.contains(output.type) else {
            throw KernelError.unsupported("cast from \(input.type) to \(output.type)")
        }
        output.shape = input.shape
    }

    private func read(_ t: Tensor, _ i: Int) -> Double {
        switch t.type {
        case .float32: return Double(t.floats[i])
        case .int32: return Double(t.pointer(Int32.self)[i])
        case .int64: return Double(t.pointer(Int64.self)[i])
        case .int16: return Double(t.pointer(Int16.self)[i])
        case .int8: return Double(t.pointer(Int8.self)[i])
        case .uint8: return Double(t.pointer(UInt8.self)[i])
        default: return t.pointer(UInt8.self)[i] != 0 ? 1 : 0
        }
    }

    /// Truncates toward zero, saturating where the C++ cast would be undefined (NaN becomes 0).
    private func integer<T: FixedWidthInteger>(_ value: Double, _: T.Type) -> T {
        guard !value.isNaN else { return 0 }
        let truncated = value.rounded(.towardZero)
        if truncated >= Double(T.max) { return T.max }
        if truncated <= Double(T.min) { return T.min }
        return T(truncated)
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        if input.type == .float32 && output.type == .float32 {
            output.floats.update(from: input.floats, count: input.elementCount)
            return
        }
        for i in 0..<input.elementCount {
            let v = read(input, i)
            switch output.type {
            case .float32: output.floats[i] = input.type == .int64 ? Float(input.pointer(Int64.self)[i]) : Float(v)
            case .int32: output.pointer(Int32.self)[i] = integer(v, Int32.self)
            case .int64: output.pointer(Int64.self)[i] = input.type == .int64 ? input.pointer(Int64.self)[i] : integer(v, Int64.self)
            case .int16: output.pointer(Int16.self)[i] = integer(v, Int16.self)
            case .int8: output.pointer(Int8.self)[i] = input.type == .float32 ? integer(v, Int8.self) : Int8(truncatingIfNeeded: Int64(v))
            case .uint8: output.pointer(UInt8.self)[i] = input.type == .float32 ? integer(v, UInt8.self) : UInt8(truncatingIfNeeded: Int64(v))
            default: output.pointer(UInt8.self)[i] = v != 0 ? 1 : 0
            }
        }
    }
}
