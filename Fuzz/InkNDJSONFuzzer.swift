// libFuzzer target: `vision-cli ink --batch`'s NDJSON path on arbitrary multi-line bytes: vision-cli's LineReader
// (zlib, plain or gzip'd) splits the file into lines, and each line is read by InkJSON as the batch reads it. Built by
// tools/fuzz.sh with LineReader.swift and the ink files (Ink.swift, InkJSON.swift, InkJSONReader.swift) in one module.
//
// The input is written to a temporary file and read back at a chunk size and a line limit chosen by its length, so
// that lines cut across reads and lines over the limit are exercised too. Checked: a plain (not gzip'd) file gives
// exactly its non-empty lines, each line gives an ink within the limits or an InkJSON.Failure.

import Foundation

/// The recognizer's limits, which InkJSON takes as its defaults; the fuzzer builds without the recognizer itself.
public enum DigitalInkRecognizer {
    public static let maximumPoints = 200_000
    public static let maximumStrokes = 20_000
}

/// The file every input is written to, made once.
nonisolated(unsafe) private var scratch: (path: String, descriptor: CInt)?

@_cdecl("LLVMFuzzerTestOneInput")
public func inkNDJSONFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if scratch == nil {
        var template = Array("\(NSTemporaryDirectory())/ink-ndjson-fuzz-XXXXXX".utf8CString)
        let descriptor = mkstemp(&template)
        precondition(descriptor >= 0, "cannot make a temporary file")
        let path = String(cString: template)
        unlink(path)
        // The file stays reachable through the descriptor: gzopen opens /proc/self/fd/N.
        scratch = ("/proc/self/fd/\(descriptor)", descriptor)
    }
    let (path, descriptor) = scratch!
    precondition(ftruncate(descriptor, 0) == 0 && pwrite(descriptor, data, size, 0) == size, "cannot write the temporary file")

    let chunkSizes = [1, 2, 3, 7, 64, 4096, 1 << 16]
    let lineLimits = [16, 256, 4096, 32 << 20]
    let chunkBytes = chunkSizes[size % chunkSizes.count]
    let maximumBytes = lineLimits[size % lineLimits.count]
    guard let reader = LineReader(path: path, chunkBytes: chunkBytes) else { preconditionFailure("cannot open \(path)") }

    let bytes = UnsafeBufferPointer(start: data, count: size)
    let gzipped = size >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b
    var expected = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).makeIterator()
    while let line = reader.next(maximumBytes: maximumBytes) {
        if !gzipped {
            guard let want = expected.next() else { preconditionFailure("a line past the end of the file") }
            precondition(line.bytes == want.count, "a line of \(line.bytes) bytes, the file has \(want.count)")
            precondition(line.text == (want.count > maximumBytes ? nil : String(decoding: want, as: UTF8.self)), "a line's text differs from the file's")
        }
        // As the batch reads a line (InkFile.parse): over the limit is an error, otherwise InkJSON with its defaults.
        guard let text = line.text else { continue }
        guard let document = try? InkJSON.parse(Data(text.utf8)) else { continue }
        let points = document.ink.strokes.reduce(0) { $0 + $1.points.count }
        precondition(points <= DigitalInkRecognizer.maximumPoints && document.ink.strokes.count <= DigitalInkRecognizer.maximumStrokes,
                     "the reader kept more than its limits")
    }
    if !gzipped { precondition(expected.next() == nil, "a line of the file was not read") }
    return 0
}
