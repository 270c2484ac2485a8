import LiteFormat

/// CONCATENATION along `axis` (negative counts from the end), any element type, with an optional fused activation
/// for floats. uint8 inputs whose scale or zero point differ from the output's are requantized as TFLite's
/// `ConcatenationWithScaling`: `round(q * s + b) + output_zero_point` in float, with
/// `s = input_scale * (1 / output_scale)` and `b = -input_zero_point * s` (a table of the 256 results per input);
/// int8 inputs must share the output's parameters, as TFLite's int8 kernel requires.
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
                guard first.type == .uint8 else {
                    // concatenation.cc: "no re-scaling needed for Int8 quantized kernel", a restriction TFLite checks.
                    throw KernelError.unsupported("int8 CONCATENATION with input \(i) quantized as scale \(qi.scale), zero point \(qi.zeroPoint) "
                                                  + "and the output as \(qo.scale), \(qo.zeroPoint); TFLite requires them equal")
                }
                let scale = qi.scale * inverse, bias = -Float(qi.zeroPoint) * scale
                let signed = first.type == .int8
                let (low, high): (Int32, Int32) = signed ? (-128, 127) : (0, 255)
                // A function of one byte: TFLite's float arithmetic done once for each of the 256 values.
                return (0..<256).map { byte -> UInt8 in
                    let q = signed ? Float(Int8(truncatingIfNeeded: byte)) : Float(byte)
                    let value = (q * scale + bias).rounded(.toNearestOrAwayFromZero) + Float(qo.zeroPoint)
                    return UInt8(truncatingIfNeeded: clampedToRange(value, low, high))
                }
            }
        }
    }

    /// Per input: nil to copy, or the 256-entry table of TFLite's requantizing copy (`round(q · s + b) + zero point`,
    /// clamped), indexed by the input byte's bit pattern.
    var rescale: [[UInt8]?] = []

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
                let table = index < rescale.count ? rescale[index] : nil
                // Bytes `range` of the input's row `o` to their place in the output row, copied or rescaled.
                func place(_ o: Int, _ range: Range<Int>) {
                    let from = src + o * row + range.lowerBound, to = dst + o * outRow + offset + range.lowerBound
                    if let table {
                        table.withUnsafeBufferPointer { table in
                            QuantizedLookupTable.lookUp(table.baseAddress!, from.assumingMemoryBound(to: UInt8.self),
                                                        to.assumingMemoryBound(to: UInt8.self), count: range.count)
                        }
                    } else {
                        to.copyMemory(from: from, byteCount: range.count)
                    }
                }
                if outer == 1 {
                    // One long row (a detector's anchors concatenated): split its bytes.
                    parallelFor(row, threads: context.threads, minimumChunk: 1 << 12, workPerItem: 1) { range in place(0, range) }
                } else {
                    parallelFor(outer, threads: context.threads, workPerItem: row) { rows in
                        for o in rows { place(o, 0..<row) }
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
