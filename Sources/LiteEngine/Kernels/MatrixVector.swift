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

/// `y[j] += Σ_k transposed[k, j] * x[k]` for j < `width`: the product of a matrix stored column by column
/// (`transposed` is row-major [depth, width]) with `x` of `depth` values.
///
/// Each output stays in one vector lane for the whole sum, so there are no horizontal sums: 64 outputs are four
/// SIMD16 accumulators updated with `x[k]` broadcast, one row of `transposed` streamed per k. Each y[j] is summed
/// in k order from its old value, the order of the reference loop below.
@inline(__always)
func transposedMatrixVectorAccumulate(_ transposed: UnsafePointer<Float>, width: Int, depth: Int, _ x: UnsafePointer<Float>,
                                      into y: UnsafeMutablePointer<Float>) {
    let yRaw = UnsafeMutableRawPointer(y)
    var j = 0
    while j + 64 <= width {
        var a0 = yRaw.loadUnaligned(fromByteOffset: 4 * j, as: SIMD16<Float>.self)
        var a1 = yRaw.loadUnaligned(fromByteOffset: 4 * (j + 16), as: SIMD16<Float>.self)
        var a2 = yRaw.loadUnaligned(fromByteOffset: 4 * (j + 32), as: SIMD16<Float>.self)
        var a3 = yRaw.loadUnaligned(fromByteOffset: 4 * (j + 48), as: SIMD16<Float>.self)
        var row = UnsafeRawPointer(transposed + j)
        for k in 0..<depth {
            let xk = SIMD16<Float>(repeating: x[k])
            a0 += row.loadUnaligned(fromByteOffset: 0, as: SIMD16<Float>.self) * xk
            a1 += row.loadUnaligned(fromByteOffset: 64, as: SIMD16<Float>.self) * xk
            a2 += row.loadUnaligned(fromByteOffset: 128, as: SIMD16<Float>.self) * xk
            a3 += row.loadUnaligned(fromByteOffset: 192, as: SIMD16<Float>.self) * xk
            row += 4 * width
        }
        yRaw.storeBytes(of: a0, toByteOffset: 4 * j, as: SIMD16<Float>.self)
        yRaw.storeBytes(of: a1, toByteOffset: 4 * (j + 16), as: SIMD16<Float>.self)
        yRaw.storeBytes(of: a2, toByteOffset: 4 * (j + 32), as: SIMD16<Float>.self)
        yRaw.storeBytes(of: a3, toByteOffset: 4 * (j + 48), as: SIMD16<Float>.self)
        j += 64
    }
    while j + 16 <= width {
        var a = yRaw.loadUnaligned(fromByteOffset: 4 * j, as: SIMD16<Float>.self)
        var row = UnsafeRawPointer(transposed + j)
        for k in 0..<depth {
            a += row.loadUnaligned(fromByteOffset: 0, as: SIMD16<Float>.self) * SIMD16<Float>(repeating: x[k])
            row += 4 * width
        }
        yRaw.storeBytes(of: a, toByteOffset: 4 * j, as: SIMD16<Float>.self)
        j += 16
    }
    transposedMatrixVectorAccumulateReference(transposed + j, width: width - j, stride: width, depth: depth, x, into: y + j)
}

/// The reference loop of `transposedMatrixVectorAccumulate` (also its tail of fewer than 16 outputs).
func transposedMatrixVectorAccumulateReference(_ transposed: UnsafePointer<Float>, width: Int, stride: Int, depth: Int,
                                               _ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>) {
    for j in 0..<width {
        var sum = y[j]
        for k in 0..<depth { sum += transposed[k * stride + j] * x[k] }
        y[j] = sum
    }
}

/// The recurrent weights of an LSTM's gates as one matrix stored column by column: row k holds, gate after gate,
/// `W_g[c, k]` for every cell c, so one `transposedMatrixVectorAccumulate` adds W_g·h for all gates at once.
/// Built once per model from constant weights (an op re-prepared for a new sequence length keeps it).
final class GateColumns: @unchecked Sendable {
    /// Row-major [depth, width]: depth = the previous output's size, width = gates × cells.
    let values: UnsafeMutablePointer<Float>
    let width: Int, depth: Int
    /// The weight tensors' bytes these columns were made from (to tell whether they still apply).
    let sources: [UnsafeRawPointer]

    /// Largest weights worth transposing; above this a BLAS call per gate is faster anyway.
    static let maximumElements = 1 << 18

    /// Nil unless every gate's weights are a constant float32 [cells, depth] matrix of at most `maximumElements`
    /// values together.
    init?(gateWeights: [Tensor], cells: Int, depth: Int) {
        guard !gateWeights.isEmpty, gateWeights.count * cells * depth <= Self.maximumElements,
              gateWeights.allSatisfy({ $0.type == .float32 && $0.storage != .arena && $0.shape == [cells, depth] && $0.data != nil })
        else { return nil }
        width = gateWeights.count * cells
        self.depth = depth
        sources = gateWeights.map { UnsafeRawPointer($0.data!) }
        values = .allocate(capacity: max(width * depth, 1))
        for (g, tensor) in gateWeights.enumerated() {
            let w = tensor.floats
            for c in 0..<cells {
                for k in 0..<depth { values[k * width + g * cells + c] = w[c * depth + k] }
            }
        }
    }

    deinit { values.deallocate() }

    func isMade(from gateWeights: [Tensor]) -> Bool {
        gateWeights.count == sources.count && zip(gateWeights, sources).allSatisfy { $0.data.map(UnsafeRawPointer.init) == $1 }
            && gateWeights.allSatisfy { $0.type == .float32 }
    }
}
