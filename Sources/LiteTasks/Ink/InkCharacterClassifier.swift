import Foundation
import LiteEngine
import LiteFormat

/// A second opinion on an ink that is one character on its own: a small convolutional network that looks at the
/// ink as a picture (``raster(_:)``) and gives a probability to each printable character.
///
/// The "en" LSTM reads characters as a pen path inside words; alone, a letter drawn the way a mouse draws it
/// (stair-stepped, boxy) is often read as the digit of the same shape. This network was trained on real characters
/// cut out of the training writers' words, UNIPEN's isolated characters and Hershey font glyphs, each class
/// weighing the same (tools/ink/train_characters.py), so its output is a likelihood that the recognizer combines
/// with the LSTM's reading and the lone-character prior. It ships beside the text model as `<model>.characters.tflite`.
struct InkCharacterClassifier {
    /// The picture's side in pixels and the side of the square the ink's larger side is scaled to.
    static let size = 32
    static let span: Double = 26
    /// The pen is drawn as points this far apart (pixels), each splatted bilinearly.
    static let step: Double = 0.25
    /// The characters of the network's outputs, in order: printable ASCII without the space.
    static let characters: [UInt8] = Array(33...126)

    let interpreter: Interpreter

    init(path: String, threads: Int) throws {
        try self.init(model: try TaskError.wrap { try TFLiteModel(path: path) }, name: path, threads: threads)
    }

    /// The network `model`; `name` names it in errors.
    init(model: TFLiteModel, name path: String, threads: Int) throws {
        interpreter = try TaskError.wrap { try Interpreter(model: model, options: .init(threads: threads)) }
        guard interpreter.inputCount == 1, interpreter.outputCount == 1 else {
            throw TaskError.model("a character model has one input (a picture) and one output; \(path) has \(interpreter.inputCount) and \(interpreter.outputCount)")
        }
        try TaskError.wrap { try interpreter.allocateTensors() }
        let input = try TaskError.wrap { try interpreter.input(at: 0) }
        let output = try TaskError.wrap { try interpreter.output(at: 0) }
        guard input.type == .float32, input.shape == [1, Self.size, Self.size, 1] else {
            throw TaskError.model("a character model's input is float32 [1, \(Self.size), \(Self.size), 1]; \(path) has \(input)")
        }
        guard output.shape.last == Self.characters.count, output.elementCount == Self.characters.count else {
            throw TaskError.model("a character model has \(Self.characters.count) outputs (printable ASCII without the space); \(path) has \(output)")
        }
    }

    /// Log-probabilities of ``characters`` for the ink `strokes` read as one character.
    func logProbabilities(_ strokes: [InkLayout.IndexedStroke]) throws -> [Float] {
        try interpreter.logProbabilities(of: Self.raster(strokes.map { $0.points }))
    }

    /// The ink drawn as a `size` x `size` picture (row-major, 0 background, up to 1 ink): its larger side scaled to
    /// `span` pixels and centred, the pen a line of points `step` apart splatted bilinearly (a point alone weighs
    /// as much as a pixel of line), then widened by a [1 2 1] blur each way, doubled and clipped to 1. The same
    /// arithmetic as tools/ink/character_data.py's `raster`, which made the pictures the network learnt from.
    static func raster(_ strokes: [[StrokePoint]]) -> [Float] {
        let n = size
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for stroke in strokes {
            for p in stroke {
                minX = min(minX, Double(p.x)); maxX = max(maxX, Double(p.x))
                minY = min(minY, Double(p.y)); maxY = max(maxY, Double(p.y))
            }
        }
        var picture = [Float](repeating: 0, count: n * n)
        guard minX.isFinite, minY.isFinite else { return picture }
        let scale = span / max(maxX - minX, maxY - minY, 1e-9)
        let centreX = (minX + maxX) / 2, centreY = (minY + maxY) / 2
        let offset = Double(n) / 2 - 0.5
        var sum = [Double](repeating: 0, count: n * n)
        func splat(_ x: Double, _ y: Double, _ weight: Double) {
            let x0 = Int(x.rounded(.down)), y0 = Int(y.rounded(.down))
            let fx = x - Double(x0), fy = y - Double(y0)
            for (dx, dy, w) in [(0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)), (0, 1, (1 - fx) * fy), (1, 1, fx * fy)] {
                let px = x0 + dx, py = y0 + dy
                if px >= 0, px < n, py >= 0, py < n { sum[py * n + px] += weight * w }
            }
        }
        for stroke in strokes where !stroke.isEmpty {
            let points = stroke.map { ((Double($0.x) - centreX) * scale + offset, (Double($0.y) - centreY) * scale + offset) }
            if points.count == 1 {
                splat(points[0].0, points[0].1, 1 / step)
                continue
            }
            for (a, b) in zip(points, points.dropFirst()) {
                let length = ((b.0 - a.0) * (b.0 - a.0) + (b.1 - a.1) * (b.1 - a.1)).squareRoot()
                let count = max(1, Int((length / step).rounded(.up)))
                for k in 0..<count {
                    let t = Double(k) / Double(count)
                    splat(a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t, 1)
                }
            }
            splat(points[points.count - 1].0, points[points.count - 1].1, 1)
        }
        let clipped = sum.map { min($0 * step, 1) }
        func at(_ x: Int, _ y: Int) -> Double { x >= 0 && x < n && y >= 0 && y < n ? clipped[y * n + x] : 0 }
        var rows = [Double](repeating: 0, count: n * n)
        for y in 0..<n {
            for x in 0..<n { rows[y * n + x] = 0.25 * at(x - 1, y) + 0.5 * at(x, y) + 0.25 * at(x + 1, y) }
        }
        for y in 0..<n {
            for x in 0..<n {
                let up = y > 0 ? rows[(y - 1) * n + x] : 0, down = y < n - 1 ? rows[(y + 1) * n + x] : 0
                picture[y * n + x] = Float(min(2 * (0.25 * up + 0.5 * rows[y * n + x] + 0.25 * down), 1))
            }
        }
        return picture
    }
}
