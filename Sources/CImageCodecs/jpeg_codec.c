#include "image_codecs.h"

#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf escape;
    char *message;
    int truncated;
} lv_jpeg_error;

typedef struct {
    struct jpeg_progress_mgr progress;
    int max_scans;
    j_common_ptr owner;
} lv_jpeg_progress;

static void lv_jpeg_error_exit(j_common_ptr info) {
    lv_jpeg_error *error = (lv_jpeg_error *)info->err;
    char text[JMSG_LENGTH_MAX];
    (*info->err->format_message)(info, text);
    snprintf(error->message, 200, "libjpeg: %s", text);
    longjmp(error->escape, 1);
}

// Warnings are not printed; the one that matters, "premature end of data" (libjpeg pads a truncated file with
// gray and carries on), is remembered so a truncated file is reported as an error.
static void lv_jpeg_note_warning(j_common_ptr info, int level) {
    lv_jpeg_error *error = (lv_jpeg_error *)info->err;
    if (level < 0 && info->err->msg_code == JWRN_JPEG_EOF) error->truncated = 1;
}

// Progressive files can hold thousands of tiny scans that each cost a full pass (a known decompression bomb);
// libjpeg-turbo's own advice is to stop after a bounded number of scans.
static void lv_jpeg_count_scans(j_common_ptr info) {
    lv_jpeg_progress *progress = (lv_jpeg_progress *)info->progress;
    j_decompress_ptr decompress = (j_decompress_ptr)info;
    if (decompress->is_decompressor && decompress->input_scan_number > progress->max_scans) {
        lv_jpeg_error *error = (lv_jpeg_error *)info->err;
        snprintf(error->message, 200, "progressive JPEG has more than %d scans", progress->max_scans);
        longjmp(error->escape, 1);
    }
}

static int lv_jpeg_open(struct jpeg_decompress_struct *info, lv_jpeg_error *error, const uint8_t *data, size_t size, lv_decoded_image *out) {
    info->err = jpeg_std_error(&error->manager);
    error->manager.error_exit = lv_jpeg_error_exit;
    error->manager.emit_message = lv_jpeg_note_warning;
    error->truncated = 0;
    error->message = out->message;
    jpeg_create_decompress(info);
    jpeg_mem_src(info, data, (unsigned long)size);
    jpeg_read_header(info, TRUE);
    out->width = (int)info->image_width;
    out->height = (int)info->image_height;
    out->channels = info->num_components == 1 ? 1 : 3;
    return 0;
}

int lv_jpeg_read_size(const uint8_t *data, size_t size, lv_decoded_image *out) {
    struct jpeg_decompress_struct info;
    lv_jpeg_error error;
    memset(out, 0, sizeof(*out));
    if (setjmp(error.escape)) {
        jpeg_destroy_decompress(&info);
        return 1;
    }
    lv_jpeg_open(&info, &error, data, size, out);
    jpeg_destroy_decompress(&info);
    return 0;
}

// libjpeg-turbo converts CMYK and YCCK only to CMYK, not to RGB (asking for RGB is "Unsupported color conversion
// request"). The CMYK samples are converted here as Pillow does: Adobe polarity is assumed for every CMYK JPEG
// (Photoshop writes inverted samples with an Adobe APP14 marker, and libjpeg writes that marker for every CMYK or
// YCCK file), then Pillow's cmyk2rgb: R = (255 - K) - (C * (255 - K)) / 255, rounded as Pillow's MULDIV255.
static inline uint8_t lv_cmyk_channel(int ink, int black_complement) {
    int product = ink * black_complement + 128;
    int value = black_complement - (((product >> 8) + product) >> 8);
    return (uint8_t)(value < 0 ? 0 : value);
}

static void lv_cmyk_row_to_rgb(const uint8_t *cmyk, uint8_t *rgb, size_t width) {
    for (size_t x = 0; x < width; x++) {
        // Inverted (Adobe) samples: the stored value is 255 minus the ink.
        int c = 255 - cmyk[4 * x], m = 255 - cmyk[4 * x + 1], y = 255 - cmyk[4 * x + 2], k = 255 - cmyk[4 * x + 3];
        int nk = 255 - k;
        rgb[3 * x] = lv_cmyk_channel(c, nk);
        rgb[3 * x + 1] = lv_cmyk_channel(m, nk);
        rgb[3 * x + 2] = lv_cmyk_channel(y, nk);
    }
}

int lv_jpeg_decode(const uint8_t *data, size_t size, long long max_pixels, int max_scans, lv_decoded_image *out) {
    return lv_jpeg_decode_scaled(data, size, max_pixels, max_scans, 0, 0, out);
}

// After lv_jpeg_open: checks the color components, chooses the output color space and, for an image over max_pixels,
// the DCT scale (see lv_jpeg_decode_scaled). Sets out->width and out->height to the output size and *cmyk. Returns 0,
// or a status with out->message set (the caller destroys info).
static int lv_jpeg_configure(struct jpeg_decompress_struct *info, size_t size, long long max_pixels, int min_width, int min_height,
                             lv_decoded_image *out, int *cmyk_out) {
    int cmyk = info->jpeg_color_space == JCS_CMYK || info->jpeg_color_space == JCS_YCCK;
    *cmyk_out = cmyk;
    if (info->num_components != 1 && info->num_components != 3 && !(cmyk && info->num_components == 4)) {
        snprintf(out->message, sizeof(out->message), "%d color components (color space %d) is not gray, YCbCr, RGB, CMYK or YCCK",
                 info->num_components, (int)info->jpeg_color_space);
        return 4;
    }
    info->out_color_space = info->num_components == 1 ? JCS_GRAYSCALE : cmyk ? JCS_CMYK : JCS_RGB;
    long long full_pixels = (long long)info->image_width * (long long)info->image_height;
    if (full_pixels > max_pixels) {
        // Over the limit: with a size hint, decode at the smallest of libjpeg's scales 1/2, 1/4, 1/8 whose output
        // is still at least min_width x min_height, if that output is within the limit.
        // A file far too small for its header's size (a few hundred bytes claiming 65000x65000, whose missing data
        // libjpeg would pad) is refused as before: a Huffman-coded JPEG spends at least a bit per 8x8 block, about
        // pixels/350 bytes, so pixels/4096 leaves ample room for real photos.
        int chosen = 0;
        if ((min_width > 0 || min_height > 0) && (long long)size >= full_pixels / 4096) {
            for (int denominator = 8; denominator >= 2; denominator /= 2) {
                info->scale_num = 1;
                info->scale_denom = (unsigned int)denominator;
                jpeg_calc_output_dimensions(info);
                if ((long long)info->output_width >= min_width && (long long)info->output_height >= min_height) {
                    chosen = denominator;
                    break;
                }
            }
        }
        if (!chosen || (long long)info->output_width * (long long)info->output_height > max_pixels) {
            snprintf(out->message, sizeof(out->message), "JPEG is %ux%u, more than the %lld-pixel limit", info->image_width, info->image_height, max_pixels);
            return 2;
        }
        out->scale_denominator = chosen;
    } else {
        jpeg_calc_output_dimensions(info);
        out->scale_denominator = 1;
    }
    out->width = (int)info->output_width;
    out->height = (int)info->output_height;
    return 0;
}

static void lv_jpeg_watch_scans(struct jpeg_decompress_struct *info, lv_jpeg_progress *progress, int max_scans) {
    progress->progress.progress_monitor = lv_jpeg_count_scans;
    progress->max_scans = max_scans;
    info->progress = &progress->progress;
    info->mem->max_memory_to_use = 512L * 1024 * 1024;
}

/// The steps both decoders take before reading rows: reads the header, chooses the scale and output color space
/// (`*cmyk` set for CMYK and YCCK, which the caller converts), bounds the scans and memory, starts decompressing.
/// Returns 0 with `info` started, or lv_jpeg_configure's status with `info` destroyed. Errors inside libjpeg jump to
/// the caller's `error->escape`, so the caller has set it.
static int lv_jpeg_start(struct jpeg_decompress_struct *info, lv_jpeg_error *error, lv_jpeg_progress *progress,
                         const uint8_t *data, size_t size, long long max_pixels, int max_scans, int min_width,
                         int min_height, lv_decoded_image *out, int *cmyk) {
    lv_jpeg_open(info, error, data, size, out);
    *cmyk = 0;
    int status = lv_jpeg_configure(info, size, max_pixels, min_width, min_height, out, cmyk);
    if (status != 0) {
        jpeg_destroy_decompress(info);
        return status;
    }
    lv_jpeg_watch_scans(info, progress, max_scans);
    jpeg_start_decompress(info);
    return 0;
}

int lv_jpeg_decode_scaled(const uint8_t *data, size_t size, long long max_pixels, int max_scans, int min_width, int min_height,
                          lv_decoded_image *out) {
    struct jpeg_decompress_struct info;
    lv_jpeg_error error;
    lv_jpeg_progress progress;
    uint8_t *volatile pixels = NULL;
    uint8_t *volatile cmyk_row = NULL;
    memset(out, 0, sizeof(*out));
    if (setjmp(error.escape)) {
        free(pixels);
        free(cmyk_row);
        jpeg_destroy_decompress(&info);
        out->pixels = NULL;
        return 1;
    }
    int cmyk;
    int status = lv_jpeg_start(&info, &error, &progress, data, size, max_pixels, max_scans, min_width, min_height, out, &cmyk);
    if (status != 0) return status;
    int channels = cmyk ? 3 : info.output_components;
    size_t stride = (size_t)info.output_width * (size_t)channels;
    pixels = malloc(stride * info.output_height);
    if (cmyk) cmyk_row = malloc((size_t)info.output_width * 4);
    if (!pixels || (cmyk && !cmyk_row)) {
        snprintf(out->message, sizeof(out->message), "out of memory for a %ux%u image", info.output_width, info.output_height);
        free(pixels);
        free(cmyk_row);
        jpeg_destroy_decompress(&info);
        return 3;
    }
    while (info.output_scanline < info.output_height) {
        uint8_t *target = pixels + stride * info.output_scanline;
        JSAMPROW row = cmyk ? cmyk_row : target;
        if (jpeg_read_scanlines(&info, &row, 1) != 1) break;
        if (cmyk) lv_cmyk_row_to_rgb(cmyk_row, target, info.output_width);
    }
    jpeg_finish_decompress(&info);
    free(cmyk_row);
    cmyk_row = NULL;
    if (error.truncated) {
        snprintf(out->message, sizeof(out->message), "truncated: the data ends before the image is complete");
        free(pixels);
        jpeg_destroy_decompress(&info);
        return 1;
    }
    out->width = (int)info.output_width;
    out->height = (int)info.output_height;
    out->channels = channels;
    out->pixels = pixels;
    jpeg_destroy_decompress(&info);
    return 0;
}

int lv_jpeg_output_size(const uint8_t *data, size_t size, long long max_pixels, int min_width, int min_height, lv_decoded_image *out) {
    struct jpeg_decompress_struct info;
    lv_jpeg_error error;
    memset(out, 0, sizeof(*out));
    if (setjmp(error.escape)) {
        jpeg_destroy_decompress(&info);
        return 1;
    }
    lv_jpeg_open(&info, &error, data, size, out);
    int cmyk = 0;
    int status = lv_jpeg_configure(&info, size, max_pixels, min_width, min_height, out, &cmyk);
    out->channels = 3;
    jpeg_destroy_decompress(&info);
    return status;
}

int lv_jpeg_decode_rgb_into(const uint8_t *data, size_t size, long long max_pixels, int max_scans, int min_width, int min_height,
                            uint8_t *target, size_t capacity, lv_decoded_image *out) {
    struct jpeg_decompress_struct info;
    lv_jpeg_error error;
    lv_jpeg_progress progress;
    uint8_t *volatile row_buffer = NULL;
    memset(out, 0, sizeof(*out));
    if (setjmp(error.escape)) {
        free(row_buffer);
        jpeg_destroy_decompress(&info);
        return 1;
    }
    int cmyk;
    int status = lv_jpeg_start(&info, &error, &progress, data, size, max_pixels, max_scans, min_width, min_height, out, &cmyk);
    if (status != 0) return status;
    size_t width = info.output_width, stride = width * 3;
    // Gray and CMYK rows are decoded into a row buffer and converted; RGB rows straight into the target.
    int direct = !cmyk && info.output_components == 3;
    if (stride * info.output_height > capacity) {
        snprintf(out->message, sizeof(out->message), "a %ux%u image does not fit the %zu-byte buffer", info.output_width, info.output_height, capacity);
        jpeg_destroy_decompress(&info);
        return 3;
    }
    if (!direct) {
        row_buffer = malloc(width * (size_t)info.output_components);
        if (!row_buffer) {
            snprintf(out->message, sizeof(out->message), "out of memory for a %ux%u image", info.output_width, info.output_height);
            jpeg_destroy_decompress(&info);
            return 3;
        }
    }
    while (info.output_scanline < info.output_height) {
        uint8_t *first = target + stride * info.output_scanline;
        if (direct) {
            // Several rows per call (as many as libjpeg has ready): the same pixels, fewer copies through its buffers.
            JSAMPROW rows[16];
            JDIMENSION count = info.output_height - info.output_scanline;
            if (count > 16) count = 16;
            for (JDIMENSION k = 0; k < count; k++) rows[k] = first + stride * k;
            if (jpeg_read_scanlines(&info, rows, count) == 0) break;
        } else {
            JSAMPROW row = row_buffer;
            if (jpeg_read_scanlines(&info, &row, 1) != 1) break;
            if (cmyk) {
                lv_cmyk_row_to_rgb(row_buffer, first, width);
            } else {
                for (size_t x = 0; x < width; x++) first[3 * x] = first[3 * x + 1] = first[3 * x + 2] = row_buffer[x];
            }
        }
    }
    jpeg_finish_decompress(&info);
    free(row_buffer);
    row_buffer = NULL;
    if (error.truncated) {
        snprintf(out->message, sizeof(out->message), "truncated: the data ends before the image is complete");
        jpeg_destroy_decompress(&info);
        return 1;
    }
    out->width = (int)info.output_width;
    out->height = (int)info.output_height;
    out->channels = 3;
    out->pixels = NULL;
    jpeg_destroy_decompress(&info);
    return 0;
}

int lv_jpeg_encode(const uint8_t *pixels, int width, int height, int channels, int quality, uint8_t **out, size_t *out_size,
                   char *message, size_t message_size) {
    if (channels != 1 && channels != 3) {
        snprintf(message, message_size, "JPEG holds gray or RGB pixels, not %d channels", channels);
        return 1;
    }
    struct jpeg_compress_struct info;
    lv_jpeg_error error;
    char text[200] = {0};
    // Locals changed after setjmp and read after a longjmp must be volatile.
    unsigned char *volatile buffer = NULL;
    unsigned long size = 0;
    info.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = lv_jpeg_error_exit;
    error.message = text;
    error.truncated = 0;
    if (setjmp(error.escape)) {
        jpeg_destroy_compress(&info);
        free(buffer);
        snprintf(message, message_size, "%s", text);
        return 1;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, (unsigned char **)&buffer, &size);
    info.image_width = (JDIMENSION)width;
    info.image_height = (JDIMENSION)height;
    info.input_components = channels;
    info.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)info.next_scanline * (size_t)width * (size_t)channels);
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    *out = buffer;
    *out_size = size;
    return 0;
}
