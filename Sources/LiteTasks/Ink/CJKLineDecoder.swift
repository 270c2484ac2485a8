import Foundation

/// Reads a line of Chinese or Japanese handwriting, one character or several written left to right: where the
/// characters begin and end is not known, so the line is cut into pieces that are never wider than a character
/// (``pieces(_:)``), and a beam search reads every run of up to ``maximumPiecesPerCharacter`` neighbouring pieces as
/// a character, scoring each path through the line by the character network and the language's bigram model.
///
/// The score of a reading c1 ... cn of spans s1 ... sn is the sum over its characters of
/// log P_network(ci | si) + languageModelWeight · log P_bigram(ci | ci-1) + characterBonus
/// − narrownessPenalty · max(0, log(narrowWidth / w(si)))
/// − squeezePenalty · max(0, log(squeezeTolerance · canonical(ci) / w(si))) (``CJKLineDecodingOptions``),
/// where w(s) is the span's width in character heights, canonical(c) the width c has in the stroke data the
/// network learnt from, and the network's probabilities are renormalized over the language's characters. The bonus
/// balances the fewer log-probabilities of a path of fewer, wider characters; the narrowness term makes a lone
/// left-hand component (亻, 氵) a poor character of its own, and the squeeze term any character read from a span
/// much narrower than that character is written (土 and 方 read from the halves of 坊). The weights were chosen on
/// synthetic lines (Docs/digital-ink.md, "Chinese and Japanese").
struct CJKLineDecoder {
    /// The most pieces a line may have: each is read as up to ``maximumPiecesPerCharacter`` characters by the
    /// network, so this bounds the time a line takes (about a hundred characters).
    static let maximumPieces = 400
    /// The weights of the score and the width of the search.
    var options = CJKLineDecodingOptions()
    /// The network's best characters tried for each span.
    var candidatesPerSpan = 12
    /// The most pieces one character may be made of, and the widest a character may be, in character heights (``characterHeight(_:)``).
    var maximumPiecesPerCharacter = 6
    var widestCharacter: Float = 1.6

    /// A reading: its characters, each with the strokes it was read from (positions in the line's strokes, in
    /// writing order), and its score (higher is more likely).
    struct Reading {
        var characters: [String]
        var strokes: [[Int]]
        var score: Float
    }

    /// One character's reading of a span: the character, its natural-log probability, and its canonical width in
    /// character heights (nil: unknown).
    typealias Candidate = (character: String, logProbability: Float, canonicalWidth: Float?)

    /// The pieces of a line: runs of strokes, in writing order, such that a new piece starts with a stroke whose
    /// horizontal centre lies right of every stroke of the piece so far. Each piece is (the strokes' positions in
    /// `strokes`, their bounding box). A character written after the previous one, to its right, starts a piece
    /// when its first stroke's centre is right of the previous character (characters that overlap are read as
    /// one piece); a character's own strokes may be cut apart too (口's second stroke starts right of its first),
    /// which the search undoes by reading the pieces together. A stroke added later to an earlier character joins
    /// the piece being written.
    static func pieces(_ strokes: [[StrokePoint]]) -> [(strokes: [Int], box: InkLayout.Box)] {
        var out: [(strokes: [Int], box: InkLayout.Box)] = []
        for (k, stroke) in strokes.enumerated() where !stroke.isEmpty {
            let box = InkLayout.Box(stroke)
            if let last = out.last, (box.minX + box.maxX) / 2 <= last.box.maxX {
                out[out.count - 1].strokes.append(k)
                out[out.count - 1].box.add(box)
            } else {
                out.append(([k], box))
            }
        }
        return out
    }

    /// The best readings of the line of `strokes` (ink units, y down), at most `results`, best first. `read`
    /// gives the network's candidates for a group of strokes (positions in `strokes`); `bigram` the natural-log
    /// probability of a character after another (nil: the line's first character after no pre-context). A line of
    /// more than ``maximumPieces`` pieces is an ``TaskError/invalidArgument(_:)``.
    func decode(_ strokes: [[StrokePoint]], previous: String?, results: Int,
                read: ([Int]) throws -> [Candidate],
                bigram: (String, String?) -> Float) throws -> [Reading] {
        let pieces = Self.pieces(strokes)
        guard !pieces.isEmpty, results > 0 else { return [] }
        guard pieces.count <= Self.maximumPieces else {
            throw TaskError.invalidArgument("the ink is \(pieces.count) pieces side by side; a Chinese or Japanese ink may have at most \(Self.maximumPieces) (about a hundred characters)")
        }
        let height = Self.characterHeight(pieces.map(\.box))

        // The search's paths as a tree: each step is one character read from pieces `start..<end`, pointing at the
        // step before it (-1: the start). A cut keeps its best steps, one per text (texts are compared by a hash
        // built character by character).
        struct Step {
            var character: String
            var group: [Int]
            var parent: Int
            var score: Float
            var textHash: UInt64
        }
        var steps: [Step] = []
        var beams = [[Int]](repeating: [], count: pieces.count + 1)
        // The `count` best of `candidates` (indices into `steps`), one per text.
        func best(_ candidates: [Int], of steps: [Step], count: Int) -> [Int] {
            var seen = Set<UInt64>()
            var out: [Int] = []
            for i in candidates.sorted(by: { steps[$0].score > steps[$1].score }) where seen.insert(steps[i].textHash).inserted {
                out.append(i)
                if out.count == count { break }
            }
            return out
        }

        for start in 0..<pieces.count {
            let paths = start == 0 ? [-1] : best(beams[start], of: steps, count: options.beamWidth)
            guard !paths.isEmpty else { continue }
            var box = InkLayout.Box()
            for end in (start + 1)...min(pieces.count, start + maximumPiecesPerCharacter) {
                box.add(pieces[end - 1].box)
                let width = (box.maxX - box.minX) / height
                // A span wider than a character (or of no finite width) is not read, unless it is one piece.
                if end > start + 1, !(width <= widestCharacter) { break }
                let group = pieces[start..<end].flatMap(\.strokes)
                let candidates = try read(group).prefix(candidatesPerSpan)
                let narrowness = width.isFinite ? max(0, log(Float(options.narrowWidth) / max(width, 1e-3))) : 0
                let shape = Float(options.characterBonus) - Float(options.narrownessPenalty) * narrowness
                // The span's costs depend on the candidate, not on the path before it: once per candidate.
                let squeezes = candidates.map { squeeze(width, canonical: $0.canonicalWidth) }
                for path in paths {
                    let before = path >= 0 ? steps[path].character : previous
                    let (score, hash) = path >= 0 ? (steps[path].score, steps[path].textHash) : (0, 0xcbf2_9ce4_8422_2325)
                    for (candidate, squeezed) in zip(candidates, squeezes) {
                        let gain = candidate.logProbability + Float(options.languageModelWeight) * bigram(candidate.character, before)
                            + shape - squeezed
                        beams[end].append(steps.count)
                        steps.append(Step(character: candidate.character, group: group, parent: path, score: score + gain,
                                          textHash: Self.extend(hash, with: candidate.character)))
                    }
                }
            }
            beams[start] = []
        }
        return best(beams[pieces.count], of: steps, count: results).map { last in
            var reading = Reading(characters: [], strokes: [], score: steps[last].score)
            var step = last
            while step >= 0 {
                reading.characters.append(steps[step].character)
                reading.strokes.append(steps[step].group)
                step = steps[step].parent
            }
            reading.characters.reverse()
            reading.strokes.reverse()
            return reading
        }
    }

    /// The cost of reading a span `width` character heights wide as a character whose canonical width is
    /// `canonical`: nothing down to ``CJKLineDecodingOptions/squeezeTolerance`` of the canonical width, then
    /// ``CJKLineDecodingOptions/squeezePenalty`` per unit of log(tolerance · canonical / width). A component read as a
    /// character of its own (土 from 坊's left half, about half as wide as 土 is written) pays; a narrow character
    /// (日, く) written narrow does not.
    func squeeze(_ width: Float, canonical: Float?) -> Float {
        guard let canonical, width.isFinite, options.squeezePenalty > 0 else { return 0 }
        return Float(options.squeezePenalty) * max(0, log(Float(options.squeezeTolerance) * canonical / max(width, 1e-3)))
    }

    /// The height of a character of the line: the 75th percentile of its pieces' heights (a line that drifts up or
    /// down is not taller for it; flat pieces such as 一 do not make it small), at least a tenth of the tallest and
    /// never zero (a line of one flat stroke is measured by its width).
    static func characterHeight(_ boxes: [InkLayout.Box]) -> Float {
        let heights = boxes.map(\.height).sorted()
        let tallest = heights.last ?? 0
        let typical = max(heights[heights.count * 3 / 4], tallest / 10)
        let widest = boxes.map { $0.maxX - $0.minX }.max() ?? 0
        return typical > 0 ? typical : max(widest, .leastNormalMagnitude)
    }

    /// FNV-1a over the UTF-8 of `character`, continuing `hash`.
    private static func extend(_ hash: UInt64, with character: String) -> UInt64 {
        var hash = hash
        for byte in character.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        // A separator, so that "ab" + "c" and "a" + "bc" differ.
        return (hash ^ 0xff) &* 0x100_0000_01b3
    }
}

/// How Chinese and Japanese lines are decoded (``DigitalInkRecognizerOptions/cjkDecoding``; not ML Kit options). The
/// defaults were chosen on synthetic lines of writers the network never saw (Docs/digital-ink.md, "Chinese and
/// Japanese").
public struct CJKLineDecodingOptions: Sendable, Equatable {
    /// The widest beam accepted (a wider one would keep nearly every path of a long line).
    public static let maximumBeamWidth = 256
    /// Readings kept at each cut between pieces of the line: 1 ... ``maximumBeamWidth``.
    public var beamWidth = 16
    /// The weight of the bigram model's log-probability of each character.
    public var languageModelWeight = 0.6
    /// The bonus per character, which balances the fewer log-probabilities of readings of fewer, wider characters.
    public var characterBonus = 3.0
    /// How much a character narrower than ``narrowWidth`` pays per unit of log(narrowWidth / width): a lone
    /// left-hand component (亻, 氵) is a poor character of its own.
    public var narrownessPenalty = 3.0
    /// The width, in character heights, below which a character pays the narrowness penalty.
    public var narrowWidth = 0.45
    /// How much a character read from a span narrower than ``squeezeTolerance`` of its canonical width (its width in
    /// the stroke data the network learnt from) pays per unit of log(tolerance · canonical width / width); 0 turns
    /// the term off. Needs the canonical widths of the model's classes file.
    public var squeezePenalty = 4.0
    /// The fraction of its canonical width a character may be written at without paying ``squeezePenalty``.
    public var squeezeTolerance = 0.9

    /// The defaults.
    public init() {}
}
