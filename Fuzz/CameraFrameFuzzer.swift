// libFuzzer target: raw camera frame conversion (LiteImage's CameraFrame.swift: packed RGBA, BGRA, RGB and gray
// frames, and NV12, NV21 and I420 planes) on arbitrary bytes. Built by tools/fuzz.sh against LiteImage compiled with
// the same sanitizers. The first 12 bytes say what the frame is; the rest are its pixels. Every input must give an image of
// the requested size or an ImageError, never a crash or a read outside the buffers.
//
// Header: byte 0 the format (low 3 bits, modulo 7) and the YUV range (bit 7), bit 6 set to leave the Cr plane out;
// bytes 1-2 and 3-4 the width and height (little-endian); bytes 5, 6, 7 the Y (or packed), chroma and Cr strides;
// bytes 8-9 and 10-11 where the pixel bytes are split into planes (fractions of 65,536). A stride byte below 0xF0 is
// padding after the packed row; 0xF0 and up choose a hostile stride (short, zero, negative, huge).

import LiteImage

@_cdecl("LLVMFuzzerTestOneInput")
public func cameraFrameFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let header = 12
    guard size >= header else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let formats = RawPixelFormat.allCases
    let format = formats[Int(bytes[0] & 7) % formats.count]
    let range: YUVRange = bytes[0] & 0x80 == 0 ? .video : .full
    let width = Int(bytes[1]) | Int(bytes[2]) << 8
    let height = Int(bytes[3]) | Int(bytes[4]) << 8

    func stride(_ selector: UInt8, packedRow: Int) -> Int {
        switch selector {
        case 0xF0: return Int.max
        case 0xF1: return Int.max / 2
        case 0xF2: return Int.max / max(height, 1) &+ 1  // wraps to Int.min when the height is 0 or 1
        case 0xF3: return packedRow - 1
        case 0xF4: return 0
        case 0xF5: return -1
        case 0xF6: return Int.min
        case 0xF7: return 1 << 32
        case 0xF8...0xFF: return packedRow * Int(selector - 0xF6)
        default: return packedRow + Int(selector)
        }
    }

    let pixels = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[header...])
    let split1 = pixels.count * (Int(bytes[8]) | Int(bytes[9]) << 8) / 65536
    let split2 = split1 + (pixels.count - split1) * (Int(bytes[10]) | Int(bytes[11]) << 8) / 65536
    let chromaWidth = (width + 1) / 2
    let image: Image
    do {
        switch format {
        case .rgba8, .bgra8, .rgb8, .gray8:
            let bytesPerPixel = format == .rgb8 ? 3 : format == .gray8 ? 1 : 4
            // Byte 5 0xEF: no bytesPerRow (the packed row size).
            let bytesPerRow = bytes[5] == 0xEF ? nil : stride(bytes[5], packedRow: width * bytesPerPixel)
            image = try Image(frame: pixels, format: format, width: width, height: height, bytesPerRow: bytesPerRow)
        case .nv12, .nv21, .i420:
            let chromaRow = format == .i420 ? chromaWidth : chromaWidth * 2
            let y = UnsafeRawBufferPointer(rebasing: pixels[..<split1])
            let chroma = UnsafeRawBufferPointer(rebasing: pixels[split1..<split2])
            let cr = bytes[0] & 0x40 == 0 ? UnsafeRawBufferPointer(rebasing: pixels[split2...]) : nil
            image = try Image(yPlane: y, yBytesPerRow: stride(bytes[5], packedRow: width),
                              chromaPlane: chroma, chromaBytesPerRow: stride(bytes[6], packedRow: chromaRow),
                              crPlane: cr, crBytesPerRow: cr == nil ? nil : stride(bytes[7], packedRow: chromaWidth),
                              format: format, width: width, height: height, range: range)
        }
    } catch is ImageError {
        return 0
    } catch {
        preconditionFailure("unexpected error type \(type(of: error)): \(error)")
    }
    precondition(image.width == width && image.height == height, "asked for \(width)x\(height), got \(image.width)x\(image.height)")
    precondition(image.pixels.count == width * height * 3, "\(image.pixels.count) bytes for \(width)x\(height) RGB")
    return 0
}
