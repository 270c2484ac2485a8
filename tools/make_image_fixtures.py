#!/usr/bin/env python3
"""Small synthetic image files in every variant the decoders must read, written with Pillow into
Tests/LiteImageTests/Fixtures/, with fixtures.json giving the RGB pixels each must decode to (sha256).

    python3 tools/make_image_fixtures.py

The 8-bit content is a fixed pattern (gradients and a checkerboard, 37x23 so rows are not word-aligned); 16-bit
files hold value*257 so every correct 16-to-8-bit reduction gives the 8-bit pattern back exactly. JPEG
expectations are Pillow's own decode (libjpeg-turbo, default IDCT and upsampling).

WebP, GIF, TIFF and CMYK/YCCK JPEG expectations are Pillow's `Image.open(p).convert('RGB')`. Where the decoders
may round differently from Pillow (lossy WebP, CMYK through libtiff's RGBA interface), the entry also carries
Pillow's pixels (rgb_base64) and the largest difference allowed per channel (tolerance). The YCCK JPEG is written
by tools/image_fixtures/ycck_jpeg.c (compiled here with cc against libjpeg), since Pillow never writes YCCK.
"""
import base64
import hashlib
import io
import json
import os
import struct
import subprocess
import tempfile
import zlib

import numpy as np
from PIL import Image

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
OUT = os.path.join(ROOT, "Tests", "LiteImageTests", "Fixtures")
W, H = 37, 23


def pattern():
    y, x = np.mgrid[0:H, 0:W]
    r = (x * 255 // (W - 1)).astype(np.uint8)
    g = (y * 255 // (H - 1)).astype(np.uint8)
    b = (((x // 4 + y // 4) % 2) * 200 + 30).astype(np.uint8)
    return np.dstack([r, g, b])


def sha(array):
    return hashlib.sha256(np.ascontiguousarray(array, dtype=np.uint8).tobytes()).hexdigest()


def gray3(gray):
    return np.dstack([gray, gray, gray])


def main():
    os.makedirs(OUT, exist_ok=True)
    rgb = pattern()
    gray = rgb[:, :, 1]
    alpha = (np.arange(W * H).reshape(H, W) % 256).astype(np.uint8)
    expected = {}

    def save(name, image, pixels, **kwargs):
        image.save(os.path.join(OUT, name), **kwargs)
        expected[name] = {"width": W, "height": H, "sha256": sha(pixels)}

    save("rgb8.png", Image.fromarray(rgb), rgb)
    save("rgba8.png", Image.fromarray(np.dstack([rgb, alpha]), "RGBA"), rgb)
    save("gray8.png", Image.fromarray(gray), gray3(gray))
    save("gray_alpha.png", Image.fromarray(np.dstack([gray, alpha]), "LA"), gray3(gray))
    save("interlaced.png", Image.fromarray(rgb), rgb, interlace=1)
    palette_image = Image.fromarray(rgb).quantize(colors=64)
    save("palette.png", palette_image, np.asarray(palette_image.convert("RGB")))
    gray16 = Image.fromarray(gray.astype(np.uint16) * 257)
    save("gray16.png", gray16, gray3(gray))
    # Pillow cannot write 16-bit RGB PNG; build it by hand (IHDR bit depth 16, colour type 2).
    raw = b"".join(b"\x00" + (rgb[row].astype(">u2") * 257).tobytes() for row in range(H))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    png16 = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 16, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    open(os.path.join(OUT, "rgb16.png"), "wb").write(png16)
    expected["rgb16.png"] = {"width": W, "height": H, "sha256": sha(rgb)}

    for name, kwargs, mode in [("baseline.jpg", {"quality": 90}, "RGB"), ("progressive.jpg", {"quality": 90, "progressive": True}, "RGB"),
                               ("gray.jpg", {"quality": 90}, "L")]:
        source = Image.fromarray(rgb if mode == "RGB" else gray)
        source.save(os.path.join(OUT, name), **kwargs)
        decoded = Image.open(os.path.join(OUT, name)).convert("RGB")
        expected[name] = {"width": W, "height": H, "sha256": sha(np.asarray(decoded))}
    # EXIF orientation 6 (rotate 90 degrees clockwise to show): the stored pixels decode as usual and the
    # orientation is reported separately.
    exif = Image.Exif()
    exif[0x0112] = 6
    Image.fromarray(rgb).save(os.path.join(OUT, "exif_right.jpg"), quality=90, exif=exif.tobytes())
    decoded = Image.open(os.path.join(OUT, "exif_right.jpg")).convert("RGB")
    expected["exif_right.jpg"] = {"width": W, "height": H, "sha256": sha(np.asarray(decoded)), "orientation": 6}

    save("rgb24.bmp", Image.fromarray(rgb), rgb)
    save("palette8.bmp", Image.fromarray(rgb).quantize(colors=64), np.asarray(Image.fromarray(rgb).quantize(colors=64).convert("RGB")))
    # 32-bit BI_BITFIELDS and top-down 24-bit BMPs by hand.
    def bmp(pixels, bits, top_down):
        row_bytes = (W * bits + 31) // 32 * 4
        rows = []
        order = range(H) if top_down else range(H - 1, -1, -1)
        for y in order:
            if bits == 24:
                data = pixels[y][:, ::-1].tobytes()
            else:
                data = np.dstack([pixels[y][:, 2], pixels[y][:, 1], pixels[y][:, 0], np.full(W, 255, np.uint8)]).tobytes()
            rows.append(data + b"\x00" * (row_bytes - len(data)))
        header_size = 40 if bits == 24 else 56
        offset = 14 + header_size
        info = struct.pack("<IiiHHIIiiII", header_size, W, -H if top_down else H, 1, bits, 0 if bits == 24 else 3, row_bytes * H, 2835, 2835, 0, 0)
        if bits == 32:
            info += struct.pack("<IIII", 0x00FF0000, 0x0000FF00, 0x000000FF, 0xFF000000)
        body = b"".join(rows)
        return b"BM" + struct.pack("<IHHI", offset + len(body), 0, 0, offset) + info + body
    for name, bits, top_down in [("topdown24.bmp", 24, True), ("bitfields32.bmp", 32, False)]:
        open(os.path.join(OUT, name), "wb").write(bmp(rgb, bits, top_down))
        expected[name] = {"width": W, "height": H, "sha256": sha(rgb)}

    save("rgb.ppm", Image.fromarray(rgb), rgb)
    save("gray.pgm", Image.fromarray(gray), gray3(gray))
    with open(os.path.join(OUT, "ascii.ppm"), "w") as f:
        f.write(f"P3\n# comment\n{W} {H}\n255\n" + "\n".join(" ".join(str(v) for v in row.reshape(-1)) for row in rgb) + "\n")
    expected["ascii.ppm"] = {"width": W, "height": H, "sha256": sha(rgb)}

    # Formats read through libwebp, giflib and libtiff, and CMYK/YCCK JPEG: expected pixels are Pillow's decode.
    def pillow(name, tolerance=0):
        decoded = np.asarray(Image.open(os.path.join(OUT, name)).convert("RGB"))
        entry = {"width": decoded.shape[1], "height": decoded.shape[0], "sha256": sha(decoded)}
        if tolerance:
            entry["tolerance"] = tolerance
            entry["rgb_base64"] = base64.b64encode(np.ascontiguousarray(decoded).tobytes()).decode()
        expected[name] = entry

    rgba = Image.fromarray(np.dstack([rgb, alpha]), "RGBA")
    Image.fromarray(rgb).save(os.path.join(OUT, "lossless.webp"), lossless=True)
    pillow("lossless.webp")
    rgba.save(os.path.join(OUT, "alpha_lossless.webp"), lossless=True, exact=True)
    pillow("alpha_lossless.webp")
    Image.fromarray(rgb).save(os.path.join(OUT, "lossy.webp"), quality=80)
    pillow("lossy.webp", tolerance=2)
    rgba.save(os.path.join(OUT, "alpha_lossy.webp"), quality=80)
    pillow("alpha_lossy.webp", tolerance=2)

    # Animated: the first frame (a lossless frame smaller than the canvas is how Pillow stores the second).
    second = Image.fromarray(np.ascontiguousarray(rgb[::-1]))
    Image.fromarray(rgb).save(os.path.join(OUT, "animated.webp"), save_all=True, append_images=[second], lossless=True, duration=100)
    pillow("animated.webp")

    # Pillow writes GIFs of at least 16x16 interlaced unless told otherwise.
    palette64 = Image.fromarray(rgb).quantize(colors=64)
    palette64.save(os.path.join(OUT, "interlaced.gif"))
    pillow("interlaced.gif")
    palette64.save(os.path.join(OUT, "palette.gif"), interlace=False)
    pillow("palette.gif")
    # Index 5 transparent: Pillow's convert('RGB') keeps the palette color of transparent pixels (no compositing).
    palette64.save(os.path.join(OUT, "transparent.gif"), interlace=False, transparency=5)
    pillow("transparent.gif")
    # A frame smaller than the logical screen, placed at (4, 3) on a 45x30 screen: the rest is index 0, or the
    # transparent index when there is one. Made by rewriting the screen and image descriptors of a Pillow file.
    def offset_frame(source, target):
        data = bytearray(open(os.path.join(OUT, source), "rb").read())
        data[6:10] = struct.pack("<HH", W + 8, H + 7)
        descriptor = 13 + (3 << ((data[10] & 7) + 1) if data[10] & 0x80 else 0)
        while data[descriptor] == 0x21:  # extension blocks before the image descriptor
            descriptor += 2
            while data[descriptor]:
                descriptor += data[descriptor] + 1
            descriptor += 1
        assert data[descriptor] == 0x2C
        data[descriptor + 1:descriptor + 5] = struct.pack("<HH", 4, 3)
        open(os.path.join(OUT, target), "wb").write(bytes(data))
        pillow(target)
    offset_frame("palette.gif", "offset_frame.gif")
    offset_frame("transparent.gif", "offset_transparent.gif")

    # By hand (Pillow always writes a full color map): indices past a 4-entry map are black in Pillow, and a GIF
    # without any color map is gray levels. Uncompressed LZW: 9-bit codes, a clear code every 250 pixels.
    def raw_gif(name, indices, color_map):
        h, w = indices.shape
        flags = (0x80 | ((len(color_map) // 3).bit_length() - 2)) if color_map else 0
        data = b"GIF89a" + struct.pack("<HHBBB", w, h, flags, 0, 0) + bytes(color_map)
        data += b"\x2c" + struct.pack("<HHHHB", 0, 0, w, h, 0)
        codes = []
        for i, index in enumerate(indices.reshape(-1).tolist()):
            if i % 250 == 0:
                codes.append(256)
            codes.append(index)
        codes.append(257)
        bits = count = 0
        packed = bytearray()
        for code in codes:
            bits |= code << count
            count += 9
            while count >= 8:
                packed.append(bits & 255)
                bits >>= 8
                count -= 8
        if count:
            packed.append(bits & 255)
        data += b"\x08" + b"".join(bytes([len(packed[i:i + 255])]) + packed[i:i + 255] for i in range(0, len(packed), 255)) + b"\x00;"
        open(os.path.join(OUT, name), "wb").write(data)
        pillow(name)
    raw_gif("short_map.gif", (rgb[:, :, 0] // 32 * 8 + rgb[:, :, 2] // 200).astype(np.uint8), [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120])
    raw_gif("no_map.gif", gray, [])

    Image.fromarray(rgb).save(os.path.join(OUT, "rgb.tif"))
    pillow("rgb.tif")
    Image.fromarray(rgb).save(os.path.join(OUT, "lzw.tif"), compression="tiff_lzw")
    pillow("lzw.tif")
    Image.fromarray(rgb).save(os.path.join(OUT, "deflate.tif"), compression="tiff_adobe_deflate")
    pillow("deflate.tif")
    # Unassociated alpha (as Pillow writes RGBA): the color is kept, not premultiplied.
    rgba.save(os.path.join(OUT, "rgba.tif"))
    pillow("rgba.tif")
    Image.fromarray(gray).save(os.path.join(OUT, "gray.tif"))
    pillow("gray.tif")
    palette64.save(os.path.join(OUT, "palette.tif"))
    pillow("palette.tif")
    Image.fromarray(rgb).convert("CMYK").save(os.path.join(OUT, "cmyk.tif"))
    pillow("cmyk.tif", tolerance=2)

    # CMYK JPEG as Pillow writes it (inverted samples, Adobe marker), and YCCK from the same inverted samples.
    cmyk = Image.fromarray(rgb).convert("CMYK")
    cmyk.save(os.path.join(OUT, "cmyk.jpg"), quality=90)
    pillow("cmyk.jpg", tolerance=2)
    with tempfile.TemporaryDirectory() as work:
        tool = os.path.join(work, "ycck_jpeg")
        subprocess.run(["cc", "-O2", "-o", tool, os.path.join(ROOT, "tools", "image_fixtures", "ycck_jpeg.c"), "-ljpeg"], check=True)
        inverted = (255 - np.asarray(cmyk)).astype(np.uint8).tobytes()
        with open(os.path.join(OUT, "ycck.jpg"), "wb") as f:
            subprocess.run([tool, str(W), str(H), "90"], input=inverted, stdout=f, check=True)
    pillow("ycck.jpg", tolerance=2)

    # Decoding at reduced scale (libjpeg's DCT scaling, as Pillow's draft()): a larger JPEG whose expected pixels at
    # 1/2, 1/4 and 1/8 are Pillow's draft decodes.
    big_w, big_h = 160, 120
    yy, xx = np.mgrid[0:big_h, 0:big_w]
    big = np.dstack([(xx * 255 // (big_w - 1)), (yy * 255 // (big_h - 1)), ((xx // 8 + yy // 8) % 2) * 200 + 30]).astype(np.uint8)
    Image.fromarray(big).save(os.path.join(OUT, "large.jpg"), quality=90)
    pillow("large.jpg")
    scaled = {}
    for denominator in (2, 4, 8):
        image = Image.open(os.path.join(OUT, "large.jpg"))
        image.draft("RGB", (big_w // denominator, big_h // denominator))
        decoded = np.asarray(image.convert("RGB"))
        assert decoded.shape[:2] == (-(-big_h // denominator), -(-big_w // denominator)), decoded.shape
        scaled[str(denominator)] = {"width": decoded.shape[1], "height": decoded.shape[0], "sha256": sha(decoded),
                                    "rgb_base64": base64.b64encode(decoded.tobytes()).decode()}
    expected_scaled = {"large.jpg": scaled}

    with open(os.path.join(OUT, "fixtures.json"), "w") as f:
        json.dump({"pattern": sha(rgb), "width": W, "height": H, "files": expected, "scaled": expected_scaled}, f, indent=1, sort_keys=True)
    print("wrote", len(expected), "fixtures to", OUT)


if __name__ == "__main__":
    main()
