import LiteFormat

/// Output size and leading padding of one spatial dimension, as TFLite's `ComputePaddingHeightWidth`.
///
/// SAME: `out = ceil(in / stride)`; VALID: `out = ceil((in - effectiveFilter + 1) / stride)` with
/// `effectiveFilter = (filter - 1) * dilation + 1`. The total padding `(out - 1) * stride + effectiveFilter - in`
/// is split with the odd pixel at the end, so the leading padding is `total / 2`.
///
/// `zeros` is zero padding of a PAD folded into the convolution (``SpatialZeroPadding``): the output and padding are
/// those of the padded input, `input + before + after` pixels, and the leading padding grows by `before`. Taps past
/// the real input read zeros either way, so the kernels, which test every tap against `0..<input`, need nothing else.
struct SpatialGeometry: Equatable {
    let output: Int
    let padBefore: Int

    init(input: Int, filter: Int, stride: Int, dilation: Int, padding: Padding, zeros: (before: Int, after: Int) = (0, 0)) throws {
        guard stride > 0, dilation > 0, filter > 0 else {
            throw KernelError.invalid("stride \(stride), dilation \(dilation) and filter \(filter) must be positive")
        }
        guard zeros.before >= 0, zeros.after >= 0, zeros.before <= TFLiteModel.Limits.maxElements, zeros.after <= TFLiteModel.Limits.maxElements else {
            throw KernelError.invalid("padding \(zeros) out of range")
        }
        let input = input + zeros.before + zeros.after
        let effective = (filter - 1) * dilation + 1
        switch padding {
        case .same: output = (input + stride - 1) / stride
        case .valid: output = input >= effective ? (input - effective + stride) / stride : 0
        }
        padBefore = max(0, ((output - 1) * stride + effective - input) / 2) + zeros.before
    }
}

/// Zero padding of the two spatial axes that a convolution applies to its input before its own (a PAD folded into
/// it: ``SpatialPadAbsorbing``).
struct SpatialZeroPadding: Equatable, Sendable {
    var top = 0, bottom = 0, left = 0, right = 0

    static let none = SpatialZeroPadding()

    var height: (before: Int, after: Int) { (top, bottom) }
    var width: (before: Int, after: Int) { (left, right) }
}

/// The outputs `o` of one spatial dimension whose taps `o·stride - padBefore + k·dilation` (k < filter) all lie inside
/// `0..<input`. When none do, an empty range at the first output past the leading padding, so that `0..<lowerBound`
/// and `upperBound..<output` still cover every output exactly once.
func interiorOutputs(output: Int, input: Int, filter: Int, stride: Int, dilation: Int, padBefore: Int) -> Range<Int> {
    let first = min((max(padBefore, 0) + stride - 1) / stride, output)
    let lastStart = input - 1 - (filter - 1) * dilation + padBefore
    let end = lastStart < 0 ? 0 : min(output, lastStart / stride + 1)
    return first < end ? first..<end : first..<first
}

/// Strides of a row-major shape.
func rowMajorStrides(_ shape: [Int]) -> [Int] {
    var strides = Array(repeating: 1, count: shape.count)
    var running = 1
    for i in stride(from: shape.count - 1, through: 0, by: -1) {
        strides[i] = running
        running *= shape[i]
    }
    return strides
}

/// Clamps `values` to `[low, high]` in place (fused activations).
///
/// Written as a plain loop on purpose: LLVM vectorizes it, whereas Swift's SIMD `clamped`, `pointwiseMin`
/// and `.<` masks compile to lane-by-lane code without target CPU flags (far slower).
@inline(__always)
func clamp(_ values: UnsafeMutablePointer<Float>, count: Int, _ low: Float, _ high: Float) {
    if low == -.infinity && high == .infinity { return }
    for i in 0..<count { values[i] = Float.clamp(values[i], low, high) }
}

/// The product of `factors`, saturating at `Int.max / 2` (scratch sizes of hostile shapes must not trap;
/// the interpreter then rejects them against its memory limit).
func saturatingProduct(_ factors: Int...) -> Int {
    var result = 1
    for f in factors {
        let (product, overflow) = result.multipliedReportingOverflow(by: max(f, 0))
        if overflow || product > Int.max / 2 { return Int.max / 2 }
        result = product
    }
    return result
}

/// The values one output row of a pooling op reads, for `parallelFor`'s split: `outW · channels` windows of the filter
/// clamped to the input. Pooling filter sizes are the model's options, up to `Int32.max` each, so the plain product
/// can overflow `Int`.
func poolingRowWork(outW: Int, channels: Int, filterH: Int, filterW: Int, inH: Int, inW: Int) -> Int {
    saturatingProduct(outW, channels, min(filterH, inH), min(filterW, inW))
}
