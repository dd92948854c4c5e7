#!/usr/bin/env bash
# Builds libzstd's decompressor, libdeflate's zlib/gzip decompressor and
# glue.c's Blosc decoder as one small WebAssembly module (no imports),
# npm/lib/codecs.wasm; and libzstd's compressor and libdeflate's zlib/gzip
# compressor as a second one, loaded only for writing,
# npm/lib/codecs-encode.wasm. Both are
# committed so that building the package needs only Go. Needs Debian's
# clang, lld, wasi-libc and libclang-rt-14-dev-wasm32; zstd's sources come
# from the Go module proxy (github.com/DataDog/zstd vendors zstd's),
# libdeflate's from Debian's source package (apt-get source: needs a deb-src line for the
# configured Debian archive, which .ci/run adds), all pinned below (the
# libdeflate tarball by its SHA-256 too).
#
#   npm/codecs/build.sh [out.wasm [out-encode.wasm]]   (make codecs-wasm; make
#          check-codecs-wasm rebuilds and compares with the committed files)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../lib/codecs.wasm}"
out_encode="${2:-$here/../lib/codecs-encode.wasm}"
zstd_version=v1.5.7
libdeflate_version=1.14
libdeflate_debian=1.14-1
libdeflate_sha256=89e7df898c37c3427b0f39aadcf733731321a278771d20fc553f92da8d4808ac
fetch() { GOFLAGS=-mod=mod go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'; }
zstd="$(fetch "github.com/DataDog/zstd@$zstd_version")"
[ -n "$zstd" ] || { echo "cannot download the zstd sources" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# libdeflate's upstream tarball, as Debian ships it (kept in a cache once
# its SHA-256 checked).
cache="${XDG_CACHE_HOME:-$HOME/.cache}/zarr-wasm"
tarball="$cache/libdeflate_$libdeflate_version.orig.tar.gz"
if ! echo "$libdeflate_sha256  $tarball" | sha256sum -c --status 2>/dev/null; then
  mkdir -p "$cache" "$tmp/src"
  (cd "$tmp/src" && apt-get source --download-only -qq "libdeflate=$libdeflate_debian" >/dev/null 2>&1) ||
    { echo "cannot download libdeflate's source (apt-get source libdeflate=$libdeflate_debian: add a deb-src line for Debian's archive and run apt-get update)" >&2; exit 1; }
  cp "$tmp/src/libdeflate_$libdeflate_version.orig.tar.gz" "$tarball"
fi
echo "$libdeflate_sha256  $tarball" | sha256sum -c --status || { echo "$tarball: not the pinned libdeflate $libdeflate_version" >&2; exit 1; }
tar -xzf "$tarball" -C "$tmp"
mkdir "$tmp/pristine" && tar -xzf "$tarball" -C "$tmp/pristine"
libdeflate="$tmp/libdeflate-$libdeflate_version"
zstd_files=(entropy_common.c error_private.c fse_decompress.c xxhash.c zstd_common.c
            huf_decompress.c zstd_ddict.c zstd_decompress.c zstd_decompress_block.c)
# (no lib/adler32.c: glue.c has a faster libdeflate_adler32)
libdeflate_files=(lib/deflate_decompress.c lib/zlib_decompress.c lib/gzip_decompress.c lib/crc32.c lib/utils.c)
zstd_encode_files=(entropy_common.c error_private.c fse_compress.c fse_decompress.c hist.c huf_compress.c xxhash.c zstd_common.c
                   zstd_compress.c zstd_compress_literals.c zstd_compress_sequences.c zstd_compress_superblock.c
                   zstd_double_fast.c zstd_fast.c zstd_lazy.c zstd_ldm.c zstd_opt.c zstd_preSplit.c)
libdeflate_encode_files=(lib/deflate_compress.c lib/zlib_compress.c lib/gzip_compress.c lib/adler32.c lib/crc32.c lib/utils.c)
# -ffile-prefix-map keeps the module cache path out of the output.
# clang runs binaryen's wasm-opt after linking whenever it finds one on PATH,
# which would change (or break) the output: it gets a PATH holding only its
# own directory and the linker.
cc="$(readlink -f "$(command -v clang)")"
mkdir "$tmp/bin"
for ld in wasm-ld wasm-ld-14; do
  if command -v "$ld" >/dev/null; then ln -s "$(command -v "$ld")" "$tmp/bin/$ld"; fi
done
build() { # output.wasm "flags" zstd-source-dir sources...
  local o="$1" flags="$2" z="$3"; shift 3
  # shellcheck disable=SC2086 # (flags: words)
  PATH="$tmp/bin:$(dirname "$cc")" "$cc" --target=wasm32-wasi --sysroot=/usr $flags -flto -mbulk-memory -Werror=implicit-function-declaration \
    -ffile-prefix-map="$z"=zstd -ffile-prefix-map="$libdeflate"=libdeflate -ffile-prefix-map="$here"=glue \
    -DZSTD_LEGACY_SUPPORT=0 -DZSTD_DISABLE_ASM -DDEBUGLEVEL=0 -DXXH_NAMESPACE=ZSTD_ \
    -I"$z" -I"$libdeflate" -mexec-model=reactor -Wl,--strip-all -Wl,--gc-sections -o "$o" "$@"
}
# The decoders keep their bit readers in size_t registers, 32 bits in
# wasm32, so they refill after every 24-25 bits as on 32-bit CPUs, although
# WebAssembly's 64-bit integers are native: both are built from copies of
# their sources edited to read 64 bits at a time, as on 64-bit targets
# (same output and same refusals as the unpatched builds on thousands of
# valid and damaged streams: the commits that made the edits). Each edit must change
# the expected number of lines, or the build stops: a new version of either
# library needs them looked at again.
edit() { # pristine-dir patched-dir file expected-changed-lines sed-expressions...
  local orig="$1" dir="$2" f="$3" want="$4"; shift 4
  sed -i "$@" "$dir/$f"
  local got; got="$(diff "$orig/$f" "$dir/$f" | grep -c '^>' || true)"
  [ "$got" = "$want" ] || { echo "$(basename "$orig"): the edits of $f changed $got lines, not $want" >&2; exit 1; }
}
# libzstd: the register (BitContainerType) and its loads are 64 bits, and
# the sequence and single-symbol Huffman decoders refill as on 64-bit
# targets. Everything else is unchanged: pointer arithmetic, the 32-bit
# overflow guards of ZSTD_execSequence, and Huffman's 4-stream fast loop,
# still off (on, it took 2-6 % more and accepted some damaged frames the
# 32-bit build refuses, as 64-bit hosts do). zstd 1.2-1.4x per CPU second.
zdec="$tmp/zstd-decode"
mkdir "$zdec"
cp "$zstd"/*.h "$zstd"/*.c "$zdec"/
chmod u+w "$zdec"/*
edit "$zstd" "$zdec" bitstream.h 5 -e 's/^typedef size_t BitContainerType;/typedef U64 BitContainerType;/' \
  -e 's/^MEM_STATIC size_t BIT_readBitsFast(/MEM_STATIC BitContainerType BIT_readBitsFast(/' \
  -e 's/\(bitD->bitContainer = \)MEM_readLEST(/\1MEM_readLE64(/'
edit "$zstd" "$zdec" zstd_decompress_block.c 8 -e '/^ZSTD_decodeSequence(/,/^}/{s/MEM_32bits()/0/;s/MEM_64bits()/1/;}' \
  -e '/^static size_t ZSTD_maxShortOffset(/,/^}/s/MEM_64bits()/1/' -e 's/(ZSTD_longOffset_e)(MEM_32bits() &&/(ZSTD_longOffset_e)(0 \&\&/'
edit "$zstd" "$zdec" huf_decompress.c 3 -e '/^#define HUF_DECODE_SYMBOLX1_[12]/,/while (0)$/s/MEM_64bits()/1/' \
  -e '/^HUF_decodeStreamX1(/,/^}/s/if (MEM_32bits())/if (0)/'
# libdeflate: its bit buffer (bitbuf_t, a machine_word_t) is 64 bits and
# refills load 8 bytes, which is all its 64-bit configuration changes in
# the decoder: the bounds (CAN_CONSUME*, the fastloop's margins) follow
# from sizeof(bitbuf_t), and the fastloop then takes its 64-bit paths (two
# extra literals per step, one refill per match offset). Match copies stay
# 4 bytes a word (machine_word_t 64 bits for them too was 11 % slower on
# float data, whose matches are short with offsets of 4). The fastloop now
# stops further from the input's end, so the generic loop, which copies a
# byte at a time, writes more of a stream whose last bytes expand the most
# (a Blosc stream of float exponents: 94 bytes into 64 KiB, 1.5x slower):
# there a match of offset 1, a run of one byte, is a memset. zlib 1.04x
# per CPU second with both, 1.13x with glue.c's Adler-32 (docs/performance.md,
# "Decoders").
ldorig="$tmp/pristine/libdeflate-$libdeflate_version"
edit "$ldorig" "$libdeflate" lib/deflate_decompress.c 2 -e 's/^typedef machine_word_t bitbuf_t;/typedef u64 bitbuf_t;/' \
  -e 's/get_unaligned_leword(in_next)/get_unaligned_le64(in_next)/'
edit "$ldorig" "$libdeflate" lib/decompress_template.h 1 \
  -e 's/^\t\tSTATIC_ASSERT(DEFLATE_MIN_MATCH_LEN == 3);/\t\tif (offset == 1) { memset(dst, *src, length); continue; }\n&/'
# The decoders: -Os, libzstd's single-symbol Huffman decoder only and its
# short-offset sequence decoder only: 29 KB brotli instead of 37, and as
# fast on the bench's data (tests/bench/decoders.mjs: every codec within
# 2 %; docs/performance.md, "Decoders"). With WebAssembly's 128-bit SIMD
# (-msimd128: libzstd's 16-byte match and literal copies become one load
# and one store) zstd decodes 1.13x faster, Blosc(zstd) 1.07x; -O2/-O3
# with it gave zstd nothing and 37 % more bytes.
build "$tmp/codecs.wasm" "-Os -msimd128 -DHUF_FORCE_DECOMPRESS_X1 -DZSTD_FORCE_DECOMPRESS_SEQUENCES_SHORT" "$zdec" \
  "$here/glue.c" "${zstd_files[@]/#/$zdec/}" "${libdeflate_files[@]/#/$libdeflate/}"
# The encoders: -O3. zlib and gzip are written with libdeflate's compressor,
# not zlib's deflate: at level 1 it took 2.5x less time on the bench's
# chunks (and level 6 4.8x less) with 7 % smaller output (docs/performance.md,
# "Writes").
build "$tmp/encode.wasm" "-O3" "$zstd" "$here/encode.c" "${zstd_encode_files[@]/#/$zstd/}" "${libdeflate_encode_files[@]/#/$libdeflate/}"
install -m 644 "$tmp/codecs.wasm" "$out"
echo "$out: $(stat -c %s "$out") bytes of WebAssembly"
install -m 644 "$tmp/encode.wasm" "$out_encode"
echo "$out_encode: $(stat -c %s "$out_encode") bytes of WebAssembly"
