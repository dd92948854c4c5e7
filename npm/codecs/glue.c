// The exports npm/lib/codecs.js calls: libzstd's decompressor, libdeflate's
// zlib and gzip decompressors (built from their sources, see build.sh) and
// a Blosc decoder over them, with malloc for the buffers it passes in.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wasm_simd128.h>
#include "zstd.h"
#include "libdeflate.h"

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

// Decodes src, compressed with the zstd dictionary dict (Icechunk's
// virtual chunk locations), into dst: the size written, or -1.
EXPORT("zstd_decompress_dict") long zstd_decompress_dict(void *dst, size_t cap, const void *src, size_t n, const void *dict, size_t dn) {
  if (!dctx && !(dctx = ZSTD_createDCtx())) return -1;
  size_t r = ZSTD_decompress_usingDict(dctx, dst, cap, src, n, dict, dn);
  return ZSTD_isError(r) ? -1 : (long)r;
}

// Inflates a zlib stream (gzip = 0) or one or more gzip members (gzip = 1)
// into dst with libdeflate (whole buffers: 1.5x zlib's inflate here): the
// size written, -1 for corrupt or trailing data, -2 when dst is too small.
static struct libdeflate_decompressor *ldd;

EXPORT("inflate_") long inflate_(int gzip, unsigned char *dst, unsigned long cap, unsigned char *src, unsigned long n) {
  if (!ldd && !(ldd = libdeflate_alloc_decompressor())) return -1;
  size_t total = 0;
  for (;;) {
    size_t in_used = 0, out_used = 0;
    enum libdeflate_result r = gzip ? libdeflate_gzip_decompress_ex(ldd, src, n, dst + total, cap - total, &in_used, &out_used)
                                    : libdeflate_zlib_decompress_ex(ldd, src, n, dst + total, cap - total, &in_used, &out_used);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE) return -2;
    if (r != LIBDEFLATE_SUCCESS) return -1;
    total += out_used, src += in_used, n -= in_used;
    if (n == 0) return (long)total;
    if (!gzip) return -1;
  }
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

// Inflates a zlib stream or gzip members whose size is not known into a
// buffer, trying again with one twice as large while it is too small, up
// to limit bytes: the size, with the buffer in *out, or -1 for corrupt
// data, -2 past the limit.
EXPORT("inflate_grow") long inflate_grow(int gzip, unsigned char *src, unsigned long n, unsigned long limit, void **out) {
  unsigned long cap = n * 4 < 65536 ? 65536 : n * 4;
  if (cap > limit) cap = limit;
  for (;;) {
    unsigned char *buf = malloc(cap ? cap : 1);
    if (!buf) return -1;
    long r = inflate_(gzip, buf, cap, src, n);
    if (r >= 0) { *out = buf; return r; }
    free(buf);
    if (r != -2) return -1;
    if (cap >= limit) return -2;
    cap = cap * 2 > limit ? limit : cap * 2;
  }
}

// Adler-32 (RFC 1950), the checksum libdeflate's zlib decoder takes of
// every chunk it inflates: defined here instead of libdeflate's adler32.c
// (left out of the build), whose portable loop adds one byte at a time,
// 10 % of a zlib chunk's decode in WebAssembly. This one takes 16 bytes a
// step with WebAssembly SIMD, 3.5x as fast. Over a run of m 16-byte units,
// s1 grows by the sum of the bytes, and s2 by 16m times s1 before the run,
// plus 16 times the sum over units k of (m-1-k) times unit k's byte sum
// (vb accumulates va, the running sums, before each unit adds to them),
// plus each unit's bytes weighted 16 down to 1 (vw, dot products). Four
// 32-bit lanes each: 2048 units keep vb's lanes under 2^31.
uint32_t libdeflate_adler32(uint32_t adler, const void *buffer, size_t len) {
  if (!buffer) return 1;
  const unsigned char *p = buffer;
  uint64_t s1 = adler & 0xffff, s2 = adler >> 16;
  const v128_t w16to9 = wasm_i16x8_make(16, 15, 14, 13, 12, 11, 10, 9), w8to1 = wasm_i16x8_make(8, 7, 6, 5, 4, 3, 2, 1);
  while (len) {
    size_t n = len < 2048 * 16 ? len : 2048 * 16, units = n / 16;
    len -= n;
    v128_t va = wasm_i32x4_splat(0), vb = va, vw = va;
    for (size_t k = 0; k < units; k++, p += 16) {
      v128_t x = wasm_v128_load(p);
      vb = wasm_i32x4_add(vb, va);
      va = wasm_i32x4_add(va, wasm_u32x4_extadd_pairwise_u16x8(wasm_u16x8_extadd_pairwise_u8x16(x)));
      vw = wasm_i32x4_add(vw, wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(x), w16to9),
                                             wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(x), w8to1)));
    }
    uint64_t a = 0, b = 0, w = 0;
    for (int i = 0; i < 4; i++) {
      a += (uint32_t)wasm_i32x4_extract_lane(va, 0), b += (uint32_t)wasm_i32x4_extract_lane(vb, 0), w += (uint32_t)wasm_i32x4_extract_lane(vw, 0);
      va = wasm_i32x4_shuffle(va, va, 1, 2, 3, 0), vb = wasm_i32x4_shuffle(vb, vb, 1, 2, 3, 0), vw = wasm_i32x4_shuffle(vw, vw, 1, 2, 3, 0);
    }
    s2 += 16 * units * s1 + 16 * b + w;
    s1 += a;
    for (size_t i = 16 * units; i < n; i++) s1 += *p++, s2 += s1;
    s1 %= 65521, s2 %= 65521;
  }
  return (uint32_t)(s2 << 16 | s1);
}

// Blosc1 chunks (c-blosc 1.x's format, the rules zarr/blosc follows) whose
// streams are zstd, zlib or lz4 (or stored) and whose blocks are
// byte-shuffled or not: decoded into dst, which must hold exactly the
// chunk's nbytes (cap). Returns cap, or -1 for anything else (blosclz,
// snappy, bitshuffle, another size, a malformed chunk): the engine's Blosc
// decodes those, and reports the errors.
typedef unsigned u32a __attribute__((aligned(1)));
typedef unsigned short u16a __attribute__((aligned(1)));
typedef unsigned long long u64a __attribute__((aligned(1)));

static inline unsigned rd32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (unsigned)p[3] << 24; }

// Byte unshuffle: src holds byte b of every element in its b-th stream of
// n bytes; dst gets the elements back. For typesize 2, 4 and 8, 8 elements
// at a time with 64-bit loads from each stream and a byte transpose in
// registers (shifts and masks: the module must load without SIMD).
#define M8 0x00ff00ff00ff00ffULL
#define M16 0x0000ffff0000ffffULL
#define M32 0x00000000ffffffffULL
static void unshuffle(int ts, unsigned char *dst, const unsigned char *src, size_t size) {
  size_t n = size / ts, i = 0;
  if (ts == 2) {
    const unsigned char *a = src, *b = src + n;
    u64a *o = (u64a *)dst;
    for (; i + 8 <= n; i += 8, o += 2) {
      unsigned long long x = *(const u64a *)(a + i), y = *(const u64a *)(b + i);
      // spread 4 bytes into the low byte of 4 16-bit slots, twice per stream
      unsigned long long xl = x & M32, xh = x >> 32, yl = y & M32, yh = y >> 32;
      xl = (xl | xl << 16) & M16, xl = (xl | xl << 8) & M8;
      xh = (xh | xh << 16) & M16, xh = (xh | xh << 8) & M8;
      yl = (yl | yl << 16) & M16, yl = (yl | yl << 8) & M8;
      yh = (yh | yh << 16) & M16, yh = (yh | yh << 8) & M8;
      o[0] = xl | yl << 8;
      o[1] = xh | yh << 8;
    }
    for (; i < n; i++) ((u16a *)dst)[i] = a[i] | b[i] << 8;
  } else if (ts == 4) {
    const unsigned char *a = src, *b = src + n, *c = src + 2 * n, *d = src + 3 * n;
    u64a *o = (u64a *)dst;
    for (; i + 8 <= n; i += 8, o += 4) {
      unsigned long long x0 = *(const u64a *)(a + i), x1 = *(const u64a *)(b + i);
      unsigned long long x2 = *(const u64a *)(c + i), x3 = *(const u64a *)(d + i), t;
      // transpose 2×2 blocks of bytes, then of 16-bit units: x_r holds
      // element r's bytes in its low and element r+4's in its high half
      t = ((x0 >> 8) ^ x1) & M8, x1 ^= t, x0 ^= t << 8;
      t = ((x2 >> 8) ^ x3) & M8, x3 ^= t, x2 ^= t << 8;
      t = ((x0 >> 16) ^ x2) & M16, x2 ^= t, x0 ^= t << 16;
      t = ((x1 >> 16) ^ x3) & M16, x3 ^= t, x1 ^= t << 16;
      o[0] = (x0 & M32) | x1 << 32;
      o[1] = (x2 & M32) | x3 << 32;
      o[2] = x0 >> 32 | (x1 & ~M32);
      o[3] = x2 >> 32 | (x3 & ~M32);
    }
    for (; i < n; i++) ((u32a *)dst)[i] = a[i] | b[i] << 8 | c[i] << 16 | (unsigned)d[i] << 24;
  } else if (ts == 8) {
    u64a *o = (u64a *)dst;
    for (; i + 8 <= n; i += 8, o += 8) {
      unsigned long long x[8], t;
      for (int r = 0; r < 8; r++) x[r] = *(const u64a *)(src + r * n + i);
      // an 8×8 byte transpose: blocks of 1, 2 then 4 bytes
      for (int r = 0; r < 8; r += 2) t = ((x[r] >> 8) ^ x[r + 1]) & M8, x[r + 1] ^= t, x[r] ^= t << 8;
      for (int r = 0; r < 8; r += r & 1 ? 3 : 1) t = ((x[r] >> 16) ^ x[r + 2]) & M16, x[r + 2] ^= t, x[r] ^= t << 16;
      for (int r = 0; r < 4; r++) t = ((x[r] >> 32) ^ x[r + 4]) & M32, x[r + 4] ^= t, x[r] ^= t << 32;
      for (int r = 0; r < 8; r++) o[r] = x[r];
    }
    for (; i < n; i++)
      for (int b = 0; b < 8; b++) dst[i * 8 + b] = src[b * n + i];
  } else {
    for (int b = 0; b < ts; b++)
      for (i = 0; i < n; i++) dst[i * ts + b] = src[b * n + i];
  }
  for (i = n * ts; i < size; i++) dst[i] = src[i];
}

// A raw LZ4 block (Blosc's lz4 and lz4hc streams) decoded into exactly nd
// bytes: nd, or -1. It accepts what zarr/blosc's lz4Decode accepts (also a
// block that ends right after a match) and nothing else, and never reads
// or writes outside src[0:ns] and dst[0:nd]: every bound is checked before
// a copy; copies that move whole 8 or 16 bytes (writing past the run's end,
// bytes a later sequence overwrites) run only where that much room is left
// in both buffers, exact copies elsewhere.

// An extended length: adds bytes to *len while they are 255; 0 when the
// input ends first or *len passes bound (the caller checks the exact bound).
static inline int lz4_len(const unsigned char *src, size_t ns, size_t *si, size_t *len, size_t bound) {
  for (;;) {
    if (*si >= ns) return 0;
    unsigned c = src[(*si)++];
    *len += c;
    if (c != 255) return 1;
    if (*len > bound) return 0;
  }
}

#define COPY8(d, s) memcpy((d), (s), 8)
#define COPY16(d, s) (memcpy((d), (s), 8), memcpy((d) + 8, (s) + 8, 8))

static long lz4_block(unsigned char *dst, size_t nd, const unsigned char *src, size_t ns) {
  size_t si = 0, di = 0;
  while (si < ns) {
    unsigned tok = src[si++];
    size_t lit = tok >> 4;
    if (lit == 15 && !lz4_len(src, ns, &si, &lit, ns)) return -1;
    if (lit > ns - si || lit > nd - di) return -1;
    // Literals: 16 bytes at a time while both sides have room for the
    // rounded-up run, else exactly.
    if (ns - si >= lit + 16 && nd - di >= lit + 16) {
      unsigned char *d = dst + di;
      const unsigned char *s = src + si;
      COPY16(d, s);
      for (size_t k = 16; k < lit; k += 16) COPY16(d + k, s + k);
    } else {
      memcpy(dst + di, src + si, lit);
    }
    di += lit;
    si += lit;
    if (si == ns) {
      if (tok & 15) return -1; // the last sequence has literals only
      break;
    }
    if (ns - si < 2) return -1;
    size_t off = src[si] | src[si + 1] << 8;
    si += 2;
    size_t ml = (tok & 15) + 4;
    if (ml == 19 && !lz4_len(src, ns, &si, &ml, nd)) return -1;
    if (off == 0 || off > di || ml > nd - di) return -1;
    unsigned char *d = dst + di;
    const unsigned char *m = d - off;
    di += ml;
    if (nd - di < 16) { // near the end: byte by byte (the pattern repeats when off < ml)
      for (size_t k = 0; k < ml; k++) d[k] = m[k];
    } else if (off >= 16) { // each 16-byte load sees only bytes already written
      COPY16(d, m);
      for (size_t k = 16; k < ml; k += 16) COPY16(d + k, m + k);
    } else if (off >= 8) {
      COPY8(d, m);
      for (size_t k = 8; k < ml; k += 8) COPY8(d + k, m + k);
    } else {
      // off < 8: the first 8 bytes one by one, then 8 at a time from a
      // distance that is a multiple of off and at least 8 (the pattern's)
      for (size_t k = 0; k < 8; k++) d[k] = m[k];
      size_t p = off * ((8 + off - 1) / off);
      for (size_t k = 8; k < ml; k += 8) COPY8(d + k, d + k - p);
    }
  }
  return di == nd ? (long)di : -1;
}

static long blosc_stream(int code, unsigned char *d, size_t nd, const unsigned char *s, size_t ns) {
  if (code == 1) return lz4_block(d, nd, s, ns);
  if (code == 4) return zstd_decompress(d, nd, s, ns);
  return inflate_(0, d, nd, (unsigned char *)s, ns);
}

EXPORT("blosc_decode") long blosc_decode(unsigned char *dst, size_t cap, const unsigned char *src, size_t n) {
  if (n < 16 || cap == 0 || (src[0] != 1 && src[0] != 2)) return -1;
  int flags = src[2], ts = src[3];
  int nbytes = (int)rd32(src + 4), blocksize = (int)rd32(src + 8), cbytes = (int)rd32(src + 12);
  if (ts == 0 || nbytes < 0 || blocksize < 0 || cbytes < 16 || (size_t)cbytes > n || (size_t)nbytes != cap || (flags & 0x08)) return -1;
  if (flags & 0x02) { // memcpyed
    if (nbytes > cbytes - 16) return -1;
    memcpy(dst, src + 16, nbytes);
    return nbytes;
  }
  int code = flags >> 5;
  if (code != 1 && code != 3 && code != 4) return -1;
  if (blocksize == 0 || blocksize > (2147483647 - 255 * 4) / 3) return -1;
  int shuffle = (flags & 0x01) && ts > 1;
  if (!shuffle && (flags & 0x04)) return -1; // bitshuffle
  int leftover = nbytes % blocksize;
  int nblocks = nbytes / blocksize + (leftover > 0);
  if (nblocks > (cbytes - 16) / 4) return -1;
  long bstarts_end = 16 + 4L * nblocks; // (no overflow: nblocks is bounded above)
  if (bstarts_end > cbytes) return -1;
  int split = !(flags & 0x10) && ts <= 16 && blocksize / ts >= 128;
  unsigned char *tmp = NULL;
  if (shuffle && !(tmp = malloc(nblocks > 1 ? blocksize : nbytes))) return -1;
  long ret = nbytes;
  for (int j = 0; j < nblocks && ret >= 0; j++) {
    int last = j == nblocks - 1 && leftover > 0;
    int bsize = last ? leftover : blocksize;
    int nsplits = split && !last ? ts : 1;
    if (bsize % nsplits) { ret = -1; break; }
    int neblock = bsize / nsplits;
    unsigned char *dest = dst + (size_t)j * blocksize, *target = shuffle ? tmp : dest;
    long off = rd32(src + 16 + 4 * j);
    if (off < bstarts_end || off > cbytes) { ret = -1; break; }
    for (int k = 0; k < nsplits; k++) {
      if (cbytes - off < 4) { ret = -1; break; }
      long csize = (int)rd32(src + off);
      off += 4;
      if (csize <= 0 || csize > cbytes - off) { ret = -1; break; }
      unsigned char *d = target + (size_t)k * neblock;
      if (csize == neblock) memcpy(d, src + off, csize);
      else if (blosc_stream(code, d, neblock, src + off, csize) != neblock) { ret = -1; break; }
      off += csize;
    }
    if (ret >= 0 && shuffle) unshuffle(ts, dest, tmp, bsize);
  }
  free(tmp);
  return ret;
}
