import LiteFormat

/// LEAKY_RELU: x where x > 0, else alpha * x. uint8/int8/int16 as TFLite's `QuantizeLeakyRelu`: `x - zp_in` rescaled by
/// `s_in / s_out` when it is at least 0, else by `s_in · alpha / s_out` (both products in float, as activations.cc
/// computes them, then `QuantizeMultiplier`), plus `zp_out`, clamped to the type; a 256-entry table (int16: 65,536).
final class LeakyRelu: Kernel {
    let alpha: Float

    /// The path `run` takes, chosen by `prepare` from the input's type.
    enum Plan {
        /// float32: `x > 0 ? x : alpha · x`.
        case float
        /// uint8/int8/int16: every stored value's result, tabulated.
        case quantized(QuantizedLookupTable)
    }

    /// The path `run` takes (nil before `prepare`).
    private(set) var plan: Plan?

    required init(_ node: NodeContext) throws {
        alpha = try LeakyReluOptions(node.options).alpha
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        output.shape = input.shape
        if input.type == .uint8 || input.type == .int8 || input.type == .int16 {
            guard output.type == input.type else { throw KernelError.unsupported("LEAKY_RELU of \(input.type) into \(output.type)") }
            let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
            guard alpha.isFinite else { throw KernelError.invalid("LEAKY_RELU alpha \(alpha)") }
            let identity = try Self.multiplier(qi.scale / qo.scale)
            let negative = try Self.multiplier(qi.scale * alpha / qo.scale)
            let (typeMin, typeMax) = try quantizedRange(input.type)
            let (inputZero, outputZero) = (qi.zeroPoint, qo.zeroPoint)
            plan = .quantized(QuantizedLookupTable(type: input.type) { x in
                let offset = x &- inputZero
                let (m, s) = offset >= 0 ? identity : negative
                return min(max(outputZero &+ IntegerArithmetic.multiplyByQuantizedMultiplier(offset, m, s), typeMin), typeMax)
            })
            return
        }
        try expectType(input, .float32)
        plan = .float
        output.type = .float32
    }

    /// `QuantizeMultiplier` of a float ratio, keeping its sign (frexp's significand carries it in TFLite).
    private static func multiplier(_ ratio: Float) throws -> (Int32, Int) {
        let (m, s) = IntegerArithmetic.quantizeMultiplier(Double(ratio.magnitude))
        guard s <= 30 else { throw KernelError.unsupported("LEAKY_RELU rescale \(ratio) too large") }
        return (ratio < 0 ? -m : m, s)
    }

    override func run(_ context: RunContext) throws {
        switch plan {
        case .quantized(let table)?: return table.apply(node.inputs[0]!, node.outputs[0], threads: context.threads)
        case .float?: break
        case nil: throw KernelError.invalid("LEAKY_RELU ran before it was prepared")
        }
        let x = node.inputs[0]!.floats, y = node.outputs[0].floats, alpha = self.alpha
        for i in 0..<node.inputs[0]!.elementCount {
            let v = x[i]
            y[i] = v > 0 ? v : v * alpha
        }
    }
}
