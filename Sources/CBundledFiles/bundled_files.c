#include "bundled_files.h"

#if defined(__ELF__) && defined(__LP64__)

// Defined in bundled_files.S.
extern const lite_bundled_file lite_bundled_table[] __attribute__((visibility("hidden")));
extern const size_t lite_bundled_table_count __attribute__((visibility("hidden")));

const lite_bundled_file *lite_bundled_files(size_t *count) {
    *count = lite_bundled_table_count;
    return lite_bundled_table;
}

#else

// bundled_files.S is ELF-only (see there): nothing is bundled on other platforms.
const lite_bundled_file *lite_bundled_files(size_t *count) {
    *count = 0;
    return NULL;
}

#endif
