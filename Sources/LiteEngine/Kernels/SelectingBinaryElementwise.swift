/// Base class of MAXIMUM and MINIMUM, the binary ops that pick one of their operands. Besides float32 they take
/// int32/int64 (in the type, clamped to the fused activation's range) and uint8/int8/int16, whose stored values they
/// compare as TFLite does (no rescale: the inputs and the output share one quantization). `prepare` chooses the
/// ``Plan`` by the inputs' type; each op's `run` switches over it.
class SelectingBinaryElementwise: BinaryElementwise {
    enum Plan {
        /// float32, through the broadcast loops of ``BinaryElementwise/compute(_:_:)``.
        case float
        /// int32/int64, through ``BinaryElementwise/computeIntegers(_:)``.
        case integers
        /// uint8/int8/int16 stored values, through ``BinaryElementwise/computeStoredValues(_:zeroPoints:_:)``.
        case storedValues
    }

    private(set) var plan = Plan.float

    override final func prepare() throws {
        let a = try input(0), b = try input(1), output = try self.output(0)
        switch a.type {
        case .int32, .int64:
            _ = try prepareIntegers()
            plan = .integers
        case .uint8, .int8, .int16:
            guard b.type == a.type, output.type == a.type else {
                throw KernelError.unsupported("\(a.type) and \(b.type) inputs into \(output.type)")
            }
            output.shape = try broadcastShape(a.shape, b.shape)
            plan = .storedValues
        default:
            try super.prepare()
            plan = .float
        }
    }

    override final var scratchBytes: Int { plan == .storedValues ? storedValueScratchBytes : 0 }
}
