// WebP (libwebp), GIF (giflib) and TIFF (libtiff) decoding from memory. None of the three longjmps: libwebp and
// giflib return status codes, libtiff reports through a per-handle error handler (TIFFClientOpenExt), so these
// wrappers need no setjmp. Every size is checked against max_pixels before the pixel buffer is allocated.
#include "image_codecs.h"

#include <gif_lib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include <webp/decode.h>
#include <webp/demux.h>

static int lv_too_large(lv_decoded_image *out, const char *format, long long width, long long height, long long max_pixels) {
    out->width = (int)width;
    out->height = (int)height;
    snprintf(out->message, sizeof(out->message), "%s is %lldx%lld, more than the %lld-pixel limit", format, width, height, max_pixels);
    return 2;
}

// MARK: WebP

int lv_webp_decode(const uint8_t *data, size_t size, long long max_pixels, lv_decoded_image *out) {
    memset(out, 0, sizeof(*out));
    int width = 0, height = 0;
    if (!WebPGetInfo(data, size, &width, &height)) {
        snprintf(out->message, sizeof(out->message), "not a valid WebP header");
        return 1;
    }
    if ((long long)width * (long long)height > max_pixels) return lv_too_large(out, "WebP", width, height, max_pixels);
    WebPBitstreamFeatures features;
    VP8StatusCode status = WebPGetFeatures(data, size, &features);
    if (status != VP8_STATUS_OK) {
        snprintf(out->message, sizeof(out->message), "libwebp: bitstream features unreadable (status %d)", (int)status);
        return 1;
    }
    if (features.has_animation) {
        // The first frame composited on the canvas, as Pillow reads it (WebPAnimDecoder, RGBA: the canvas starts
        // transparent black, its background color is ignored). WebPGetInfo gave the canvas size, checked above.
        WebPAnimDecoderOptions options;
        if (!WebPAnimDecoderOptionsInit(&options)) {
            snprintf(out->message, sizeof(out->message), "libwebp: animation decoder version mismatch");
            return 1;
        }
        options.color_mode = MODE_RGBA;
        options.use_threads = 0;
        WebPData webp = {data, size};
        WebPAnimDecoder *decoder = WebPAnimDecoderNew(&webp, &options);
        if (!decoder) {
            snprintf(out->message, sizeof(out->message), "libwebp could not read the %dx%d animation", width, height);
            return 1;
        }
        WebPAnimInfo info;
        uint8_t *frame = NULL;
        int timestamp = 0;
        if (!WebPAnimDecoderGetInfo(decoder, &info) || (long long)info.canvas_width * info.canvas_height > max_pixels ||
            !WebPAnimDecoderGetNext(decoder, &frame, &timestamp) || !frame) {
            WebPAnimDecoderDelete(decoder);
            snprintf(out->message, sizeof(out->message), "libwebp could not decode the first frame of the %dx%d animation (truncated or corrupt)", width, height);
            return 1;
        }
        size_t bytes = (size_t)info.canvas_width * (size_t)info.canvas_height * 4;
        out->pixels = malloc(bytes);
        if (!out->pixels) {
            WebPAnimDecoderDelete(decoder);
            snprintf(out->message, sizeof(out->message), "out of memory for a %ux%u image", info.canvas_width, info.canvas_height);
            return 3;
        }
        memcpy(out->pixels, frame, bytes);
        out->width = (int)info.canvas_width;
        out->height = (int)info.canvas_height;
        out->channels = 4;
        WebPAnimDecoderDelete(decoder);
        return 0;
    }
    int decoded_width = 0, decoded_height = 0;
    uint8_t *pixels = features.has_alpha ? WebPDecodeRGBA(data, size, &decoded_width, &decoded_height)
                                         : WebPDecodeRGB(data, size, &decoded_width, &decoded_height);
    if (!pixels) {
        snprintf(out->message, sizeof(out->message), "libwebp could not decode the %dx%d %s bitstream (truncated or corrupt)", width, height,
                 features.format == 2 ? "lossless" : "lossy");
        return 1;
    }
    int channels = features.has_alpha ? 4 : 3;
    // WebPDecode's buffer is released with WebPFree; hand the caller a malloc'ed copy so it can free() it.
    size_t bytes = (size_t)decoded_width * (size_t)decoded_height * (size_t)channels;
    out->pixels = malloc(bytes);
    if (!out->pixels) {
        WebPFree(pixels);
        snprintf(out->message, sizeof(out->message), "out of memory for a %dx%d image", decoded_width, decoded_height);
        return 3;
    }
    memcpy(out->pixels, pixels, bytes);
    WebPFree(pixels);
    out->width = decoded_width;
    out->height = decoded_height;
    out->channels = channels;
    return 0;
}

// MARK: GIF

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t position;
} lv_memory_reader;

static int lv_gif_read(GifFileType *gif, GifByteType *buffer, int count) {
    lv_memory_reader *reader = (lv_memory_reader *)gif->UserData;
    if (count <= 0) return 0;
    size_t available = reader->size - reader->position;
    size_t n = (size_t)count < available ? (size_t)count : available;
    memcpy(buffer, reader->data + reader->position, n);
    reader->position += n;
    return (int)n;
}

static int lv_gif_fail(GifFileType *gif, lv_decoded_image *out, int code, const char *what) {
    const char *reason = GifErrorString(code);
    snprintf(out->message, sizeof(out->message), "giflib: %s (%s)", reason ? reason : "unknown error", what);
    int ignored;
    if (gif) DGifCloseFile(gif, &ignored);
    return 1;
}

int lv_gif_decode(const uint8_t *data, size_t size, long long max_pixels, lv_decoded_image *out) {
    memset(out, 0, sizeof(*out));
    lv_memory_reader reader = {data, size, 0};
    int error = 0;
    GifFileType *gif = DGifOpen(&reader, lv_gif_read, &error);
    if (!gif) return lv_gif_fail(NULL, out, error, "header");
    int transparent = -1;
    for (;;) {
        GifRecordType record;
        if (DGifGetRecordType(gif, &record) == GIF_ERROR) return lv_gif_fail(gif, out, gif->Error, "record");
        if (record == TERMINATE_RECORD_TYPE) {
            snprintf(out->message, sizeof(out->message), "the GIF holds no image");
            DGifCloseFile(gif, &error);
            return 1;
        }
        if (record == EXTENSION_RECORD_TYPE) {
            int code = 0;
            GifByteType *block = NULL;
            if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) return lv_gif_fail(gif, out, gif->Error, "extension");
            if (code == GRAPHICS_EXT_FUNC_CODE && block && block[0] >= 4) {
                GraphicsControlBlock control;
                if (DGifExtensionToGCB(block[0], block + 1, &control) == GIF_OK) transparent = control.TransparentColor;
            }
            while (block) {
                if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return lv_gif_fail(gif, out, gif->Error, "extension");
            }
            continue;
        }
        if (record != IMAGE_DESC_RECORD_TYPE) continue;
        if (DGifGetImageDesc(gif) == GIF_ERROR) return lv_gif_fail(gif, out, gif->Error, "image descriptor");
        break;
    }
    GifImageDesc frame = gif->Image;
    // Pillow grows the canvas to hold a frame that reaches past the logical screen.
    long long width = gif->SWidth, height = gif->SHeight;
    if ((long long)frame.Left + frame.Width > width) width = (long long)frame.Left + frame.Width;
    if ((long long)frame.Top + frame.Height > height) height = (long long)frame.Top + frame.Height;
    if (width <= 0 || height <= 0 || frame.Width <= 0 || frame.Height <= 0) {
        snprintf(out->message, sizeof(out->message), "empty image (%lldx%lld canvas, %dx%d frame)", width, height, frame.Width, frame.Height);
        DGifCloseFile(gif, &error);
        return 1;
    }
    if (width * height > max_pixels) {
        DGifCloseFile(gif, &error);
        return lv_too_large(out, "GIF", width, height, max_pixels);
    }
    const ColorMapObject *map = frame.ColorMap ? frame.ColorMap : gif->SColorMap;
    // Copied now: the color maps are freed with the file. As Pillow: an index past the map is black, and without
    // any map the indices are gray levels (mode L).
    uint8_t palette[256][3];
    for (int i = 0; i < 256; i++) palette[i][0] = palette[i][1] = palette[i][2] = map && map->Colors ? 0 : (uint8_t)i;
    if (map && map->Colors) {
        int count = map->ColorCount < 256 ? map->ColorCount : 256;
        for (int i = 0; i < count; i++) {
            palette[i][0] = map->Colors[i].Red;
            palette[i][1] = map->Colors[i].Green;
            palette[i][2] = map->Colors[i].Blue;
        }
    }
    uint8_t *indices = malloc((size_t)width * (size_t)height);
    uint8_t *pixels = malloc((size_t)width * (size_t)height * 3);
    if (!indices || !pixels) {
        free(indices);
        free(pixels);
        DGifCloseFile(gif, &error);
        snprintf(out->message, sizeof(out->message), "out of memory for a %lldx%lld image", width, height);
        return 3;
    }
    memset(indices, transparent >= 0 ? transparent : 0, (size_t)width * (size_t)height);
    // Interlaced frames store rows in four passes: every 8th row from 0, every 8th from 4, every 4th from 2, every
    // 2nd from 1.
    static const int starts[4] = {0, 4, 2, 1}, steps[4] = {8, 8, 4, 2};
    int passes = frame.Interlace ? 4 : 1;
    for (int pass = 0; pass < passes; pass++) {
        int start = frame.Interlace ? starts[pass] : 0, step = frame.Interlace ? steps[pass] : 1;
        for (int row = start; row < frame.Height; row += step) {
            GifPixelType *line = indices + ((size_t)(frame.Top + row) * (size_t)width + (size_t)frame.Left);
            if (DGifGetLine(gif, line, frame.Width) == GIF_ERROR) {
                free(indices);
                free(pixels);
                return lv_gif_fail(gif, out, gif->Error, "image data");
            }
        }
    }
    DGifCloseFile(gif, &error);
    size_t count = (size_t)width * (size_t)height;
    for (size_t i = 0; i < count; i++) memcpy(pixels + 3 * i, palette[indices[i]], 3);
    free(indices);
    out->width = (int)width;
    out->height = (int)height;
    out->channels = 3;
    out->pixels = pixels;
    return 0;
}

// MARK: TIFF

typedef struct {
    lv_memory_reader reader;
    char *message;
    int failed;
} lv_tiff_source;

static tmsize_t lv_tiff_read(thandle_t handle, void *buffer, tmsize_t count) {
    lv_memory_reader *reader = &((lv_tiff_source *)handle)->reader;
    if (count <= 0 || reader->position >= reader->size) return 0;
    size_t available = reader->size - reader->position;
    size_t n = (size_t)count < available ? (size_t)count : available;
    memcpy(buffer, reader->data + reader->position, n);
    reader->position += n;
    return (tmsize_t)n;
}

static tmsize_t lv_tiff_write(thandle_t handle, void *buffer, tmsize_t count) {
    (void)handle; (void)buffer; (void)count;
    return -1;
}

static toff_t lv_tiff_seek(thandle_t handle, toff_t offset, int whence) {
    lv_memory_reader *reader = &((lv_tiff_source *)handle)->reader;
    unsigned long long base = whence == SEEK_CUR ? reader->position : whence == SEEK_END ? reader->size : 0;
    unsigned long long target = base + offset;  // a negative SEEK_CUR offset wraps to the right place
    // Seeking past the end is allowed (reads there return nothing), as with a file.
    reader->position = target > reader->size ? reader->size : (size_t)target;
    return (toff_t)target;
}

static int lv_tiff_close(thandle_t handle) { (void)handle; return 0; }
static toff_t lv_tiff_size(thandle_t handle) { return (toff_t)((lv_tiff_source *)handle)->reader.size; }
static int lv_tiff_map(thandle_t handle, void **base, toff_t *size) { (void)handle; (void)base; (void)size; return 0; }
static void lv_tiff_unmap(thandle_t handle, void *base, toff_t size) { (void)handle; (void)base; (void)size; }

static int lv_tiff_error(TIFF *tif, void *user, const char *module, const char *format, va_list arguments) {
    (void)tif;
    lv_tiff_source *source = (lv_tiff_source *)user;
    if (!source->failed) {
        char text[160];
        vsnprintf(text, sizeof(text), format, arguments);
        snprintf(source->message, 200, "libtiff: %s%s%s", module ? module : "", module ? ": " : "", text);
    }
    source->failed = 1;
    return 1;
}

static int lv_tiff_warning(TIFF *tif, void *user, const char *module, const char *format, va_list arguments) {
    (void)tif; (void)user; (void)module; (void)format; (void)arguments;
    return 1;
}

int lv_tiff_decode(const uint8_t *data, size_t size, long long max_pixels, lv_decoded_image *out) {
    memset(out, 0, sizeof(*out));
    lv_tiff_source source = {{data, size, 0}, out->message, 0};
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) {
        snprintf(out->message, sizeof(out->message), "out of memory");
        return 3;
    }
    TIFFOpenOptionsSetErrorHandlerExtR(options, lv_tiff_error, &source);
    TIFFOpenOptionsSetWarningHandlerExtR(options, lv_tiff_warning, &source);
    // libtiff's own allocations (strip buffers, tables) stay bounded whatever the header claims.
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, 256 * 1024 * 1024);
    TIFF *tif = TIFFClientOpenExt("memory", "rm", (thandle_t)&source, lv_tiff_read, lv_tiff_write, lv_tiff_seek, lv_tiff_close,
                                  lv_tiff_size, lv_tiff_map, lv_tiff_unmap, options);
    TIFFOpenOptionsFree(options);
    if (!tif) {
        if (!source.failed) snprintf(out->message, sizeof(out->message), "libtiff could not read the header");
        return 1;
    }
    uint32_t width = 0, height = 0;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height) || width == 0 || height == 0) {
        snprintf(out->message, sizeof(out->message), "no image size in the first directory");
        TIFFClose(tif);
        return 1;
    }
    if ((long long)width * (long long)height > max_pixels) {
        TIFFClose(tif);
        return lv_too_large(out, "TIFF", width, height, max_pixels);
    }
    // libtiff's RGBA interface premultiplies unassociated alpha; Pillow (and MediaPipe's RGBA-to-RGB) drop alpha
    // and keep the color. Marking the alpha as associated (already premultiplied) makes libtiff pass the color through.
    uint16_t extra_count = 0;
    uint16_t *extra = NULL;
    if (TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra) && extra_count >= 1 && extra_count <= 16 && extra[0] == EXTRASAMPLE_UNASSALPHA) {
        uint16_t associated[16];
        memcpy(associated, extra, extra_count * sizeof(uint16_t));
        associated[0] = EXTRASAMPLE_ASSOCALPHA;
        TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, extra_count, associated);
    }
    char reason[1024];
    if (!TIFFRGBAImageOK(tif, reason)) {
        snprintf(out->message, sizeof(out->message), "libtiff's RGBA interface cannot read it: %.150s", reason);
        TIFFClose(tif);
        return 4;
    }
    uint32_t *raster = malloc((size_t)width * (size_t)height * sizeof(uint32_t));
    if (!raster) {
        snprintf(out->message, sizeof(out->message), "out of memory for a %ux%u image", width, height);
        TIFFClose(tif);
        return 3;
    }
    source.failed = 0;
    int ok = TIFFReadRGBAImageOriented(tif, width, height, raster, ORIENTATION_TOPLEFT, 1);
    TIFFClose(tif);
    if (!ok || source.failed) {
        if (!source.failed) snprintf(out->message, sizeof(out->message), "libtiff could not read the image data (truncated or corrupt)");
        free(raster);
        return 1;
    }
    // The raster holds ABGR words (R in the low byte); write RGBA bytes in place.
    size_t count = (size_t)width * (size_t)height;
    uint8_t *pixels = (uint8_t *)raster;
    for (size_t i = 0; i < count; i++) {
        uint32_t word = raster[i];
        pixels[4 * i] = (uint8_t)TIFFGetR(word);
        pixels[4 * i + 1] = (uint8_t)TIFFGetG(word);
        pixels[4 * i + 2] = (uint8_t)TIFFGetB(word);
        pixels[4 * i + 3] = (uint8_t)TIFFGetA(word);
    }
    out->width = (int)width;
    out->height = (int)height;
    out->channels = 4;
    out->pixels = pixels;
    return 0;
}
