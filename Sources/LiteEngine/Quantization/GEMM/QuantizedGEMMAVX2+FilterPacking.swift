/// The widened AVX2 GEMM's filter, `w - w_zero` as int16, packed once at load in the order the microkernels read it.
extension QuantizedGEMMAVX2 {
    /// Writes the packed weights in the order they are stored (block pair, step, block, channel, the step's two
    /// depths), reading the step's two bytes of each of the pair's 16 filter rows. A channel at a time, every write
    /// landed on another cache line; with checked arithmetic, the packing was a large part of a model's load.
    /// Padded channels and the depth padding are 0. `supports(...)` keeps every difference
    /// within ±255, so the wrapping arithmetic is exact.
    static func pack<Byte: BinaryInteger>(_ source: UnsafePointer<Byte>, channels: Int, depth: Int, zeroPoints: [Int32],
                                          into weights: UnsafeMutablePointer<Int16>, paddedChannels: Int, paddedDepth: Int) {
        let blocks = paddedChannels / lanes, fullSteps = depth / 2
        var out = weights
        zeroPoints.withUnsafeBufferPointer { zeroPoints in
            for pairFirst in stride(from: 0, to: blocks, by: 2) {
                let first = pairFirst * lanes, pairChannels = min(2, blocks - pairFirst) * lanes
                let real = max(0, min(pairChannels, channels - first))
                for step in 0..<(paddedDepth / 2) {
                    let k = 2 * step
                    var row = source + first * depth + k
                    if step < fullSteps {
                        for c in 0..<real {
                            let zero = zeroPoints[first + c]
                            out[2 * c] = Int16(truncatingIfNeeded: Int32(truncatingIfNeeded: row[0]) &- zero)
                            out[2 * c + 1] = Int16(truncatingIfNeeded: Int32(truncatingIfNeeded: row[1]) &- zero)
                            row += depth
                        }
                    } else {
                        // The last step of an odd depth: one weight and a zero.
                        for c in 0..<real {
                            out[2 * c] = Int16(truncatingIfNeeded: Int32(truncatingIfNeeded: row[0]) &- zeroPoints[first + c])
                            out[2 * c + 1] = 0
                            row += depth
                        }
                    }
                    for c in real..<pairChannels {
                        out[2 * c] = 0
                        out[2 * c + 1] = 0
                    }
                    out += 2 * pairChannels
                }
            }
        }
    }
}
