/// Writes a contiguous tensor of `shape` whose element at index (i0, i1, ...) is read from
/// `source + (start + Σ ik * sourceStrides[k]) * elementSize`. Transpose, slices, splits, packing and
/// depth/space rearrangements are all this copy with different strides. When the innermost source stride
/// is 1, whole rows move with one memcpy.
func stridedCopy(source: UnsafeRawPointer, start: Int, sourceStrides: [Int], shape: [Int],
                 destination: UnsafeMutableRawPointer, elementSize: Int) {
    let count = shape.reduce(1, *)
    guard count > 0 else { return }
    let rank = shape.count
    if rank == 0 {
        destination.copyMemory(from: source + start * elementSize, byteCount: elementSize)
        return
    }
    let inner = shape[rank - 1], innerStride = sourceStrides[rank - 1]
    let rows = count / inner
    var index = Array(repeating: 0, count: rank - 1)
    var offset = start
    var out = destination
    for _ in 0..<rows {
        if innerStride == 1 {
            out.copyMemory(from: source + offset * elementSize, byteCount: inner * elementSize)
            out += inner * elementSize
        } else {
            switch elementSize {
            case 4:
                let src = (source + offset * 4).assumingMemoryBound(to: UInt32.self)
                let dst = out.assumingMemoryBound(to: UInt32.self)
                for i in 0..<inner { dst[i] = src[i * innerStride] }
            default:
                for i in 0..<inner {
                    (out + i * elementSize).copyMemory(from: source + (offset + i * innerStride) * elementSize, byteCount: elementSize)
                }
            }
            out += inner * elementSize
        }
        var d = rank - 2
        while d >= 0 {
            index[d] += 1
            offset += sourceStrides[d]
            if index[d] < shape[d] { break }
            offset -= sourceStrides[d] * shape[d]
            index[d] = 0
            d -= 1
        }
    }
}

/// Normalises a possibly negative axis against `rank`, or throws.
func normalizedAxis(_ axis: Int, rank: Int) throws -> Int {
    let value = axis < 0 ? axis + rank : axis
    guard value >= 0, value < rank else { throw KernelError.invalid("axis \(axis) out of range for rank \(rank)") }
    return value
}

/// The fixed byte size of `tensor`'s elements, or an "unsupported type" error.
func elementSize(_ tensor: Tensor) throws -> Int {
    guard let size = tensor.type.byteSize else { throw KernelError.unsupported("type \(tensor.type)") }
    return size
}

/// Copies `input` (of `inputShape`) into every element of `output` (of `outputShape`, the same rank), element `o`
/// taking input element `index(o)` where each coordinate is reduced modulo the input's dimension: a broadcast when
/// the input's dimension is 1 or equal (BROADCAST_TO), a repetition when it divides the output's (TILE).
func copyRepeating(_ input: UnsafeRawPointer, inputShape: [Int], into output: UnsafeMutableRawPointer, outputShape: [Int], elementSize size: Int) {
    let rank = outputShape.count, total = outputShape.reduce(1, *)
    guard total > 0 else { return }
    guard rank > 0 else { return output.copyMemory(from: input, byteCount: size) }
    let strides = rowMajorStrides(inputShape)
    // Whole input rows are copied at once: the last axis repeats the row `outputShape[last] / inputShape[last]` times.
    let row = inputShape[rank - 1], rowBytes = row * size, outRow = outputShape[rank - 1]
    var index = [Int](repeating: 0, count: rank)
    var o = 0
    while o < total {
        var source = 0
        for d in 0..<(rank - 1) { source += (index[d] % inputShape[d]) * strides[d] }
        let from = input + source * size
        var written = 0
        while written < outRow {
            if row == 1 {
                (output + (o + written) * size).copyMemory(from: from, byteCount: size)
                written += 1
            } else {
                (output + (o + written) * size).copyMemory(from: from, byteCount: rowBytes)
                written += row
            }
        }
        o += outRow
        var d = rank - 2
        while d >= 0 {
            index[d] += 1
            if index[d] < outputShape[d] { break }
            index[d] = 0
            d -= 1
        }
    }
}
