// libFuzzer target: TFLite metadata (LiteFormat's ModelMetadata, the "M001" FlatBuffer) and the zip archive of
// associated files appended to a model (AssociatedFiles), on arbitrary bytes. Built by tools/fuzz.sh against
// LiteFormat compiled with the same sanitizers. Every input is read three ways: as a whole model (its TFLITE_METADATA
// buffer and its archive), as a metadata FlatBuffer alone, and as an archive alone. Each must give a result or a
// FormatError, never a crash, and every archive entry must lie inside the bytes.

import LiteFormat

@_cdecl("LLVMFuzzerTestOneInput")
public func modelMetadataFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let raw = UnsafeRawBufferPointer(start: data, count: size)
    var checksum = 0
    do {
        let model = try TFLiteModel(storage: ModelBytes(unsafeBorrowing: raw))
        if let metadata = try? ModelMetadata(model: model) { checksum &+= touch(metadata) }
        if let files = try? AssociatedFiles(model: model) {
            for name in files.entries.keys { checksum &+= (try? files.text(of: name))?.utf8.count ?? 0 }
        }
    } catch {
        precondition(error is FormatError, "unexpected error type \(type(of: error)): \(error)")
    }
    do {
        checksum &+= touch(try ModelMetadata(bytes: raw))
    } catch {
        precondition(error is FormatError, "unexpected error type \(type(of: error)): \(error)")
    }
    do {
        for (name, range) in try AssociatedFiles.readDirectory(raw) {
            precondition(range.lowerBound >= 0 && range.upperBound <= size, "entry \(name) at \(range) is outside \(size) bytes")
            checksum &+= raw[range].reduce(0) { $0 &+ Int($1) }
        }
    } catch {
        precondition(error is FormatError, "unexpected error type \(type(of: error)): \(error)")
    }
    return checksum == Int.min ? 1 : 0
}

/// Reads every field of `metadata`, as a task building its pre- and post-processing would.
private func touch(_ metadata: ModelMetadata) -> Int {
    var checksum = "\(metadata)".utf8.count
    checksum &+= ModelMetadata.compareVersions(metadata.minParserVersion ?? "", ModelMetadata.parserVersion)
    for subgraph in metadata.subgraphs {
        for tensor in subgraph.inputTensors + subgraph.outputTensors {
            checksum &+= tensor.normalization?.mean.count ?? 0
            checksum &+= tensor.scoreThreshold.map { Int($0.isFinite ? 1 : 2) } ?? 0
            checksum &+= tensor.scoreCalibration.map { Int($0.transformation.rawValue) } ?? 0
            checksum &+= tensor.imageProperties?.defaultWidth ?? 0
            checksum &+= tensor.firstAssociatedFile(ofType: .tensorAxisLabels)?.utf8.count ?? 0
        }
    }
    return checksum
}
