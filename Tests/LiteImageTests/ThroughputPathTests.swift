import CImageCodecs
import Foundation
@testable import LiteImage
import XCTest

/// The batch path's shortcuts (decoding into a reused buffer, sampling through the orientation instead of turning
/// the whole image) give the same pixels as the plain path.
final class ThroughputPathTests: XCTestCase {
    static let directory = ImageDecodingTests.directory

    func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: Self.directory.appendingPathComponent(name))) }

    /// The JPEG decoder's in-place RGB output equals the malloc'ed output of `lv_jpeg_decode_scaled` (gray expanded to
    /// RGB), at full size and at each reduced scale.
    func testInPlaceJPEGDecodingGivesTheMallocedDecodersPixels() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter { $0.hasSuffix(".jpg") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 6)
        for name in names {
            let file = try bytes(name)
            for (limit, minimum) in [(100_000_000, 0), (1, 1), (1, 30)] {
                var old = lv_decoded_image()
                let status = file.withUnsafeBufferPointer {
                    lv_jpeg_decode_scaled($0.baseAddress, $0.count, Int64(limit), 1000, Int32(minimum), Int32(minimum), &old)
                }
                defer { free(old.pixels) }
                let label = "\(name) limit \(limit) minimum \(minimum)"
                let limits = ImageLimits(maximumPixels: limit)
                let size = minimum > 0 ? ImageSize(width: minimum, height: minimum) : nil
                guard status == 0, let source = old.pixels else {
                    XCTAssertThrowsError(try Image.decodeJPEG(file, limits: limits, minimumSize: size), label)
                    continue
                }
                let count = Int(old.width * old.height)
                let expected: [UInt8] = old.channels == 3
                    ? Array(UnsafeBufferPointer(start: source, count: count * 3))
                    : (0..<count).flatMap { [source[$0], source[$0], source[$0]] }
                let (image, scale) = try Image.decodeJPEG(file, limits: limits, minimumSize: size)
                XCTAssertEqual(image.width, Int(old.width), label)
                XCTAssertEqual(image.height, Int(old.height), label)
                XCTAssertEqual(scale, Int(old.scale_denominator), label)
                XCTAssertEqual(image.pixels, expected, label)
            }
        }
    }

    /// Decoding into a reused buffer, bigger or smaller than the image, gives the pixels of a fresh decode.
    func testDecodingIntoAReusedBufferGivesTheSamePixels() throws {
        let names = ["baseline.jpg", "large.jpg", "progressive.jpg", "gray.jpg", "cmyk.jpg", "rgb8.png", "exif_right.jpg"]
        var storage: [UInt8] = []
        for round in 0..<2 {
            for name in names {
                let file = try bytes(name)
                let fresh = try Image.decode(file)
                if round == 1 { storage = [UInt8](repeating: 7, count: 1 << 20) }
                let reused = try Image.decode(file, options: .default, reusing: &storage)
                XCTAssertEqual(reused.image, fresh.image, name)
                XCTAssertEqual(reused.orientation, fresh.orientation, name)
                storage = reused.image.pixels
            }
        }
        XCTAssertThrowsError(try Image.decode(Array(try bytes("baseline.jpg").prefix(300)), options: .default, reusing: &storage))
    }

    /// Sampling through an orientation equals turning the image first, for every orientation, whole image and regions.
    func testResamplingThroughAnOrientationEqualsTurningFirst() throws {
        let photo = try Image.decode(try bytes("baseline.jpg")).image
        let odd = try Image(width: 37, height: 23, pixels: (0..<(37 * 23 * 3)).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) })
        let line = try Image(width: 1, height: 5, pixels: (0..<15).map { UInt8($0 * 17) })
        for image in [photo, odd, line] {
            for orientation in ImageOrientation.allCases {
                let shown = image.applying(orientation)
                let regions: [PixelRect?] = [
                    nil,
                    PixelRect(x: 0.5, y: 0.25, width: Double(shown.width) * 0.6, height: Double(shown.height) * 0.7),
                    PixelRect(x: -3, y: -2, width: Double(shown.width) + 9, height: Double(shown.height) + 5),
                    PixelRect(centerX: Float(shown.width) / 3, centerY: Float(shown.height) / 2, width: 2.5, height: 1.5),
                ]
                for region in regions {
                    for (w, h) in [(224, 224), (13, 31), (1, 1)] {
                        let label = "\(image.width)x\(image.height) \(orientation) \(String(describing: region)) \(w)x\(h)"
                        let expected = shown.resampled(region: region, outputWidth: w, outputHeight: h)
                        XCTAssertEqual(image.resampled(region: region, outputWidth: w, outputHeight: h, orientation: orientation), expected, label)
                        // The per-pixel path (taken when a grid is not separable) through the orientation, on the same grid.
                        let r = region ?? PixelRect(centerX: 0.5 * Float(shown.width), centerY: 0.5 * Float(shown.height),
                                                    width: Float(shown.width), height: Float(shown.height))
                        let grid = SamplingGrid(centerX: r.centerX, centerY: r.centerY, width: r.width, height: r.height, outputWidth: w, outputHeight: h)
                        let layout = OrientedLayout(orientation, storedWidth: image.width, storedHeight: image.height)
                        XCTAssertEqual(image.resamplePerPixel(grid, outputWidth: w, outputHeight: h, layout: layout), expected, "per pixel \(label)")
                    }
                }
            }
        }
    }
}
