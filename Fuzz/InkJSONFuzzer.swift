// libFuzzer target: the ink JSON reader (LiteTasks' InkJSON) on arbitrary bytes. Built by tools/fuzz.sh with
// Ink.swift, InkJSON.swift and InkJSONReader.swift only (not the whole of LiteTasks): every byte string must give an
// ink or an InkJSON.Failure, never a crash, and never more points than the limit.

import Foundation

/// The recognizer's limits, which InkJSON takes as its defaults; the fuzzer builds without the recognizer itself.
public enum DigitalInkRecognizer {
    public static let maximumPoints = 200_000
    public static let maximumStrokes = 20_000
}

@_cdecl("LLVMFuzzerTestOneInput")
public func inkJSONFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    guard let document = try? InkJSON.parse(bytes, maximumPoints: 1000, maximumStrokes: 100) else { return 0 }
    let points = document.ink.strokes.reduce(0) { $0 + $1.points.count }
    precondition(points <= 1000 && document.ink.strokes.count <= 100, "the reader kept more than its limits")
    precondition(document.ink.strokes.allSatisfy { $0.points.allSatisfy { $0.x.isFinite && $0.y.isFinite } }, "a coordinate is not finite")
    return 0
}
