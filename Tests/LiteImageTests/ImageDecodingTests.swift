import Foundation
@testable import LiteImage
import LiteTasks
import XCTest

/// Decoders against the fixtures of tools/make_image_fixtures.py (expected pixels from Pillow or from the
/// pattern the file was written from), and hostile inputs that must fail with typed errors.
final class ImageDecodingTests: XCTestCase {
    struct Fixtures: Decodable {
        struct File: Decodable { var width: Int; var height: Int; var sha256: String; var orientation: Int? }
        var files: [String: File]
    }
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let fixtures = try! JSONDecoder().decode(Fixtures.self, from: Data(contentsOf: directory.appendingPathComponent("fixtures.json")))

    func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: Self.directory.appendingPathComponent(name))) }

    func testEveryFixtureDecodesToTheExpectedPixels() throws {
        XCTAssertEqual(Self.fixtures.files.count, 19)
        for (name, expected) in Self.fixtures.files.sorted(by: { $0.key < $1.key }) {
            let decoded = try Image.decode(try bytes(name))
            XCTAssertEqual(decoded.image.width, expected.width, name)
            XCTAssertEqual(decoded.image.height, expected.height, name)
            XCTAssertEqual(SHA256.hex(of: decoded.image.pixels), expected.sha256, "\(name) pixels")
            XCTAssertEqual(decoded.orientation.rawValue, expected.orientation ?? 1, "\(name) orientation")
        }
    }

    func testEXIFOrientationIsAppliedWhenReadingForDisplay() throws {
        let path = Self.directory.appendingPathComponent("exif_right.jpg").path
        let stored = try Image.decode(contentsOfFile: path)
        XCTAssertEqual(stored.orientation, .right)
        let shown = try Image(contentsOfFile: path)
        XCTAssertEqual(shown.width, stored.image.height)
        XCTAssertEqual(shown.height, stored.image.width)
        // Rotating 90 degrees clockwise puts the stored bottom-left pixel at the top-left.
        XCTAssertTrue(shown[0, 0] == stored.image[0, stored.image.height - 1])
    }

    func testOrientationsRoundTripAndMatchTheirDefinitions() throws {
        let image = try Image.decode(try bytes("rgb8.png")).image
        for orientation in ImageOrientation.allCases {
            let stored = image.storedAs(orientation)
            XCTAssertEqual(stored.applying(orientation), image, "\(orientation)")
        }
        // .left: stored rotated 90 degrees clockwise; showing it rotates counter-clockwise, so the stored
        // top-right pixel is shown at the top-left.
        let shown = image.applying(.left)
        XCTAssertTrue(shown[0, 0] == image[image.width - 1, 0])
        let mirrored = image.applying(.upMirrored)
        XCTAssertTrue(mirrored[0, 3] == image[image.width - 1, 3])
        XCTAssertEqual(ImageOrientation(name: "left-mirrored"), .leftMirrored)
        XCTAssertEqual(ImageOrientation(name: "6"), .right)
        XCTAssertNil(ImageOrientation(name: "sideways"))
    }

    func testTruncatedAndCorruptFilesGiveTypedErrors() throws {
        for name in ["rgb8.png", "interlaced.png", "baseline.jpg", "progressive.jpg", "rgb24.bmp", "rgb.ppm", "bitfields32.bmp"] {
            let full = try bytes(name)
            for cut in [full.count / 2, 40, 12, 3] where cut < full.count {
                XCTAssertThrowsError(try Image.decode(Array(full.prefix(cut))), "\(name) cut at \(cut)") { error in
                    XCTAssertTrue(error is ImageError, "\(name): \(error)")
                }
            }
        }
        XCTAssertThrowsError(try Image.decode([0x00, 0x01, 0x02])) { error in
            guard case ImageError.unknownFormat = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try Image.decode([])) { XCTAssertTrue($0 is ImageError) }
        var garbage = try bytes("baseline.jpg")
        for i in stride(from: 200, to: garbage.count - 2, by: 7) { garbage[i] = 0xFF }
        do { _ = try Image.decode(garbage) } catch { XCTAssertTrue(error is ImageError, "\(error)") }
    }

    func testAbsurdDimensionsAreRejectedBeforeAllocating() throws {
        // A PNG header claiming 100000 x 100000 pixels: a decompression bomb must fail on the header.
        var png = try bytes("rgb8.png")
        png.replaceSubrange(16..<24, with: [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0])
        // Fix the IHDR CRC so libpng reaches the size check.
        let crc = CRC32.checksum(png[12..<29])
        png.replaceSubrange(29..<33, with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        XCTAssertThrowsError(try Image.decode(png)) { error in
            guard case ImageError.tooLarge(100_000, 100_000, _) = error else { return XCTFail("\(error)") }
        }
        var jpeg = try bytes("baseline.jpg")
        // SOF0 height and width fields set to 65000 x 65000.
        let sof = (0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }!
        jpeg.replaceSubrange((sof + 5)..<(sof + 9), with: [0xFD, 0xE8, 0xFD, 0xE8])
        XCTAssertThrowsError(try Image.decode(jpeg)) { error in
            guard case ImageError.tooLarge = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try Image.decode(Array("P6\n99999 99999\n255\n".utf8))) { error in
            guard case ImageError.tooLarge = error else { return XCTFail("\(error)") }
        }
        let small = ImageLimits(maximumPixels: 100)
        XCTAssertThrowsError(try Image.decode(try bytes("rgb8.png"), limits: small))
    }

    func testPNGEncoderRoundTrips() throws {
        let image = try Image.decode(try bytes("rgb8.png")).image
        XCTAssertEqual(try Image.decode(try image.pngData()).image, image)
    }

    func testCameraFramesWithStrides() throws {
        let image = try Image.decode(try bytes("rgb8.png")).image
        let width = image.width, height = image.height
        // BGRA with 16 bytes of row padding.
        let stride = width * 4 + 16
        var bgra = [UInt8](repeating: 0, count: stride * height)
        for y in 0..<height {
            for x in 0..<width {
                let p = image[x, y]
                bgra.replaceSubrange((y * stride + x * 4)..<(y * stride + x * 4 + 4), with: [p.b, p.g, p.r, 255])
            }
        }
        let fromBGRA = try bgra.withUnsafeBytes { try Image(frame: $0, format: .bgra8, width: width, height: height, bytesPerRow: stride) }
        XCTAssertEqual(fromBGRA, image)
        XCTAssertThrowsError(try bgra.withUnsafeBytes { try Image(frame: UnsafeRawBufferPointer(rebasing: $0.prefix(100)), format: .bgra8, width: width, height: height, bytesPerRow: stride) })
        XCTAssertThrowsError(try bgra.withUnsafeBytes { try Image(frame: $0, format: .bgra8, width: width, height: height, bytesPerRow: 8) })
    }

    /// NV12, NV21 and I420 of the same picture convert to the same RGB, within BT.601's rounding of a gray
    /// ramp (Y only): full range gives Y back exactly.
    func testYUVFormatsAgree() throws {
        let width = 6, height = 4
        let luma: [UInt8] = (0..<(width * height)).map { UInt8($0 * 10) }
        let cb: [UInt8] = [100, 150, 200, 90, 128, 60]
        let cr: [UInt8] = [128, 30, 220, 128, 180, 70]
        let nv12 = zip(cb, cr).flatMap { [$0, $1] }
        let nv21 = zip(cb, cr).flatMap { [$1, $0] }
        func convert(_ chroma: [UInt8], _ format: RawPixelFormat, cr crPlane: [UInt8]? = nil, range: YUVRange = .video) throws -> Image {
            try luma.withUnsafeBytes { y in
                try chroma.withUnsafeBytes { c in
                    if let crPlane {
                        return try crPlane.withUnsafeBytes { r in
                            try Image(yPlane: y, yBytesPerRow: width, chromaPlane: c, chromaBytesPerRow: width / 2, crPlane: r, crBytesPerRow: width / 2, format: format, width: width, height: height, range: range)
                        }
                    }
                    return try Image(yPlane: y, yBytesPerRow: width, chromaPlane: c, chromaBytesPerRow: width, format: format, width: width, height: height, range: range)
                }
            }
        }
        let a = try convert(nv12, .nv12), b = try convert(nv21, .nv21), c = try convert(cb, .i420, cr: cr)
        XCTAssertEqual(a, b)
        XCTAssertEqual(a, c)
        let gray = try luma.withUnsafeBytes { y in
            try [UInt8](repeating: 128, count: width * 2).withUnsafeBytes { c in
                try Image(yPlane: y, yBytesPerRow: width, chromaPlane: c, chromaBytesPerRow: width, format: .nv12, width: width, height: height, range: .full)
            }
        }
        XCTAssertEqual(gray.pixels, luma.flatMap { [$0, $0, $0] })
        // Red in video range: Y 81, Cb 90, Cr 240 is (255, 0, 0) within a step.
        let red = try [UInt8](repeating: 81, count: 4).withUnsafeBytes { y in
            try [UInt8]([90, 240]).withUnsafeBytes { c in try Image(yPlane: y, yBytesPerRow: 2, chromaPlane: c, chromaBytesPerRow: 2, format: .nv12, width: 2, height: 2) }
        }
        XCTAssertGreaterThanOrEqual(red.pixels[0], 254)
        XCTAssertLessThanOrEqual(red.pixels[1], 1)
        XCTAssertLessThanOrEqual(red.pixels[2], 1)
    }
}

/// CRC-32 of PNG chunks, for building hostile test files.
enum CRC32 {
    static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
