#!/usr/bin/env bash
# Builds SeaweedFS's `weed` (a real S3 server that verifies signatures; the
# object-store tests start it on 127.0.0.1) once per machine into a cache
# folder the tests reuse. `go install` refuses the module (its go.mod has
# replace directives), so the module is downloaded from the Go module proxy,
# copied and built inside the copy (about 5 minutes, a ~230 MB binary).
# Prints the binary's path.
set -euo pipefail
GO=${GO:-go}
VERSION=v0.0.0-20261109003541-7506e5f91cd6
cache=${ZARR_WASM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zarr-wasm}
bin="$cache/seaweedfs-$VERSION/weed"
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
mkdir -p "$cache"
work=$(mktemp -d "$cache/seaweedfs-build.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
dir=$(cd "$work" && GOFLAGS=-mod=mod "$GO" mod download -json "github.com/seaweedfs/seaweedfs@$VERSION" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$dir" ] || { echo "build-seaweedfs: go mod download gave no directory" >&2; exit 1; }
cp -r "$dir" "$work/src"
chmod -R u+w "$work/src"
echo "build-seaweedfs: building weed $VERSION (several minutes)" >&2
(cd "$work/src" && CGO_ENABLED=0 "$GO" build -trimpath -ldflags="-s -w" -o "$work/weed" ./weed)
mkdir -p "$(dirname "$bin")"
mv "$work/weed" "$bin.tmp" && mv "$bin.tmp" "$bin"
echo "$bin"
