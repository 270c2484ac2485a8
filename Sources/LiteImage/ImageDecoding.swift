import CImageCodecs
import Foundation

/// A decoded file: the stored pixels and the orientation its metadata asks for (EXIF for JPEG, `.up` otherwise).
public struct DecodedImage: Sendable {
    /// The pixels as stored in the file, before ``orientation`` is applied.
    public var image: Image
    /// The orientation to apply to show the picture upright (a JPEG's EXIF orientation; `.up` for other formats).
    public var orientation: ImageOrientation
    /// "png", "jpeg", "bmp", "pnm", "webp", "gif" or "tiff".
    public var format: String
    /// 1 when decoded at full size; 2, 4 or 8 when a JPEG over the pixel limit was decoded at that reduced scale
    /// (``ImageDecodingOptions/minimumSize``): one decoded pixel covers `scale` x `scale` pixels of the file.
    public var scale: Int = 1

    /// A decoded image from its fields.
    public init(image: Image, orientation: ImageOrientation, format: String, scale: Int = 1) {
        self.image = image
        self.orientation = orientation
        self.format = format
        self.scale = scale
    }
}

/// A width and a height in pixels.
public struct ImageSize: Sendable, Equatable, Hashable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// A size of `width` by `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// How files are decoded: the limits, and what happens to an image over the pixel limit.
public struct ImageDecodingOptions: Sendable {
    /// The pixel and scan limits. An image over ``ImageLimits/maximumPixels`` is refused with
    /// ``ImageError/tooLarge(width:height:limit:)`` unless ``minimumSize`` lets it be decoded smaller.
    public var limits: ImageLimits
    /// The smallest picture the caller needs, as shown (after the EXIF orientation); for a model, its input size.
    /// When set, a JPEG over the pixel limit is decoded with libjpeg's DCT scaling at the smallest of 1/2, 1/4
    /// and 1/8 that is still at least this size (and within the limit) instead of being refused; the
    /// ``DecodedImage/scale`` says which. Images within the limit, and other formats, are always decoded at full
    /// size, so their pixels do not depend on this hint. `nil` (the default) refuses over-limit images.
    public var minimumSize: ImageSize?

    /// Options with `limits` (default ``ImageLimits/default``) and an optional ``minimumSize`` (default nil: an image
    /// over the pixel limit is refused).
    public init(limits: ImageLimits = .default, minimumSize: ImageSize? = nil) {
        self.limits = limits
        self.minimumSize = minimumSize
    }

    /// The default limits, no downscaling.
    public static let `default` = ImageDecodingOptions()
}

extension Image {
    /// Decodes a PNG, JPEG, BMP, PPM/PGM, WebP, GIF (first frame) or TIFF file, keeping the EXIF orientation
    /// separate (see ``DecodedImage``).
    public static func decode(contentsOfFile path: String, limits: ImageLimits = .default) throws -> DecodedImage {
        try decode(contentsOfFile: path, options: ImageDecodingOptions(limits: limits))
    }

    /// Decodes a file with ``ImageDecodingOptions`` (pixel limit, downscaled decoding of big JPEGs).
    public static func decode(contentsOfFile path: String, options: ImageDecodingOptions) throws -> DecodedImage {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "not readable" : "no such file"
            throw ImageError.io(path: path, reason: reason)
        }
        return try decode([UInt8](data), options: options)
    }

    /// Decodes image file bytes; the format is recognized from the first bytes, not from a file name.
    public static func decode(_ bytes: [UInt8], limits: ImageLimits = .default) throws -> DecodedImage {
        try decode(bytes, options: ImageDecodingOptions(limits: limits))
    }

    /// Decodes image file bytes with ``ImageDecodingOptions``; the format is recognized from the first bytes.
    public static func decode(_ bytes: [UInt8], options: ImageDecodingOptions) throws -> DecodedImage {
        var storage: [UInt8] = []
        return try decode(bytes, options: options, reusing: &storage)
    }

    /// Decodes image file bytes as ``decode(_:options:)`` does, writing a JPEG's pixels into `storage`'s memory
    /// when it is big enough (a batch hands back the previous image's pixels, so a run of photos does not map,
    /// fault in and free a new buffer for each). `storage` is left empty; the same pixels either way.
    public static func decode(_ bytes: [UInt8], options: ImageDecodingOptions, reusing storage: inout [UInt8]) throws -> DecodedImage {
        let limits = options.limits
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return DecodedImage(image: try decodePNG(bytes, limits: limits), orientation: .up, format: "png")
        }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            let orientation = EXIF.orientation(inJPEG: bytes) ?? .up
            // The hint is for the picture as shown; the decoder sees the stored pixels.
            let minimum = options.minimumSize.map { orientation.swapsDimensions ? ImageSize(width: $0.height, height: $0.width) : $0 }
            let (image, scale) = try decodeJPEG(bytes, limits: limits, minimumSize: minimum, reusing: &storage)
            return DecodedImage(image: image, orientation: orientation, format: "jpeg", scale: scale)
        }
        if bytes.starts(with: [0x42, 0x4D]) {
            return DecodedImage(image: try BMP.decode(bytes, limits: limits), orientation: .up, format: "bmp")
        }
        if bytes.count >= 2, bytes[0] == 0x50, (0x31...0x36).contains(bytes[1]) {
            return DecodedImage(image: try PNM.decode(bytes, limits: limits), orientation: .up, format: "pnm")
        }
        // RIFF....WEBP
        if bytes.count >= 12, bytes.starts(with: [0x52, 0x49, 0x46, 0x46]), bytes[8..<12].elementsEqual([0x57, 0x45, 0x42, 0x50]) {
            return DecodedImage(image: try decodeWith(lv_webp_decode, bytes, format: "WebP", limits: limits), orientation: .up, format: "webp")
        }
        // GIF87a / GIF89a
        if bytes.starts(with: [0x47, 0x49, 0x46, 0x38]), bytes.count >= 6, bytes[4] == 0x37 || bytes[4] == 0x39, bytes[5] == 0x61 {
            return DecodedImage(image: try decodeWith(lv_gif_decode, bytes, format: "GIF", limits: limits), orientation: .up, format: "gif")
        }
        // II*\0 / MM\0* (classic TIFF) and II+\0 / MM\0+ (BigTIFF)
        if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
            || bytes.starts(with: [0x49, 0x49, 0x2B, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2B]) {
            return DecodedImage(image: try decodeWith(lv_tiff_decode, bytes, format: "TIFF", limits: limits), orientation: .up, format: "tiff")
        }
        throw ImageError.unknownFormat(firstBytes: Array(bytes.prefix(8)))
    }

    /// Reads a file and applies its EXIF orientation: the picture as a viewer shows it.
    public init(contentsOfFile path: String, limits: ImageLimits = .default) throws {
        let decoded = try Image.decode(contentsOfFile: path, limits: limits)
        self = decoded.image.applying(decoded.orientation)
    }

    static func decodePNG(_ bytes: [UInt8], limits: ImageLimits) throws -> Image {
        try decodeWith(lv_png_decode, bytes, format: "PNG", limits: limits)
    }

    typealias CDecoder = (UnsafePointer<UInt8>?, Int, Int64, UnsafeMutablePointer<lv_decoded_image>?) -> Int32

    static func decodeWith(_ decoder: CDecoder, _ bytes: [UInt8], format: String, limits: ImageLimits) throws -> Image {
        var decoded = lv_decoded_image()
        let status = bytes.withUnsafeBufferPointer { decoder($0.baseAddress, $0.count, Int64(limits.maximumPixels), &decoded) }
        return try finish(&decoded, status: status, format: format, limits: limits)
    }

    /// Decodes a JPEG straight into the memory of the returned image's pixels (or of `storage`, when it can hold
    /// them): the header gives the output size, then libjpeg writes the RGB rows in place. No intermediate buffer,
    /// no copy, no zero fill; the pixels are those of `lv_jpeg_decode_scaled`.
    static func decodeJPEG(_ bytes: [UInt8], limits: ImageLimits, minimumSize: ImageSize? = nil) throws -> (Image, scale: Int) {
        var storage: [UInt8] = []
        return try decodeJPEG(bytes, limits: limits, minimumSize: minimumSize, reusing: &storage)
    }

    static func decodeJPEG(_ bytes: [UInt8], limits: ImageLimits, minimumSize: ImageSize?, reusing storage: inout [UInt8]) throws -> (Image, scale: Int) {
        let minimumWidth = Int32(clamping: max(minimumSize?.width ?? 0, 0)), minimumHeight = Int32(clamping: max(minimumSize?.height ?? 0, 0))
        var decoded = lv_decoded_image()
        let sizeStatus = bytes.withUnsafeBufferPointer {
            lv_jpeg_output_size($0.baseAddress, $0.count, Int64(limits.maximumPixels), minimumWidth, minimumHeight, &decoded)
        }
        if sizeStatus != 0 { _ = try finish(&decoded, status: sizeStatus, format: "JPEG", limits: limits) }
        let width = Int(decoded.width), height = Int(decoded.height)
        guard width > 0, height > 0 else { throw ImageError.corrupt(format: "JPEG", reason: "decoder returned no pixels") }
        let count = width * height * 3
        var status: Int32 = 0
        func decode(into target: UnsafeMutableBufferPointer<UInt8>) {
            status = bytes.withUnsafeBufferPointer {
                lv_jpeg_decode_rgb_into($0.baseAddress, $0.count, Int64(limits.maximumPixels), Int32(limits.maximumJPEGScans),
                                        minimumWidth, minimumHeight, target.baseAddress, target.count, &decoded)
            }
        }
        var pixels = storage
        storage = []
        if pixels.capacity >= count {
            if pixels.count > count {
                pixels.removeLast(pixels.count - count)
            } else if pixels.count < count {
                pixels.append(contentsOf: repeatElement(0, count: count - pixels.count))
            }
            pixels.withUnsafeMutableBufferPointer { decode(into: $0) }
        } else {
            pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                decode(into: buffer)
                // On failure the bytes are dropped below; they are plain bytes, so counting them is harmless.
                initialized = count
            }
        }
        if status != 0 {
            _ = try finish(&decoded, status: status, format: "JPEG", limits: limits)
        }
        guard Int(decoded.width) == width, Int(decoded.height) == height else {
            throw ImageError.corrupt(format: "JPEG", reason: "the decoded size \(decoded.width)x\(decoded.height) is not the header's \(width)x\(height)")
        }
        return (Image(uncheckedWidth: width, height: height, pixels: pixels), max(Int(decoded.scale_denominator), 1))
    }

    private static func finish(_ decoded: inout lv_decoded_image, status: Int32, format: String, limits: ImageLimits) throws -> Image {
        defer { free(decoded.pixels) }
        let message = withUnsafeBytes(of: decoded.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        switch status {
        case 0: break
        case 2: throw ImageError.tooLarge(width: Int(decoded.width), height: Int(decoded.height), limit: limits.maximumPixels)
        case 4: throw ImageError.unsupported(format: format, reason: message)
        default: throw ImageError.corrupt(format: format, reason: message)
        }
        let width = Int(decoded.width), height = Int(decoded.height), channels = Int(decoded.channels)
        guard width > 0, height > 0, let source = decoded.pixels else {
            throw ImageError.corrupt(format: format, reason: "decoder returned no pixels")
        }
        let count = width * height
        var rgb = [UInt8](repeating: 0, count: count * 3)
        rgb.withUnsafeMutableBufferPointer { target in
            switch channels {
            case 3:
                target.baseAddress!.update(from: source, count: count * 3)
            case 4:
                for i in 0..<count {
                    target[3 * i] = source[4 * i]
                    target[3 * i + 1] = source[4 * i + 1]
                    target[3 * i + 2] = source[4 * i + 2]
                }
            default:
                for i in 0..<count {
                    let value = source[i]
                    target[3 * i] = value
                    target[3 * i + 1] = value
                    target[3 * i + 2] = value
                }
            }
        }
        return Image(uncheckedWidth: width, height: height, pixels: rgb)
    }

    /// Encodes the image as an 8-bit RGB PNG.
    public func pngData() throws -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 200)
        let status = pixels.withUnsafeBufferPointer {
            lv_png_encode($0.baseAddress, Int32(width), Int32(height), 3, &output, &size, &message, message.count)
        }
        guard status == 0, let output else {
            throw ImageError.corrupt(format: "PNG", reason: String(cString: message))
        }
        defer { free(output) }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// Encodes the image as a baseline RGB JPEG of `quality` (1-100, libjpeg's scale; 90 by default).
    public func jpegData(quality: Int = 90) throws -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 200)
        let status = pixels.withUnsafeBufferPointer {
            lv_jpeg_encode($0.baseAddress, Int32(width), Int32(height), 3, Int32(min(max(quality, 1), 100)), &output, &size, &message, message.count)
        }
        guard status == 0, let output else {
            throw ImageError.corrupt(format: "JPEG", reason: String(cString: message))
        }
        defer { free(output) }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }
}

/// The EXIF orientation tag of a JPEG (APP1 "Exif" segment, IFD0 tag 0x0112).
enum EXIF {
    static func orientation(inJPEG bytes: [UInt8]) -> ImageOrientation? {
        var at = 2
        while at + 4 <= bytes.count, bytes[at] == 0xFF {
            let marker = bytes[at + 1]
            if marker == 0xDA || marker == 0xD9 { return nil }
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            guard length >= 2, at + 2 + length <= bytes.count else { return nil }
            if marker == 0xE1, length >= 8, bytes[(at + 4)..<(at + 10)].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) {
                return tiffOrientation(bytes[(at + 10)..<(at + 2 + length)])
            }
            at += 2 + length
        }
        return nil
    }

    static func tiffOrientation(_ tiff: ArraySlice<UInt8>) -> ImageOrientation? {
        let base = tiff.startIndex
        guard tiff.count >= 8 else { return nil }
        let little: Bool
        switch (tiff[base], tiff[base + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= tiff.count else { return nil }
            let a = Int(tiff[base + offset]), b = Int(tiff[base + offset + 1])
            return little ? a | b << 8 : a << 8 | b
        }
        func u32(_ offset: Int) -> Int? {
            guard let low = u16(offset), let high = u16(offset + 2) else { return nil }
            return little ? low | high << 16 : low << 16 | high
        }
        guard let ifd = u32(4), let count = u16(ifd) else { return nil }
        for entry in 0..<count {
            let at = ifd + 2 + entry * 12
            guard let tag = u16(at) else { return nil }
            if tag == 0x0112, let type = u16(at + 2), type == 3, let value = u16(at + 8) {
                return ImageOrientation(rawValue: value)
            }
        }
        return nil
    }
}
