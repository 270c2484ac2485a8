import Foundation

/// RFFT2D: the 2-D discrete Fourier transform of real input `[..., m, n]` over its last two axes, as complex64
/// `[..., h, w/2 + 1]` for `fft_length = [h, w]` (an int32 pair known when planning, powers of two). Rows and columns
/// past the input are zeros, those past `fft_length` are left out, as in TFLite. Computed in double precision and
/// rounded once to float, as TFLite's kernel (Ooura's `rdft2d` on doubles) does.
final class Rfft2d: Kernel {
    var height = 0, width = 0

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32)
        guard input.rank >= 2 else { throw KernelError.invalid("RFFT2D needs rank >= 2, has \(input.shape)") }
        let lengths = try integers(try self.input(1))
        guard lengths.count == 2, lengths.allSatisfy({ $0 > 0 && $0 & ($0 - 1) == 0 && $0 <= 1 << 16 }) else {
            throw KernelError.invalid("RFFT2D fft_length \(lengths) must be two powers of two")
        }
        (height, width) = (lengths[0], lengths[1])
        output.type = .complex64
        output.shape = Array(input.shape.dropLast(2)) + [height, width / 2 + 1]
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let (rows, columns) = (input.dim(-2), input.dim(-1))
        let kept = width / 2 + 1
        let source = input.floats, destination = output.pointer(Float.self)
        var real = [Double](repeating: 0, count: height * width), imaginary = [Double](repeating: 0, count: height * width)
        var columnReal = [Double](repeating: 0, count: height), columnImaginary = [Double](repeating: 0, count: height)
        let rowTwiddles = Self.twiddles(width), columnTwiddles = Self.twiddles(height)
        for matrix in 0..<input.shape.dropLast(2).reduce(1, *) {
            // Each row's transform (zero-padded or cut to `width`), then each kept column's.
            for r in 0..<height {
                for c in 0..<width {
                    real[r * width + c] = r < rows && c < columns ? Double(source[(matrix * rows + r) * columns + c]) : 0
                    imaginary[r * width + c] = 0
                }
                real.withUnsafeMutableBufferPointer { re in
                    imaginary.withUnsafeMutableBufferPointer { im in
                        Self.transform(re.baseAddress! + r * width, im.baseAddress! + r * width, count: width, twiddles: rowTwiddles)
                    }
                }
            }
            for c in 0..<kept {
                for r in 0..<height {
                    columnReal[r] = real[r * width + c]
                    columnImaginary[r] = imaginary[r * width + c]
                }
                Self.transform(&columnReal, &columnImaginary, count: height, twiddles: columnTwiddles)
                for r in 0..<height {
                    let at = 2 * ((matrix * height + r) * kept + c)
                    destination[at] = Float(columnReal[r])
                    destination[at + 1] = Float(columnImaginary[r])
                }
            }
        }
    }

    /// The twiddles e^(−2πik/count) for k below count/2; a stage of length L uses every (count/L)-th.
    static func twiddles(_ count: Int) -> [(Double, Double)] {
        (0..<count / 2).map { k in (cos(-2 * Double.pi * Double(k) / Double(count)), sin(-2 * Double.pi * Double(k) / Double(count))) }
    }

    /// In-place radix-2 FFT (`count` a power of two), `X[k] = Σ x[j]·e^(−2πijk/count)`.
    static func transform(_ real: UnsafeMutablePointer<Double>, _ imaginary: UnsafeMutablePointer<Double>, count: Int, twiddles: [(Double, Double)]) {
        guard count > 1 else { return }
        var j = 0
        for i in 1..<count {
            var bit = count >> 1
            while j & bit != 0 {
                j ^= bit
                bit >>= 1
            }
            j |= bit
            if i < j {
                swap(&real[i], &real[j])
                swap(&imaginary[i], &imaginary[j])
            }
        }
        var length = 2
        while length <= count {
            let step = count / length
            for start in Swift.stride(from: 0, to: count, by: length) {
                for k in 0..<length / 2 {
                    let (wr, wi) = twiddles[k * step]
                    let (a, b) = (start + k, start + k + length / 2)
                    let tr = real[b] * wr - imaginary[b] * wi, ti = real[b] * wi + imaginary[b] * wr
                    (real[b], imaginary[b]) = (real[a] - tr, imaginary[a] - ti)
                    (real[a], imaginary[a]) = (real[a] + tr, imaginary[a] + ti)
                }
            }
            length *= 2
        }
    }
}
