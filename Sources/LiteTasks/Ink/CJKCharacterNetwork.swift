import Foundation
import LiteEngine
import LiteFormat

/// The network that reads one Chinese or Japanese character: the ink's ``InkDirectionPlanes`` in, a logit per
/// character of its classes out (tools/ink/train_cjk.py). It ships as `<model>.tflite` with its classes, one
/// character a line in output order, in `<model>.classes.txt`; after a tab, a line may give the character's
/// canonical width (tools/ink/cjk_data.py `canonical_widths`).
struct CJKCharacterNetwork {
    /// The network's characters, in output order.
    let classes: [String]
    /// Each class's width as its stroke data draws it, in heights of a typical character (土 about 1.0, 日 0.54);
    /// nil where the classes file gives none.
    let canonicalWidths: [Float?]
    private let interpreter: Interpreter

    /// Steps per unit of the training pictures: they were stored as uint8 multiples of 1 / 127.5 (train_cjk.py's
    /// `QUANTUM`), so the network learnt values rounded to those steps (half to even, as `np.rint`) and clipped to
    /// 0 ... 255 / 127.5; the recognizer rounds and clips the same way.
    static let quantum: Double = 127.5

    /// The network `model` with the classes listed in `classesText`; `name` names it in errors.
    init(model: TFLiteModel, name: String, classesText: String, threads: Int) throws {
        var classes: [String] = [], widths: [Float?] = []
        for (number, line) in classesText.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let fields = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            guard !fields[0].isEmpty else { continue }
            classes.append(fields[0])
            guard fields.count > 1, !fields[1].isEmpty else { widths.append(nil); continue }
            guard let width = Float(fields[1]), width.isFinite, width > 0 else {
                throw TaskError.model("\(name)'s classes file, line \(number + 1): the width of \(fields[0]) is not a positive number (\(fields[1].prefix(20)))")
            }
            widths.append(width)
        }
        self.classes = classes
        canonicalWidths = widths
        interpreter = try TaskError.wrap { try Interpreter(model: model, options: .init(threads: threads)) }
        guard interpreter.inputCount == 1, interpreter.outputCount == 1 else {
            throw TaskError.model("a CJK character model has one input (direction planes) and one output; \(name) has \(interpreter.inputCount) and \(interpreter.outputCount)")
        }
        try TaskError.wrap { try interpreter.allocateTensors() }
        let input = try TaskError.wrap { try interpreter.input(at: 0) }
        let output = try TaskError.wrap { try interpreter.output(at: 0) }
        let size = InkDirectionPlanes.size
        guard input.type == .float32, input.shape == [1, size, size, InkDirectionPlanes.planes] else {
            throw TaskError.model("a CJK character model's input is float32 [1, \(size), \(size), \(InkDirectionPlanes.planes)]; \(name) has \(input)")
        }
        guard !classes.isEmpty, output.type == .float32, output.elementCount == classes.count, output.shape.last == classes.count else {
            throw TaskError.model("\(name) has \(output.elementCount) outputs but its classes file lists \(classes.count) characters")
        }
    }

    /// Natural-log probabilities of ``classes`` for `strokes` read as one character.
    func logProbabilities(_ strokes: [[StrokePoint]]) throws -> [Float] {
        // As train_cjk.py stored and read them: rounded in double precision to a uint8, then divided in float32.
        let planes = InkDirectionPlanes.computeInDouble(strokes).map { value in
            Float(min(max((value * Self.quantum).rounded(.toNearestOrEven), 0), 255)) / Float(Self.quantum)
        }
        return try interpreter.logProbabilities(of: planes)
    }
}
