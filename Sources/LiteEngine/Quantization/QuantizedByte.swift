/// uint8 or int8, widened sixteen at a time to int32 lanes: the portable path. On x86-64 the loops that widen bytes
/// in bulk are C kernels (``WidenedQuantizedKernels``, ``QuantizedDotProductKernels``).
protocol QuantizedByte: FixedWidthInteger & SIMDScalar & Codable {
    static func widen16(_ pointer: UnsafeRawPointer) -> SIMD16<Int32>
}

extension Int8: QuantizedByte {
    @inline(__always)
    static func widen16(_ pointer: UnsafeRawPointer) -> SIMD16<Int32> {
        return SIMD16<Int32>(truncatingIfNeeded: pointer.loadUnaligned(as: SIMD16<Int8>.self))
    }
}

extension UInt8: QuantizedByte {
    @inline(__always)
    static func widen16(_ pointer: UnsafeRawPointer) -> SIMD16<Int32> {
        return SIMD16<Int32>(truncatingIfNeeded: pointer.loadUnaligned(as: SIMD16<UInt8>.self))
    }
}
