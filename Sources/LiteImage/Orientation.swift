/// How the stored pixels must be turned to show the picture upright: the eight cases of `UIImage.Orientation`,
/// which ML Kit's `VisionImage` and MediaPipe's `MPImage` carry beside the pixels.
///
/// The raw values are the EXIF orientation tag's (TIFF tag 0x0112) values for the same transform.
public enum ImageOrientation: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// Stored upright.
    case up = 1
    /// Stored mirrored left to right.
    case upMirrored = 2
    /// Stored upside down (rotate 180 degrees to show).
    case down = 3
    /// Stored mirrored top to bottom.
    case downMirrored = 4
    /// Stored transposed (mirrored across the top-left to bottom-right diagonal).
    case leftMirrored = 5
    /// Stored rotated 90 degrees counter-clockwise: rotate 90 degrees clockwise to show.
    case right = 6
    /// Stored transposed across the other diagonal.
    case rightMirrored = 7
    /// Stored rotated 90 degrees clockwise: rotate 90 degrees counter-clockwise to show.
    case left = 8

    /// The orientation named `name` ("up", "left-mirrored", "leftMirrored", ...) or given as an EXIF value "1"..."8".
    public init?(name: String) {
        if let exif = Int(name), let value = ImageOrientation(rawValue: exif) {
            self = value
            return
        }
        let key = name.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "")
        guard let value = Self.allCases.first(where: { $0.description.lowercased() == key }) else { return nil }
        self = value
    }

    /// The case's name, as ``init(name:)`` accepts it: "up", "upMirrored", "down", ..., "left".
    public var description: String {
        switch self {
        case .up: return "up"
        case .upMirrored: return "upMirrored"
        case .down: return "down"
        case .downMirrored: return "downMirrored"
        case .leftMirrored: return "leftMirrored"
        case .right: return "right"
        case .rightMirrored: return "rightMirrored"
        case .left: return "left"
        }
    }

    /// Whether the transform includes a mirror image (the four `...Mirrored` cases).
    public var isMirrored: Bool {
        switch self {
        case .upMirrored, .downMirrored, .leftMirrored, .rightMirrored: return true
        default: return false
        }
    }

    /// True when width and height swap between the stored and the shown picture.
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// The orientation that undoes this one.
    public var inverse: ImageOrientation {
        switch self {
        case .right: return .left
        case .left: return .right
        default: return self
        }
    }

    /// The stored pixel (column, row) shown at upright position (`x`, `y`) of an image stored `width` x `height`.
    @inline(__always)
    func storedPosition(x: Int, y: Int, width: Int, height: Int) -> (Int, Int) {
        switch self {
        case .up: return (x, y)
        case .upMirrored: return (width - 1 - x, y)
        case .down: return (width - 1 - x, height - 1 - y)
        case .downMirrored: return (x, height - 1 - y)
        case .leftMirrored: return (y, x)
        case .right: return (y, height - 1 - x)
        case .rightMirrored: return (width - 1 - y, height - 1 - x)
        case .left: return (width - 1 - y, x)
        }
    }
}

extension Image {
    /// The picture as it should be shown when these pixels are stored with `orientation`: an exact permutation
    /// of the pixels, no resampling.
    public func applying(_ orientation: ImageOrientation) -> Image {
        if orientation == .up { return self }
        let outWidth = orientation.swapsDimensions ? height : width
        let outHeight = orientation.swapsDimensions ? width : height
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for y in 0..<outHeight {
                    var to = y * outWidth * 3
                    for x in 0..<outWidth {
                        let (sx, sy) = orientation.storedPosition(x: x, y: y, width: width, height: height)
                        let from = (sy * width + sx) * 3
                        target[to] = source[from]
                        target[to + 1] = source[from + 1]
                        target[to + 2] = source[from + 2]
                        to += 3
                    }
                }
            }
        }
        return Image(uncheckedWidth: outWidth, height: outHeight, pixels: out)
    }

    /// The pixels a camera would store for this upright picture under `orientation`, so that
    /// `image.storedAs(o).applying(o) == image`. Tests use it to make rotated and mirrored inputs.
    public func storedAs(_ orientation: ImageOrientation) -> Image {
        applying(orientation.inverse)
    }
}
