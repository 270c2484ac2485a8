/// Windows bitmaps: uncompressed 24- and 32-bit (BI_RGB or BI_BITFIELDS with the standard masks), bottom-up or
/// top-down, and 8-bit palettized files.
enum BMP {
    static func decode(_ bytes: [UInt8], limits: ImageLimits) throws -> Image {
        func fail(_ reason: String) -> ImageError { .corrupt(format: "BMP", reason: reason) }
        func u16(_ at: Int) throws -> Int {
            guard at >= 0, at + 2 <= bytes.count else { throw fail("truncated at byte \(at)") }
            return Int(bytes[at]) | Int(bytes[at + 1]) << 8
        }
        func u32(_ at: Int) throws -> Int { try u16(at) | (try u16(at + 2)) << 16 }
        func i32(_ at: Int) throws -> Int { Int(Int32(truncatingIfNeeded: try u32(at))) }

        let dataOffset = try u32(10)
        let headerSize = try u32(14)
        guard headerSize >= 40 else { throw ImageError.unsupported(format: "BMP", reason: "OS/2 header of \(headerSize) bytes") }
        let width = try i32(18)
        let signedHeight = try i32(22)
        let bitsPerPixel = try u16(28)
        let compression = try u32(30)
        guard width > 0, signedHeight != 0, signedHeight != Int(Int32.min) else {
            throw ImageError.invalidDimensions(width: width, height: signedHeight, reason: "BMP header")
        }
        let height = abs(signedHeight)
        let topDown = signedHeight < 0
        guard width * height <= limits.maximumPixels else {
            throw ImageError.tooLarge(width: width, height: height, limit: limits.maximumPixels)
        }
        guard compression == 0 || (compression == 3 && bitsPerPixel == 32) else {
            throw ImageError.unsupported(format: "BMP", reason: "compression \(compression) with \(bitsPerPixel) bits per pixel")
        }
        var redShift = 16, greenShift = 8, blueShift = 0
        if compression == 3 {
            let masks = [try u32(54), try u32(58), try u32(62)]
            func shift(_ mask: Int) throws -> Int {
                guard let s = [0, 8, 16, 24].first(where: { mask == 0xFF << $0 }) else {
                    throw ImageError.unsupported(format: "BMP", reason: "channel mask 0x\(String(mask, radix: 16))")
                }
                return s
            }
            redShift = try shift(masks[0]); greenShift = try shift(masks[1]); blueShift = try shift(masks[2])
        }
        var palette: [UInt8] = []
        if bitsPerPixel == 8 {
            let colors = try u32(46) == 0 ? 256 : min(256, try u32(46))
            let start = 14 + headerSize
            guard start + colors * 4 <= bytes.count else { throw fail("palette runs past the file") }
            palette = [UInt8](repeating: 0, count: 256 * 3)
            for i in 0..<colors {
                palette[3 * i] = bytes[start + 4 * i + 2]
                palette[3 * i + 1] = bytes[start + 4 * i + 1]
                palette[3 * i + 2] = bytes[start + 4 * i]
            }
        } else if bitsPerPixel != 24 && bitsPerPixel != 32 {
            throw ImageError.unsupported(format: "BMP", reason: "\(bitsPerPixel) bits per pixel")
        }
        let rowBytes = (width * bitsPerPixel + 31) / 32 * 4
        guard dataOffset >= 0, dataOffset + rowBytes * height <= bytes.count else {
            throw fail("\(height) rows of \(rowBytes) bytes at offset \(dataOffset) need \(dataOffset + rowBytes * height) bytes, file has \(bytes.count)")
        }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        rgb.withUnsafeMutableBufferPointer { target in
            bytes.withUnsafeBufferPointer { source in
                for y in 0..<height {
                    let row = dataOffset + (topDown ? y : height - 1 - y) * rowBytes
                    var to = y * width * 3
                    for x in 0..<width {
                        switch bitsPerPixel {
                        case 24:
                            let at = row + 3 * x
                            target[to] = source[at + 2]; target[to + 1] = source[at + 1]; target[to + 2] = source[at]
                        case 32:
                            let at = row + 4 * x
                            let word = Int(source[at]) | Int(source[at + 1]) << 8 | Int(source[at + 2]) << 16 | Int(source[at + 3]) << 24
                            target[to] = UInt8(truncatingIfNeeded: word >> redShift)
                            target[to + 1] = UInt8(truncatingIfNeeded: word >> greenShift)
                            target[to + 2] = UInt8(truncatingIfNeeded: word >> blueShift)
                        default:
                            let index = Int(source[row + x]) * 3
                            target[to] = palette[index]; target[to + 1] = palette[index + 1]; target[to + 2] = palette[index + 2]
                        }
                        to += 3
                    }
                }
            }
        }
        return Image(uncheckedWidth: width, height: height, pixels: rgb)
    }
}

/// Netpbm: binary PPM (P6) and PGM (P5) with maxval up to 65535, and their ASCII forms (P3, P2).
enum PNM {
    static func decode(_ bytes: [UInt8], limits: ImageLimits) throws -> Image {
        func fail(_ reason: String) -> ImageError { .corrupt(format: "PNM", reason: reason) }
        let kind = bytes[1]
        guard [0x32, 0x33, 0x35, 0x36].contains(kind) else {
            throw ImageError.unsupported(format: "PNM", reason: "P\(Character(UnicodeScalar(kind))) (only P2, P3, P5, P6)")
        }
        var at = 2
        func skipSpaceAndComments() {
            while at < bytes.count {
                if bytes[at] == 0x23 {
                    while at < bytes.count, bytes[at] != 0x0A { at += 1 }
                } else if [0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C].contains(bytes[at]) {
                    at += 1
                } else { return }
            }
        }
        func number() throws -> Int {
            skipSpaceAndComments()
            var value = 0, digits = 0
            while at < bytes.count, (0x30...0x39).contains(bytes[at]) {
                value = value * 10 + Int(bytes[at] - 0x30)
                digits += 1
                at += 1
                guard value <= 1 << 30 else { throw fail("number too large in header") }
            }
            guard digits > 0 else { throw fail("expected a number at byte \(at)") }
            return value
        }
        let width = try number(), height = try number(), maxValue = try number()
        guard width > 0, height > 0 else { throw ImageError.invalidDimensions(width: width, height: height, reason: "PNM header") }
        guard maxValue > 0, maxValue < 65536 else { throw fail("maxval \(maxValue)") }
        guard width * height <= limits.maximumPixels else { throw ImageError.tooLarge(width: width, height: height, limit: limits.maximumPixels) }
        let channels = (kind == 0x33 || kind == 0x36) ? 3 : 1
        let samples = width * height * channels
        var values = [Int](repeating: 0, count: samples)
        if kind == 0x35 || kind == 0x36 {
            at += 1
            let sampleBytes = maxValue > 255 ? 2 : 1
            guard at + samples * sampleBytes <= bytes.count else {
                throw fail("pixel data is \(bytes.count - at) bytes, expected \(samples * sampleBytes)")
            }
            for i in 0..<samples {
                values[i] = sampleBytes == 1 ? Int(bytes[at + i]) : Int(bytes[at + 2 * i]) << 8 | Int(bytes[at + 2 * i + 1])
            }
        } else {
            for i in 0..<samples { values[i] = try number() }
        }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for pixel in 0..<width * height {
            for c in 0..<3 {
                let v = min(values[pixel * channels + (channels == 3 ? c : 0)], maxValue)
                rgb[pixel * 3 + c] = UInt8((v * 255 + maxValue / 2) / maxValue)
            }
        }
        return Image(uncheckedWidth: width, height: height, pixels: rgb)
    }
}
