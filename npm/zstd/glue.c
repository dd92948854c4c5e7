// The exports npm/lib/zstd.js calls: libzstd's decompressor (built from the
// zstd sources, see build.sh) with malloc for the buffers it passes in.
#define ZSTD_STATIC_LINKING_ONLY // for ZSTD_decompressBound
#include <stdlib.h>
#include "zstd.h"

static ZSTD_DCtx *dctx;

__attribute__((export_name("zd_malloc"))) void *zd_malloc(size_t n) { return malloc(n); }

__attribute__((export_name("zd_free"))) void zd_free(void *p) { free(p); }

// An upper bound of what src decodes to (ZSTD_CONTENTSIZE_ERROR if it is
// not zstd frames).
__attribute__((export_name("zd_bound"))) unsigned long long zd_bound(const void *src, size_t n) {
  return ZSTD_decompressBound(src, n);
}

// Decodes every frame of src into dst; the size written, or an error code.
__attribute__((export_name("zd_decompress"))) size_t zd_decompress(void *dst, size_t cap, const void *src, size_t n) {
  if (!dctx && !(dctx = ZSTD_createDCtx())) return (size_t)-1;
  return ZSTD_decompressDCtx(dctx, dst, cap, src, n);
}

__attribute__((export_name("zd_is_error"))) unsigned zd_is_error(size_t code) { return ZSTD_isError(code); }
