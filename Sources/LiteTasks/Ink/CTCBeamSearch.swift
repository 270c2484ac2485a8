import Foundation

/// CTC prefix beam search (Graves 2006; Hannun et al. 2014) with a character-level language model.
///
/// Every hypothesis is a text prefix with two probabilities, of the network's paths that spell it and end in a
/// blank or in its last character (so "ll" needs a blank between the two l's while a repeated "l" frame extends
/// one l). A new character adds `languageModelWeight` times the language model's log-probability and
/// `characterBonus`; hypotheses are ranked by the sum and the best `beamWidth` kept after every frame.
struct CTCBeamSearch {
    struct Hypothesis {
        /// The text's bytes (printable ASCII) and, for each, the frame it was first emitted at (-1 for text that
        /// came from the pre-context, such as a leading space).
        var text: [UInt8]
        var emittedAt: [Int]
        /// The total log-score: network + weighted language model + bonus.
        var score: Double
    }

    var beamWidth = 32
    var languageModelWeight = 0.9
    var characterBonus = 3.0
    /// A character is tried at a frame only if its log-probability is above this.
    var pruneLogProbability: Float = -9
    var maximumCharactersPerFrame = 8
    /// Whether a reading of exactly one character (from a start with no text and no pre-context) is scored by
    /// ``InkLanguageModel/loneCharacterLogProbability(_:)`` instead of as a one-letter word.
    var scoresLoneCharacters = false

    private struct Beam {
        var text: [UInt8]
        var emittedAt: [Int]
        var blank = -Double.infinity
        var nonBlank = -Double.infinity
        var languageModel: Double
        var state: InkLanguageModel.State?
        var network: Double { logAdd(blank, nonBlank) }
        var total: Double { network + languageModel }
    }

    /// Decodes `logProbabilities` ([frames, classes], row-major; class 0 is the blank, class k the byte
    /// `alphabet[k - 1]`). `starts` are the hypotheses to begin from (text already there, language model state and
    /// score); with no language model give one start with a nil state.
    func decode(logProbabilities: [Float], classes: Int, alphabet: [UInt8], languageModel: InkLanguageModel?,
                starts: [(text: [UInt8], state: InkLanguageModel.State?, score: Double)], results: Int) -> [Hypothesis] {
        let frames = logProbabilities.count / classes
        // Beams live in arrays in a fixed order (a dictionary only finds them by text), so that the search is
        // deterministic: the same ink gives the same candidates and segments every time.
        var beams: [Beam] = []
        for start in starts {
            beams.append(Beam(text: start.text, emittedAt: Array(repeating: -1, count: start.text.count), blank: 0,
                              languageModel: start.score, state: start.state))
        }
        var candidates: [(Int, Float)] = []
        var next: [Beam] = []
        var index: [[UInt8]: Int] = [:]
        var totals: [Double] = [], order: [Int] = []
        for t in 0..<frames {
            let row = t * classes
            let blankLog = Double(logProbabilities[row])
            candidates.removeAll(keepingCapacity: true)
            for c in 1..<classes where logProbabilities[row + c] > pruneLogProbability {
                candidates.append((c, logProbabilities[row + c]))
            }
            if candidates.count > maximumCharactersPerFrame {
                candidates.sort { $0.1 > $1.1 }
                candidates.removeLast(candidates.count - maximumCharactersPerFrame)
            }
            next.removeAll(keepingCapacity: true)
            index.removeAll(keepingCapacity: true)
            for beam in beams {
                let network = beam.network
                // Stay: a blank, or the last character once more without a blank between.
                let last = beam.text.last.map { alphabetIndex(of: $0, in: alphabet) } ?? -1
                var stayNonBlank = -Double.infinity
                if last > 0, beam.emittedAt.last ?? -1 >= 0 { stayNonBlank = beam.nonBlank + Double(logProbabilities[row + last]) }
                merge(Beam(text: beam.text, emittedAt: beam.emittedAt, blank: network + blankLog, nonBlank: stayNonBlank,
                           languageModel: beam.languageModel, state: beam.state), into: &next, index: &index)
                for (c, logP) in candidates {
                    let byte = alphabet[c - 1]
                    // The same character again needs a blank between; from a non-blank path it is the "stay" above.
                    let path = (c == last && beam.emittedAt.last ?? -1 >= 0 ? beam.blank : network) + Double(logP)
                    if path == -.infinity { continue }
                    var text = beam.text
                    text.append(byte)
                    if let existing = index[text] {
                        if path > next[existing].nonBlank { next[existing].emittedAt = beam.emittedAt + [t] }
                        next[existing].nonBlank = logAdd(next[existing].nonBlank, path)
                        continue
                    }
                    var languageScore = beam.languageModel + characterBonus
                    var state = beam.state
                    if let languageModel, let current = beam.state {
                        let (logP, after) = languageModel.extend(current, with: byte)
                        languageScore += languageModelWeight * logP
                        state = after
                    }
                    index[text] = next.count
                    next.append(Beam(text: text, emittedAt: beam.emittedAt + [t], nonBlank: path, languageModel: languageScore, state: state))
                }
            }
            // Best first; equal scores in text order. The totals (a logAdd each) are computed once, not per comparison.
            totals.removeAll(keepingCapacity: true)
            for beam in next { totals.append(beam.total) }
            order.removeAll(keepingCapacity: true)
            order.append(contentsOf: next.indices)
            order.sort { totals[$0] != totals[$1] ? totals[$0] > totals[$1] : next[$0].text.lexicographicallyPrecedes(next[$1].text) }
            beams.removeAll(keepingCapacity: true)
            for i in order.prefix(beamWidth) { beams.append(next[i]) }
        }
        var finished: [Hypothesis] = beams.map { beam in
            var score = beam.total
            if scoresLoneCharacters, languageModel != nil, beam.text.count == 1, beam.emittedAt[0] >= 0, beam.text[0] != UInt8(ascii: " ") {
                score = beam.network + characterBonus + languageModelWeight * InkLanguageModel.loneCharacterLogProbability(beam.text[0])
            } else if let languageModel, let state = beam.state {
                score += languageModelWeight * languageModel.endOfWord(state)
            }
            return Hypothesis(text: beam.text, emittedAt: beam.emittedAt, score: score)
        }
        finished.sort { $0.score != $1.score ? $0.score > $1.score : $0.text.lexicographicallyPrecedes($1.text) }
        return Array(finished.prefix(results))
    }

    /// Adds a "stay" hypothesis to the frame's beams, summing its probabilities with the same text's.
    private func merge(_ beam: Beam, into next: inout [Beam], index: inout [[UInt8]: Int]) {
        guard let existing = index[beam.text] else {
            index[beam.text] = next.count
            next.append(beam)
            return
        }
        if logAdd(beam.blank, beam.nonBlank) > next[existing].network { next[existing].emittedAt = beam.emittedAt }
        next[existing].blank = logAdd(next[existing].blank, beam.blank)
        next[existing].nonBlank = logAdd(next[existing].nonBlank, beam.nonBlank)
    }

    @inline(__always) private func alphabetIndex(of byte: UInt8, in alphabet: [UInt8]) -> Int {
        // The alphabet is printable ASCII in order, so the class is the byte's offset (+1 for the blank).
        if let first = alphabet.first, byte >= first, Int(byte - first) < alphabet.count, alphabet[Int(byte - first)] == byte {
            return Int(byte - first) + 1
        }
        return (alphabet.firstIndex(of: byte) ?? -1) + 1
    }
}
