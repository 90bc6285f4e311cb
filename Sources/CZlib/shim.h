#ifndef ONBOARDMETRICS_CZLIB_SHIM_H
#define ONBOARDMETRICS_CZLIB_SHIM_H

#include <zlib.h>

// inflateInit2 is a macro over inflateInit2_ (it passes the library's version and stream size),
// which Swift cannot call; this function is what the collector uses instead.
static inline int onboardmetrics_inflate_init(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

#endif
