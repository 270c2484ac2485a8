import LiteFormat
import XCTest

final class FlatBufferTests: XCTestCase {
    func read(_ bytes: [UInt8]) -> Result<TFLiteModel, Error> {
        Result { try TFLiteModel(bytes: bytes) }
    }

    func testRejectsTinyAndForeignFiles() {
        for bytes: [UInt8] in [[], [1, 2, 3], Array("TFL3TFL3".utf8), [0x93] + Array("NUMPY".utf8) + [1, 0, 0, 0]] {
            guard case .failure(let error) = read(bytes) else { return XCTFail("\(bytes) was accepted") }
            XCTAssert(error is FormatError, "\(error)")
        }
    }

    func testRootOffsetPastTheEndNamesWhatAndWhere() {
        let bytes: [UInt8] = [0xff, 0xff, 0x00, 0x00] + Array("TFL3".utf8)
        guard case .failure(let error as FormatError) = read(bytes) else { return XCTFail("accepted") }
        guard case let .outOfBounds(what, offset, _, fileSize) = error else { return XCTFail("\(error)") }
        XCTAssertEqual(offset, 0xffff)
        XCTAssertEqual(fileSize, 8)
        XCTAssert(what.contains("root"), what)
    }

    func testVectorLengthLargerThanFileIsAnErrorNotAnAllocation() throws {
        // A table whose field 0 points at a vector claiming 2^31 elements.
        var bytes = [UInt8](repeating: 0, count: 64)
        func put32(_ value: UInt32, at offset: Int) { withUnsafeBytes(of: value.littleEndian) { for i in 0..<4 { bytes[offset + i] = $0[i] } } }
        func put16(_ value: UInt16, at offset: Int) { withUnsafeBytes(of: value.littleEndian) { for i in 0..<2 { bytes[offset + i] = $0[i] } } }
        put32(16, at: 0)                // root table at 16
        put16(6, at: 8); put16(8, at: 10); put16(4, at: 12)  // vtable at 8: size 6, table 8 bytes, field 0 at +4
        put32(UInt32(bitPattern: 16 - 8), at: 16)            // soffset to the vtable
        put32(12, at: 20)               // field 0: uoffset to 32
        put32(0x8000_0000, at: 32)      // vector length
        try bytes.withUnsafeBytes { raw in
            let buffer = FlatBuffer(bytes: raw)
            XCTAssertThrowsError(try buffer.rootTable().scalars(0, "values", as: Int32.self)) { error in
                guard case .outOfBounds = error as? FormatError else { return XCTFail("\(error)") }
            }
        }
    }

    func testModelsInSharedAllParse() throws {
        let directory = SchemaGoldenTests.root.appendingPathComponent("../shared/models").standardized.path
        let files = try FileManager.default.subpathsOfDirectory(atPath: directory).filter { $0.hasSuffix(".tflite") }
        XCTAssertGreaterThanOrEqual(files.count, 19)
        for file in files {
            let model = try TFLiteModel(path: directory + "/" + file)
            XCTAssertEqual(model.version, 3, file)
            XCTAssertFalse(model.subgraphs[0].operators.isEmpty, file)
        }
    }
}
