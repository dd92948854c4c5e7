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

// Decodes every frame of src into a buffer it grows as output arrives, up
// to limit bytes (the size is not known beforehand): the size, with the
// buffer in *out, or -1 for corrupt data, -2 past the limit.
EXPORT("zstd_decompress_grow") long zstd_decompress_grow(const void *src, size_t n, size_t limit, void **out) {
  if (!dctx && !(dctx = ZSTD_createDCtx())) return -1;
  ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only);
  size_t cap = n * 4 < 65536 ? 65536 : n * 4;
  if (cap > limit) cap = limit;
  unsigned char *buf = malloc(cap ? cap : 1);
  if (!buf) return -1;
  ZSTD_inBuffer in = {src, n, 0};
  ZSTD_outBuffer o = {buf, cap, 0};
  size_t left = 1;
  while (in.pos < in.size || left != 0) {
    if (o.pos == o.size) {
      if (cap >= limit) { free(buf); return -2; }
      size_t next = cap * 2 > limit ? limit : cap * 2;
      unsigned char *b = realloc(buf, next);
      if (!b) { free(buf); return -1; }
      buf = b, cap = next, o.dst = buf, o.size = cap;
    }
    size_t before = in.pos, produced = o.pos;
    left = ZSTD_decompressStream(dctx, &o, &in);
    if (ZSTD_isError(left)) { free(buf); return -1; }
    // Input ended inside a frame, and nothing moved: truncated.
    if (in.pos == in.size && left != 0 && in.pos == before && o.pos == produced && o.pos < o.size) { free(buf); return -1; }
  }
  *out = buf;
  return (long)o.pos;
}

// Inflates a zlib stream (gzip = 0) or gzip members (gzip = 1) into a
// buffer it grows up to limit bytes: the size, with the buffer in *out, or
// -1 for corrupt or trailing data, -2 past the limit.
EXPORT("inflate_grow") long inflate_grow(int gzip, unsigned char *src, unsigned long n, unsigned long limit, void **out) {
  z_stream s = {0};
  if (inflateInit2(&s, gzip ? 15 + 16 : 15) != Z_OK) return -1;
  unsigned long cap = n * 4 < 65536 ? 65536 : n * 4;
  if (cap > limit) cap = limit;
  unsigned char *buf = malloc(cap ? cap : 1);
  if (!buf) { inflateEnd(&s); return -1; }
  s.next_in = src;
  s.avail_in = n;
  s.next_out = buf;
  s.avail_out = cap;
  long ret = -1;
  for (;;) {
    int r = inflate(&s, Z_NO_FLUSH);
    if (r == Z_STREAM_END) {
      if (gzip && s.avail_in > 0) {
        if (inflateReset(&s) != Z_OK) break;
        continue;
      }
      if (s.avail_in == 0) ret = (long)(s.next_out - buf);
      break;
    }
    if (r != Z_OK && r != Z_BUF_ERROR) break;
    if (s.avail_out == 0) {
      if (cap >= limit) { ret = -2; break; }
      unsigned long used = cap, next = cap * 2 > limit ? limit : cap * 2;
      unsigned char *b = realloc(buf, next);
      if (!b) break;
      buf = b, cap = next;
      s.next_out = buf + used;
      s.avail_out = cap - used;
      continue;
    }
    if (r == Z_BUF_ERROR) break; // no progress: input ended early
  }
  inflateEnd(&s);
  if (ret < 0) { free(buf); return ret; }
  *out = buf;
  return ret;
}
