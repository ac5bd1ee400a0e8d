#ifndef RECORDERD_CZLIB_SHIM_H
#define RECORDERD_CZLIB_SHIM_H
#include <zlib.h>

// deflateInit2 is a macro in zlib.h (it passes the library's version and the stream's size):
// a function Swift can call.
static inline int recorderd_deflate_init_raw(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}
#endif
