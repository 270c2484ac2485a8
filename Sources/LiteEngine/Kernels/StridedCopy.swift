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
