import Foundation

/// RFFT2D: the 2-D discrete Fourier transform of real input `[..., m, n]` over its last two axes, as complex64
/// `[..., h, w/2 + 1]` for `fft_length = [h, w]` (an int32 pair known when planning, powers of two). Rows and columns
/// past the input are zeros, those past `fft_length` are left out, as in TFLite. Computed in double precision and
/// rounded once to float, as TFLite's kernel (Ooura's `rdft2d` on doubles) does: each row's real transform as a
/// complex one of half the length (even samples real, odd imaginary) untangled into the `w/2 + 1` kept frequencies,
/// then each kept column's complex transform; rows, then columns, split over threads.
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

    override var scratchBytes: Int {
        guard let input = node.inputs[0], input.rank >= 2 else { return 0 }
        // The kept frequencies of every row, real and imaginary parts in double.
        return saturatingProduct(input.shape.dropLast(2).reduce(1, *), height, width / 2 + 1, 16)
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let (rows, columns) = (input.dim(-2), input.dim(-1))
        let (height, width) = (self.height, self.width)
        let kept = width / 2 + 1, matrices = input.shape.dropLast(2).reduce(1, *)
        let source = UnsafePointer(input.floats), destination = output.pointer(Float.self)
        let real = context.scratch.assumingMemoryBound(to: Double.self), imaginary = real + matrices * height * kept
        let rowTwiddles = Twiddles(count: width), columnTwiddles = Twiddles(count: height)
        parallelFor(matrices * height, threads: context.threads, workPerItem: 8 * width) { range in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: max(width, 2)) { buffer in
                let zr = buffer.baseAddress!, zi = zr + max(width / 2, 1)
                for row in range {
                    let (matrix, r) = row.quotientAndRemainder(dividingBy: height)
                    let x = source + (matrix * rows + r) * columns, inside = r < rows ? min(columns, width) : 0
                    Self.realTransform(x, count: inside, width: width, twiddles: rowTwiddles, zr: zr, zi: zi,
                                       real: real + row * kept, imaginary: imaginary + row * kept)
                }
            }
        }
        if height == 1 {
            // One row a matrix (an STFT's frames): its kept frequencies are the result.
            parallelFor(matrices * kept, threads: context.threads, minimumChunk: 4096, workPerItem: 2) { range in
                for i in range {
                    destination[2 * i] = Float(real[i])
                    destination[2 * i + 1] = Float(imaginary[i])
                }
            }
            return
        }
        parallelFor(matrices * kept, threads: context.threads, workPerItem: 8 * height) { range in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * height) { buffer in
                let cr = buffer.baseAddress!, ci = cr + height
                for item in range {
                    let (matrix, c) = item.quotientAndRemainder(dividingBy: kept)
                    let first = matrix * height * kept + c
                    for r in 0..<height { (cr[r], ci[r]) = (real[first + r * kept], imaginary[first + r * kept]) }
                    Self.transform(cr, ci, count: height, twiddles: columnTwiddles, step: 1)
                    for r in 0..<height {
                        destination[2 * (first + r * kept)] = Float(cr[r])
                        destination[2 * (first + r * kept) + 1] = Float(ci[r])
                    }
                }
            }
        }
    }

    /// cos and sin of −2πk/count for k below count/2.
    struct Twiddles {
        let cosines: [Double], sines: [Double]

        init(count: Int) {
            cosines = (0..<max(count / 2, 1)).map { cos(-2 * Double.pi * Double($0) / Double(count)) }
            sines = (0..<max(count / 2, 1)).map { sin(-2 * Double.pi * Double($0) / Double(count)) }
        }
    }

    /// The `width / 2 + 1` kept frequencies of one real row (`count` samples, zeros after): the complex transform of
    /// `z[n] = x[2n] + i·x[2n+1]` (half the length), then `X[k] = E[k] + e^(−2πik/width)·O[k]` with
    /// `E[k] = (Z[k] + conj Z[w/2−k]) / 2` and `O[k] = (Z[k] − conj Z[w/2−k]) / 2i`.
    static func realTransform(_ x: UnsafePointer<Float>, count: Int, width: Int, twiddles: Twiddles, zr: UnsafeMutablePointer<Double>,
                              zi: UnsafeMutablePointer<Double>, real: UnsafeMutablePointer<Double>, imaginary: UnsafeMutablePointer<Double>) {
        if width == 1 {
            (real[0], imaginary[0]) = (count > 0 ? Double(x[0]) : 0, 0)
            return
        }
        let half = width / 2
        for n in 0..<half {
            zr[n] = 2 * n < count ? Double(x[2 * n]) : 0
            zi[n] = 2 * n + 1 < count ? Double(x[2 * n + 1]) : 0
        }
        transform(zr, zi, count: half, twiddles: twiddles, step: 2)
        for k in 0...half {
            let a = k % half, b = (half - k) % half
            let (ar, ai, br, bi) = (zr[a], zi[a], zr[b], -zi[b])
            let (er, ei) = ((ar + br) / 2, (ai + bi) / 2)
            let (or, oi) = ((ai - bi) / 2, -(ar - br) / 2)
            let (wr, wi) = k < half ? (twiddles.cosines[k], twiddles.sines[k]) : (-1.0, 0.0)
            real[k] = er + (wr * or - wi * oi)
            imaginary[k] = ei + (wr * oi + wi * or)
        }
    }

    /// In-place radix-2 FFT (`count` a power of two), `X[k] = Σ x[j]·e^(−2πijk/count)`, from a twiddle table of
    /// `count · step` points.
    static func transform(_ real: UnsafeMutablePointer<Double>, _ imaginary: UnsafeMutablePointer<Double>, count: Int, twiddles: Twiddles, step: Int) {
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
                (real[i], real[j]) = (real[j], real[i])
                (imaginary[i], imaginary[j]) = (imaginary[j], imaginary[i])
            }
        }
        twiddles.cosines.withUnsafeBufferPointer { cosines in
            twiddles.sines.withUnsafeBufferPointer { sines in
                var length = 2
                while length <= count {
                    let stride = count / length * step, halfLength = length / 2
                    var start = 0
                    while start < count {
                        for k in 0..<halfLength {
                            let (wr, wi) = (cosines[k * stride], sines[k * stride])
                            let (a, b) = (start + k, start + k + halfLength)
                            let tr = real[b] * wr - imaginary[b] * wi, ti = real[b] * wi + imaginary[b] * wr
                            (real[b], imaginary[b]) = (real[a] - tr, imaginary[a] - ti)
                            (real[a], imaginary[a]) = (real[a] + tr, imaginary[a] + ti)
                        }
                        start += length
                    }
                    length *= 2
                }
            }
        }
    }
}

extension Rfft2d {
    /// The definition, for tests: `X[u, v] = Σ x[r, c]·e^(−2πi(ur/h + vc/w))` over the input zero-padded or cut to
    /// `h x w`, for `v ≤ w/2`, directly in double; interleaved real and imaginary parts.
    static func reference(input: [Float], shape: [Int], height: Int, width: Int) -> [Float] {
        let (rows, columns) = (shape[shape.count - 2], shape[shape.count - 1])
        let matrices = shape.dropLast(2).reduce(1, *), kept = width / 2 + 1
        var out = [Float]()
        for m in 0..<matrices {
            for u in 0..<height {
                for v in 0..<kept {
                    var (re, im) = (0.0, 0.0)
                    for r in 0..<min(rows, height) {
                        for c in 0..<min(columns, width) {
                            let angle = -2 * Double.pi * (Double(u * r % height) / Double(height) + Double(v * c % width) / Double(width))
                            let x = Double(input[(m * rows + r) * columns + c])
                            re += x * cos(angle)
                            im += x * sin(angle)
                        }
                    }
                    out += [Float(re), Float(im)]
                }
            }
        }
        return out
    }
}
