// zlib, for reading .gz files (the CLI's ink batches).
#include <zlib.h>
