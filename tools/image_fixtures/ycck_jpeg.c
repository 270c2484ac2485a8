// Writes a YCCK JPEG (Adobe marker, transform 2) from raw inverted-CMYK samples, for tools/make_image_fixtures.py:
// Pillow writes CMYK JPEGs but never YCCK, the color space Photoshop uses for most CMYK JPEGs.
//     ycck_jpeg WIDTH HEIGHT QUALITY < cmyk-samples > out.jpg
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

int main(int argc, char **argv) {
    if (argc != 4) return 2;
    int width = atoi(argv[1]), height = atoi(argv[2]), quality = atoi(argv[3]);
    size_t size = (size_t)width * height * 4;
    unsigned char *samples = malloc(size);
    if (!samples || fread(samples, 1, size, stdin) != size) return 1;
    struct jpeg_compress_struct info;
    struct jpeg_error_mgr error;
    info.err = jpeg_std_error(&error);
    jpeg_create_compress(&info);
    jpeg_stdio_dest(&info, stdout);
    info.image_width = width;
    info.image_height = height;
    info.input_components = 4;
    info.in_color_space = JCS_CMYK;
    jpeg_set_defaults(&info);
    jpeg_set_colorspace(&info, JCS_YCCK);
    jpeg_set_quality(&info, quality, TRUE);
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = samples + (size_t)info.next_scanline * width * 4;
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    return 0;
}
