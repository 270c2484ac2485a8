#include "image_codecs.h"

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t offset;
} lv_png_source;

static void lv_png_read(png_structp png, png_bytep out, png_size_t count) {
    lv_png_source *source = (lv_png_source *)png_get_io_ptr(png);
    if (count > source->size - source->offset) png_error(png, "truncated: the data ends before the image is complete");
    memcpy(out, source->data + source->offset, count);
    source->offset += count;
}

static void lv_png_error(png_structp png, png_const_charp message) {
    char *target = (char *)png_get_error_ptr(png);
    snprintf(target, 200, "libpng: %s", message);
    png_longjmp(png, 1);
}

static void lv_png_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

// libpng's progressive-free reader with its longjmp caught here. Transforms: palette and low bit depths expanded,
// tRNS to alpha, 16-bit scaled to 8 with rounding (png_set_scale_16, not a gamma conversion: the simplified
// API would treat 16-bit data as linear light and re-encode it), gray kept gray unless it has alpha.
int lv_png_decode(const uint8_t *data, size_t size, long long max_pixels, lv_decoded_image *out) {
    memset(out, 0, sizeof(*out));
    lv_png_source source = {data, size, 0};
    if (size < 8 || png_sig_cmp(data, 0, 8)) {
        snprintf(out->message, sizeof(out->message), "not a PNG signature");
        return 1;
    }
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, out->message, lv_png_error, lv_png_warning);
    if (!png) return 3;
    png_infop info = png_create_info_struct(png);
    uint8_t *volatile pixels = NULL;
    png_bytep *volatile rows = NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        free(pixels);
        free(rows);
        png_destroy_read_struct(&png, info ? &info : NULL, NULL);
        return 1;
    }
    png_set_read_fn(png, &source, lv_png_read);
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_set_chunk_malloc_max(png, 64 * 1024 * 1024);
    png_read_info(png, info);
    png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    out->width = (int)width;
    out->height = (int)height;
    if ((long long)width * (long long)height > max_pixels) {
        snprintf(out->message, sizeof(out->message), "PNG is %ux%u, more than the %lld-pixel limit", width, height, max_pixels);
        png_destroy_read_struct(&png, &info, NULL);
        return 2;
    }
    int color = png_get_color_type(png, info);
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (png_get_bit_depth(png, info) == 16) png_set_scale_16(png);
    if (color == PNG_COLOR_TYPE_GRAY_ALPHA || (color == PNG_COLOR_TYPE_GRAY && png_get_valid(png, info, PNG_INFO_tRNS))) png_set_gray_to_rgb(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    int channels = png_get_channels(png, info);
    size_t stride = png_get_rowbytes(png, info);
    if (channels < 1 || channels > 4 || stride != (size_t)width * (size_t)channels) {
        snprintf(out->message, sizeof(out->message), "unexpected PNG layout (%d channels, %zu bytes per row)", channels, stride);
        png_destroy_read_struct(&png, &info, NULL);
        return 1;
    }
    if (channels == 2) {
        snprintf(out->message, sizeof(out->message), "gray+alpha was not widened");
        png_destroy_read_struct(&png, &info, NULL);
        return 1;
    }
    pixels = malloc(stride * height ? stride * height : 1);
    rows = malloc(sizeof(png_bytep) * (height ? height : 1));
    if (!pixels || !rows) {
        free(pixels);
        free(rows);
        snprintf(out->message, sizeof(out->message), "out of memory for a %ux%u image", width, height);
        png_destroy_read_struct(&png, &info, NULL);
        return 3;
    }
    for (png_uint_32 y = 0; y < height; y++) rows[y] = pixels + y * stride;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    out->channels = channels;
    out->pixels = pixels;
    return 0;
}

int lv_png_encode(const uint8_t *pixels, int width, int height, int channels, uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    png_image image;
    memset(&image, 0, sizeof(image));
    image.version = PNG_IMAGE_VERSION;
    image.width = (png_uint_32)width;
    image.height = (png_uint_32)height;
    image.format = channels == 1 ? PNG_FORMAT_GRAY : channels == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_RGBA;
    png_alloc_size_t size = 0;
    if (!png_image_write_to_memory(&image, NULL, &size, 0, pixels, 0, NULL)) {
        snprintf(message, message_size, "libpng: %s", image.message);
        return 1;
    }
    uint8_t *buffer = malloc(size);
    if (!buffer) {
        snprintf(message, message_size, "out of memory");
        return 3;
    }
    if (!png_image_write_to_memory(&image, buffer, &size, 0, pixels, 0, NULL)) {
        snprintf(message, message_size, "libpng: %s", image.message);
        free(buffer);
        return 1;
    }
    *out = buffer;
    *out_size = size;
    return 0;
}
