import LiteFormat

/// CAST between float32, int32, int64, int16, int8, uint8 and bool as LiteRT's kernel: integers to a narrower
/// integer keep the low bits (C++ `static_cast`), float to integer truncates toward zero and saturates (NaN becomes
/// the largest value), anything non-zero (NaN too) to bool is true.
final class Cast: Kernel {
    /// Integer results may be shape arithmetic, which folds while planning (``Kernel/foldsAtPlanning``).
    override var foldsAtPlanning: Bool { node.outputs.allSatisfy { $0.type == .int32 || $0.type == .int64 } }

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

    /// An integer or bool input's value, exactly.
    private func integer(_ t: Tensor, _ i: Int) -> Int64 {
        switch t.type {
        case .int32: return Int64(t.pointer(Int32.self)[i])
        case .int64: return t.pointer(Int64.self)[i]
        case .int16: return Int64(t.pointer(Int16.self)[i])
        case .int8: return Int64(t.pointer(Int8.self)[i])
        case .uint8: return Int64(t.pointer(UInt8.self)[i])
        default: return t.pointer(UInt8.self)[i] != 0 ? 1 : 0
        }
    }

    /// Float to integer as LiteRT casts: toward zero, saturating at the type's bounds, NaN to the largest value.
    private func saturating<T: FixedWidthInteger>(_ value: Float, _: T.Type) -> T {
        guard !value.isNaN else { return T.max }
        let truncated = Double(value).rounded(.towardZero)
        if truncated >= Double(T.max) { return T.max }
        if truncated <= Double(T.min) { return T.min }
        return T(truncated)
    }

    private func store<T: FixedWidthInteger>(_ output: Tensor, _ i: Int, _ value: Float?, _ integer: Int64, _: T.Type) {
        output.pointer(T.self)[i] = value.map { saturating($0, T.self) } ?? T(truncatingIfNeeded: integer)
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        if input.type == .float32 && output.type == .float32 {
            output.floats.update(from: input.floats, count: input.elementCount)
            return
        }
        for i in 0..<input.elementCount {
            // Integer to integer keeps the low bits (C++'s static_cast); from float the value saturates.
            let value: Float? = input.type == .float32 ? input.floats[i] : nil
            let whole = value == nil ? integer(input, i) : 0
            switch output.type {
            case .float32: output.floats[i] = Float(whole)
            case .int32: store(output, i, value, whole, Int32.self)
            case .int64: store(output, i, value, whole, Int64.self)
            case .int16: store(output, i, value, whole, Int16.self)
            case .int8: store(output, i, value, whole, Int8.self)
            case .uint8: store(output, i, value, whole, UInt8.self)
            default: output.pointer(UInt8.self)[i] = (value.map { $0 != 0 } ?? (whole != 0)) ? 1 : 0
            }
        }
    }
}
