/// `y[r] += Σ_k matrix[r, k] * x[k]` for a row-major [rows, columns] matrix, 16 products at a time.
///
/// For the small products of recurrent steps, where a BLAS call costs more than the arithmetic. The
/// reduction keeps 16 partial sums (LLVM does not vectorize a float sum without reassociation permission).
@inline(__always)
func matrixVectorAccumulate(_ matrix: UnsafePointer<Float>, rows: Int, columns: Int, _ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>) {
    let xRaw = UnsafeRawPointer(x)
    for r in 0..<rows {
        let row = UnsafeRawPointer(matrix + r * columns)
        var acc = SIMD16<Float>()
        var k = 0
        while k + 16 <= columns {
            acc += row.loadUnaligned(fromByteOffset: 4 * k, as: SIMD16<Float>.self) * xRaw.loadUnaligned(fromByteOffset: 4 * k, as: SIMD16<Float>.self)
            k += 16
        }
        var sum = acc.sum()
        while k < columns {
            sum += matrix[r * columns + k] * x[k]
            k += 1
        }
        y[r] += sum
    }
}
