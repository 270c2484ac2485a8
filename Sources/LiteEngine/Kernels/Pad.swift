import LiteFormat

/// PAD and PADV2: `paddings` [rank, 2] gives the values before and after each dimension; the fill is 0
/// (PAD; the zero point for quantized tensors) or the scalar third input (PADV2).
class Pad: Kernel {
    var before: [Int] = []
    var after: [Int] = []

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...3, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        let paddings = try integers(try self.input(1))
        guard paddings.count == 2 * input.rank else {
            throw KernelError.invalid("paddings has \(paddings.count) values for rank \(input.rank)")
        }
        before = stride(from: 0, to: paddings.count, by: 2).map { paddings[$0] }
        after = stride(from: 1, to: paddings.count, by: 2).map { paddings[$0] }
        guard (before + after).allSatisfy({ $0 >= 0 && $0 <= TFLiteModel.Limits.maxElements }) else { throw KernelError.invalid("negative padding \(paddings)") }
        guard input.type.byteSize != nil else { throw KernelError.unsupported("type \(input.type)") }
        if let value = optionalInput(2) {
            guard value.type == input.type, value.elementCount == 1 else { throw KernelError.invalid("pad value must be one \(input.type)") }
        }
        output.type = input.type
        output.shape = (0..<input.rank).map { input.shape[$0] + before[$0] + after[$0] }
    }

    /// The bytes of one fill element.
    func fillValue(_ input: Tensor) -> [UInt8] {
        let size = input.type.byteSize!
        if let value = optionalInput(2), let data = value.data {
            return Array(UnsafeRawBufferPointer(start: data, count: size))
        }
        if let zeroPoint = input.quantization?.zeroPoint.first, zeroPoint != 0 {
            switch input.type {
            case .uint8: return [UInt8(truncatingIfNeeded: zeroPoint)]
            case .int8: return [UInt8(bitPattern: Int8(truncatingIfNeeded: zeroPoint))]
            case .int16: return withUnsafeBytes(of: Int16(truncatingIfNeeded: zeroPoint).littleEndian, Array.init)
            default: break
            }
        }
        return Array(repeating: 0, count: size)
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        guard let dst = output.data else { return }
        let size = input.type.byteSize!
        let fill = fillValue(input)
        if fill.allSatisfy({ $0 == 0 }) {
            dst.initializeMemory(as: UInt8.self, repeating: 0, count: output.byteCount)
        } else {
            for i in 0..<output.elementCount {
                (dst + i * size).copyMemory(from: fill, byteCount: size)
            }
        }
        guard input.elementCount > 0, let src = input.data else { return }
        let rank = input.rank
        let outStrides = rowMajorStrides(output.shape)
        let rowBytes = input.shape.last.map { $0 * size } ?? size
        let rows = rank == 0 ? 1 : input.elementCount / input.shape[rank - 1]
        var index = Array(repeating: 0, count: max(rank - 1, 0))
        for row in 0..<rows {
            var offset = rank == 0 ? 0 : before[rank - 1]
            for d in 0..<max(rank - 1, 0) { offset += (index[d] + before[d]) * outStrides[d] }
            (dst + offset * size).copyMemory(from: src + row * rowBytes, byteCount: rowBytes)
            var d = rank - 2
            while d >= 0 {
                index[d] += 1
                if index[d] < input.shape[d] { break }
                index[d] = 0
                d -= 1
            }
        }
    }
}

/// PADV2: PAD with an explicit fill value.
final class PadV2: Pad {}
