import LiteFormat

/// CONCATENATION along `axis` (negative counts from the end), any element type, with an optional fused activation
/// for floats. uint8/int8 inputs whose scale or zero point differ from the output's are requantized as
/// TFLite's `ConcatenationWithScaling`: `round(q * s + b) + output_zero_point` in float, with
/// `s = input_scale * (1 / output_scale)` and `b = -input_zero_point * s`.
final class Concatenation: Kernel {
    override var foldsAtPlanning: Bool { true }

    let options: ConcatenationOptions
    var axis = 0
    var activation: (Float, Float) = (-.infinity, .infinity)

    required init(_ node: NodeContext) throws {
        options = try ConcatenationOptions(node.options)
        try super.init(node)
        guard !node.inputs.isEmpty, node.outputs.count == 1 else { throw KernelError.invalid("needs inputs and one output") }
        activation = try activationRange(options.activation)
    }

    override func prepare() throws {
        let first = try input(0), output = try self.output(0)
        let rank = first.rank
        axis = options.axis < 0 ? options.axis + rank : options.axis
        guard axis >= 0, axis < rank else { throw KernelError.invalid("axis \(options.axis) out of range for rank \(rank)") }
        var shape = first.shape
        shape[axis] = 0
        for i in 0..<node.inputs.count {
            let t = try input(i)
            guard t.type == first.type else { throw KernelError.invalid("input \(i) is \(t.type), input 0 is \(first.type)") }
            guard t.rank == rank, (0..<rank).allSatisfy({ $0 == axis || t.shape[$0] == first.shape[$0] }) else {
                throw KernelError.invalid("input \(i) shape \(t.shape) does not fit \(first.shape) along axis \(axis)")
            }
            shape[axis] += t.shape[axis]
        }
        if first.type != .float32 && options.activation != .none { throw KernelError.unsupported("fused activation on \(first.type)") }
        guard first.type.byteSize != nil else { throw KernelError.unsupported("type \(first.type)") }
        output.type = first.type
        output.shape = shape
        if first.type == .uint8 || first.type == .int8 {
            let qo = try QuantizedTensorInfo(output)
            let inverse = 1 / qo.scale
            rescale = try (0..<node.inputs.count).map { i in
                let qi = try QuantizedTensorInfo(try input(i))
                if qi.scale == qo.scale && qi.zeroPoint == qo.zeroPoint { return nil }
                let scale = qi.scale * inverse
                return (scale, -Float(qi.zeroPoint) * scale, qo.zeroPoint)
            }
        }
    }

    /// Per input: nil to copy, or the float scale, bias and output zero point of TFLite's requantizing copy.
    var rescale: [(Float, Float, Int32)?] = []

    override func run(_ context: RunContext) throws {
        let output = node.outputs[0]
        let element = output.type.byteSize!
        let outer = output.shape[..<axis].reduce(1, *)
        let inner = output.shape[(axis + 1)...].reduce(1, *) * element
        let outRow = output.shape[axis] * inner
        var offset = 0
        for (index, tensor) in node.inputs.enumerated() {
            let t = tensor!
            let row = t.shape[axis] * inner
            if row > 0, let src = t.data, let dst = output.data {
                if index < rescale.count, let (scale, bias, zeroPoint) = rescale[index] {
                    let signed = output.type == .int8
                    let (low, high): (Int32, Int32) = signed ? (-128, 127) : (0, 255)
                    for o in 0..<outer {
                        for j in 0..<row {
                            let q = Float(loadQuantized(src, o * row + j, signed: signed))
                            let value = Int32((q * scale + bias).rounded(.toNearestOrAwayFromZero)) + zeroPoint
                            storeQuantized(dst + o * outRow + offset, j, min(max(value, low), high), signed: signed)
                        }
                    }
                } else {
                    for o in 0..<outer {
                        (dst + o * outRow + offset).copyMemory(from: src + o * row, byteCount: row)
                    }
                }
            }
            offset += row
        }
        if output.type == .float32 {
            clamp(output.floats, count: output.elementCount, activation.0, activation.1)
        }
    }
}
