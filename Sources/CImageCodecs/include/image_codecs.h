// Thin C wrappers around libjpeg-turbo and libpng that turn their longjmp-based error handling into return
// codes with a message, so Swift never sees a longjmp. Pixels are returned in malloc'ed buffers the caller frees.
#ifndef LITEVISION_IMAGE_CODECS_H
#define LITEVISION_IMAGE_CODECS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int width;
    int height;
    int channels;          // 1 (gray), 3 (RGB) or 4 (RGBA)
    uint8_t *pixels;       // width * height * channels bytes, rows top-down, freed with free()
    char message[200];     // why decoding failed
} lv_decoded_image;

// Header only: fills width/height/channels of a JPEG without decoding it. Returns 0 on success.
int lv_jpeg_read_size(const uint8_t *data, size_t size, lv_decoded_image *out);

// Decodes a baseline or progressive JPEG to gray or RGB (CMYK/YCCK are converted to RGB). Refuses images of
// more than max_pixels pixels and progressive files of more than max_scans scans before allocating.
// Returns 0 on success.
int lv_jpeg_decode(const uint8_t *data, size_t size, long long max_pixels, int max_scans, lv_decoded_image *out);

// Decodes any PNG (1/2/4/8/16 bit, gray, gray+alpha, palette, RGB, RGBA, interlaced) to 8-bit gray, RGB or
// RGBA (alpha kept when the file has it, including tRNS). Refuses more than max_pixels pixels. Returns 0 on success.
int lv_png_decode(const uint8_t *data, size_t size, long long max_pixels, lv_decoded_image *out);

// Encodes 8-bit pixels (channels 1, 3 or 4) as PNG into a malloc'ed buffer. Returns 0 on success.
int lv_png_encode(const uint8_t *pixels, int width, int height, int channels, uint8_t **out, size_t *out_size, char *message, size_t message_size);

// Encodes 8-bit gray (channels 1) or RGB (channels 3) pixels as a baseline JPEG of the given quality (1-100) into a
// malloc'ed buffer. Returns 0 on success.
int lv_jpeg_encode(const uint8_t *pixels, int width, int height, int channels, int quality, uint8_t **out, size_t *out_size,
                   char *message, size_t message_size);

#endif
