#include "bundled_files.h"

const lite_bundled_file *lite_bundled_files(size_t *count) {
    *count = 0;
    return NULL;
}
