/// A rectangle in pixel coordinates (origin top-left, x right, y down), with fractional positions allowed.
public struct PixelRect: Sendable, Equatable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var description: String { "(\(x), \(y), \(width)x\(height))" }
}

extension Image {
    /// Samples `region` into an `outputWidth` x `outputHeight` RGB image the way MediaPipe's CPU image-to-tensor
    /// converter does: OpenCV's `warpPerspective` with `INTER_LINEAR` and `BORDER_REPLICATE`.
    ///
    /// That means, bit for bit:
    /// - output pixel `i` samples the source at `region.x + i * region.width / outputWidth` (no half-pixel
    ///   centre shift: MediaPipe maps the rectangle's corners onto the output's corners);
    /// - the source position is rounded to 1/32 of a pixel (`INTER_BITS = 5`, round half to even as `cvRound`);
    /// - the four neighbours are weighted with 15-bit fixed-point weights `(32 - fx)(32 - fy) * 32` ... that sum
    ///   to 32768, and the sum is rounded by adding 2^14 and shifting right by 15;
    /// - neighbours outside the image repeat the edge pixel.
    ///
    /// The horizontal pass gathers; the vertical pass is a plain loop over contiguous rows that the compiler
    /// vectorizes.
    public func resampled(region: PixelRect? = nil, outputWidth: Int, outputHeight: Int) -> [UInt8] {
        let region = region ?? PixelRect(x: 0, y: 0, width: Double(width), height: Double(height))
        // The corners pass through Float in MediaPipe (cv::RotatedRect holds floats).
        let x0 = Double(Float(region.x)), y0 = Double(Float(region.y))
        let stepX = Double(Float(region.width)) / Double(outputWidth)
        let stepY = Double(Float(region.height)) / Double(outputHeight)

        func fixedPoint(_ origin: Double, _ step: Double, _ i: Int) -> Int {
            let scaled = (origin + step * Double(i)) * 32
            return Int(scaled.clamped(-1e9, 1e9).rounded(.toNearestOrEven))
        }
        var columnLeft = [Int](repeating: 0, count: outputWidth)
        var columnRight = [Int](repeating: 0, count: outputWidth)
        var columnWeight = [Int32](repeating: 0, count: outputWidth)
        for i in 0..<outputWidth {
            let position = fixedPoint(x0, stepX, i)
            let left = position >> 5
            columnLeft[i] = 3 * min(max(left, 0), width - 1)
            columnRight[i] = 3 * min(max(left + 1, 0), width - 1)
            columnWeight[i] = Int32(position & 31)
        }

        let rowValues = outputWidth * 3
        var output = [UInt8](repeating: 0, count: outputHeight * rowValues)
        var upper = [Int32](repeating: 0, count: rowValues)
        var lower = [Int32](repeating: 0, count: rowValues)
        var cachedUpper = -1, cachedLower = -1

        pixels.withUnsafeBufferPointer { source in
            func horizontal(_ sourceRow: Int, into row: UnsafeMutableBufferPointer<Int32>) {
                let base = sourceRow * width * 3
                for i in 0..<outputWidth {
                    let wx = columnWeight[i]
                    let left = base + columnLeft[i], right = base + columnRight[i]
                    for c in 0..<3 {
                        row[3 * i + c] = Int32(source[left + c]) * (32 - wx) + Int32(source[right + c]) * wx
                    }
                }
            }
            output.withUnsafeMutableBufferPointer { out in
                upper.withUnsafeMutableBufferPointer { top in
                    lower.withUnsafeMutableBufferPointer { bottom in
                        for j in 0..<outputHeight {
                            let position = fixedPoint(y0, stepY, j)
                            let above = min(max(position >> 5, 0), height - 1)
                            let below = min(max((position >> 5) + 1, 0), height - 1)
                            let wy = Int32(position & 31)
                            if cachedUpper != above {
                                if cachedLower == above {
                                    top.baseAddress!.update(from: bottom.baseAddress!, count: rowValues)
                                } else {
                                    horizontal(above, into: top)
                                }
                                cachedUpper = above
                            }
                            if cachedLower != below || cachedLower == -1 {
                                horizontal(below, into: bottom)
                                cachedLower = below
                            }
                            let target = out.baseAddress! + j * rowValues
                            let inverse = 32 - wy
                            // Weights of the two passes multiply to at most 1024 (= 32768 >> 5), so the
                            // (sum + 2^14) >> 15 of OpenCV's 15-bit weights is (sum + 2^9) >> 10 here.
                            for k in 0..<rowValues {
                                let value = (top[k] &* inverse &+ bottom[k] &* wy &+ 512) >> 10
                                target[k] = UInt8(truncatingIfNeeded: value)
                            }
                        }
                    }
                }
            }
        }
        return output
    }
}

extension Double {
    @inline(__always)
    func clamped(_ low: Double, _ high: Double) -> Double { Swift.min(Swift.max(self, low), high) }
}
