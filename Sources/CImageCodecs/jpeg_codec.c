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

int lv_jpeg_decode(const uint8_t *data, size_t size, long long max_pixels, int max_scans, lv_decoded_image *out) {
    struct jpeg_decompress_struct info;
    lv_jpeg_error error;
    lv_jpeg_progress progress;
    uint8_t *volatile pixels = NULL;
    memset(out, 0, sizeof(*out));
    if (setjmp(error.escape)) {
        free(pixels);
        jpeg_destroy_decompress(&info);
        out->pixels = NULL;
        return 1;
    }
    lv_jpeg_open(&info, &error, data, size, out);
    if ((long long)info.image_width * (long long)info.image_height > max_pixels) {
        snprintf(out->message, sizeof(out->message), "JPEG is %ux%u, more than the %lld-pixel limit", info.image_width, info.image_height, max_pixels);
        jpeg_destroy_decompress(&info);
        return 2;
    }
    progress.progress.progress_monitor = lv_jpeg_count_scans;
    progress.max_scans = max_scans;
    info.progress = &progress.progress;
    info.mem->max_memory_to_use = 512L * 1024 * 1024;
    info.out_color_space = info.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&info);
    size_t stride = (size_t)info.output_width * (size_t)info.output_components;
    pixels = malloc(stride * info.output_height);
    if (!pixels) {
        snprintf(out->message, sizeof(out->message), "out of memory for a %ux%u image", info.output_width, info.output_height);
        jpeg_destroy_decompress(&info);
        return 3;
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = pixels + stride * info.output_scanline;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    if (error.truncated) {
        snprintf(out->message, sizeof(out->message), "truncated: the data ends before the image is complete");
        free(pixels);
        jpeg_destroy_decompress(&info);
        return 1;
    }
    out->width = (int)info.output_width;
    out->height = (int)info.output_height;
    out->channels = info.output_components;
    out->pixels = pixels;
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
