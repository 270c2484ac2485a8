import ArgumentParser
import Foundation
import LiteImage

/// Output files: written whole, with errors that name the output path.
enum OutputFile {
    /// Writes `bytes` to `path` (replacing it), or throws a ``CLIError`` (exit status 4) naming `path` and why.
    static func write(_ bytes: [UInt8], to path: String) throws {
        guard let file = fopen(path, "wb") else { throw failure(path, errno) }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        let writeError = written == bytes.count ? 0 : errno
        let closeError = fclose(file) == 0 ? 0 : errno
        if writeError != 0 || closeError != 0 || written != bytes.count { throw failure(path, writeError != 0 ? writeError : closeError) }
    }

    /// The image formats an output path may name, by extension.
    enum ImageFormat: String {
        case png, jpeg
    }

    /// The format `path`'s extension names (.png, .jpg, .jpeg), or a usage error naming the path (a
    /// `ValidationError`, so that `validate()` methods can call this).
    static func imageFormat(of path: String) throws -> ImageFormat {
        switch (path as NSString).pathExtension.lowercased() {
        case "png": return .png
        case "jpg", "jpeg": return .jpeg
        default: throw ValidationError("cannot write \(path): an image output must end in .png, .jpg or .jpeg")
        }
    }

    /// Encodes `image` in the format `path` names and writes it there.
    static func writeImage(_ image: Image, to path: String) throws {
        let bytes = try imageFormat(of: path) == .png ? image.pngData() : image.jpegData()
        try write(bytes, to: path)
    }

    private static func failure(_ path: String, _ code: Int32) -> CLIError {
        CLIError(.outputFailed, "cannot write \(path): \(String(cString: strerror(code == 0 ? EIO : code)))")
    }
}
