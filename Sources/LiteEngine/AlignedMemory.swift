/// `count` uninitialized values starting on a 64-byte boundary (a cache line, and one AVX-512 register), for the
/// per-channel data and accumulators the SIMD kernels load a register at a time: from an ordinary allocation (16-byte
/// aligned) every such load would straddle two cache lines. Release with ``deallocateAligned(_:)``.
func allocateAligned<T>(_: T.Type, count: Int) -> UnsafeMutablePointer<T> {
    UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * MemoryLayout<T>.stride, alignment: 64)
        .bindMemory(to: T.self, capacity: max(count, 1))
}

func deallocateAligned<T>(_ pointer: UnsafeMutablePointer<T>) {
    UnsafeMutableRawPointer(pointer).deallocate()
}
