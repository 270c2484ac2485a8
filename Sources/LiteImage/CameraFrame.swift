/// Pixel layouts of raw frames as cameras and video decoders deliver them (what a `CVPixelBuffer` holds on iOS).
public enum RawPixelFormat: String, Sendable, CaseIterable {
    /// Packed 8-bit red, green, blue, alpha (alpha dropped).
    case rgba8
    /// Packed 8-bit blue, green, red, alpha (`kCVPixelFormatType_32BGRA`; alpha dropped).
    case bgra8
    /// Packed 8-bit red, green, blue.
    case rgb8
    /// One 8-bit luma channel, replicated to RGB.
    case gray8
    /// Y plane, then one plane of interleaved Cb Cr at half resolution (`kCVPixelFormatType_420YpCbCr8BiPlanar*`).
    case nv12
    /// As NV12 with Cr before Cb (Android's camera default).
    case nv21
    /// Y plane, then Cb and Cr planes at half resolution.
    case i420
}

/// Which YCbCr to RGB conversion a YUV frame needs.
public enum YUVRange: Sendable {
    /// BT.601 video range: Y in 16...235, chroma in 16...240 (`...VideoRange` pixel buffers, camera default).
    case video
    /// BT.601 full range: Y and chroma in 0...255 (`...FullRange` pixel buffers, JPEG's YCbCr).
    case full
}

extension Image {
    /// Converts a packed frame (RGBA8, BGRA8, RGB8 or gray8) whose rows are `bytesPerRow` apart (at least the
    /// packed row size; padding is skipped).
    public init(frame: UnsafeRawBufferPointer, format: RawPixelFormat, width: Int, height: Int, bytesPerRow: Int? = nil) throws {
        let bytesPerPixel: Int
        switch format {
        case .rgba8, .bgra8: bytesPerPixel = 4
        case .rgb8: bytesPerPixel = 3
        case .gray8: bytesPerPixel = 1
        case .nv12, .nv21, .i420:
            throw ImageError.invalidBuffer(reason: "\(format) is planar: use Image(yPlane:...)")
        }
        try Image.checkSize(width: width, height: height)
        let stride = bytesPerRow ?? width * bytesPerPixel
        guard stride >= width * bytesPerPixel else {
            throw ImageError.invalidBuffer(reason: "bytesPerRow \(stride) is less than \(width) pixels of \(bytesPerPixel) bytes")
        }
        let needed = Image.planeBytes(stride: stride, rows: height, rowBytes: width * bytesPerPixel)
        guard let needed, frame.count >= needed else {
            throw ImageError.invalidBuffer(reason: "\(format) \(width)x\(height) with \(stride) bytes per row needs \(needed.map(String.init) ?? "more than Int.max") bytes, got \(frame.count)")
        }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        rgb.withUnsafeMutableBufferPointer { target in
            for y in 0..<height {
                let row = y * stride
                var to = y * width * 3
                for x in 0..<width {
                    let at = row + x * bytesPerPixel
                    switch format {
                    case .rgba8, .rgb8:
                        target[to] = frame[at]; target[to + 1] = frame[at + 1]; target[to + 2] = frame[at + 2]
                    case .bgra8:
                        target[to] = frame[at + 2]; target[to + 1] = frame[at + 1]; target[to + 2] = frame[at]
                    default:
                        target[to] = frame[at]; target[to + 1] = frame[at]; target[to + 2] = frame[at]
                    }
                    to += 3
                }
            }
        }
        self.init(uncheckedWidth: width, height: height, pixels: rgb)
    }

    /// Converts a 4:2:0 YUV frame. `yPlane` holds luma rows `yBytesPerRow` apart; for NV12/NV21 `chromaPlane`
    /// holds interleaved chroma rows `chromaBytesPerRow` apart; for I420 `chromaPlane` is Cb and `crPlane` is Cr.
    /// Odd widths and heights round the chroma size up, as the formats define.
    public init(yPlane: UnsafeRawBufferPointer, yBytesPerRow: Int, chromaPlane: UnsafeRawBufferPointer, chromaBytesPerRow: Int,
                crPlane: UnsafeRawBufferPointer? = nil, crBytesPerRow: Int? = nil,
                format: RawPixelFormat, width: Int, height: Int, range: YUVRange = .video) throws {
        try Image.checkSize(width: width, height: height)
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        func check(_ plane: UnsafeRawBufferPointer, stride: Int, rowBytes: Int, rows: Int, name: String) throws {
            guard stride >= rowBytes else { throw ImageError.invalidBuffer(reason: "\(name) bytesPerRow \(stride) < \(rowBytes)") }
            let needed = Image.planeBytes(stride: stride, rows: rows, rowBytes: rowBytes)
            guard let needed, plane.count >= needed else {
                throw ImageError.invalidBuffer(reason: "\(name) plane has \(plane.count) bytes, needs \(needed.map(String.init) ?? "more than Int.max")")
            }
        }
        try check(yPlane, stride: yBytesPerRow, rowBytes: width, rows: height, name: "Y")
        let interleaved: Bool
        switch format {
        case .nv12, .nv21:
            interleaved = true
            try check(chromaPlane, stride: chromaBytesPerRow, rowBytes: chromaWidth * 2, rows: chromaHeight, name: "CbCr")
        case .i420:
            interleaved = false
            guard let crPlane, let crBytesPerRow else { throw ImageError.invalidBuffer(reason: "I420 needs a Cr plane") }
            try check(chromaPlane, stride: chromaBytesPerRow, rowBytes: chromaWidth, rows: chromaHeight, name: "Cb")
            try check(crPlane, stride: crBytesPerRow, rowBytes: chromaWidth, rows: chromaHeight, name: "Cr")
        default:
            throw ImageError.invalidBuffer(reason: "\(format) is not a YUV format")
        }
        // BT.601 in 16.16 fixed point. Video range: R = 1.164(Y-16) + 1.596(Cr-128), G = 1.164(Y-16) - 0.392(Cb-128)
        // - 0.813(Cr-128), B = 1.164(Y-16) + 2.017(Cb-128); full range drops the 1.164 and the 16 offset and uses
        // 1.402, 0.344, 0.714, 1.772.
        let (yScale, yOffset, crToR, cbToG, crToG, cbToB): (Int, Int, Int, Int, Int, Int) = range == .video
            ? (76309, 16, 104597, 25675, 53279, 132201)
            : (65536, 0, 91881, 22554, 46802, 116130)
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        rgb.withUnsafeMutableBufferPointer { target in
            for y in 0..<height {
                var to = y * width * 3
                let chromaRow = (y / 2) * chromaBytesPerRow
                for x in 0..<width {
                    let luma = (Int(yPlane[y * yBytesPerRow + x]) - yOffset) * yScale
                    var cb: Int, cr: Int
                    if interleaved {
                        let at = chromaRow + (x / 2) * 2
                        cb = Int(chromaPlane[at]); cr = Int(chromaPlane[at + 1])
                        if format == .nv21 { swap(&cb, &cr) }
                    } else {
                        cb = Int(chromaPlane[chromaRow + x / 2])
                        cr = Int(crPlane![(y / 2) * crBytesPerRow! + x / 2])
                    }
                    cb -= 128
                    cr -= 128
                    let half = 1 << 15
                    target[to] = UInt8(clamping: (luma + crToR * cr + half) >> 16)
                    target[to + 1] = UInt8(clamping: (luma - cbToG * cb - crToG * cr + half) >> 16)
                    target[to + 2] = UInt8(clamping: (luma + cbToB * cb + half) >> 16)
                    to += 3
                }
            }
        }
        self.init(uncheckedWidth: width, height: height, pixels: rgb)
    }

    /// The bytes `rows` rows of `rowBytes` bytes take when they start `stride` bytes apart (the last row unpadded), or
    /// nil when that is more than `Int.max`: a caller's stride may be anything up to `Int.max`, so the product is
    /// checked, not trapped on.
    static func planeBytes(stride: Int, rows: Int, rowBytes: Int) -> Int? {
        let (padded, overflow) = stride.multipliedReportingOverflow(by: rows - 1)
        let (total, carry) = padded.addingReportingOverflow(rowBytes)
        return overflow || carry ? nil : total
    }

    static func checkSize(width: Int, height: Int) throws {
        guard width > 0, height > 0 else { throw ImageError.invalidDimensions(width: width, height: height, reason: "must be positive") }
        guard width <= ImageLimits.default.maximumPixels / height else {
            throw ImageError.tooLarge(width: width, height: height, limit: ImageLimits.default.maximumPixels)
        }
    }
}
