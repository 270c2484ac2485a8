import Foundation
import LiteEngine
import LiteFormat

/// A second opinion on a shape: a small network over geometric features of the whole ink, which say "five points"
/// or "four corners" however the drawing was stroked, where the shapes LSTM reads the pen path.
///
/// The features follow Fonseca and Jorge's CALI recognizer (ratios between the convex hull, its largest inscribed
/// triangle and quadrilateral and its smallest enclosing rectangle), with how the pen turns and the Fourier
/// magnitudes of a radial profile (a triangle shows at harmonic 3, a star at 5, an octagon at 8). The arithmetic is
/// tools/ink/shape_geometry.py's, which made the network's training data, step for step. The network
/// (tools/ink/train_shape_geometry.py) ships beside the shapes model as `<model>.geometry.tflite`; the recognizer
/// adds ``DigitalInkRecognizerOptions/shapeGeometryWeight`` times its log-probabilities to the LSTM's.
struct InkShapeGeometry {
    static let step = 0.02
    /// Resampled points at most: a longer ink is resampled more coarsely, so the work is bounded.
    static let maximumPoints = 2000.0
    /// The inscribed triangle and quadrilateral are searched over at most this many hull points, the enclosing
    /// rectangle over at most `maximumRectangleHull` (a cubic and a quadratic search).
    static let maximumInscribedHull = 64
    static let maximumRectangleHull = 256
    static let bins = 64
    static let harmonics = 12
    /// Radians between the directions two samples before and two after a point that count as a corner.
    static let sharpTurn = 0.8
    static let count = 18 + harmonics
    /// The unbounded features (counts, lengths, turning) are clipped here, so that a scribble or a ring of dots
    /// stays in the range the network was trained on.
    static let cap = 20.0

    typealias Point = SIMD2<Double>

    let interpreter: Interpreter

    /// Loads the network at `path`, checking it maps ``count`` features to `classes` scores.
    init(path: String, classes: Int, threads: Int) throws {
        try self.init(model: try TaskError.wrap { try TFLiteModel(path: path) }, name: path, classes: classes, threads: threads)
    }

    /// The network `model`; `name` names it in errors.
    init(model: TFLiteModel, name path: String, classes: Int, threads: Int) throws {
        interpreter = try TaskError.wrap { try Interpreter(model: model, options: .init(threads: threads)) }
        guard interpreter.inputCount == 1, interpreter.outputCount == 1 else {
            throw TaskError.model("a shape geometry model has one input (features) and one output; \(path) has \(interpreter.inputCount) and \(interpreter.outputCount)")
        }
        try TaskError.wrap { try interpreter.allocateTensors() }
        let input = try TaskError.wrap { try interpreter.input(at: 0) }
        let output = try TaskError.wrap { try interpreter.output(at: 0) }
        guard input.type == .float32, input.shape == [1, Self.count] else {
            throw TaskError.model("a shape geometry model's input is float32 [1, \(Self.count)]; \(path) has \(input)")
        }
        guard output.elementCount == classes else {
            throw TaskError.model("a shape geometry model has one output per shape class (\(classes)); \(path) has \(output)")
        }
    }

    /// Log-probabilities of the shape classes for the ink `strokes`.
    func logProbabilities(_ strokes: [[StrokePoint]]) throws -> [Float] {
        try interpreter.logProbabilities(of: Self.features(strokes).map(Float.init))
    }

    // MARK: Features

    /// The ``count`` features of an ink (tools/ink/shape_geometry.py lists them); zeros for an ink without points.
    static func features(_ strokes: [[StrokePoint]]) -> [Double] {
        let raw = strokes.filter { !$0.isEmpty }.map { $0.map { Point(Double($0.x), Double($0.y)) } }
        guard !raw.isEmpty else { return [Double](repeating: 0, count: count) }
        var low = Point(repeating: .infinity), high = Point(repeating: -.infinity)
        for stroke in raw {
            for p in stroke {
                low = Point(min(low.x, p.x), min(low.y, p.y))
                high = Point(max(high.x, p.x), max(high.y, p.y))
            }
        }
        var size = max(high.x - low.x, high.y - low.y)
        if !(size > 0) { size = 1 }
        let strokes = raw.map { $0.map { Point(($0.x - low.x) / size, ($0.y - low.y) / size) } }
        var inkLength = 0.0
        for stroke in strokes { inkLength += perimeter(stroke, closed: false) }
        let resampled = strokes.map { resample($0, step: max(step, inkLength / maximumPoints)) }
        let points = resampled.flatMap { $0 }

        let hull = convexHull(points)
        let hullArea = area(hull), hullPerimeter = perimeter(hull, closed: true)
        let (rectangleArea, rectanglePerimeter) = hull.count >= 3 ? enclosingRectangle(hull) : (0, 0)
        let (triangle, quadrilateral) = hull.count >= 3 ? inscribed(hull) : (0, 0)
        let flat = hullArea <= 1e-4

        var centroid = Point.zero
        let around = hull.count >= 3 ? hull : points
        for p in around { centroid.x += p.x; centroid.y += p.y }
        centroid.x /= Double(around.count)
        centroid.y /= Double(around.count)
        var profile = [Double](repeating: 0, count: bins)
        var hasInk = [Bool](repeating: false, count: bins)
        var radiusSum = 0.0, radiusSquares = 0.0
        for p in points {
            let dx = p.x - centroid.x, dy = p.y - centroid.y
            let r = InkFeatures.hypot(dx, dy)
            radiusSum += r
            radiusSquares += r * r
            let b = Int((atan2(dy, dx) + Double.pi) / (2 * Double.pi) * Double(bins)) % bins
            profile[b] = max(profile[b], r)
            hasInk[b] = true
        }
        let filled = (0..<bins).filter { hasInk[$0] }
        let coverage = Double(filled.count) / Double(bins)
        profile = (0..<bins).map { b in
            if hasInk[b] { return profile[b] }
            // The nearest direction with ink, around the circle; of two as near, the lower.
            let nearest = filled.min { f, g in
                let df = min(abs(f - b), bins - abs(f - b)), dg = min(abs(g - b), bins - abs(g - b))
                return df != dg ? df < dg : f < g
            }!
            return profile[nearest]
        }
        let radiusMean = radiusSum / Double(points.count)
        let radiusSpread = max(radiusSquares / Double(points.count) - radiusMean * radiusMean, 0).squareRoot() / max(radiusMean, 1e-6)
        var profileSum = 0.0, profileSquares = 0.0
        for r in profile {
            profileSum += r
            profileSquares += r * r
        }
        let profileMean = profileSum / Double(bins)
        let profileSpread = max(profileSquares / Double(bins) - profileMean * profileMean, 0).squareRoot() / max(profileMean, 1e-6)
        let profileRange = profile.min()! / max(profile.max()!, 1e-6)
        var magnitudes: [Double] = []
        for k in 1...harmonics {
            var re = 0.0, im = 0.0
            for b in 0..<bins {
                let angle = 2 * Double.pi * Double(k) * Double(b) / Double(bins)
                re += profile[b] * cos(angle)
                im -= profile[b] * sin(angle)
            }
            magnitudes.append(InkFeatures.hypot(re, im) / max(profileMean * Double(bins), 1e-6))
        }

        var sharp = 0.0, turning = 0.0
        for s in resampled where s.count >= 5 {
            for i in 2..<(s.count - 2) {
                let before = atan2(s[i].y - s[i - 2].y, s[i].x - s[i - 2].x)
                let after = atan2(s[i + 2].y - s[i].y, s[i + 2].x - s[i].x)
                let turn = abs(floorModulo(after - before + Double.pi, 2 * Double.pi) - Double.pi)
                turning += turn
                if turn > sharpTurn { sharp += 1 }
            }
        }
        let first = strokes[0][0], last = strokes[strokes.count - 1][strokes[strokes.count - 1].count - 1]
        let closure = InkFeatures.hypot(last.x - first.x, last.y - first.y) / max(inkLength, 1e-6)
        let safeArea = max(hullArea, 1e-6)
        return [
            Double(min(strokes.count, 20)), log1p(Double(strokes.count)),
            flat ? 100 : min(hullPerimeter * hullPerimeter / safeArea, 100),
            rectangleArea > 0 ? hullArea / rectangleArea : 0,
            flat ? 0 : triangle / safeArea,
            flat ? 0 : quadrilateral / safeArea,
            quadrilateral > 0 ? triangle / quadrilateral : 0,
            rectanglePerimeter > 0 ? hullPerimeter / rectanglePerimeter : 0,
            min(inkLength / max(hullPerimeter, 1e-6), cap), min(closure, 1),
            min(sharp / 4, cap), min(turning / (2 * Double.pi), cap),
            flat ? 0 : min(area(points) / safeArea, cap),
            hullArea, min(radiusSpread, cap), coverage, profileSpread, profileRange,
        ] + magnitudes
    }

    /// Python's `x % m` for floats: the remainder with the sign of `m`.
    static func floorModulo(_ x: Double, _ m: Double) -> Double {
        var r = fmod(x, m)
        if r != 0 {
            if (m < 0) != (r < 0) { r += m }
        } else {
            r = 0
        }
        return r
    }

    /// Points every `step` of arc length along the polyline, then its last point (``InkFeatures``'s resampling).
    static func resample(_ stroke: [Point], step: Double) -> [Point] {
        InkFeatures.resample(stroke.map { SIMD3($0.x, $0.y, 0) }, step: step).map { Point($0.point.x, $0.point.y) }
    }

    static func cross(_ o: Point, _ a: Point, _ b: Point) -> Double {
        (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
    }

    /// Andrew's monotone chain: counter-clockwise from the lowest x (then y), collinear points left out.
    static func convexHull(_ points: [Point]) -> [Point] {
        var sorted = points.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        sorted = sorted.enumerated().filter { $0.offset == 0 || $0.element != sorted[$0.offset - 1] }.map(\.element)
        guard sorted.count > 2 else { return sorted }
        var lower: [Point] = [], upper: [Point] = []
        for p in sorted {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
            lower.append(p)
        }
        for p in sorted.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
            upper.append(p)
        }
        return Array(lower.dropLast()) + Array(upper.dropLast())
    }

    static func area(_ polygon: [Point]) -> Double {
        guard polygon.count >= 3 else { return 0 }
        var twice = 0.0
        for i in polygon.indices {
            let a = polygon[i], b = polygon[(i + 1) % polygon.count]
            twice += a.x * b.y - b.x * a.y
        }
        return abs(twice) / 2
    }

    static func perimeter(_ polygon: [Point], closed: Bool) -> Double {
        var total = 0.0
        for i in polygon.indices.dropFirst() {
            total += InkFeatures.hypot(polygon[i].x - polygon[i - 1].x, polygon[i].y - polygon[i - 1].y)
        }
        if closed && polygon.count > 2 {
            total += InkFeatures.hypot(polygon[0].x - polygon[polygon.count - 1].x, polygon[0].y - polygon[polygon.count - 1].y)
        }
        return total
    }

    /// At most `limit` of the hull's points, evenly spaced around it.
    static func thinned(_ hull: [Point], to limit: Int) -> [Point] {
        hull.count <= limit ? hull : (0..<limit).map { hull[$0 * hull.count / limit] }
    }

    /// (area, perimeter) of the smallest-area rectangle around the hull with a side along one of its edges.
    static func enclosingRectangle(_ fullHull: [Point]) -> (Double, Double) {
        let hull = thinned(fullHull, to: maximumRectangleHull)
        var bestArea = Double.infinity, bestPerimeter = 0.0
        for i in hull.indices {
            let a = hull[i], b = hull[(i + 1) % hull.count]
            let length = InkFeatures.hypot(b.x - a.x, b.y - a.y)
            if length == 0 { continue }
            let ux = (b.x - a.x) / length, uy = (b.y - a.y) / length
            var lowU = Double.infinity, lowV = Double.infinity, highU = -Double.infinity, highV = -Double.infinity
            for p in hull {
                let u = p.x * ux + p.y * uy
                let v = p.y * ux - p.x * uy
                lowU = min(lowU, u); highU = max(highU, u)
                lowV = min(lowV, v); highV = max(highV, v)
            }
            let w = highU - lowU, l = highV - lowV
            if w * l < bestArea { bestArea = w * l; bestPerimeter = 2 * (w + l) }
        }
        return bestArea < .infinity ? (bestArea, bestPerimeter) : (0, 0)
    }

    /// Areas of the largest triangle and quadrilateral with corners among the hull's points: for every diagonal
    /// (i, k), the farthest point on each side of it.
    static func inscribed(_ fullHull: [Point]) -> (Double, Double) {
        let hull = thinned(fullHull, to: maximumInscribedHull)
        var triangle = 0.0, quadrilateral = 0.0
        for i in hull.indices {
            for k in (i + 1)..<hull.count {
                var lowest = 0.0, highest = 0.0
                for p in hull {
                    let c = cross(hull[i], hull[k], p)
                    lowest = min(lowest, c)
                    highest = max(highest, c)
                }
                triangle = max(triangle, highest / 2, -lowest / 2)
                quadrilateral = max(quadrilateral, (highest - lowest) / 2)
            }
        }
        return (triangle, quadrilateral)
    }
}
