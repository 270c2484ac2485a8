import Foundation
@testable import LiteImage
import LiteTasks
import XCTest

/// Decoders against the fixtures of tools/make_image_fixtures.py (expected pixels from Pillow or from the
/// pattern the file was written from), and hostile inputs that must fail with typed errors.
final class ImageDecodingTests: XCTestCase {
    struct Fixtures: Decodable {
        struct File: Decodable {
            var width: Int; var height: Int; var sha256: String; var orientation: Int?
            /// Pillow's pixels and the largest per-channel difference allowed, where the decoders may round differently.
            var tolerance: Int?; var rgb_base64: String?
        }
        var files: [String: File]
        /// Pillow's draft() decodes of a JPEG at 1/2, 1/4 and 1/8, by file and denominator.
        var scaled: [String: [String: File]]
    }
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let fixtures = try! JSONDecoder().decode(Fixtures.self, from: Data(contentsOf: directory.appendingPathComponent("fixtures.json")))

    func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: Self.directory.appendingPathComponent(name))) }

    func testEveryFixtureDecodesToTheExpectedPixels() throws {
        XCTAssertEqual(Self.fixtures.files.count, 41)
        for (name, expected) in Self.fixtures.files.sorted(by: { $0.key < $1.key }) {
            let decoded = try Image.decode(try bytes(name))
            check(decoded.image, against: expected, name)
            XCTAssertEqual(decoded.orientation.rawValue, expected.orientation ?? 1, "\(name) orientation")
            XCTAssertEqual(decoded.scale, 1, name)
        }
    }

    /// Exact when the fixture has no tolerance; otherwise within `tolerance` of Pillow's pixels per channel.
    func check(_ image: Image, against expected: Fixtures.File, _ name: String) {
        XCTAssertEqual(image.width, expected.width, name)
        XCTAssertEqual(image.height, expected.height, name)
        guard let tolerance = expected.tolerance, let encoded = expected.rgb_base64, let pillow = Data(base64Encoded: encoded) else {
            XCTAssertEqual(SHA256.hex(of: image.pixels), expected.sha256, "\(name) pixels")
            return
        }
        guard image.pixels.count == pillow.count else { return XCTFail("\(name): \(image.pixels.count) bytes, Pillow \(pillow.count)") }
        let worst = zip(image.pixels, pillow).map { abs(Int($0) - Int($1)) }.max() ?? 0
        let exact = SHA256.hex(of: image.pixels) == expected.sha256
        print("\(name): largest difference from Pillow \(worst)\(exact ? " (identical)" : "")")
        XCTAssertLessThanOrEqual(worst, tolerance, "\(name) pixels")
    }

    /// CMYK and YCCK JPEGs (Adobe, inverted, as Photoshop and Pillow write them) decode to Pillow's RGB.
    func testCMYKAndYCCKJPEGsDecodeAsPillowDoes() throws {
        for name in ["cmyk.jpg", "ycck.jpg"] {
            let decoded = try Image.decode(try bytes(name))
            XCTAssertEqual(decoded.format, "jpeg")
            check(decoded.image, against: Self.fixtures.files[name]!, name)
        }
    }

    func testNewFormatsAreRecognizedByTheirFirstBytes() throws {
        for (name, format) in [("lossless.webp", "webp"), ("palette.gif", "gif"), ("rgb.tif", "tiff"), ("large.jpg", "jpeg")] {
            XCTAssertEqual(try Image.decode(try bytes(name)).format, format, name)
        }
        // RIFF that is not WebP (a WAVE file) is not taken for one.
        XCTAssertThrowsError(try Image.decode(Array("RIFF\u{24}\0\0\0WAVEfmt ".utf8))) { error in
            guard case ImageError.unknownFormat = error else { return XCTFail("\(error)") }
        }
    }

    /// Over the pixel limit with a minimum size, a JPEG is decoded at the smallest of 1/2, 1/4, 1/8 still at least
    /// that size, with Pillow's draft() pixels; within the limit it is decoded at full size whatever the hint.
    func testBigJPEGsAreDecodedAtReducedScaleOnlyOverTheLimit() throws {
        let file = try bytes("large.jpg")  // 160x120
        let full = Self.fixtures.files["large.jpg"]!
        let limit = ImageLimits(maximumPixels: 160 * 120 - 1)
        for (minimum, denominator) in [(ImageSize(width: 20, height: 15), 8), (ImageSize(width: 21, height: 10), 4),
                                       (ImageSize(width: 40, height: 30), 4), (ImageSize(width: 80, height: 31), 2),
                                       (ImageSize(width: 1, height: 60), 2)] {
            let decoded = try Image.decode(file, options: ImageDecodingOptions(limits: limit, minimumSize: minimum))
            XCTAssertEqual(decoded.scale, denominator, "\(minimum)")
            check(decoded.image, against: Self.fixtures.scaled["large.jpg"]!["\(denominator)"]!, "large.jpg at 1/\(denominator)")
        }
        // Needs more than half size: no scale fits, so the limit refuses it as before.
        XCTAssertThrowsError(try Image.decode(file, options: ImageDecodingOptions(limits: limit, minimumSize: ImageSize(width: 81, height: 10)))) { error in
            guard case ImageError.tooLarge(160, 120, _) = error else { return XCTFail("\(error)") }
        }
        // The scaled output must itself be within the limit.
        XCTAssertThrowsError(try Image.decode(file, options: ImageDecodingOptions(limits: ImageLimits(maximumPixels: 299), minimumSize: ImageSize(width: 1, height: 1))))
        XCTAssertEqual(try Image.decode(file, options: ImageDecodingOptions(limits: ImageLimits(maximumPixels: 300), minimumSize: ImageSize(width: 1, height: 1))).scale, 8)
        // Within the limit: full size, the hint does not matter.
        let normal = try Image.decode(file, options: ImageDecodingOptions(minimumSize: ImageSize(width: 10, height: 10)))
        XCTAssertEqual(normal.scale, 1)
        check(normal.image, against: full, "large.jpg")
        // No hint: refused as before.
        XCTAssertThrowsError(try Image.decode(file, limits: limit)) { error in
            guard case ImageError.tooLarge = error else { return XCTFail("\(error)") }
        }
        // The hint is for the picture as shown: an EXIF orientation that swaps the sides swaps the hint.
        let rotated = Self.withEXIFOrientation(6, file)
        let tall = try Image.decode(rotated, options: ImageDecodingOptions(limits: limit, minimumSize: ImageSize(width: 30, height: 40)))
        XCTAssertEqual(tall.scale, 4)
        XCTAssertEqual(tall.orientation, .right)
        // A header claiming 65000x65000 over a few hundred bytes of data is refused, not decoded at 1/8 (66 MP of padding).
        var bomb = try bytes("baseline.jpg")
        let sof = (0..<bomb.count - 1).first { bomb[$0] == 0xFF && bomb[$0 + 1] == 0xC0 }!
        bomb.replaceSubrange((sof + 5)..<(sof + 9), with: [0xFD, 0xE8, 0xFD, 0xE8])
        XCTAssertThrowsError(try Image.decode(bomb, options: ImageDecodingOptions(minimumSize: ImageSize(width: 224, height: 224)))) { error in
            guard case ImageError.tooLarge(65000, 65000, _) = error else { return XCTFail("\(error)") }
        }
        // Other formats are never scaled.
        XCTAssertThrowsError(try Image.decode(try bytes("rgb8.png"), options: ImageDecodingOptions(limits: ImageLimits(maximumPixels: 100), minimumSize: ImageSize(width: 1, height: 1))))
    }

    /// A JPEG with an APP1 Exif segment holding only the orientation, inserted after SOI.
    static func withEXIFOrientation(_ value: UInt8, _ jpeg: [UInt8]) -> [UInt8] {
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, value, 0, 0, 0, 0, 0, 0, 0, 0]
        let body: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0] + tiff
        let length = body.count + 2
        return Array(jpeg[0..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body + Array(jpeg[2...])
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
        for name in ["rgb8.png", "interlaced.png", "baseline.jpg", "progressive.jpg", "rgb24.bmp", "rgb.ppm", "bitfields32.bmp",
                     "cmyk.jpg", "ycck.jpg", "lossless.webp", "lossy.webp", "alpha_lossy.webp", "animated.webp", "palette.gif", "interlaced.gif",
                     "offset_transparent.gif", "rgb.tif", "lzw.tif", "deflate.tif", "palette.tif", "cmyk.tif"] {
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
        for name in ["lossless.webp", "lossy.webp", "palette.gif", "rgb.tif", "cmyk.jpg"] {
            XCTAssertThrowsError(try Image.decode(try bytes(name), limits: small), name) { error in
                guard case ImageError.tooLarge(37, 23, 100) = error else { return XCTFail("\(name): \(error)") }
            }
        }
        // WebP lossless (VP8L): 14-bit width-1 and height-1 all ones, 16384 x 16384.
        var webp = try bytes("lossless.webp")
        XCTAssertEqual(Array(webp[12..<16]), Array("VP8L".utf8))
        webp.replaceSubrange(21..<24, with: [0xFF, 0xFF, 0xFF])
        webp[24] |= 0x0F
        XCTAssertThrowsError(try Image.decode(webp)) { error in
            guard case ImageError.tooLarge(16384, 16384, _) = error else { return XCTFail("\(error)") }
        }
        // Animated WebP (VP8X): a canvas of 20000 x 20000 is refused before the animation decoder allocates it.
        var animated = try bytes("animated.webp")
        XCTAssertEqual(Array(animated[12..<16]), Array("VP8X".utf8))
        animated.replaceSubrange(24..<30, with: [0x1F, 0x4E, 0x00, 0x1F, 0x4E, 0x00])
        XCTAssertThrowsError(try Image.decode(animated)) { error in
            guard case ImageError.tooLarge(20000, 20000, _) = error else { return XCTFail("\(error)") }
        }
        // GIF logical screen 65535 x 65535.
        var gif = try bytes("palette.gif")
        gif.replaceSubrange(6..<10, with: [0xFF, 0xFF, 0xFF, 0xFF])
        XCTAssertThrowsError(try Image.decode(gif)) { error in
            guard case ImageError.tooLarge(65535, 65535, _) = error else { return XCTFail("\(error)") }
        }
        // A GIF frame placed far outside the screen grows the canvas (as Pillow does), and is refused the same way.
        var far = try bytes("palette.gif")
        let descriptor = far.firstIndex(of: 0x2C)!
        far.replaceSubrange((descriptor + 1)..<(descriptor + 5), with: [0xFF, 0xFF, 0xFF, 0xFF])
        XCTAssertThrowsError(try Image.decode(far)) { error in
            guard case ImageError.tooLarge = error else { return XCTFail("\(error)") }
        }
        // TIFF ImageWidth and ImageLength of 100000 (or 65535 when stored as SHORT).
        var tiff = try bytes("rgb.tif")
        try Self.setTIFFSize(&tiff)
        XCTAssertThrowsError(try Image.decode(tiff)) { error in
            guard case let ImageError.tooLarge(width, height, _) = error, width >= 65535, height >= 65535 else { return XCTFail("\(error)") }
        }
    }

    /// Rewrites the ImageWidth (256) and ImageLength (257) entries of a little-endian TIFF's first directory.
    static func setTIFFSize(_ tiff: inout [UInt8]) throws {
        func u16(_ at: Int) -> Int { Int(tiff[at]) | Int(tiff[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        XCTAssertEqual(Array(tiff[0..<4]), [0x49, 0x49, 0x2A, 0])
        let ifd = u32(4)
        var changed = 0
        for entry in 0..<u16(ifd) {
            let at = ifd + 2 + entry * 12
            guard u16(at) == 256 || u16(at) == 257 else { continue }
            if u16(at + 2) == 3 {
                tiff.replaceSubrange((at + 8)..<(at + 10), with: [0xFF, 0xFF])
            } else {
                tiff.replaceSubrange((at + 8)..<(at + 12), with: [0xA0, 0x86, 0x01, 0x00])
            }
            changed += 1
        }
        XCTAssertEqual(changed, 2)
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

    /// A stride so large that the bytes it implies overflow `Int` is an invalid buffer, not a trap (found by the
    /// camera-frames fuzzer): the packed and the planar paths.
    func testCameraFrameStrideOverflowIsAnError() throws {
        let frame = [UInt8](repeating: 0, count: 64)
        try frame.withUnsafeBytes { bytes in
            for stride in [Int.max, Int.max / 2, 1 << 62] {
                XCTAssertThrowsError(try Image(frame: bytes, format: .rgba8, width: 2, height: 3, bytesPerRow: stride)) { error in
                    guard case .invalidBuffer = error as? ImageError else { return XCTFail("\(error)") }
                }
                for format in [RawPixelFormat.nv12, .i420] {
                    XCTAssertThrowsError(try Image(yPlane: bytes, yBytesPerRow: stride, chromaPlane: bytes, chromaBytesPerRow: 4,
                                                   crPlane: bytes, crBytesPerRow: 2, format: format, width: 4, height: 3))
                    XCTAssertThrowsError(try Image(yPlane: bytes, yBytesPerRow: 4, chromaPlane: bytes, chromaBytesPerRow: stride,
                                                   crPlane: bytes, crBytesPerRow: stride, format: format, width: 4, height: 3))
                }
            }
        }
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
