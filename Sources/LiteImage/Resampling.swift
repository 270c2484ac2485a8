import Foundation

/// A rectangle in pixel coordinates (origin top-left, x right, y down), held as MediaPipe's `RotatedRect` holds
/// it: centre and size in Float, so a region converted the way MediaPipe converts it samples the same pixels.
public struct PixelRect: Sendable, Equatable, CustomStringConvertible {
    /// Horizontal centre, in pixels from the left edge.
    public var centerX: Float
    /// Vertical centre, in pixels from the top edge.
    public var centerY: Float
    /// Width in pixels.
    public var width: Float
    /// Height in pixels.
    public var height: Float

    /// The rectangle with centre (`centerX`, `centerY`) and the given size, in pixels.
    public init(centerX: Float, centerY: Float, width: Float, height: Float) {
        self.centerX = centerX
        self.centerY = centerY
        self.width = width
        self.height = height
    }

    /// The rectangle with top-left corner (`x`, `y`).
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(centerX: Float(x + width / 2), centerY: Float(y + height / 2), width: Float(width), height: Float(height))
    }

    /// The centre and size, such as `(centre 112.0, 112.0, 224.0x224.0)`.
    public var description: String { "(centre \(centerX), \(centerY), \(width)x\(height))" }
}

/// Where each output pixel samples the source, in 1/32 pixel (OpenCV's `INTER_BITS = 5` fixed point).
struct SamplingGrid {
    var x: [Int32]
    var y: [Int32]

    /// The grid OpenCV's `warpPerspective` computes for the rectangle with centre (`centerX`, `centerY`) and size
    /// `width` x `height` mapped onto an `outputWidth` x `outputHeight` image, reproduced operation by operation:
    /// the corners from `RotatedRect::points` in Float, the 8x8 system of `getPerspectiveTransform` solved by
    /// OpenCV's LU (partial pivoting), the 3x3 inverse by cofactors as `cv::invert` does for 3x3, then per pixel
    /// `cvRound((X0 + M0 * x1) * (32 / W))` with the row terms computed once per 64-pixel block as the
    /// warp invoker does. The matrix is never exactly a scale, and its last-bit errors decide which way the
    /// exact ties (sample positions on a 1/64 boundary) round, so nothing short of this matches MediaPipe.
    init(centerX: Float, centerY: Float, width: Float, height: Float, outputWidth: Int, outputHeight: Int) {
        let b: Float = 0.5
        let p0 = (centerX - b * width, centerY + b * height)
        let p1 = (centerX - b * width, centerY - b * height)
        let p2 = (2 * centerX - p0.0, 2 * centerY - p0.1)
        let p3 = (2 * centerX - p1.0, 2 * centerY - p1.1)
        let source = [p0, p1, p2, p3]
        let w = Float(outputWidth), h = Float(outputHeight)
        let target: [(Float, Float)] = [(0, h), (0, 0), (w, 0), (w, h)]
        var a = [[Double]](repeating: [Double](repeating: 0, count: 8), count: 8)
        var rhs = [Double](repeating: 0, count: 8)
        for i in 0..<4 {
            a[i][0] = Double(source[i].0); a[i + 4][3] = Double(source[i].0)
            a[i][1] = Double(source[i].1); a[i + 4][4] = Double(source[i].1)
            a[i][2] = 1; a[i + 4][5] = 1
            a[i][6] = Double(-source[i].0 * target[i].0)
            a[i][7] = Double(-source[i].1 * target[i].0)
            a[i + 4][6] = Double(-source[i].0 * target[i].1)
            a[i + 4][7] = Double(-source[i].1 * target[i].1)
            rhs[i] = Double(target[i].0)
            rhs[i + 4] = Double(target[i].1)
        }
        let forward = SamplingGrid.solveLU(a, rhs) + [1]
        let m = SamplingGrid.invert3x3(forward)

        let blockHeight0 = min(16, outputHeight)
        let blockWidth = min(1024 / blockHeight0, outputWidth)
        var gridX = [Int32](repeating: 0, count: outputWidth * outputHeight)
        var gridY = gridX
        for row in 0..<outputHeight {
            var blockStart = 0
            while blockStart < outputWidth {
                let xb = Double(blockStart), yy = Double(row)
                let x0 = m[0] * xb + m[1] * yy + m[2]
                let y0 = m[3] * xb + m[4] * yy + m[5]
                let w0 = m[6] * xb + m[7] * yy + m[8]
                for x1 in 0..<min(blockWidth, outputWidth - blockStart) {
                    let offset = Double(x1)
                    var weight = w0 + m[6] * offset
                    weight = weight != 0 ? 32 / weight : 0
                    let fx = ((x0 + m[0] * offset) * weight).clamped(Double(Int32.min), Double(Int32.max))
                    let fy = ((y0 + m[3] * offset) * weight).clamped(Double(Int32.min), Double(Int32.max))
                    let at = row * outputWidth + blockStart + x1
                    gridX[at] = fx.isNaN ? 0 : Int32(fx.rounded(.toNearestOrEven))
                    gridY[at] = fy.isNaN ? 0 : Int32(fy.rounded(.toNearestOrEven))
                }
                blockStart += blockWidth
            }
        }
        x = gridX
        y = gridY
    }

    /// OpenCV's `LUImpl`: Gaussian elimination with partial pivoting, then back substitution.
    static func solveLU(_ matrix: [[Double]], _ rhs: [Double]) -> [Double] {
        var a = matrix, b = rhs
        let n = a.count
        for i in 0..<n {
            var pivot = i
            for j in (i + 1)..<max(n, i + 1) where abs(a[j][i]) > abs(a[pivot][i]) { pivot = j }
            if a[pivot][i] == 0 { return [Double](repeating: 0, count: n) }
            if pivot != i {
                a.swapAt(i, pivot)
                b.swapAt(i, pivot)
            }
            let d = -1 / a[i][i]
            for j in (i + 1)..<max(n, i + 1) {
                let alpha = a[j][i] * d
                for k in (i + 1)..<n { a[j][k] += alpha * a[i][k] }
                b[j] += alpha * b[i]
            }
        }
        for i in stride(from: n - 1, through: 0, by: -1) {
            var s = b[i]
            for k in (i + 1)..<max(n, i + 1) { s -= a[i][k] * b[k] }
            b[i] = s / a[i][i]
        }
        return b
    }

    /// `cv::invert` of a 3x3 double matrix (the cofactor formula it uses for n <= 3).
    static func invert3x3(_ s: [Double]) -> [Double] {
        func m(_ r: Int, _ c: Int) -> Double { s[r * 3 + c] }
        var d = m(0, 0) * (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1)) - m(0, 1) * (m(1, 0) * m(2, 2) - m(1, 2) * m(2, 0))
            + m(0, 2) * (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0))
        guard d != 0 else { return [Double](repeating: 0, count: 9) }
        d = 1 / d
        return [
            (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1)) * d, (m(0, 2) * m(2, 1) - m(0, 1) * m(2, 2)) * d, (m(0, 1) * m(1, 2) - m(0, 2) * m(1, 1)) * d,
            (m(1, 2) * m(2, 0) - m(1, 0) * m(2, 2)) * d, (m(0, 0) * m(2, 2) - m(0, 2) * m(2, 0)) * d, (m(0, 2) * m(1, 0) - m(0, 0) * m(1, 2)) * d,
            (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0)) * d, (m(0, 1) * m(2, 0) - m(0, 0) * m(2, 1)) * d, (m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0)) * d,
        ]
    }
}

/// A sampling grid in the form the resampler uses: a column per output column and a row per output row when the
/// grid is separable, else the whole grid.
enum SamplingPlan {
    case separable(columns: [Int32], rows: [Int32])
    case perPixel(SamplingGrid)

    init(region: PixelRect, outputWidth: Int, outputHeight: Int) {
        let grid = SamplingGrid(centerX: region.centerX, centerY: region.centerY, width: region.width, height: region.height,
                                outputWidth: outputWidth, outputHeight: outputHeight)
        for row in 0..<outputHeight {
            for column in 0..<outputWidth where grid.x[row * outputWidth + column] != grid.x[column] || grid.y[row * outputWidth + column] != grid.y[row * outputWidth] {
                self = .perPixel(grid)
                return
            }
        }
        self = .separable(columns: Array(grid.x[0..<outputWidth]), rows: (0..<outputHeight).map { grid.y[$0 * outputWidth] })
    }

    private struct Key: Hashable {
        var region: [UInt32]
        var outputWidth: Int
        var outputHeight: Int
    }

    private final class Cache: @unchecked Sendable {
        let lock = NSLock()
        var recent: [(Key, SamplingPlan)] = []
    }

    private static let cache = Cache()

    /// The plan for `region` and the output size, computed once for the last few (a grid is a function of these
    /// alone; a batch of photos of a few camera sizes asks for the same ones again and again).
    static func cached(region: PixelRect, outputWidth: Int, outputHeight: Int) -> SamplingPlan {
        let key = Key(region: [region.centerX, region.centerY, region.width, region.height].map(\.bitPattern), outputWidth: outputWidth, outputHeight: outputHeight)
        if let hit = cache.lock.withLock({ cache.recent.first { $0.0 == key }?.1 }) { return hit }
        let plan = SamplingPlan(region: region, outputWidth: outputWidth, outputHeight: outputHeight)
        cache.lock.withLock {
            cache.recent.removeAll { $0.0 == key }
            cache.recent.insert((key, plan), at: 0)
            if cache.recent.count > 8 { cache.recent.removeLast() }
        }
        return plan
    }
}

extension Image {
    /// Samples `region` (default: the whole image) into an `outputWidth` x `outputHeight` RGB image exactly as
    /// MediaPipe's CPU image-to-tensor converter does: OpenCV's `warpPerspective` with `INTER_LINEAR` and
    /// `BORDER_REPLICATE`, the rectangle's corners mapped onto the output's corners (so output pixel `i` samples
    /// near `x + i * width / outputWidth`, no half-pixel shift).
    ///
    /// Bit for bit (checked against MediaPipe's own ImageToTensorCalculator on every test photo):
    /// - sample positions come from `SamplingGrid` in 1/32 pixel;
    /// - the four neighbours get OpenCV's 15-bit weights `(32 - fx)(32 - fy) * 32`, ..., which sum to 32768, and
    ///   the sum is rounded by adding 2^14 and shifting right by 15;
    /// - neighbours outside the image repeat the edge pixel.
    ///
    /// When the grid is separable (every row samples the same columns, every column the same rows: the usual
    /// case) a horizontal pass gathers and a vertical pass over contiguous rows runs as a plain loop the compiler
    /// vectorizes; otherwise each pixel is sampled on its own.
    ///
    /// `orientation`: these pixels are stored with that orientation, and `region` and the sampling are in the
    /// picture as shown (``applying(_:)``). The result is the same as `applying(orientation).resampled(...)`, bit
    /// for bit (each output value is the same integer sum over the same four pixels), without turning the whole
    /// image first: only the sampled pixels are read, through the orientation's mapping of coordinates.
    public func resampled(region: PixelRect? = nil, outputWidth: Int, outputHeight: Int, orientation: ImageOrientation = .up) -> [UInt8] {
        let shownWidth = orientation.swapsDimensions ? height : width
        let shownHeight = orientation.swapsDimensions ? width : height
        let region = region ?? PixelRect(centerX: 0.5 * Float(shownWidth), centerY: 0.5 * Float(shownHeight),
                                         width: Float(shownWidth), height: Float(shownHeight))
        let layout = OrientedLayout(orientation, storedWidth: width, storedHeight: height)
        switch SamplingPlan.cached(region: region, outputWidth: outputWidth, outputHeight: outputHeight) {
        case let .separable(columns, rows):
            return resampleSeparable(columns: columns, rows: rows, outputWidth: outputWidth, outputHeight: outputHeight, layout: layout)
        case let .perPixel(grid):
            return resamplePerPixel(grid, outputWidth: outputWidth, outputHeight: outputHeight, layout: layout)
        }
    }

    func resampleSeparable(columns: [Int32], rows: [Int32], outputWidth: Int, outputHeight: Int, layout: OrientedLayout) -> [UInt8] {
        let width = layout.width, height = layout.height
        var columnLeft = [Int](repeating: 0, count: outputWidth)
        var columnRight = [Int](repeating: 0, count: outputWidth)
        var columnWeight = [Int32](repeating: 0, count: outputWidth)
        for i in 0..<outputWidth {
            let position = Int(columns[i])
            let left = position >> 5
            columnLeft[i] = layout.columnOffset(min(max(left, 0), width - 1))
            columnRight[i] = layout.columnOffset(min(max(left + 1, 0), width - 1))
            columnWeight[i] = Int32(position & 31)
        }
        let rowValues = outputWidth * 3
        var output = [UInt8](repeating: 0, count: outputHeight * rowValues)
        var upper = [Int32](repeating: 0, count: rowValues)
        var lower = [Int32](repeating: 0, count: rowValues)
        var cachedUpper = -1, cachedLower = -1

        pixels.withUnsafeBufferPointer { source in
            func horizontal(_ sourceRow: Int, into row: UnsafeMutableBufferPointer<Int32>) {
                let base = layout.rowOffset(sourceRow)
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
                            let position = Int(rows[j])
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
                            if cachedLower != below {
                                horizontal(below, into: bottom)
                                cachedLower = below
                            }
                            let target = out.baseAddress! + j * rowValues
                            let inverse = 32 - wy
                            // The two passes' weights multiply to at most 1024 (= 32768 >> 5), so OpenCV's
                            // (sum + 2^14) >> 15 over 15-bit weights is (sum + 2^9) >> 10 here, exactly.
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

    func resamplePerPixel(_ grid: SamplingGrid, outputWidth: Int, outputHeight: Int, layout: OrientedLayout) -> [UInt8] {
        let width = layout.width, height = layout.height
        var output = [UInt8](repeating: 0, count: outputWidth * outputHeight * 3)
        for index in 0..<(outputWidth * outputHeight) {
            let px = Int(grid.x[index]), py = Int(grid.y[index])
            let fx = Int32(px & 31), fy = Int32(py & 31)
            let x0 = min(max(px >> 5, 0), width - 1), x1 = min(max((px >> 5) + 1, 0), width - 1)
            let y0 = min(max(py >> 5, 0), height - 1), y1 = min(max((py >> 5) + 1, 0), height - 1)
            let row0 = layout.rowOffset(y0), row1 = layout.rowOffset(y1), column0 = layout.columnOffset(x0), column1 = layout.columnOffset(x1)
            for c in 0..<3 {
                let p00 = Int32(pixels[row0 + column0 + c]), p01 = Int32(pixels[row0 + column1 + c])
                let p10 = Int32(pixels[row1 + column0 + c]), p11 = Int32(pixels[row1 + column1 + c])
                let value = ((p00 * (32 - fx) + p01 * fx) * (32 - fy) + (p10 * (32 - fx) + p11 * fx) * fy + 512) >> 10
                output[index * 3 + c] = UInt8(truncatingIfNeeded: value)
            }
        }
        return output
    }
}

/// Where the pixel at (`x`, `y`) of the picture as shown lies in the stored RGB bytes: every orientation maps a
/// shown column to a stored column or row and a shown row to the other, each possibly reversed, so the byte offset
/// is `columnOffset(x) + rowOffset(y)`.
struct OrientedLayout {
    /// The shown picture's width and height.
    let width: Int
    let height: Int
    private let origin: Int
    private let columnStep: Int
    private let rowStep: Int

    init(_ orientation: ImageOrientation, storedWidth: Int, storedHeight: Int) {
        width = orientation.swapsDimensions ? storedHeight : storedWidth
        height = orientation.swapsDimensions ? storedWidth : storedHeight
        func offset(_ x: Int, _ y: Int) -> Int {
            let (sx, sy) = orientation.storedPosition(x: x, y: y, width: storedWidth, height: storedHeight)
            return (sy * storedWidth + sx) * 3
        }
        origin = offset(0, 0)
        columnStep = width > 1 ? offset(1, 0) - origin : 3
        rowStep = height > 1 ? offset(0, 1) - origin : 3 * storedWidth
    }

    /// The offset of shown column `x` in row 0 of the shown picture.
    @inline(__always) func columnOffset(_ x: Int) -> Int { origin + x * columnStep }
    /// What shown row `y` adds to a column's offset.
    @inline(__always) func rowOffset(_ y: Int) -> Int { y * rowStep }
}

extension Double {
    @inline(__always)
    func clamped(_ low: Double, _ high: Double) -> Double { Swift.min(Swift.max(self, low), high) }
}
