#!/usr/bin/env bash
# Builds libzstd's decompressor, libdeflate's zlib/gzip decompressor and
# glue.c's Blosc decoder as one small WebAssembly module (no imports),
# npm/lib/codecs.wasm; and libzstd's compressor and zlib's deflate as a
# second one, loaded only for writing, npm/lib/codecs-encode.wasm. Both are
# committed so that building the package needs only Go. Needs Debian's
# clang, lld, wasi-libc and libclang-rt-14-dev-wasm32; zstd's and zlib's
# sources come from the Go module proxy (github.com/DataDog/zstd vendors
# zstd's; github.com/madler/zlib is zlib's own repository), libdeflate's
# from Debian's source package (apt-get source: needs a deb-src line for the
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
zlib_version=v1.3.1
libdeflate_version=1.14
libdeflate_debian=1.14-1
libdeflate_sha256=89e7df898c37c3427b0f39aadcf733731321a278771d20fc553f92da8d4808ac
fetch() { GOFLAGS=-mod=mod go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'; }
zstd="$(fetch "github.com/DataDog/zstd@$zstd_version")"
zlib="$(fetch "github.com/madler/zlib@$zlib_version")"
[ -n "$zstd" ] && [ -n "$zlib" ] || { echo "cannot download the zstd or zlib sources" >&2; exit 1; }
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
libdeflate="$tmp/libdeflate-$libdeflate_version"
zstd_files=(entropy_common.c error_private.c fse_decompress.c xxhash.c zstd_common.c
            huf_decompress.c zstd_ddict.c zstd_decompress.c zstd_decompress_block.c)
libdeflate_files=(lib/deflate_decompress.c lib/zlib_decompress.c lib/gzip_decompress.c lib/adler32.c lib/crc32.c lib/utils.c)
zstd_encode_files=(entropy_common.c error_private.c fse_compress.c fse_decompress.c hist.c huf_compress.c xxhash.c zstd_common.c
                   zstd_compress.c zstd_compress_literals.c zstd_compress_sequences.c zstd_compress_superblock.c
                   zstd_double_fast.c zstd_fast.c zstd_lazy.c zstd_ldm.c zstd_opt.c zstd_preSplit.c)
zlib_encode_files=(adler32.c compress.c crc32.c deflate.c trees.c zutil.c)
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
    -ffile-prefix-map="$z"=zstd -ffile-prefix-map="$zlib"=zlib -ffile-prefix-map="$libdeflate"=libdeflate -ffile-prefix-map="$here"=glue \
    -DZSTD_LEGACY_SUPPORT=0 -DZSTD_DISABLE_ASM -DDEBUGLEVEL=0 -DXXH_NAMESPACE=ZSTD_ \
    -I"$z" -I"$zlib" -I"$libdeflate" -mexec-model=reactor -Wl,--strip-all -Wl,--gc-sections -o "$o" "$@"
}
# libzstd's decoder keeps its bitstreams in a size_t register, and decodes
# fewer bits between refills where size_t has 32 bits (wasm32), although
# WebAssembly's 64-bit integers are native: the decoder below is built from
# a copy of its sources where the register is 64 bits (BitContainerType and
# its loads) and the sequence and single-symbol Huffman decoders refill as
# on 64-bit targets. Everything else is unchanged: pointer arithmetic, the
# 32-bit overflow guards of ZSTD_execSequence, and Huffman's 4-stream fast
# loop, still off (on, it took 2-6 % more and accepted some damaged frames
# the 32-bit build refuses, as 64-bit hosts do). Same output and the same
# refusals as the unpatched build on 4,000 valid and damaged frames; zstd
# 1.2-1.4x per CPU second (README "Decoder builds"). Each edit must change
# the expected number of lines, or the build stops (a new zstd version
# needs them looked at again).
zdec="$tmp/zstd-decode"
mkdir "$zdec"
cp "$zstd"/*.h "$zstd"/*.c "$zdec"/
chmod u+w "$zdec"/*
edit() { # file expected-changed-lines sed-expressions...
  local f="$1" want="$2"; shift 2
  sed -i "$@" "$zdec/$f"
  local got; got="$(diff "$zstd/$f" "$zdec/$f" | grep -c '^>' || true)"
  [ "$got" = "$want" ] || { echo "zstd $zstd_version: the 64-bit bitstream edits of $f changed $got lines, not $want" >&2; exit 1; }
}
edit bitstream.h 5 -e 's/^typedef size_t BitContainerType;/typedef U64 BitContainerType;/' \
  -e 's/^MEM_STATIC size_t BIT_readBitsFast(/MEM_STATIC BitContainerType BIT_readBitsFast(/' \
  -e 's/\(bitD->bitContainer = \)MEM_readLEST(/\1MEM_readLE64(/'
edit zstd_decompress_block.c 8 -e '/^ZSTD_decodeSequence(/,/^}/{s/MEM_32bits()/0/;s/MEM_64bits()/1/;}' \
  -e '/^static size_t ZSTD_maxShortOffset(/,/^}/s/MEM_64bits()/1/' -e 's/(ZSTD_longOffset_e)(MEM_32bits() &&/(ZSTD_longOffset_e)(0 \&\&/'
edit huf_decompress.c 3 -e '/^#define HUF_DECODE_SYMBOLX1_[12]/,/while (0)$/s/MEM_64bits()/1/' \
  -e '/^HUF_decodeStreamX1(/,/^}/s/if (MEM_32bits())/if (0)/'
# The decoders: -Os, libzstd's single-symbol Huffman decoder only and its
# short-offset sequence decoder only: 29 KB brotli instead of 37, and as
# fast on the bench's data (tests/bench/decoders.mjs: every codec within
# 2 %; README "Decoder builds"). With WebAssembly's 128-bit SIMD
# (-msimd128: libzstd's 16-byte match and literal copies become one load
# and one store) zstd decodes 1.13x faster, Blosc(zstd) 1.07x; -O2/-O3
# with it gave zstd nothing and 37 % more bytes.
build "$tmp/codecs.wasm" "-Os -msimd128 -DHUF_FORCE_DECOMPRESS_X1 -DZSTD_FORCE_DECOMPRESS_SEQUENCES_SHORT" "$zdec" \
  "$here/glue.c" "${zstd_files[@]/#/$zdec/}" "${libdeflate_files[@]/#/$libdeflate/}"
build "$tmp/encode.wasm" "-O3" "$zstd" "$here/encode.c" "${zstd_encode_files[@]/#/$zstd/}" "${zlib_encode_files[@]/#/$zlib/}"
install -m 644 "$tmp/codecs.wasm" "$out"
echo "$out: $(stat -c %s "$out") bytes of WebAssembly"
install -m 644 "$tmp/encode.wasm" "$out_encode"
echo "$out_encode: $(stat -c %s "$out_encode") bytes of WebAssembly"
