import Foundation

/// The network's view of an ink, after Carbune et al. 2020 ("Fast multi-language LSTM-based online handwriting
/// recognition", §2.2), computed exactly as tools/ink/ink_features.py does for training (a test compares them).
///
/// The ink is scaled so that its height (or the writing area's height, when one is given) is 1, every stroke is
/// resampled at equal arc-length steps of ``step``, and every resampled point becomes five numbers: dx and dy from
/// the previous point in steps (clipped to ±10, zero for the first point), the height above the ink's top minus
/// 0.5, the time since the previous point in units of 100 ms (clipped to [0, 10]), and 1 on the first point of
/// each stroke. An ink without timing on every point gets a synthetic clock: 4 heights a second on paper, 150 ms
/// plus the distance at that speed in the air; a timed ink slower than ``minimumSpeed`` has its clock sped up to it.
public struct InkFeatures: Sendable {
    /// The resampling step along each stroke, in ink heights.
    public static let step = 0.1
    /// dx and dy are clipped to ±this many steps.
    public static let deltaClip = 10.0
    /// The time feature is clipped to [0, this] (units of 100 ms).
    public static let timeClip = 10.0
    /// The synthetic clock's pen speed, in heights a second.
    public static let syntheticSpeed = 4.0
    /// The synthetic clock's pause between strokes, in milliseconds (plus the distance at ``syntheticSpeed``).
    public static let penUpMilliseconds = 150.0
    /// Inks written slower than this many heights a second (pen down) are read at this speed.
    public static let minimumSpeed = 2.5
    /// The scale's height is at least this fraction of the ink's width, so a wide ink (or a flat line) is scaled
    /// down as a whole.
    public static let minimumWidthFraction = 0.1
    /// Features per point.
    public static let width = 5
    /// The most resampled points an ink may have (about 200 lines of handwriting); more is an error, not a stall.
    public static let maximumLength = 60_000

    /// Row-major [length, 5] features.
    public var values: [Float]
    /// For every row, the ink's (stroke, point) it was resampled from: the point that ends the segment it lies on.
    public var sources: [(stroke: Int, point: Int)]
    /// The number of resampled points (rows of ``values``).
    public var length: Int { sources.count }

    /// Features of `strokes`, each given with its index in the caller's ink. Strokes must be non-empty with finite
    /// coordinates (``DigitalInkRecognizer`` checks).
    public init(strokes: [(index: Int, points: [StrokePoint])], writingAreaHeight: Float? = nil) throws {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        var timed = true
        for stroke in strokes {
            for p in stroke.points {
                minX = min(minX, Double(p.x)); maxX = max(maxX, Double(p.x))
                minY = min(minY, Double(p.y)); maxY = max(maxY, Double(p.y))
                if p.t == nil { timed = false }
            }
        }
        var height: Double
        if let area = writingAreaHeight, area > 0 {
            height = Double(area)
        } else {
            height = max(maxY - minY, Self.minimumWidthFraction * (maxX - minX))
        }
        if !(height > 0) { height = 1 }

        var normalized: [[SIMD3<Double>]] = []
        var clock = 0.0
        var previous: SIMD3<Double>?
        var pathLength = 0.0
        for stroke in strokes {
            var points = stroke.points.map { p in
                SIMD3((Double(p.x) - minX) / height, (Double(p.y) - minY) / height, timed ? Double(p.t!) : 0)
            }
            for i in 1..<max(points.count, 1) {
                pathLength += Self.hypot(points[i].x - points[i - 1].x, points[i].y - points[i - 1].y)
            }
            if !timed {
                if let previous {
                    clock += Self.penUpMilliseconds + 1000 * Self.hypot(points[0].x - previous.x, points[0].y - previous.y) / Self.syntheticSpeed
                }
                var walked = 0.0
                points[0].z = clock
                for i in 1..<max(points.count, 1) {
                    walked += Self.hypot(points[i].x - points[i - 1].x, points[i].y - points[i - 1].y)
                    points[i].z = clock + 1000 * walked / Self.syntheticSpeed
                }
                clock = points[points.count - 1].z
                previous = points[points.count - 1]
            }
            normalized.append(points)
        }
        if timed {
            // A pen slower than the training data's (slow mouse input: Omniglot's letters are drawn at about 1.3
            // heights a second, UNIPEN's words at 3.3) is read at `minimumSpeed`: the clock runs faster by the
            // ratio, so pauses and speed changes keep their proportions. Same arithmetic as ink_features.py.
            var penDownMilliseconds = 0.0
            for points in normalized where points.count > 1 { penDownMilliseconds += points[points.count - 1].z - points[0].z }
            if penDownMilliseconds > 0, pathLength * 1000 / penDownMilliseconds < Self.minimumSpeed {
                let scale = pathLength * 1000 / penDownMilliseconds / Self.minimumSpeed
                for k in normalized.indices { for i in normalized[k].indices { normalized[k][i].z *= scale } }
            }
        }
        let estimate = pathLength / Self.step + Double(strokes.count) * 2
        guard estimate <= Double(Self.maximumLength) else {
            throw TaskError.invalidArgument("the ink is too long to recognize: about \(Int(min(estimate, 1e12))) resampled points (at most \(Self.maximumLength)); split it or give a larger writing area")
        }

        var values: [Float] = []
        var sources: [(stroke: Int, point: Int)] = []
        values.reserveCapacity(Int(estimate) * Self.width)
        var last: SIMD3<Double>?
        for (stroke, points) in zip(strokes, normalized) {
            for (j, sample) in Self.resample(points).enumerated() {
                var dx = 0.0, dy = 0.0, dt = 0.0
                if let last {
                    dx = (sample.point.x - last.x) / Self.step
                    dy = (sample.point.y - last.y) / Self.step
                    dt = (sample.point.z - last.z) / 100
                }
                values.append(Float(min(max(dx, -Self.deltaClip), Self.deltaClip)))
                values.append(Float(min(max(dy, -Self.deltaClip), Self.deltaClip)))
                values.append(Float(sample.point.y - 0.5))
                values.append(Float(min(max(dt, 0), Self.timeClip)))
                values.append(j == 0 ? 1 : 0)
                sources.append((stroke.index, sample.source))
                last = sample.point
            }
        }
        self.values = values
        self.sources = sources
    }

    /// How far the writing leans: the least-squares dx/dy of the pen-down steps that go mostly up or down
    /// (|dy| > 2|dx|, a downstroke's direction), positive when a stroke drawn downwards moves right (a backhand
    /// lean, as y grows downwards) and negative for the usual forward lean. Zero when there are no such steps.
    public var slant: Float {
        var dxdy: Float = 0, dydy: Float = 0
        for row in 0..<length where values[row * Self.width + 4] == 0 {
            let dx = values[row * Self.width], dy = values[row * Self.width + 1]
            // Steps longer than two resampling steps cross a gap the resampling did not fill; they say nothing
            // about the lean.
            if abs(dy) > 2 * abs(dx), abs(dy) < 2 {
                dxdy += dx * dy
                dydy += dy * dy
            }
        }
        return dydy > 0 ? dxdy / dydy : 0
    }

    /// These features with every step's dx moved by `shear`·dy (clipped as before), as if the ink had been sheared
    /// horizontally: `sheared(by: -slant)` reads the ink upright. Heights, times and pen lifts are unchanged, so the
    /// rows still map to the same ``sources``.
    public func sheared(by shear: Float) -> InkFeatures {
        var copy = self
        let clip = Float(Self.deltaClip)
        for row in 0..<length {
            let dx = values[row * Self.width], dy = values[row * Self.width + 1]
            copy.values[row * Self.width] = min(max(dx + shear * dy, -clip), clip)
        }
        return copy
    }

    /// sqrt(x² + y²) from IEEE operations only (not libm's hypot, which may differ by an ulp from Python's), so
    /// that the resampling decisions are the training side's bit for bit.
    static func hypot(_ x: Double, _ y: Double) -> Double { (x * x + y * y).squareRoot() }

    /// Points every `step` of arc length along the polyline, then its last point, each with the index of the
    /// input point that ends its segment.
    static func resample(_ stroke: [SIMD3<Double>], step: Double = InkFeatures.step) -> [(point: SIMD3<Double>, source: Int)] {
        var out: [(point: SIMD3<Double>, source: Int)] = [(stroke[0], 0)]
        var walked = 0.0  // arc length since the last emitted point; always < step between segments
        for i in 1..<max(stroke.count, 1) {
            let a = stroke[i - 1], b = stroke[i]
            let length = hypot(b.x - a.x, b.y - a.y)
            if length == 0 { continue }
            var position = 0.0
            while walked + (length - position) >= step {
                position += step - walked
                out.append((a + (position / length) * (b - a), i))
                walked = 0
            }
            walked += length - position
        }
        if walked > 1e-9 { out.append((stroke[stroke.count - 1], stroke.count - 1)) }
        return out
    }
}
