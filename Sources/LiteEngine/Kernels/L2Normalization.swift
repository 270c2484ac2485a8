import LiteFormat

/// L2_NORMALIZATION: each row of the last axis divided by its L2 norm, or by 1e-6 where the norm is smaller (TFLite's
/// epsilon); float32, no fused activation. int8 and uint8 as TFLite's integer kernels: the row's sum of squared
/// `x − zp` in int32, gemmlowp's fixed-point inverse square root of it, each `x − zp` rescaled by that onto the
/// fixed output scale 1/128 (int8: `MultiplyByQuantizedMultiplier` with 7 more bits; uint8: `128·(x − zp)` by
/// `MultiplyByQuantizedMultiplierSmallerThanOneExp`, plus 128), clamped.
final class L2Normalization: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
        guard try ArithmeticOptions(node.options).activation == .none else { throw KernelError.unsupported("L2_NORMALIZATION with a fused activation") }
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32, .int8, .uint8)
        guard input.rank >= 1 else { throw KernelError.invalid("L2_NORMALIZATION needs rank >= 1") }
        if input.type == .float32 {
            output.type = .float32
        } else {
            let qo = try QuantizedTensorInfo(output)
            guard output.type == input.type, qo.scale == 1 / 128, qo.zeroPoint == (input.type == .int8 ? 0 : 128) else {
                throw KernelError.unsupported("quantized L2_NORMALIZATION output must have scale 1/128 and zero point \(input.type == .int8 ? 0 : 128)")
            }
        }
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, depth = input.dim(-1)
        guard depth > 0 else { return }
        switch input.type {
        case .float32: runFloat(input, depth)
        default: try runQuantized(input, depth)
        }
    }

    private func runFloat(_ input: Tensor, _ depth: Int) {
        let src = input.floats, dst = node.outputs[0].floats
        for r in 0..<(input.elementCount / depth) {
            let x = src + r * depth, y = dst + r * depth
            var squares: Float = 0
            for c in 0..<depth { squares += x[c] * x[c] }
            let norm = max(squares.squareRoot(), 1e-6)
            for c in 0..<depth { y[c] = x[c] / norm }
        }
    }

    private func runQuantized(_ input: Tensor, _ depth: Int) throws {
        let signed = input.type == .int8, zeroPoint = try QuantizedTensorInfo(input).zeroPoint
        let src = UnsafeRawPointer(input.data!), dst = node.outputs[0].data!
        for r in 0..<(input.elementCount / depth) {
            var squares: Int32 = 0
            for c in 0..<depth {
                let difference = loadQuantized(src, r * depth + c, signed: signed) - zeroPoint
                squares &+= difference * difference
            }
            let (multiplier, shift) = IntegerLSTM.inverseSqrtMultiplier(squares)
            for c in 0..<depth {
                let difference = loadQuantized(src, r * depth + c, signed: signed) - zeroPoint
                let value = signed
                    ? min(max(IntegerArithmetic.multiplyByQuantizedMultiplier(difference, multiplier, shift + 7), -128), 127)
                    : min(max(128 + IntegerArithmetic.roundingDivideByPOT(
                        IntegerArithmetic.saturatingRoundingDoublingHighMul(128 * difference, multiplier), -shift), 0), 255)
                storeQuantized(dst, r * depth + c, value, signed: signed)
            }
        }
    }
}
