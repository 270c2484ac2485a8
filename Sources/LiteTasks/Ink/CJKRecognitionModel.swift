import Foundation

/// A Chinese or Japanese recognition model: the character network (``CJKCharacterNetwork``) and the language's
/// character bigram model (``CharacterBigramModel``, `<model>.lm.arpa`), read by ``CJKLineDecoder``.
///
/// The language's characters are those its bigram model lists; a network trained on several languages' characters
/// keeps only those outputs (renormalized). Without a bigram model every output is a character of the language
/// and readings are ranked by the network alone.
struct CJKRecognitionModel {
    let network: CJKCharacterNetwork
    let bigram: CharacterBigramModel?
    /// The network outputs that are characters of the language, ascending.
    let vocabulary: [Int]

    init(network: CJKCharacterNetwork, bigram: CharacterBigramModel?, name: String) throws {
        self.network = network
        self.bigram = bigram
        if let bigram {
            let listed = Set(bigram.characters)
            vocabulary = network.classes.indices.filter { listed.contains(network.classes[$0]) }
            guard !vocabulary.isEmpty else {
                throw TaskError.model("\(name): none of the network's \(network.classes.count) characters is in its language model")
            }
        } else {
            vocabulary = Array(network.classes.indices)
        }
    }

    /// The network's `count` most likely characters of the language for `strokes` read as one character, with
    /// natural-log probabilities over the language's characters.
    func candidates(_ strokes: [[StrokePoint]], count: Int) throws -> [CJKLineDecoder.Candidate] {
        guard count > 0 else { return [] }
        let all = try network.logProbabilities(strokes)
        var largest = -Float.infinity
        for i in vocabulary { largest = max(largest, all[i]) }
        var sum: Float = 0
        for i in vocabulary { sum += expf(all[i] - largest) }
        let logSum = largest + logf(sum)
        // A partial selection of the best `count`: the vocabulary has thousands of characters.
        var best: [(index: Int, value: Float)] = []
        best.reserveCapacity(count + 1)
        for i in vocabulary where best.count < count || all[i] > best[best.count - 1].value {
            let at = best.firstIndex { all[i] > $0.value } ?? best.count
            best.insert((i, all[i]), at: at)
            if best.count > count { best.removeLast() }
        }
        return best.map { (network.classes[$0.index], $0.value - logSum, network.canonicalWidths[$0.index]) }
    }

    /// The candidates for `strokes` (the ink's non-empty strokes, in writing order), one line written left to
    /// right, after the text `preContext`, decoded with `options`: each with its characters' strokes and boxes, and the whole line as
    /// one word.
    func recognize(_ strokes: [InkLayout.IndexedStroke], preContext: String, results: Int,
                   options: CJKLineDecodingOptions) throws -> [DigitalInkRecognitionCandidate] {
        let points = strokes.map(\.points)
        let decoder = CJKLineDecoder(options: options)
        let count = decoder.candidatesPerSpan
        let previous = preContext.last.flatMap { $0.isWhitespace ? nil : String($0) }
        let readings = try decoder.decode(points, previous: previous, results: results,
                                          read: { group in try candidates(group.map { points[$0] }, count: count) },
                                          bigram: { bigram?.logProbability(of: $0, after: $1) ?? 0 })
        return readings.map { reading in
            func segment(_ text: String, _ range: Range<Int>, _ group: [Int]) -> InkSegment {
                var box = InkLayout.Box()
                for k in group { for p in points[k] { box.add(p) } }
                let first = strokes[group.min()!], last = strokes[group.max()!]
                return InkSegment(text: text, characterRange: range, start: (first.index, 0), end: (last.index, last.points.count - 1),
                                  boundingBox: (box.minX, box.minY, box.maxX, box.maxY))
            }
            let characters = reading.characters.indices.map { i in segment(reading.characters[i], i..<(i + 1), reading.strokes[i]) }
            let text = reading.characters.joined()
            let word = segment(text, 0..<reading.characters.count, reading.strokes.flatMap { $0 })
            return DigitalInkRecognitionCandidate(text: text, score: -reading.score, characters: characters, words: [word])
        }
    }
}
