import Foundation

/// Elementwise kernel of one input, same shape out. `prepare` chooses a ``Plan`` by the input's type, once:
/// float32 runs the op's float function (each subclass's ``runFloat(_:)``, which calls ``compute(_:_:)`` with its
/// function as a ``FloatUnaryOperation`` type); int32/int64 run ``integerFunction``; uint8/int8/int16 run a lookup
/// table of every stored value, built from ``quantizedFunction``, ``int16Function(input:output:)``,
/// ``quantizedClamp`` or an op's own ``makePlan(input:output:)``. `run` switches over the plan.
class UnaryElementwise: Kernel {
    /// How a node of this op runs; the case is the path, chosen in `prepare`.
    enum Plan {
        /// float32 through ``runFloat(_:)``.
        case float
        /// int32/int64 through the op's integer function, wrapping as C++ does on the type.
        case integers((Int64) -> Int64)
        /// uint8/int8/int16 stored values through a table of every input. `definedFrom`, when set, is the smallest
        /// stored input the op is defined on (SQRT and RSQRT of a negative value): a smaller one fails the run.
        case table(QuantizedLookupTable, definedFrom: Int32? = nil)
    }

    private(set) var plan = Plan.float

    /// The float function for building a uint8/int8 lookup table (TFLite's `PopulateLookupTable`); nil where the op
    /// has no such quantized form.
    class var quantizedFunction: ((Float) -> Float)? { nil }

    /// For int16 tensors (16x8 models): the op's exact integer function of the stored input, tabulated over all 65,536
    /// stored values; nil where the op has no int16 form here. It also checks the quantizations the op accepts.
    class func int16Function(input: Tensor, output: Tensor) throws -> ((Int32) -> Int32)? { nil }

    /// For int32/int64 tensors (NEG, ABS, SIGN): the op's function, wrapping as C++ does on the type; nil where the op
    /// has no integer form.
    class var integerFunction: ((Int64) -> Int64)? { nil }

    /// For the clamping activations (RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1): the float range whose quantized form
    /// clamps uint8/int8/int16 (nil maximum: the type's maximum); nil for every other op.
    class var quantizedClamp: (minimum: Float, maximum: Float?)? { nil }

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override final func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        plan = try makePlan(input: input, output: output)
        output.shape = input.shape
    }

    /// The plan for these tensors, by the input's type. An op with tables of its own overrides this, handles its
    /// types and passes the rest to `super`. Sets the output's type where the op decides it.
    func makePlan(input: Tensor, output: Tensor) throws -> Plan {
        switch input.type {
        case .float32:
            output.type = .float32
            return .float
        case .int32, .int64:
            guard let function = Self.integerFunction else { break }
            output.type = input.type
            return .integers(function)
        case .uint8, .int8, .int16:
            if let clamp = Self.quantizedClamp {
                return .table(try quantizedClampTable(input: input, output: output, minimum: clamp.minimum, maximum: clamp.maximum))
            }
            if input.type == .int16, let function = try Self.int16Function(input: input, output: output) {
                guard output.type == .int16 else { throw KernelError.unsupported("int16 input into \(output.type)") }
                return .table(QuantizedLookupTable(type: .int16, function: function))
            }
            if input.type != .int16, let function = Self.quantizedFunction {
                return .table(try QuantizedLookupTable(input: input, output: output, transform: function))
            }
        default:
            break
        }
        throw KernelError.unsupported("\(node.code) of \(input.type)")
    }

    override final func run(_ context: RunContext) throws {
        switch plan {
        case .float:
            try runFloat(context)
        case .integers(let function):
            runIntegers(function)
        case .table(let table, let definedFrom):
            if let definedFrom { try checkDomain(from: definedFrom) }
            table.apply(node.inputs[0]!, node.outputs[0], threads: context.threads)
        }
    }

    /// The float32 path: the subclass's function over the input, through ``compute(_:_:)``.
    func runFloat(_ context: RunContext) throws {
        preconditionFailure("\(Self.self) has no float path")
    }

    private func runIntegers(_ function: (Int64) -> Int64) {
        let input = node.inputs[0]!, output = node.outputs[0]
        if input.type == .int32 {
            let x = input.pointer(Int32.self), out = output.pointer(Int32.self)
            for i in 0..<input.elementCount { out[i] = Int32(truncatingIfNeeded: function(Int64(x[i]))) }
        } else {
            let x = input.pointer(Int64.self), out = output.pointer(Int64.self)
            for i in 0..<input.elementCount { out[i] = function(x[i]) }
        }
    }

    /// Fails on a stored input below `smallest` (a negative real value, for SQRT and RSQRT).
    private func checkDomain(from smallest: Int32) throws {
        let input = node.inputs[0]!
        func firstBelow<T: FixedWidthInteger>(_: T.Type) -> Int32? {
            let values = input.pointer(T.self)
            for i in 0..<input.elementCount where Int32(values[i]) < smallest { return Int32(values[i]) }
            return nil
        }
        let below = switch input.type {
        case .int8: firstBelow(Int8.self)
        case .int16: firstBelow(Int16.self)
        default: firstBelow(UInt8.self)
        }
        if let below { throw KernelError.invalid("\(node.code) of a negative value (stored \(below), zero point \(smallest))") }
    }

    /// TFLite's quantized `ReluX` as a table for uint8/int8/int16:
    /// `clamp(zp_out + MultiplyByQuantizedMultiplier(x - zp_in, s_in / s_out), lo, hi)` with
    /// `lo = max(type min, zp_out + roundf(minimum / s_out))` and `hi` alike from `maximum` (nil: the type's maximum).
    private func quantizedClampTable(input: Tensor, output: Tensor, minimum: Float, maximum: Float?) throws -> QuantizedLookupTable {
        guard output.type == input.type else { throw KernelError.unsupported("\(input.type) input into \(output.type)") }
        let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
        let (multiplier, shift) = IntegerArithmetic.quantizeMultiplier(Double(qi.scale) / Double(qo.scale))
        guard shift <= 30 else { throw KernelError.unsupported("rescale from scale \(qi.scale) to \(qo.scale)") }
        let (typeMin, typeMax) = try quantizedRange(input.type)
        // roundf of a finite float quotient; absurd scales saturate instead of trapping.
        func quantized(_ value: Float) -> Int32 {
            let steps = (value / qo.scale).rounded(.toNearestOrAwayFromZero)
            return steps.magnitude < 16_777_216 ? qo.zeroPoint &+ Int32(steps) : (steps > 0 ? Int32.max : Int32.min)
        }
        let low = max(typeMin, quantized(minimum))
        let high = maximum.map { min(typeMax, quantized($0)) } ?? typeMax
        let (inputZero, outputZero) = (qi.zeroPoint, qo.zeroPoint)
        return QuantizedLookupTable(type: input.type) { x in
            let scaled = outputZero &+ IntegerArithmetic.multiplyByQuantizedMultiplier(x &- inputZero, multiplier, shift)
            return min(max(scaled, low), high)
        }
    }

    @inline(__always)
    final func compute<Operation: FloatUnaryOperation>(_ threads: Int, _: Operation.Type) {
        let input = node.inputs[0]!.floats, output = node.outputs[0].floats
        let count = node.inputs[0]!.elementCount
        // An element counts as four units of work, as in the binary ops: splitting a mid-sized RELU beats one thread
        // reading what two threads had written.
        parallelFor(count, threads: threads, minimumChunk: 4096, workPerItem: 4) { range in
            for i in range { output[i] = Operation.apply(input[i]) }
        }
    }
}
