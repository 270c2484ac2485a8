import Foundation

/// One sampled pen position: ML Kit's `StrokePoint`. `x` and `y` are in any unit with y growing downward (screen
/// coordinates); `t` is the time in milliseconds, on any clock, or nil when the source has no timing.
public struct StrokePoint: Sendable, Equatable, Codable {
    /// Horizontal position, in the ink's units.
    public var x: Float
    /// Vertical position, in the ink's units, growing downward.
    public var y: Float
    /// Time in milliseconds, or nil when the source has no timing.
    public var t: Int64?

    /// A point at (`x`, `y`), at time `t` in milliseconds if known.
    public init(x: Float, y: Float, t: Int64? = nil) {
        self.x = x
        self.y = y
        self.t = t
    }
}

/// The points drawn between one pen-down and the next pen-up: ML Kit's `Stroke`.
public struct Stroke: Sendable, Equatable, Codable {
    /// The points in drawing order.
    public var points: [StrokePoint]

    /// A stroke of `points`, in drawing order.
    public init(points: [StrokePoint]) {
        self.points = points
    }
}

/// Everything written, as strokes in drawing order: ML Kit's `Ink`.
public struct Ink: Sendable, Equatable, Codable {
    /// The strokes in drawing order.
    public var strokes: [Stroke]

    /// An ink of `strokes`, in drawing order.
    public init(strokes: [Stroke]) {
        self.strokes = strokes
    }

    /// The number of points over all strokes.
    public var pointCount: Int { strokes.reduce(0) { $0 + $1.points.count } }
}

/// The size of the box the user writes in, in the ink's own units: ML Kit's `WritingArea`. The recognizer uses
/// its height as the text's scale, which tells "o" from "O" in a one-letter ink.
public struct WritingArea: Sendable, Equatable {
    /// The box's width, in the ink's units.
    public var width: Float
    /// The box's height, in the ink's units: the scale of the text.
    public var height: Float

    /// A writing area of `width` by `height`, in the ink's units (both must be finite and positive when recognized).
    public init(width: Float, height: Float) {
        self.width = width
        self.height = height
    }
}

/// What was written before the ink, and where: ML Kit's `DigitalInkRecognitionContext`. The recognizer reads the
/// last 20 characters of `preContext`: after "hello" the ink "world" is recognized as " world" (a new word gets its
/// leading space), after "arg" an ink "ument" stays "ument" (a word continued).
public struct DigitalInkRecognitionContext: Sendable, Equatable {
    /// The text before the ink (its last 20 characters are used); empty by default.
    public var preContext: String
    /// The box the user writes in, if known.
    public var writingArea: WritingArea?

    /// A context of `preContext` and `writingArea` (default: none).
    public init(preContext: String = "", writingArea: WritingArea? = nil) {
        self.preContext = preContext
        self.writingArea = writingArea
    }
}

/// Where a recognized character or word is in the ink (beyond ML Kit, which returns text only).
public struct InkSegment: Sendable, Equatable {
    /// The recognized text of this piece (one character, or one word).
    public var text: String
    /// The range of `text` within the candidate's text, in Characters.
    public var characterRange: Range<Int>
    /// The first and last (stroke, point) of the ink this piece was read from, inclusive, in the ink's indices.
    public var start: (stroke: Int, point: Int)
    /// The last (stroke, point) of the piece, inclusive.
    public var end: (stroke: Int, point: Int)
    /// The bounding box of those points in the ink's units: minX, minY, maxX, maxY.
    public var boundingBox: (minX: Float, minY: Float, maxX: Float, maxY: Float)

    /// Whether two segments have the same text, range, ink span and box.
    public static func == (a: InkSegment, b: InkSegment) -> Bool {
        a.text == b.text && a.characterRange == b.characterRange && a.start == b.start && a.end == b.end
            && a.boundingBox == b.boundingBox
    }
}

/// One possible reading of an ink: ML Kit's `DigitalInkRecognitionCandidate`.
public struct DigitalInkRecognitionCandidate: Sendable, Equatable {
    /// The recognized text; for the shapes model the shape's name ("circle", "rectangle", ...).
    public var text: String
    /// A cost: lower is more likely, as in ML Kit. For text models the negative log-likelihood of the text under
    /// the network and the language model; for the shapes model the negative log of the shape's probability; for
    /// the Chinese and Japanese models minus the line decoder's score (log-probabilities plus a bonus a character:
    /// comparable between candidates of one ink, and negative for confident readings).
    public var score: Float?
    /// Each recognized character with where it is in the ink (text models; empty for shapes).
    public var characters: [InkSegment]
    /// Each recognized word (maximal run of non-space characters) with where it is in the ink.
    public var words: [InkSegment]

    /// A candidate from its fields.
    public init(text: String, score: Float?, characters: [InkSegment] = [], words: [InkSegment] = []) {
        self.text = text
        self.score = score
        self.characters = characters
        self.words = words
    }
}

/// The ranked readings of an ink, best first: ML Kit's `DigitalInkRecognitionResult`.
public struct DigitalInkRecognitionResult: Sendable, Equatable {
    /// The readings, best (lowest score) first; at most ``DigitalInkRecognizerOptions/maxResultCount``.
    public var candidates: [DigitalInkRecognitionCandidate]

    /// A result of `candidates`, best first.
    public init(candidates: [DigitalInkRecognitionCandidate]) {
        self.candidates = candidates
    }
}
