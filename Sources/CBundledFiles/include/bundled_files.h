#ifndef LITE_BUNDLED_FILES_H
#define LITE_BUNDLED_FILES_H

#include <stddef.h>

/// A file of the package's models/ folder compiled into the binary.
typedef struct {
    const char *name;           ///< The file's name in models/ ("registry.json", "ink-en.tflite", ...).
    const unsigned char *bytes;
    size_t size;
} lite_bundled_file;

/// The bundled files, `*count` of them. The bytes live in the binary's read-only data for the life of the process.
const lite_bundled_file *lite_bundled_files(size_t *count);

#endif
