// Thin C wrappers around libjpeg-turbo, libpng, libwebp, giflib and libtiff that turn their longjmp-based error handling into return
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
    int scale_denominator; // JPEG only: 1, or 2, 4 or 8 when decoded at a reduced scale (lv_jpeg_decode_scaled)
} lv_decoded_image;

// Header only: fills width/height/channels of a JPEG without decoding it. Returns 0 on success.
int lv_jpeg_read_size(const uint8_t *data, size_t size, lv_decoded_image *out);

// Decodes a baseline or progressive JPEG to gray or RGB (CMYK/YCCK are converted to RGB as Pillow does). Refuses
// images of more than max_pixels pixels and progressive files of more than max_scans scans before allocating.
// Returns 0 on success, 2 when over the pixel limit, 1 or 4 for corrupt or unsupported files.
int lv_jpeg_decode(const uint8_t *data, size_t size, long long max_pixels, int max_scans, lv_decoded_image *out);

// As lv_jpeg_decode, but an image of more than max_pixels pixels is decoded with libjpeg's DCT scaling at the
// smallest of 1/2, 1/4 and 1/8 whose output is still at least min_width x min_height, when that output is within
// max_pixels (out->scale_denominator says which); refused as before when min_width and min_height are both 0, or
// when the file has fewer than one byte per 4096 pixels of its header's size (a truncated or hostile header).
int lv_jpeg_decode_scaled(const uint8_t *data, size_t size, long long max_pixels, int max_scans, int min_width, int min_height,
                          lv_decoded_image *out);

// The output size lv_jpeg_decode_scaled would give (out->width, out->height, out->scale_denominator; channels 3),
// from the header alone, with the same statuses for files it would refuse before decoding.
int lv_jpeg_output_size(const uint8_t *data, size_t size, long long max_pixels, int min_width, int min_height, lv_decoded_image *out);

// As lv_jpeg_decode_scaled, but always to RGB (gray replicated into the three channels, as the Swift side does with
// lv_jpeg_decode_scaled's gray output) and into the caller's buffer `target` of `capacity` bytes, which must hold
// width * height * 3 of lv_jpeg_output_size's size (status 3 otherwise). out->pixels stays NULL. The same pixels
// as lv_jpeg_decode_scaled; without its malloc, and without the copy into the caller's memory.
int lv_jpeg_decode_rgb_into(const uint8_t *data, size_t size, long long max_pixels, int max_scans, int min_width, int min_height,
                            uint8_t *target, size_t capacity, lv_decoded_image *out);

// Decodes a lossy or lossless WebP to RGB or RGBA; of an animation, the first frame on its canvas (as Pillow). The canvas size from WebPGetInfo is checked against max_pixels before decoding. Returns 0 on success.
int lv_webp_decode(const uint8_t *data, size_t size, long long max_pixels, lv_decoded_image *out);

// Decodes the first image of a GIF to RGB as Pillow's Image.open(p).convert('RGB') does: the canvas is the logical
// screen (grown to hold the frame), pixels outside the frame are the transparent index (else index 0), and every
// index, the transparent one included, becomes its color-map entry (no compositing; black past the map, gray levels
// without a map). Returns 0 on success.
int lv_gif_decode(const uint8_t *data, size_t size, long long max_pixels, lv_decoded_image *out);

// Decodes the first directory of a TIFF through libtiff's RGBA interface (RGB, gray, palette, CMYK, YCbCr, any
// compression libtiff reads; 16-bit samples reduced by libtiff, which Pillow does differently) to RGBA, top-left origin; unassociated alpha is not premultiplied, so
// the color matches Pillow's convert('RGB'). Returns 0 on success.
int lv_tiff_decode(const uint8_t *data, size_t size, long long max_pixels, lv_decoded_image *out);

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
