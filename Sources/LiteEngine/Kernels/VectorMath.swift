import CLiteKernels

/// Float exp, sigmoid and tanh written as branch-free scalar code that the compiler vectorizes, for the LSTM gates
/// (libm's `expf`/`tanhf` are one call per element, most of a small LSTM's time); and a fused
/// multiply-add on float vectors.

/// `e^x` by Cephes' expf: `x = n·ln2 + r` with |r| ≤ ln2/2 (ln2 split in two so `n·ln2` is exact), a degree-6
/// polynomial for `e^r`, and `2^n` built in the exponent bits. About 1 ulp. `x` is clamped to [-87.3, 88.3], so
/// `n` stays in the normal exponent range (e^-87.3 ≈ 1.2e-38, e^88.3 ≈ 2.2e38).
@inline(__always)
func vectorizableExp(_ x: Float) -> Float {
    let magic: Float = 12_582_912  // 1.5·2^23: adding it rounds to an integer held in the low mantissa bits.
    let clamped = x < -87.3 ? -87.3 : (x > 88.3 ? 88.3 : x)
    let t = clamped * 1.442_695_04 + magic
    let n = t - magic
    let r = clamped - n * 0.693_359_375 + n * 2.121_944_4e-4
    var p: Float = 1.987_569_15e-4
    p = p * r + 1.398_199_950_7e-3
    p = p * r + 8.333_451_907_3e-3
    p = p * r + 4.166_579_589_4e-2
    p = p * r + 1.666_666_545_9e-1
    p = p * r + 5.000_000_120_1e-1
    let polynomial = p * r * r + r + 1
    let exponent = (t.bitPattern &- magic.bitPattern) &+ 127
    return polynomial * Float(bitPattern: exponent << 23)
}

/// `erfc(z)`: for |z|, `e^(-z²) · R(t)` with `t = 1 / (1 + |z|/2)` and R a degree-10 polynomial fitted for this
/// project (least squares on the relative error over [0, 10] against double-precision erfc: at most 3e-8 before
/// float rounding); for z < 0, `2 − erfc(|z|)`. Relative error a few 1e-6 where e^(-z²) is tiny (the float square
/// carries z²'s rounding into the exponent), about 1e-7 elsewhere. Past |z| ≈ 9.3 the clamp of
/// ``vectorizableExp`` leaves 1e-38 in place of the true, smaller value.
@inline(__always)
func vectorizableErfc(_ z: Float) -> Float {
    let a = abs(z)
    let t = 1 / (1 + 0.5 * a)
    var r: Float = 2.4956591e-02
    r = r * t - 1.9507356e-01
    r = r * t + 6.064245e-01
    r = r * t - 9.212896e-01
    r = r * t + 6.462951e-01
    r = r * t - 2.3116435e-01
    r = r * t + 2.7776912e-01
    r = r * t + 2.2517434e-01
    r = r * t + 2.8503466e-01
    r = r * t + 2.8186545e-01
    r = r * t + 7.810444e-06
    let tail = vectorizableExp(-(a * a)) * r
    return z < 0 ? 2 - tail : tail
}

/// `1 / (1 + e^-x)`.
@inline(__always)
func vectorizableSigmoid(_ x: Float) -> Float {
    1 / (1 + vectorizableExp(-x))
}

/// `tanh(x)`: `1 - 2 / (e^2|x| + 1)` with the sign of x, and below |x| = 0.4, where that difference cancels bits
/// (7 at 1/8), the odd Taylor series to x^13 (the first omitted term is below 2^-27
/// of the result there). At most 4 ulp from libm's `tanhf` (checked at every float in (0, 12)).
@inline(__always)
func vectorizableTanh(_ x: Float) -> Float {
    let magnitude = abs(x)
    let large = 1 - 2 / (vectorizableExp(2 * magnitude) + 1)
    let x2 = x * x
    var series: Float = 21844.0 / 6081075
    series = series * x2 - 1382.0 / 155925
    series = series * x2 + 62.0 / 2835
    series = series * x2 - 17.0 / 315
    series = series * x2 + 2.0 / 15
    series = series * x2 - 1.0 / 3
    let small = x + x * x2 * series
    return magnitude < 0.4 ? small : (x < 0 ? -large : large)
}

/// Applies `vectorizableSigmoid` to `count` floats in place (at the avx2 level and above the AVX2 kernel, a few ulp
/// apart).
func applySigmoid(_ values: UnsafeMutablePointer<Float>, _ count: Int) {
    applySigmoid(UnsafePointer(values), into: values, count)
}

/// `output[i] = sigmoid(input[i])` (the buffers may be the same), times `input[i]` when `multiplyingByInput`: where
/// ``KernelConfiguration/current`` has one, with its sigmoid kernel (`lite_f32_sigmoid__avx2`: eight at a time with
/// fused multiply-adds in XNNPACK's arrangement, the last few in a padded register so every value is computed alike),
/// else ``vectorizableSigmoid`` value by value.
@inline(__always)
func applySigmoid(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>, _ count: Int, multiplyingByInput: Bool = false) {
    if let sigmoid = KernelConfiguration.current.float?.sigmoid {
        return sigmoid(input, output, count, multiplyingByInput ? 1 : 0)
    }
    for i in 0..<count { output[i] = multiplyingByInput ? input[i] * vectorizableSigmoid(input[i]) : vectorizableSigmoid(input[i]) }
}

/// Applies `vectorizableTanh` to `count` floats in place: where ``KernelConfiguration/current`` has one, with its
/// tanh kernel (`lite_f32_tanh__avx2`, the same operations eight lanes at a time, so the same values).
func applyTanh(_ values: UnsafeMutablePointer<Float>, _ count: Int) {
    if let tanh = KernelConfiguration.current.float?.tanh { return tanh(values, count) }
    for i in 0..<count { values[i] = vectorizableTanh(values[i]) }
}

/// Float vectors and scalars with `c + a·b` (two roundings) and the activation clamp, for the portable kernels
/// (baseline level, other architectures). Kernels that fuse multiply-adds (the AVX2 depthwise convolution, GEMM tiles)
/// are C microkernels chosen by ``KernelConfiguration``.
///
/// `clamp(v, low, high)` is the activation clamp of ``clamp(_:count:_:_:)`` (`v < low ? low : v`, then
/// `x > high ? high : x`: NaN passes through), lane by lane for the vectors.
protocol MultiplyAdd {
    static func multiplyAdd(_ c: Self, _ a: Self, _ b: Self) -> Self
    static func clamp(_ v: Self, _ low: Self, _ high: Self) -> Self
}

extension Float: MultiplyAdd {
    @inline(__always) static func multiplyAdd(_ c: Float, _ a: Float, _ b: Float) -> Float {
        c + a * b
    }

    @inline(__always) static func clamp(_ v: Float, _ low: Float, _ high: Float) -> Float {
        let x = v < low ? low : v
        return x > high ? high : x
    }
}

extension SIMD where Scalar == Float {
    /// The clamp lane by lane.
    @inline(__always) static func clampLanes(_ v: Self, _ low: Self, _ high: Self) -> Self {
        var result = v
        for i in result.indices { result[i] = Float.clamp(v[i], low[i], high[i]) }
        return result
    }
}

extension SIMD16: MultiplyAdd where Scalar == Float {
    @inline(__always) static func multiplyAdd(_ c: Self, _ a: Self, _ b: Self) -> Self { c + a * b }
    @inline(__always) static func clamp(_ v: Self, _ low: Self, _ high: Self) -> Self { clampLanes(v, low, high) }
}

extension SIMD8: MultiplyAdd where Scalar == Float {
    @inline(__always) static func multiplyAdd(_ c: Self, _ a: Self, _ b: Self) -> Self { c + a * b }
    @inline(__always) static func clamp(_ v: Self, _ low: Self, _ high: Self) -> Self { clampLanes(v, low, high) }
}

extension SIMD4: MultiplyAdd where Scalar == Float {
    @inline(__always) static func multiplyAdd(_ c: Self, _ a: Self, _ b: Self) -> Self { c + a * b }
    @inline(__always) static func clamp(_ v: Self, _ low: Self, _ high: Self) -> Self { clampLanes(v, low, high) }
}
