// The encoders npm/lib/codecs.js loads when the engine's full build starts
// (writing happens there): libzstd's compressor and zlib's deflate, built
// from their sources by build.sh into a module of their own, so that a
// program that only reads never downloads them.
#include <stdlib.h>
#include "zstd.h"
#include "zlib.h"

#define EXPORT(name) __attribute__((export_name(name)))

EXPORT("malloc_") void *malloc_(size_t n) { return malloc(n); }

EXPORT("free_") void free_(void *p) { free(p); }

EXPORT("zstd_bound") size_t zstd_bound(size_t n) { return ZSTD_compressBound(n); }

static ZSTD_CCtx *cctx;

// One frame with the content size in its header (numcodecs before 0.13
// needs it), a checksum when asked: the size written, or -1.
EXPORT("zstd_compress") long zstd_compress(void *dst, size_t cap, const void *src, size_t n, int level, int checksum) {
  if (!cctx && !(cctx = ZSTD_createCCtx())) return -1;
  ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
  if (ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level)) ||
      ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, checksum ? 1 : 0)) ||
      ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1)))
    return -1;
  size_t r = ZSTD_compress2(cctx, dst, cap, src, n);
  return ZSTD_isError(r) ? -1 : (long)r;
}

EXPORT("deflate_bound") unsigned long deflate_bound(unsigned long n) { return compressBound(n) + 32; }

// A zlib stream (gzip = 0) or one gzip member (gzip = 1; no name, time 0,
// OS unknown, as Go's compress/gzip writes) at level: the size written, or -1.
EXPORT("deflate_") long deflate_(int gzip, int level, unsigned char *dst, unsigned long cap, unsigned char *src, unsigned long n) {
  z_stream s = {0};
  if (deflateInit2(&s, level, Z_DEFLATED, gzip ? 15 + 16 : 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return -1;
  if (gzip) {
    gz_header h = {0};
    h.os = 255;
    if (deflateSetHeader(&s, &h) != Z_OK) { deflateEnd(&s); return -1; }
  }
  s.next_in = src;
  s.avail_in = n;
  s.next_out = dst;
  s.avail_out = cap;
  int r = deflate(&s, Z_FINISH);
  long ret = r == Z_STREAM_END ? (long)(cap - s.avail_out) : -1;
  deflateEnd(&s);
  return ret;
}
