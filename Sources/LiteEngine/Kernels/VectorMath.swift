#if LITE_AVX2 || LITE_AVX512_VNNI
import _Builtin_intrinsics.intel
#endif

/// Float exp, sigmoid and tanh written as branch-free scalar code that the compiler vectorizes, for the LSTM gates
/// (libm's `expf`/`tanhf` are one call per element: measured as most of a small LSTM's time); and a fused
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
/// (7 at 1/8, where this switched before), the odd Taylor series to x^13 (the first omitted term is below 2^-27
/// of the result there). At most 4 ulp from libm's `tanhf` (checked at every float in (0, 12) on 2026-11-25).
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

/// Applies `vectorizableSigmoid` to `count` floats in place (in AVX2 builds ``sigmoid8(_:)``, a few ulp apart).
func applySigmoid(_ values: UnsafeMutablePointer<Float>, _ count: Int) {
    applySigmoid(UnsafePointer(values), into: values, count)
}

/// `output[i] = sigmoid(input[i])` (the buffers may be the same): in AVX2 builds eight at a time with
/// ``sigmoid8(_:)``, the last few through the same function in a padded register, so every value is computed alike.
@inline(__always)
func applySigmoid(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>, _ count: Int, multiplyingByInput: Bool = false) {
    #if LITE_AVX2
    var i = 0
    while i + 8 <= count {
        let x = _mm256_loadu_ps(input + i)
        let f = sigmoid8(x)
        _mm256_storeu_ps(output + i, multiplyingByInput ? _mm256_mul_ps(x, f) : f)
        i += 8
    }
    if i < count {
        var lanes = SIMD8<Float>(repeating: 0)
        for k in 0..<(count - i) { lanes[k] = input[i + k] }
        let x: __m256 = lanes, f = sigmoid8(x)
        let result: SIMD8<Float> = multiplyingByInput ? _mm256_mul_ps(x, f) : f
        for k in 0..<(count - i) { output[i + k] = result[k] }
    }
    #else
    for i in 0..<count { output[i] = multiplyingByInput ? input[i] * vectorizableSigmoid(input[i]) : vectorizableSigmoid(input[i]) }
    #endif
}

#if LITE_AVX2
/// `1 / (1 + e^-x)` of eight floats with fused multiply-adds, as XNNPACK's AVX2 sigmoid arranges it: e = e^z for
/// z = −|x| (never overflows; clamped at −87.33 so 2^n stays normal, where e ≈ 1e-38 stands for smaller values),
/// by ``vectorizableExp``'s reduction and polynomial, the magic bias carrying 2^n's exponent bias (1.5·2^23 + 127,
/// so n + 127 sits in t's low mantissa bits); then f = e / (e + 1), and 1 − f for x ≥ 0 (the sign bit picks).
/// NaN stays NaN (the clamp keeps its NaN operand). Within 4 ulp of libm's `1 / (1 + expf(-x))`.
@inline(__always)
func sigmoid8(_ x: __m256) -> __m256 {
    let magic = _mm256_set1_ps(12_583_039)
    let z = _mm256_max_ps(_mm256_set1_ps(-87.33), _mm256_or_ps(x, _mm256_set1_ps(-0.0)))
    let t = _mm256_fmadd_ps(z, _mm256_set1_ps(1.442_695_04), magic)
    let scale = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(t), 23))
    let n = _mm256_sub_ps(t, magic)
    var r = _mm256_fmadd_ps(n, _mm256_set1_ps(-0.693_359_375), z)
    r = _mm256_fmadd_ps(n, _mm256_set1_ps(2.121_944_4e-4), r)
    var p = _mm256_fmadd_ps(_mm256_set1_ps(1.987_569_15e-4), r, _mm256_set1_ps(1.398_199_950_7e-3))
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.333_451_907_3e-3))
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.166_579_589_4e-2))
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.666_666_545_9e-1))
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.000_000_120_1e-1))
    let one = _mm256_set1_ps(1)
    let e = _mm256_mul_ps(_mm256_add_ps(_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r), one), scale)
    let f = _mm256_div_ps(e, _mm256_add_ps(e, one))
    return _mm256_blendv_ps(_mm256_sub_ps(one, f), f, x)
}
#endif

/// Applies `vectorizableTanh` to `count` floats in place.
func applyTanh(_ values: UnsafeMutablePointer<Float>, _ count: Int) {
    for i in 0..<count { values[i] = vectorizableTanh(values[i]) }
}

/// Float vectors and scalars with `c + a·b`: one fused multiply-add instruction in builds for AVX2 and FMA CPUs
/// (`LITE_AVX2`; AVX-512 builds define it too), `c + a * b` with two roundings elsewhere. The standard
/// library's `addingProduct` on SIMD types is a lane-by-lane loop even when the CPU has FMA (a 3x3 depthwise
/// convolution measured 2-3x slower with it), so the vector forms call the intrinsics. Without fusing, the compiler
/// scheduled a depthwise filter's 36 products ahead of their sums and spilled them to the stack.
///
/// `clamp(v, low, high)` is the activation clamp of ``clamp(_:count:_:_:)`` (`v < low ? low : v`, then
/// `x > high ? high : x`: NaN passes through) in `max`/`min` instructions, whose NaN rule (the second operand when
/// either is NaN) gives the same results; Swift's SIMD comparisons compile to lane loops.
protocol MultiplyAdd {
    static func multiplyAdd(_ c: Self, _ a: Self, _ b: Self) -> Self
    static func clamp(_ v: Self, _ low: Self, _ high: Self) -> Self
}

extension Float: MultiplyAdd {
    @inline(__always) static func multiplyAdd(_ c: Float, _ a: Float, _ b: Float) -> Float {
        #if LITE_AVX2
        return c.addingProduct(a, b)
        #else
        return c + a * b
        #endif
    }

    @inline(__always) static func clamp(_ v: Float, _ low: Float, _ high: Float) -> Float {
        let x = v < low ? low : v
        return x > high ? high : x
    }
}

extension SIMD where Scalar == Float {
    /// The clamp lane by lane, for builds without the vector instructions.
    @inline(__always) static func clampLanes(_ v: Self, _ low: Self, _ high: Self) -> Self {
        var result = v
        for i in result.indices { result[i] = Float.clamp(v[i], low[i], high[i]) }
        return result
    }
}

extension SIMD16: MultiplyAdd where Scalar == Float {
    @inline(__always) static func multiplyAdd(_ c: Self, _ a: Self, _ b: Self) -> Self {
        #if LITE_AVX512_VNNI
        return _mm512_fmadd_ps(a, b, c)
        #elseif LITE_AVX2
        return Self(lowHalf: .multiplyAdd(c.lowHalf, a.lowHalf, b.lowHalf), highHalf: .multiplyAdd(c.highHalf, a.highHalf, b.highHalf))
        #else
        return c + a * b
        #endif
    }

    @inline(__always) static func clamp(_ v: Self, _ low: Self, _ high: Self) -> Self {
        #if LITE_AVX512_VNNI
        return _mm512_min_ps(high, _mm512_max_ps(low, v))
        #elseif LITE_AVX2
        return Self(lowHalf: .clamp(v.lowHalf, low.lowHalf, high.lowHalf), highHalf: .clamp(v.highHalf, low.highHalf, high.highHalf))
        #else
        return clampLanes(v, low, high)
        #endif
    }
}

extension SIMD8: MultiplyAdd where Scalar == Float {
    @inline(__always) static func multiplyAdd(_ c: Self, _ a: Self, _ b: Self) -> Self {
        #if LITE_AVX2
        return _mm256_fmadd_ps(a, b, c)
        #else
        return c + a * b
        #endif
    }

    @inline(__always) static func clamp(_ v: Self, _ low: Self, _ high: Self) -> Self {
        #if LITE_AVX2
        return _mm256_min_ps(high, _mm256_max_ps(low, v))
        #else
        return clampLanes(v, low, high)
        #endif
    }
}

extension SIMD4: MultiplyAdd where Scalar == Float {
    @inline(__always) static func multiplyAdd(_ c: Self, _ a: Self, _ b: Self) -> Self {
        #if LITE_AVX2
        return _mm_fmadd_ps(a, b, c)
        #else
        return c + a * b
        #endif
    }

    @inline(__always) static func clamp(_ v: Self, _ low: Self, _ high: Self) -> Self {
        #if LITE_AVX2
        return _mm_min_ps(high, _mm_max_ps(low, v))
        #else
        return clampLanes(v, low, high)
        #endif
    }
}
