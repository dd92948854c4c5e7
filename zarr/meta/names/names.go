// Package names holds the two codec namespaces and the translation from
// each into the model names codecs are registered under (package codec):
// v2 ids, the bare numcodecs ids a .zarray's "filters" and "compressor"
// use, and v3 names, the names a zarr.json's "codecs" use (core names,
// "numcodecs.*" for numcodecs codecs, and a few aliases other writers
// emit). It also normalises configurations into the shape the model codecs
// take, so no codec has to guess which format a configuration came from.
// Package meta is its user; it has no dependencies so codec tests can
// translate numcodecs' configurations the same way.
package names

import (
	"sort"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// numcodecsIDs are the numcodecs codec ids whose model name is
// "numcodecs.<id>" (numcodecs' own v3 naming).
var numcodecsIDs = []string{
	"adler32", "astype", "base64", "bitround", "bz2", "categorize", "crc32", "delta",
	"fixedscaleoffset", "fletcher32", "jenkins_lookup3", "json", "json2", "lz4", "lzma",
	"msgpack2", "packbits", "pcodec", "pickle", "quantize", "shuffle", "vlen-array", "zfpy", "zlib",
}

// v2Special maps the v2 ids whose model is a v3 core codec (same stream,
// configuration normalised), and ids kept as they are.
var v2Special = map[string]string{
	"blosc": "blosc", "zstd": "zstd", "gzip": "gzip", "crc32c": "crc32c",
	"vlen-utf8": "vlen-utf8", "vlen-bytes": "vlen-bytes",
	// kerchunk's TIFF references (tifffile) name imagecodecs' codecs.
	"imagecodecs_lzw": "imagecodecs_lzw", "imagecodecs_packbits": "imagecodecs_packbits",
	"imagecodecs_delta": "imagecodecs_delta", "imagecodecs_floatpred": "imagecodecs_floatpred",
}

// v3Core are the v3 names that are model names themselves.
var v3Core = []string{
	"bytes", "transpose", "sharding_indexed", "blosc", "zstd", "gzip", "crc32c", "vlen-utf8", "vlen-bytes", "zfp",
	"packbits", // zarr-extensions' bit packing (array→bytes), not numcodecs.packbits
	"optional", // zarrs' codec for the optional data type
	"reshape",  // zarr-extensions' reshape (the elements keep their C order)
	"zarrs.squeeze",
	"zarrs.gdeflate",
	"zarrs.vlen", "zarrs.vlen_v2",
	"n5_default", // the registry's N5 default-mode blocks
	"jpeg",       // proposed in the registry's pull request 66
	"cast_value", "scale_offset",
	"conditional", // bytes→bytes codecs applied per chunk
	// proposed in the registry and refused with the reason (codec.Refusal)
	"arrow-ipc", "label_multiset", "n5_label_multiset", "n5_varlen",
	"pad",           // proposed in the registry's pull request 36
	"singleton_dim", // proposed in the registry's pull request 58
}

// v3Alias maps other v3 names writers use onto model names.
var v3Alias = map[string]string{
	"endian":               "bytes",              // the bytes codec's name in early v3 drafts
	"numcodecs.blosc":      "blosc",              // zarr-python 3's numcodecs wrapper (v2-style configuration)
	"numcodecs.zstd":       "zstd",               // same stream and configuration
	"numcodecs.gzip":       "gzip",               // same stream and configuration
	"numcodecs.crc32c":     "crc32c",             // the same checksum at the end
	"numcodecs.vlen-utf8":  "vlen-utf8",          // same layout
	"numcodecs.vlen-bytes": "vlen-bytes",         // same layout
	"bitround":             "numcodecs.bitround", // zarr-extensions' name (zarrs)
	"pcodec":               "numcodecs.pcodec",   // zarrs' earlier name
	"https://codec.zarrs.dev/array_to_bytes/pcodec": "numcodecs.pcodec", // zarrs' URL name
	"zarrs.zfp":      "zfp", // zarrs' namespaced name for its (headerless) zfp
	"zarrs.optional": "optional",
	"https://codec.zarrs.dev/array_to_bytes/optional": "optional",
	"https://codec.zarrs.dev/bytes_to_bytes/gdeflate": "zarrs.gdeflate",
	"https://codec.zarrs.dev/array_to_bytes/vlen":     "zarrs.vlen",
	"https://codec.zarrs.dev/array_to_bytes/vlen_v2":  "zarrs.vlen_v2",
	// zarrs writes vlen_v2's layout under numcodecs' v2 name, with no
	// configuration (numcodecs' own takes a dtype: "numcodecs.vlen-array")
	"vlen-array": "zarrs.vlen_v2",
	"n5":         "n5_default",      // its name while proposed
	"lzw":        "imagecodecs_lzw", // the registry's pull request 16: imagecodecs' (TIFF's) LZW
}

// v3OnlyCodecs are v3 codecs a .zarray cannot name: the array→bytes step
// and the order belong to the v2 document's dtype and "order".
var v3OnlyCodecs = map[string]bool{"bytes": true, "transpose": true, "sharding_indexed": true, "endian": true}

// V2 translates a v2 codec id into its model name.
func V2(id string) (string, error) {
	if m, ok := v2Special[id]; ok {
		return m, nil
	}
	for _, n := range numcodecsIDs {
		if n == id {
			return "numcodecs." + id, nil
		}
	}
	if v3OnlyCodecs[id] {
		return "", fmtx.Errorf("%q is a v3 codec: a .zarray's filters and compressor are numcodecs codecs (the byte order is in its dtype, the layout in its order)", id)
	}
	return "", &UnknownError{Name: id, Format: 2}
}

// V3 translates a v3 codec name into its model name.
func V3(name string) (string, error) {
	if m, ok := v3Alias[name]; ok {
		return m, nil
	}
	for _, n := range v3Core {
		if n == name {
			return name, nil
		}
	}
	if id, ok := strings.CutPrefix(name, "numcodecs."); ok {
		for _, n := range numcodecsIDs {
			if n == id {
				return name, nil
			}
		}
	}
	return "", &UnknownError{Name: name, Format: 3}
}

// ForWriting returns the v3 name to write for a codec a caller named when
// creating a v3 array. A bare numcodecs id ("zlib", "delta") is written as
// its "numcodecs." name: no v3 codec has the bare name, every v3 reader
// (zarr-python 3, zarrs, this one) knows the numcodecs one, and writing a
// bare id would make a document no reader accepts.
func ForWriting(name string) (string, error) {
	if name == "vlen-array" {
		return "numcodecs.vlen-array", nil // the bare id is numcodecs' (see v3Alias)
	}
	if _, err := V3(name); err == nil {
		return name, nil
	}
	for _, n := range numcodecsIDs {
		if n == name {
			return "numcodecs." + name, nil
		}
	}
	return "", &UnknownError{Name: name, Format: 3}
}

// UnknownError is a codec name the format's namespace does not have.
type UnknownError struct {
	Name   string
	Format int
}

func (e *UnknownError) Error() string {
	if e.Format == 2 {
		return fmtx.Sprintf("unknown v2 codec id %q", e.Name)
	}
	return fmtx.Sprintf("unknown v3 codec %q", e.Name)
}

// Suggestion returns the name to suggest for an unknown name: in v3 the
// "numcodecs." form of a bare numcodecs id, in v2 the id of a
// "numcodecs." name; "" when there is no such direct counterpart (callers
// then look for a near name among Names).
func (e *UnknownError) Suggestion() string {
	if e.Format == 3 {
		for _, n := range numcodecsIDs {
			if n == e.Name {
				return "numcodecs." + n
			}
		}
		return ""
	}
	if id, ok := strings.CutPrefix(e.Name, "numcodecs."); ok {
		if _, err := V2(id); err == nil {
			return id
		}
	}
	return ""
}

// Names lists the names of a format's namespace (2 or 3), sorted.
func Names(format int) []string {
	var out []string
	if format == 2 {
		out = append(out, numcodecsIDs...)
		for id := range v2Special {
			out = append(out, id)
		}
	} else {
		out = append(out, v3Core...)
		for n := range v3Alias {
			out = append(out, n)
		}
		for _, id := range numcodecsIDs {
			out = append(out, "numcodecs."+id)
		}
	}
	sort.Strings(out)
	return out
}

// Config returns a codec configuration in the form its model codec takes:
// a v2 object without its "id"; blosc's in the v3 form (shuffle by name,
// typesize explicit). typesize is the item size of what the codec receives,
// as numcodecs sees it (0 when unknown: the codec then takes the element
// size of its input).
func Config(model string, members map[string]jsonx.RawMessage, typesize int) (jsonx.RawMessage, error) {
	out := make(map[string]jsonx.RawMessage, len(members))
	for k, v := range members {
		if k != "id" {
			out[k] = v
		}
	}
	if model == "blosc" {
		if err := bloscV3(out, typesize); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return jsonx.MarshalStrict(out)
}

// bloscV3 rewrites numcodecs' blosc settings (shuffle -1, 0, 1, 2) as the
// v3 blosc codec's (shuffle by name, typesize).
func bloscV3(m map[string]jsonx.RawMessage, typesize int) error {
	shuffle := 1 // numcodecs' default: byte shuffle
	if raw, ok := m["shuffle"]; ok && string(raw) != "null" {
		var name string
		if jsonx.UnmarshalStrict(raw, &name) == nil {
			switch name {
			case "noshuffle", "shuffle", "bitshuffle":
				shuffle = map[string]int{"noshuffle": 0, "shuffle": 1, "bitshuffle": 2}[name]
			default:
				return fmtx.Errorf("shuffle %q is not noshuffle, shuffle or bitshuffle", name)
			}
		} else if jsonx.UnmarshalStrict(raw, &shuffle) != nil || shuffle < -1 || shuffle > 2 {
			return fmtx.Errorf("shuffle must be -1, 0, 1, 2 or a name, got %s", string(raw))
		}
	}
	if raw, ok := m["typesize"]; ok && string(raw) != "null" {
		if jsonx.UnmarshalStrict(raw, &typesize) != nil {
			return fmtx.Errorf("typesize must be an integer, got %s", string(raw))
		}
	}
	if shuffle == -1 {
		// numcodecs' AUTOSHUFFLE: bit shuffle for 1-byte items, else byte shuffle.
		shuffle = 1
		if typesize == 1 {
			shuffle = 2
		}
	}
	m["shuffle"], _ = jsonx.MarshalStrict([]string{"noshuffle", "shuffle", "bitshuffle"}[shuffle])
	if typesize > 0 {
		m["typesize"], _ = jsonx.MarshalStrict(typesize)
	} else {
		delete(m, "typesize")
	}
	return nil
}
