// libFuzzer target: every image decoder (PNG, JPEG, BMP, PPM, WebP, GIF, TIFF, by content) on arbitrary bytes.
// Built by tools/fuzz.sh against LiteImage and the CImageCodecs C files, all compiled with the same sanitizers:
// every byte string must decode or throw an ImageError, never crash. The pixel limit is 4 megapixels so that a
// declared size is refused quickly instead of filling memory with a valid but huge picture.

import LiteImage

@_cdecl("LLVMFuzzerTestOneInput")
public func imageDecoderFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = ImageLimits(maximumPixels: 4_000_000, maximumJPEGScans: 100)
    guard let decoded = try? Image.decode(bytes, limits: limits) else { return 0 }
    // Read every pixel, and scale a JPEG down as a model's input would ask.
    let sum = decoded.image.pixels.reduce(0) { $0 &+ Int($1) }
    _ = try? Image.decode(bytes, options: ImageDecodingOptions(limits: limits, minimumSize: ImageSize(width: 32, height: 32)))
    return sum == -1 ? 1 : 0
}
