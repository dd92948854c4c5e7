// The exports npm/lib/codecs.js calls: libzstd's decompressor and zlib's
// inflate (built from their sources, see build.sh), with malloc for the
// buffers it passes in.
#include <stdlib.h>
#include "zstd.h"
#include "zlib.h"

#define EXPORT(name) __attribute__((export_name(name)))

EXPORT("malloc_") void *malloc_(size_t n) { return malloc(n); }

EXPORT("free_") void free_(void *p) { free(p); }

static ZSTD_DCtx *dctx;

// Decodes every frame of src into dst: the size written, or -1.
EXPORT("zstd_decompress") long zstd_decompress(void *dst, size_t cap, const void *src, size_t n) {
  if (!dctx && !(dctx = ZSTD_createDCtx())) return -1;
  size_t r = ZSTD_decompressDCtx(dctx, dst, cap, src, n);
  return ZSTD_isError(r) ? -1 : (long)r;
}

// Inflates a zlib stream (gzip = 0) or one or more gzip members (gzip = 1)
// into dst: the size written, -1 for corrupt or trailing data, -2 when dst
// is too small.
EXPORT("inflate_") long inflate_(int gzip, unsigned char *dst, unsigned long cap, unsigned char *src, unsigned long n) {
  z_stream s = {0};
  if (inflateInit2(&s, gzip ? 15 + 16 : 15) != Z_OK) return -1;
  s.next_in = src;
  s.avail_in = n;
  s.next_out = dst;
  s.avail_out = cap;
  long ret = -1;
  for (;;) {
    int r = inflate(&s, Z_FINISH);
    if (r == Z_STREAM_END && gzip && s.avail_in > 0) {
      if (inflateReset(&s) != Z_OK) break;
      continue;
    }
    if (r == Z_STREAM_END && s.avail_in == 0) ret = (long)(cap - s.avail_out);
    else if (r == Z_BUF_ERROR && s.avail_out == 0) ret = -2;
    break;
  }
  inflateEnd(&s);
  return ret;
}
