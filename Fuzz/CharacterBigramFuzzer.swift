// libFuzzer target: the character bigram model's ARPA reader (LiteTasks' CharacterBigramModel) on arbitrary bytes.
// Built by tools/fuzz.sh with CharacterBigramModel.swift only: every byte string must give a model or a
// TaskError, never a crash; a model answers every query with a log-probability that is a number at most 0 or
// minus infinity, never NaN.

import Foundation

/// The errors CharacterBigramModel throws; the fuzzer builds without the rest of LiteTasks.
enum TaskError: Error {
    case model(String)
    case notFound(String)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func characterBigramFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let model = try? CharacterBigramModel(arpa: text, path: "fuzz") else { return 0 }
    let characters = model.characters
    precondition(!characters.contains(CharacterBigramModel.begin) && !characters.contains(CharacterBigramModel.end), "a boundary listed as a character")
    let probes = Array(characters.prefix(8)) + ["not listed", CharacterBigramModel.begin, CharacterBigramModel.end]
    for b in probes {
        for a in [nil] + probes.map(Optional.some) {
            let p = model.logProbability(of: b, after: a)
            precondition(!p.isNaN, "log P(\(b) | \(a ?? "start")) is NaN")
        }
    }
    return 0
}
