// libFuzzer target: the .tflite reader (LiteFormat) on arbitrary bytes. Built by tools/fuzz.sh against LiteFormat
// compiled with the same sanitizers: every byte string must give a model or a FormatError, never a crash.

import LiteFormat

@_cdecl("LLVMFuzzerTestOneInput")
public func modelReaderFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let model = try? TFLiteModel(bytes: Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    // Touch what the reader produced: every tensor, operator and buffer, and the metadata.
    var checksum = model.version &+ model.description.utf8.count &+ model.metadata.count &+ model.signatureDefs.count
    for buffer in model.buffers { checksum &+= buffer.count }
    for subgraph in model.subgraphs {
        for tensor in subgraph.tensors { checksum &+= tensor.shape.reduce(0, &+) }
        checksum &+= subgraph.operators.count
    }
    for name in ["min_runtime_version", "TFLITE_METADATA"] { checksum &+= model.metadataBuffer(named: name)?.count ?? 0 }
    return checksum == Int.min ? 1 : 0
}
