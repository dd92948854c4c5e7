// The encoders npm/lib/codecs.js loads when the engine's full build starts
// (writing happens there): libzstd's compressor and libdeflate's
// zlib/gzip compressor, built from their sources by build.sh into a module
// of their own, so that a program that only reads never downloads them.
#include <stdlib.h>
#include "zstd.h"
#include "libdeflate.h"

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

// libdeflate's compressors, one per level, kept: allocating one costs
// about as much as compressing a chunk (its match finder's tables).
static struct libdeflate_compressor *deflaters[13];

// zlib's levels -1 (its default, 6) to 9; libdeflate's go on to 12.
static struct libdeflate_compressor *deflater(int level) {
  if (level < 0) level = 6;
  if (level > 12) return 0;
  if (!deflaters[level]) deflaters[level] = libdeflate_alloc_compressor(level);
  return deflaters[level];
}

EXPORT("deflate_bound") unsigned long deflate_bound(unsigned long n) { return libdeflate_gzip_compress_bound(0, n); }

// A zlib stream (gzip = 0) or one gzip member (gzip = 1; no name, time 0,
// OS unknown, as Go's compress/gzip writes) at level: the size written, or -1.
EXPORT("deflate_") long deflate_(int gzip, int level, unsigned char *dst, unsigned long cap, unsigned char *src, unsigned long n) {
  struct libdeflate_compressor *c = deflater(level);
  if (!c) return -1;
  size_t r = gzip ? libdeflate_gzip_compress(c, src, n, dst, cap) : libdeflate_zlib_compress(c, src, n, dst, cap);
  return r ? (long)r : -1;
}
