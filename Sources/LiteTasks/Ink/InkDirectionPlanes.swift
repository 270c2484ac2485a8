import Foundation

/// The picture the Chinese and Japanese character network reads: eight planes of pen direction and one of pen-up
/// movement, ``size`` x ``size`` each, in the network's [height, width, plane] layout.
///
/// The same arithmetic as tools/ink/cjk_features.py, which made the pictures the network learnt from (the tests
/// compare the two value for value):
/// 1. The ink's bounding box is scaled by its larger side to ``span`` pixels and centred in the grid (pixel centres
///    at 0 ... size - 1).
/// 2. Every segment of every stroke is cut into pieces of at most ``step`` pixels. A piece of length l and direction
///    θ (from +x toward +y, y down) adds, at its midpoint and bilinearly, l·sin(π/4 − φ)/sin(π/4) to plane k and
///    l·sin(φ)/sin(π/4) to plane k + 1 (mod 8), where k = ⌊θ / (π/4)⌋ and φ = θ − kπ/4: the piece written as a
///    non-negative sum of its two neighbouring unit directions.
/// 3. The straight pen-up movement from each stroke's last point to the next stroke's first point adds its pieces'
///    lengths to plane 8, whatever their direction.
/// 4. Each plane is blurred by [1 2 1]/4 along x, then along y (zero outside the grid).
enum InkDirectionPlanes {
    /// The grid's side in pixels, the side the ink's larger side is scaled to, and the longest piece.
    static let size = 32
    static let span: Double = 28
    static let step: Double = 0.5
    /// Eight directions and the pen-up plane.
    static let planes = 9

    /// The planes of an ink (strokes of points in any units, y down), `size · size · planes` floats; all zero for an
    /// ink without points, or with a coordinate or an extent that is not finite (the recognizer refuses those first).
    static func compute(_ strokes: [[StrokePoint]]) -> [Float] {
        computeInDouble(strokes).map(Float.init)
    }

    /// The planes in double precision, the precision tools/ink/cjk_features.py computes and rounds them in.
    static func computeInDouble(_ strokes: [[StrokePoint]]) -> [Double] {
        let strokes = strokes.filter { !$0.isEmpty }
        var grid = [Double](repeating: 0, count: size * size * planes)
        guard !strokes.isEmpty, strokes.joined().allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return grid }
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for p in strokes.joined() {
            minX = min(minX, Double(p.x)); maxX = max(maxX, Double(p.x))
            minY = min(minY, Double(p.y)); maxY = max(maxY, Double(p.y))
        }
        guard (maxX - minX).isFinite, (maxY - minY).isFinite else { return grid }
        let scale = span / max(max(maxX - minX, maxY - minY), 1e-9)
        let (centreX, centreY) = ((minX + maxX) / 2, (minY + maxY) / 2)
        let middle = Double(size - 1) / 2
        let placed = strokes.map { stroke in
            stroke.map { ((Double($0.x) - centreX) * scale + middle, (Double($0.y) - centreY) * scale + middle) }
        }

        let sin45 = sin(Double.pi / 4)
        for stroke in placed where stroke.count > 1 {
            for i in 1..<stroke.count {
                forEachPiece(from: stroke[i - 1], to: stroke[i]) { x, y, length, dx, dy in
                    var theta = atan2(dy, dx)
                    if theta < 0 { theta += 2 * Double.pi }
                    let k = min(Int((theta / (Double.pi / 4)).rounded(.down)), 7)
                    let phi = theta - Double(k) * (Double.pi / 4)
                    splat(&grid, plane: k, x, y, length * sin(Double.pi / 4 - phi) / sin45)
                    splat(&grid, plane: (k + 1) % 8, x, y, length * sin(phi) / sin45)
                }
            }
        }
        for i in placed.indices.dropFirst() {
            forEachPiece(from: placed[i - 1].last!, to: placed[i][0]) { x, y, length, _, _ in
                splat(&grid, plane: 8, x, y, length)
            }
        }
        return blurred(grid)
    }

    /// Calls `body(midpoint x, midpoint y, piece length, segment dx, segment dy)` for each of the ⌈length / step⌉
    /// (at least one) equal pieces of a segment; a segment of no length has none.
    private static func forEachPiece(from a: (Double, Double), to b: (Double, Double),
                                     _ body: (Double, Double, Double, Double, Double) -> Void) {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1)
        // sqrt rather than hypot: numpy's hypot and Foundation's may differ in the last bit; the squares are exact
        // enough for the comparison with the Python twin (1e-6).
        let length = (dx * dx + dy * dy).squareRoot()
        let count = max(1, Int((length / step).rounded(.up)))
        let piece = length / Double(count)
        guard piece > 0 else { return }
        for j in 0..<count {
            let u = (Double(j) + 0.5) / Double(count)
            body(a.0 + dx * u, a.1 + dy * u, piece, dx, dy)
        }
    }

    /// Adds `weight` at (x, y) bilinearly to `plane`; the parts outside the grid are dropped.
    private static func splat(_ grid: inout [Double], plane: Int, _ x: Double, _ y: Double, _ weight: Double) {
        let x0 = x.rounded(.down), y0 = y.rounded(.down)
        let (fx, fy) = (x - x0, y - y0)
        // The four neighbours in a fixed order (the Python twin's), without an array of them per call.
        func add(_ xi: Int, _ yi: Int, _ w: Double) {
            guard xi >= 0, xi < size, yi >= 0, yi < size else { return }
            grid[(yi * size + xi) * planes + plane] += weight * w
        }
        let xi = Int(x0), yi = Int(y0)
        add(xi, yi, (1 - fx) * (1 - fy))
        add(xi + 1, yi, fx * (1 - fy))
        add(xi, yi + 1, (1 - fx) * fy)
        add(xi + 1, yi + 1, fx * fy)
    }

    /// [1 2 1] / 4 along x, then along y, with zeros outside the grid.
    private static func blurred(_ grid: [Double]) -> [Double] {
        func at(_ g: [Double], _ x: Int, _ y: Int, _ p: Int) -> Double {
            x < 0 || x >= size || y < 0 || y >= size ? 0 : g[(y * size + x) * planes + p]
        }
        var alongX = grid, out = grid
        for y in 0..<size { for x in 0..<size { for p in 0..<planes {
            alongX[(y * size + x) * planes + p] = (at(grid, x - 1, y, p) + 2 * at(grid, x, y, p) + at(grid, x + 1, y, p)) / 4
        } } }
        for y in 0..<size { for x in 0..<size { for p in 0..<planes {
            out[(y * size + x) * planes + p] = (at(alongX, x, y - 1, p) + 2 * at(alongX, x, y, p) + at(alongX, x, y + 1, p)) / 4
        } } }
        return out
    }
}
