// Package pcodec reads and writes Pcodec (pco) data, the numerical
// compression format numcodecs' PCodec and zarrs' pcodec codec store in Zarr
// chunks, written in pure Go from the format description in the pcodec
// repository (docs/format.md) and its reference implementation's behaviour.
//
// It reads the standalone format, versions 0 to 3 (a "pco!" magic, an
// optional size hint and uniform number type, then chunks of one page
// each), around wrapped format versions 0 to 4.1: every mode (classic,
// int-mult, float-mult, float-quant, dict), every delta encoding (none,
// consecutive of orders 1–7, lookback, conv1) and every number type
// (u8/u16/u32/u64, i8/i16/i32/i64, f16/f32/f64). It writes standalone
// version 3 around wrapped version 4.1 making pco 1.0's choices for classic
// mode, no or consecutive deltas, bins and tANS tables (so its streams equal
// pco's there); it does not look for the int-mult, float-mult, float-quant
// and dict modes or lookback deltas pco may choose.
//
// The layers have their own files: bits.go reads and writes bit-packed
// values, ans.go builds the tANS tables, numbers.go maps numbers to and from
// latents, chunkmeta.go parses chunk metadata (mode, delta encoding, bins),
// page.go decodes the interleaved batches of a page, delta.go and mode.go
// undo the delta encoding and join latents into numbers, standalone.go is
// the file layer; bins.go and encode.go choose bins and write streams.
//
// Every count read from a stream is bounded before anything is allocated
// for it: by the input's remaining bits, by the format's own limits, and by
// the number of values the caller asks for.
package pcodec
