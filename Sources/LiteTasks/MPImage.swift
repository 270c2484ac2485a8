import LiteImage

/// An image with the orientation it must be shown in: MediaPipe's `MPImage` (ML Kit's `VisionImage` is the
/// same idea). The pixels stay as stored; tasks apply the orientation before cropping or resizing, and regions
/// of interest are given in the oriented picture's coordinates.
public struct MPImage: Sendable {
    /// The pixels as stored.
    public var image: Image
    /// How the stored pixels must be turned to show the picture upright.
    public var orientation: ImageOrientation
    /// Pixels of the file per pixel of `image`: 1, or 2, 4 or 8 when a JPEG over the pixel limit was decoded at
    /// reduced scale (LiteImage's `ImageDecodingOptions.minimumSize`). Multiply coordinates in `image` by it for the file's.
    public var scale: Int = 1

    /// The width of the picture as shown (after orientation).
    public var width: Int { orientation.swapsDimensions ? image.height : image.width }
    /// The height of the picture as shown (after orientation).
    public var height: Int { orientation.swapsDimensions ? image.width : image.height }

    /// An image of `image`'s pixels, shown after applying `orientation` (default: as stored).
    public init(image: Image, orientation: ImageOrientation = .up) {
        self.image = image
        self.orientation = orientation
    }

    /// Decodes a file; a JPEG's EXIF orientation becomes `orientation`, as `UIImage` does with
    /// `imageOrientation`.
    public init(contentsOfFile path: String, limits: ImageLimits = .default) throws {
        try self.init(contentsOfFile: path, options: ImageDecodingOptions(limits: limits))
    }

    /// Decodes a file with a pixel limit and, optionally, the size the task needs (its model's input size,
    /// ``ImageClassifier/inputSize``): a JPEG over the limit is then decoded at reduced scale instead of refused,
    /// and ``scale`` says by how much.
    public init(contentsOfFile path: String, options: ImageDecodingOptions) throws {
        let decoded = try TaskError.wrap { try Image.decode(contentsOfFile: path, options: options) }
        self.init(image: decoded.image, orientation: decoded.orientation)
        scale = decoded.scale
    }

    /// The upright picture.
    public func oriented() -> Image { image.applying(orientation) }
}
