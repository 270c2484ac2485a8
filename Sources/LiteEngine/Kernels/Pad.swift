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
        if input.rank > 0 { copyShapes = Self.mergingUnpaddedTail(input.shape, output.shape, before: before, after: after) }
    }

    /// The shapes `run` copies: ``mergingUnpaddedTail(_:_:before:after:)`` of the current ones.
    private var copyShapes: (inShape: [Int], outShape: [Int], before: [Int]) = ([], [], [])

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

    /// One pass over the output's rows (its last dimension), split over threads: a row inside the input is the
    /// fill before, the input row, the fill after; any other row is all fill. Each byte is written once.
    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        guard let dst = output.data, output.elementCount > 0 else { return }
        let size = input.type.byteSize!
        let fill = fillValue(input)
        guard input.rank > 0 else {
            if let src = input.data { dst.copyMemory(from: src, byteCount: size) }
            return
        }
        let (inShape, outShape, before) = copyShapes
        let rank = inShape.count
        let inner = outShape[rank - 1], inInner = inShape[rank - 1]
        let rows = output.elementCount / inner
        let inStrides = rowMajorStrides(inShape)
        let src = input.elementCount > 0 ? input.data.map(UnsafeRawPointer.init) : nil
        let innerBefore = before[rank - 1] * size, innerBytes = inInner * size, rowBytes = inner * size
        let innerAfter = rowBytes - innerBefore - innerBytes
        let onlyInner = (0..<(rank - 1)).allSatisfy { inShape[$0] == outShape[$0] }
        fill.withUnsafeBytes { pattern in
            parallelFor(rows, threads: context.threads, minimumChunk: 16, workPerItem: max(inner / 4, 1)) { range in
                if onlyInner, let src {
                    // Channel padding (the residual blocks of BlazeFace and MobileNet-style detectors): row k of the
                    // output is row k of the input between two fills.
                    for row in range {
                        let out = dst + row * rowBytes
                        Self.fill(out, bytes: innerBefore, pattern: pattern)
                        Self.copy(src + row * innerBytes, to: out + innerBefore, bytes: innerBytes)
                        Self.fill(out + innerBefore + innerBytes, bytes: innerAfter, pattern: pattern)
                    }
                    return
                }
                var index = [Int](repeating: 0, count: rank - 1)
                var rest = range.lowerBound
                for d in stride(from: rank - 2, through: 0, by: -1) {
                    index[d] = rest % outShape[d]
                    rest /= outShape[d]
                }
                for row in range {
                    let out = dst + row * rowBytes
                    var source = 0, inside = src != nil
                    for d in 0..<(rank - 1) {
                        let i = index[d] - before[d]
                        if i < 0 || i >= inShape[d] { inside = false; break }
                        source += i * inStrides[d]
                    }
                    if inside, let src {
                        Self.fill(out, bytes: innerBefore, pattern: pattern)
                        Self.copy(src + source * size, to: out + innerBefore, bytes: innerBytes)
                        Self.fill(out + innerBefore + innerBytes, bytes: innerAfter, pattern: pattern)
                    } else {
                        Self.fill(out, bytes: rowBytes, pattern: pattern)
                    }
                    var d = rank - 2
                    while d >= 0 {
                        index[d] += 1
                        if index[d] < outShape[d] { break }
                        index[d] = 0
                        d -= 1
                    }
                }
            }
        }
    }

    /// The shapes and leading paddings with the dimensions after the last padded one merged into it (those are as
    /// large in the output as in the input), so that a row, the unit the run copies, is as long as it can be: an image
    /// padded in height and width copies rows of whole pixels, not one pixel's few channels at a time.
    static func mergingUnpaddedTail(_ inShape: [Int], _ outShape: [Int], before: [Int], after: [Int])
        -> (inShape: [Int], outShape: [Int], before: [Int]) {
        let last = (0..<inShape.count).last { before[$0] != 0 || after[$0] != 0 } ?? 0
        let tail = inShape[(last + 1)...].reduce(1, *)
        return (Array(inShape[..<last]) + [inShape[last] * tail],
                Array(outShape[..<last]) + [outShape[last] * tail],
                Array(before[..<last]) + [before[last] * tail])
    }

    /// Copies `bytes` bytes; rows of whole 32-byte blocks move inline (the last block overlapping the one before),
    /// which for the short rows of channel padding costs less than a call to memcpy.
    @inline(__always)
    static func copy(_ source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer, bytes: Int) {
        guard bytes >= 32 else {
            destination.copyMemory(from: source, byteCount: bytes)
            return
        }
        var offset = 0
        while offset + 32 <= bytes {
            (destination + offset).storeBytes(of: (source + offset).loadUnaligned(as: SIMD8<UInt32>.self), as: SIMD8<UInt32>.self)
            offset += 32
        }
        if offset < bytes {
            let last = bytes - 32
            (destination + last).storeBytes(of: (source + last).loadUnaligned(as: SIMD8<UInt32>.self), as: SIMD8<UInt32>.self)
        }
    }

    /// Writes `bytes` bytes (a whole number of elements) of the repeated element `pattern`.
    @inline(__always)
    static func fill(_ destination: UnsafeMutableRawPointer, bytes: Int, pattern: UnsafeRawBufferPointer) {
        guard bytes > 0 else { return }
        if pattern.count == 4, bytes <= 64 {
            let value = pattern.loadUnaligned(as: UInt32.self)
            for offset in stride(from: 0, to: bytes, by: 4) { (destination + offset).storeBytes(of: value, as: UInt32.self) }
        } else if pattern.count == 1 || pattern.allSatisfy({ $0 == 0 }) {
            destination.initializeMemory(as: UInt8.self, repeating: pattern[0], count: bytes)
        } else if pattern.count == 4 {
            destination.initializeMemory(as: UInt32.self, repeating: pattern.loadUnaligned(as: UInt32.self), count: bytes / 4)
        } else {
            for offset in stride(from: 0, to: bytes, by: pattern.count) {
                (destination + offset).copyMemory(from: pattern.baseAddress!, byteCount: pattern.count)
            }
        }
    }
}

/// PADV2: PAD with an explicit fill value.
final class PadV2: Pad {}

extension Pad: FoldableChannelZeroPad {
    var isFloatChannelZeroPad: Bool {
        guard node.code.builtin == .pad, node.inputs.count == 2, let input = node.inputs[0], input.type == .float32, input.rank > 0,
              let paddings = node.inputs[1], paddings.storage == .constant, let values = try? integers(paddings),
              values.count == 2 * input.rank else { return false }
        return values.dropLast().allSatisfy { $0 == 0 } && values.last! > 0
    }
}

extension Pad: FoldableSpatialZeroPad {
    var floatSpatialZeroPadding: SpatialZeroPadding? {
        guard node.code.builtin == .pad, node.inputs.count == 2, let input = node.inputs[0], input.type == .float32, input.rank == 4,
              let paddings = node.inputs[1], paddings.storage == .constant, let values = try? integers(paddings), values.count == 8,
              values[0] == 0, values[1] == 0, values[6] == 0, values[7] == 0, values[2...5].allSatisfy({ $0 >= 0 }), values[2...5].contains(where: { $0 > 0 })
        else { return nil }
        return SpatialZeroPadding(top: values[2], bottom: values[3], left: values[4], right: values[5])
    }
}
