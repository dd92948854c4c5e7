#!/usr/bin/env bash
# Builds libzstd's decompressor, zlib's inflate and glue.c's Blosc decoder
# as one small WebAssembly module (no imports), npm/lib/codecs.wasm; and
# libzstd's compressor and zlib's deflate as a second one, loaded only for
# writing, npm/lib/codecs-encode.wasm. Both are committed so that building
# the package needs only Go. Needs
# Debian's clang, lld, wasi-libc and libclang-rt-14-dev-wasm32; the sources
# come from the Go module proxy (github.com/DataDog/zstd vendors zstd's;
# github.com/madler/zlib is zlib's own repository), pinned below.
#
#   npm/codecs/build.sh [out.wasm [out-encode.wasm]]   (make codecs-wasm; make
#          check-codecs-wasm rebuilds and compares with the committed files)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../lib/codecs.wasm}"
out_encode="${2:-$here/../lib/codecs-encode.wasm}"
zstd_version=v1.5.7
zlib_version=v1.3.1
fetch() { GOFLAGS=-mod=mod go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'; }
zstd="$(fetch "github.com/DataDog/zstd@$zstd_version")"
zlib="$(fetch "github.com/madler/zlib@$zlib_version")"
[ -n "$zstd" ] && [ -n "$zlib" ] || { echo "cannot download the zstd or zlib sources" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
zstd_files=(entropy_common.c error_private.c fse_decompress.c xxhash.c zstd_common.c
            huf_decompress.c zstd_ddict.c zstd_decompress.c zstd_decompress_block.c)
zlib_files=(adler32.c crc32.c inffast.c inflate.c inftrees.c zutil.c)
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
build() { # output.wasm sources...
  local o="$1"; shift
  PATH="$tmp/bin:$(dirname "$cc")" "$cc" --target=wasm32-wasi --sysroot=/usr -O3 -flto -mbulk-memory -Werror=implicit-function-declaration \
    -ffile-prefix-map="$zstd"=zstd -ffile-prefix-map="$zlib"=zlib -ffile-prefix-map="$here"=glue \
    -DZSTD_LEGACY_SUPPORT=0 -DZSTD_DISABLE_ASM -DDEBUGLEVEL=0 -DXXH_NAMESPACE=ZSTD_ \
    -I"$zstd" -I"$zlib" -mexec-model=reactor -Wl,--strip-all -Wl,--gc-sections -o "$o" "$@"
}
build "$tmp/codecs.wasm" "$here/glue.c" "${zstd_files[@]/#/$zstd/}" "${zlib_files[@]/#/$zlib/}"
build "$tmp/encode.wasm" "$here/encode.c" "${zstd_encode_files[@]/#/$zstd/}" "${zlib_encode_files[@]/#/$zlib/}"
install -m 644 "$tmp/codecs.wasm" "$out"
echo "$out: $(stat -c %s "$out") bytes of WebAssembly"
install -m 644 "$tmp/encode.wasm" "$out_encode"
echo "$out_encode: $(stat -c %s "$out_encode") bytes of WebAssembly"
