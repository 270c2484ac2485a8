import Foundation

/// COMPLEX_ABS: `|z|` of complex64 values as float32 (`hypotf`, as C++'s `std::abs` of a `std::complex<float>`).
final class ComplexAbs: ComplexToReal {
    override class func apply(_ real: Float, _ imaginary: Float) -> Float { hypotf(real, imaginary) }
}
