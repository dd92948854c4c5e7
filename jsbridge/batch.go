//go:build js && wasm

package jsbridge

import (
	"encoding/binary"
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/zarr/budget"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// Lists of strings and byte strings cross the boundary in bulk: one byte
// buffer and one Uint32Array of offsets, split by a JS helper. Element by
// element, every string would cost several syscall/js calls and a js.Value
// with a finalizer (a million strings took seconds).

// batchMin is the list length from which the bulk path is used.
const batchMin = 32

// helpers are the JS functions the npm wrapper hands over at start
// (setHelpers): splitStrings(utf8, utf16Offsets) → string[],
// splitBytes(bytes, offsets) → Uint8Array[].
var helpers js.Value

func setHelpers(h js.Value) { helpers = h }

func haveHelper(name string) bool {
	return helpers.Type() == js.TypeObject && helpers.Get(name).Type() == js.TypeFunction
}

// uint32Array copies offsets into a new Uint32Array.
func uint32Array(v []uint32) js.Value {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return typedArray("Uint32Array", b)
}

// utf8Seq is the length in bytes of the UTF-8 sequence that starts with
// c, and its length in UTF-16 code units (2: a surrogate pair).
func utf8Seq(c byte) (bytes, units int) {
	switch {
	case c < 0x80:
		return 1, 1
	case c < 0xe0:
		return 2, 1
	case c < 0xf0:
		return 3, 1
	}
	return 4, 2
}

// utf16Len is the length of s in UTF-16 code units (s is valid UTF-8).
func utf16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		b, u := utf8Seq(s[i])
		i += b
		n += u
	}
	return n
}

// validUTF8 returns s with invalid sequences replaced as TextDecoder would
// do it for a single string (one U+FFFD per bad byte run is close enough;
// the offsets must match what the JS side decodes).
func validUTF8(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return toValid(s)
		}
	}
	return s
}

func toValid(s string) string {
	// Round-trip through runes: invalid bytes become U+FFFD each, exactly
	// what decoding the result again yields.
	r := []rune(s)
	return string(r)
}

// stringsToJS converts a list of strings.
func stringsToJS(ss []string) js.Value { return stringsToJSFrom(ss, batchMin) }

// stringsToJSFrom converts a list of strings, in bulk from min strings on
// (a read's plan: its chunk keys, 25 for a 1000×1000 window of 256×256
// chunks, each a string crossing with a finalizer of its own otherwise).
func stringsToJSFrom(ss []string, min int) js.Value {
	if len(ss) < min || !haveHelper("splitStrings") {
		out := jsArray.New(len(ss))
		for i, s := range ss {
			out.SetIndex(i, s)
		}
		return out
	}
	total := 0
	for i, s := range ss {
		ss[i] = validUTF8(s)
		total += len(ss[i])
	}
	buf := make([]byte, 0, total)
	offs := make([]uint32, len(ss)+1)
	pos := 0
	for i, s := range ss {
		buf = append(buf, s...)
		pos += utf16Len(s)
		offs[i+1] = uint32(pos)
	}
	return helpers.Call("splitStrings", typedArray("Uint8Array", buf), uint32Array(offs))
}

// bytesListToJS converts a list of byte strings to Uint8Array[].
func bytesListToJS(list [][]byte) js.Value {
	if len(list) < batchMin || !haveHelper("splitBytes") {
		out := jsArray.New(len(list))
		for i, b := range list {
			out.SetIndex(i, bytesToJS(b))
		}
		return out
	}
	total := 0
	for _, b := range list {
		total += len(b)
	}
	buf := make([]byte, 0, total)
	offs := make([]uint32, len(list)+1)
	for i, b := range list {
		buf = append(buf, b...)
		offs[i+1] = uint32(len(buf))
	}
	return helpers.Call("splitBytes", typedArray("Uint8Array", buf), uint32Array(offs))
}

// stringsFromBatch reads {joined: Uint8Array (UTF-8), lens: Uint32Array
// (UTF-16 lengths)} as sent by the wrapper for string lists.
func stringsFromBatch(v js.Value, n int) ([]string, error) {
	joined, lens := v.Get("joined"), v.Get("lens")
	buf, err := budget.Bytes("value", joined.Get("byteLength").Int())
	if err != nil {
		return nil, err
	}
	js.CopyBytesToGo(buf, joined)
	lb := make([]byte, lens.Get("byteLength").Int())
	js.CopyBytesToGo(lb, jsUint8Array.New(lens.Get("buffer"), lens.Get("byteOffset"), lens.Get("byteLength")))
	if len(lb)/4 != n {
		return nil, countError(len(lb)/4, n)
	}
	out := make([]string, n)
	pos := 0
	for i := range out {
		units := int(binary.LittleEndian.Uint32(lb[4*i:]))
		start := pos
		for units > 0 {
			if pos >= len(buf) {
				return nil, errs.New(errs.Selection, "", "string lengths do not match the text")
			}
			b, u := utf8Seq(buf[pos])
			pos += b
			units -= u
		}
		if pos > len(buf) {
			return nil, errs.New(errs.Selection, "", "string lengths do not match the text")
		}
		out[i] = string(buf[start:pos])
	}
	return out, nil
}

// bytesFromBatch reads {joined: Uint8Array, lens: Uint32Array (byte
// lengths)} as sent by the wrapper for lists of Uint8Array.
func bytesFromBatch(v js.Value, n int) ([][]byte, error) {
	joined, lens := v.Get("joined"), v.Get("lens")
	buf, err := budget.Bytes("value", joined.Get("byteLength").Int())
	if err != nil {
		return nil, err
	}
	js.CopyBytesToGo(buf, joined)
	lb := make([]byte, lens.Get("byteLength").Int())
	js.CopyBytesToGo(lb, jsUint8Array.New(lens.Get("buffer"), lens.Get("byteOffset"), lens.Get("byteLength")))
	if len(lb)/4 != n {
		return nil, countError(len(lb)/4, n)
	}
	out := make([][]byte, n)
	pos := 0
	for i := range out {
		l := int(binary.LittleEndian.Uint32(lb[4*i:]))
		if pos+l > len(buf) {
			return nil, errs.New(errs.Selection, "", "byte lengths do not match the data")
		}
		out[i] = buf[pos : pos+l : pos+l]
		pos += l
	}
	return out, nil
}
