#include "image_codecs.h"

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The simplified libpng API catches libpng's errors itself (png_safe_execute), so no longjmp crosses into Swift.
int lv_png_decode(const uint8_t *data, size_t size, long long max_pixels, lv_decoded_image *out) {
    png_image image;
    memset(out, 0, sizeof(*out));
    memset(&image, 0, sizeof(image));
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) {
        snprintf(out->message, sizeof(out->message), "libpng: %s", image.message);
        return 1;
    }
    if ((long long)image.width * (long long)image.height > max_pixels) {
        snprintf(out->message, sizeof(out->message), "PNG is %ux%u, more than the %lld-pixel limit", image.width, image.height, max_pixels);
        png_image_free(&image);
        return 2;
    }
    int has_alpha = (image.format & PNG_FORMAT_FLAG_ALPHA) != 0;
    int has_color = (image.format & PNG_FORMAT_FLAG_COLOR) != 0;
    if (has_color) {
        image.format = has_alpha ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
        out->channels = has_alpha ? 4 : 3;
    } else if (has_alpha) {
        // Gray with alpha is widened to RGBA so that alpha survives with a supported channel count.
        image.format = PNG_FORMAT_RGBA;
        out->channels = 4;
    } else {
        image.format = PNG_FORMAT_GRAY;
        out->channels = 1;
    }
    size_t bytes = PNG_IMAGE_SIZE(image);
    uint8_t *pixels = malloc(bytes ? bytes : 1);
    if (!pixels) {
        snprintf(out->message, sizeof(out->message), "out of memory for a %ux%u image", image.width, image.height);
        png_image_free(&image);
        return 3;
    }
    if (!png_image_finish_read(&image, NULL, pixels, 0, NULL)) {
        snprintf(out->message, sizeof(out->message), "libpng: %s", image.message);
        free(pixels);
        png_image_free(&image);
        return 1;
    }
    out->width = (int)image.width;
    out->height = (int)image.height;
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
