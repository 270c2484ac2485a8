/// An 8-bit RGB image in memory: rows top-down, pixels interleaved R, G, B, no row padding.
///
/// Every decoder and camera-frame converter produces this one layout, so the resampler and the pipelines have a
/// single input type. Alpha is dropped on the way in, as MediaPipe's image-to-tensor conversion does
/// (`COLOR_RGBA2RGB`: no blending); gray is replicated into the three channels.
public struct Image: Sendable, Equatable {
    /// Width in pixels (at least 1).
    public let width: Int
    /// Height in pixels (at least 1).
    public let height: Int
    /// `width * height * 3` bytes.
    public var pixels: [UInt8]

    /// Wraps `pixels` (`width * height * 3` bytes, RGB, top-down).
    public init(width: Int, height: Int, pixels: [UInt8]) throws {
        try Image.checkSize(width: width, height: height)
        guard pixels.count == width * height * 3 else {
            throw ImageError.invalidBuffer(reason: "\(pixels.count) bytes for a \(width)x\(height) RGB image, expected \(width * height * 3)")
        }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    init(uncheckedWidth width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The pixel at column `x`, row `y`.
    public subscript(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let at = (y * width + x) * 3
        return (pixels[at], pixels[at + 1], pixels[at + 2])
    }
}

/// Bounds that keep hostile files from taking unbounded memory or time.
public struct ImageLimits: Sendable {
    /// The most pixels an image may have (width times height). The default, 100 megapixels, is 300 MB of RGB.
    public var maximumPixels: Int
    /// The most scans a progressive JPEG may have.
    public var maximumJPEGScans: Int

    /// Limits of `maximumPixels` pixels (default 100,000,000) and `maximumJPEGScans` progressive JPEG scans
    /// (default 1,000).
    public init(maximumPixels: Int = 100_000_000, maximumJPEGScans: Int = 1000) {
        self.maximumPixels = maximumPixels
        self.maximumJPEGScans = maximumJPEGScans
    }

    /// The default limits: 100 megapixels and 1,000 JPEG scans.
    public static let `default` = ImageLimits()
}

/// Why an image could not be read or made.
public enum ImageError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The bytes are not in any format this library reads.
    case unknownFormat(firstBytes: [UInt8])
    /// The file is in a known format but corrupt or truncated; `reason` says what the decoder found.
    case corrupt(format: String, reason: String)
    /// A valid file whose variant is not supported (for example a compressed BMP).
    case unsupported(format: String, reason: String)
    /// Width or height are zero, negative or inconsistent.
    case invalidDimensions(width: Int, height: Int, reason: String)
    /// More pixels than ``ImageLimits/maximumPixels``.
    case tooLarge(width: Int, height: Int, limit: Int)
    /// A raw pixel buffer whose size, stride or plane layout does not fit its description.
    case invalidBuffer(reason: String)
    /// The file could not be read.
    case io(path: String, reason: String)

    /// The error as one line, such as `corrupt png: ...` or `image is 20000x20000, more than the 100000000-pixel limit`.
    public var description: String {
        switch self {
        case let .unknownFormat(bytes):
            return "not a PNG, JPEG, BMP, PPM/PGM, WebP, GIF or TIFF image (starts with \(bytes.map { String($0, radix: 16) }.joined(separator: " ")))"
        case let .corrupt(format, reason): return "corrupt \(format): \(reason)"
        case let .unsupported(format, reason): return "unsupported \(format): \(reason)"
        case let .invalidDimensions(width, height, reason): return "invalid image size \(width)x\(height): \(reason)"
        case let .tooLarge(width, height, limit): return "image is \(width)x\(height), more than the \(limit)-pixel limit"
        case let .invalidBuffer(reason): return "invalid pixel buffer: \(reason)"
        case let .io(path, reason): return "cannot read \(path): \(reason)"
        }
    }
}
