module github.com/zarr-wasm/zarr-wasm

go 1.26.8

require (
	github.com/agnivade/levenshtein v1.2.2
	github.com/dsnet/compress v0.0.1
	github.com/klauspost/compress v1.20.3
	github.com/pierrec/lz4/v4 v4.1.33
	github.com/tetratelabs/wazero v1.12.0
	github.com/ulikunitz/xz v0.5.17
)

require golang.org/x/sys v0.44.0 // indirect
