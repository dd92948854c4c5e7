package icechunk

import (
	"encoding/binary"
	"sync"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// manifest is a chunk manifest file, kept as its FlatBuffers body: a chunk
// is found by a binary search over the array's references (sorted by chunk
// index, as the spec requires), reading only the references the search
// touches. An array's reference list is checked once, on first use (every
// index of the array's dimensionality, strictly ascending), so a search
// over a corrupt list cannot answer "absent" for a chunk that is there.
type manifest struct {
	key   string // "manifests/<id>"
	r     fbReader
	dict  []byte // the zstd dictionary of compressed virtual locations
	dictC uint8  // the manifest's location compression
	size  int    // the body's size, for the cache

	arrays map[id8]fbVec // each array's ChunkRef vector

	mu      sync.Mutex
	checked map[id8]error // arrays whose reference list was checked

	dictOnce sync.Once
	dictDec  func([]byte) ([]byte, error)
	dictErr  error
}

func parseManifest(key string, b []byte) (*manifest, error) {
	m := &manifest{key: key, r: fbReader{b: b}, size: len(b), checked: map[id8]error{}}
	r := &m.r
	root := r.root()
	arrays, ok := r.fieldVec(root, manArrays, 4, "the arrays")
	if !ok && r.err == nil {
		r.fail("the manifest has no array list")
	}
	m.dict, _ = r.fieldBytes(root, manLocationDict, "the location dictionary")
	m.dictC = r.fieldU8(root, manCompression, locationZstdDict)
	m.arrays = make(map[id8]fbVec, min(arrays.n, 1024))
	for i := 0; i < arrays.n && r.err == nil; i++ {
		t := r.tableIn(arrays, i, "an array's references")
		var id id8
		nid := r.fieldStruct(t, arrManNodeID, 8)
		if nid == nil && r.err == nil {
			r.fail("array %d of the manifest has no node id", i)
		}
		copy(id[:], nid)
		refs, ok := r.fieldVec(t, arrManRefs, 4, "an array's references")
		if !ok && r.err == nil {
			r.fail("array %d of the manifest has no reference list", i)
		}
		// (arrays sharing one list would make checking them all quadratic)
		r.charge(refs.n)
		m.arrays[id] = refs
	}
	if r.err != nil {
		return nil, corrupt(key, "manifest", r.err)
	}
	return m, nil
}

// refKind tells the three kinds of chunk reference apart.
type refKind uint8

const (
	refKindInline refKind = iota + 1
	refKindNative
	refKindVirtual
)

// chunkRef is one chunk's reference.
type chunkRef struct {
	kind         refKind
	inline       []byte
	chunkID      id12
	offset       uint64
	length       uint64
	location     string
	etag         string
	lastModified uint32 // seconds since 1970; 0: none
}

// check verifies the reference list of an array of ndim dimensions once.
func (m *manifest) check(node id8, ndim int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err, done := m.checked[node]; done {
		return err
	}
	refs := m.arrays[node]
	prev := -1
	var err error
	for j := 0; j < refs.n; j++ {
		idx, ok := m.indexAt(refs, j, ndim)
		if !ok {
			err = corrupt(m.key, "manifest", fmtx.Errorf("chunk reference %d has no %d-dimensional index inside the buffer", j, ndim))
			break
		}
		if prev >= 0 && compareAt(m.r.b, prev, idx, ndim) >= 0 {
			err = corrupt(m.key, "manifest", fmtx.Errorf("the chunk references are not sorted by index (reference %d)", j))
			break
		}
		prev = idx
	}
	m.checked[node] = err
	return err
}

// indexAt returns the position of the first coordinate of reference j's
// index (a vector of ndim uint32), checking every offset on the way: the
// one hot path of a manifest (check reads every reference, a lookup log2
// of them), so written out here rather than through fbReader's general
// (and slower) steps.
func (m *manifest) indexAt(refs fbVec, j, ndim int) (int, bool) {
	b := m.r.b
	n := len(b)
	p := refs.at + 4*j // (inside: vecAt checked the vector)
	if j < 0 || j >= refs.n {
		return 0, false
	}
	t := p + int(binary.LittleEndian.Uint32(b[p:]))
	if t < 0 || t > n-4 {
		return 0, false
	}
	vt := t - int(int32(binary.LittleEndian.Uint32(b[t:])))
	if vt < 0 || vt > n-6 {
		return 0, false
	}
	if binary.LittleEndian.Uint16(b[vt:]) < 6 { // no slot for field 0
		return 0, false
	}
	off := int(binary.LittleEndian.Uint16(b[vt+4:]))
	if off < 4 || off+4 > int(binary.LittleEndian.Uint16(b[vt+2:])) || t+off > n-4 {
		return 0, false
	}
	f := t + off
	v := f + int(binary.LittleEndian.Uint32(b[f:]))
	if v <= f || v > n-4 || int(binary.LittleEndian.Uint32(b[v:])) != ndim || ndim > (n-v-4)/4 {
		return 0, false
	}
	return v + 4, true
}

// compareAt compares two index vectors of ndim coordinates at a and c.
func compareAt(b []byte, a, c, ndim int) int {
	for k := 0; k < 4*ndim; k += 4 {
		x, y := binary.LittleEndian.Uint32(b[a+k:]), binary.LittleEndian.Uint32(b[c+k:])
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// compareCoords compares the index vector at a with chunk coordinates.
func compareCoords(b []byte, a int, coords []uint32) int {
	for k, c := range coords {
		x := binary.LittleEndian.Uint32(b[a+4*k:])
		if x != c {
			if x < c {
				return -1
			}
			return 1
		}
	}
	return 0
}

// lookup finds the reference of the chunk at coords of the array node
// (its list checked first).
func (m *manifest) lookup(node id8, coords []uint32) (chunkRef, bool, error) {
	refs, ok := m.arrays[node]
	if !ok {
		return chunkRef{}, false, nil
	}
	if err := m.check(node, len(coords)); err != nil {
		return chunkRef{}, false, err
	}
	lo, hi := 0, refs.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		idx, _ := m.indexAt(refs, mid, len(coords)) // (check found every one)
		switch c := compareCoords(m.r.b, idx, coords); {
		case c == 0:
			r := &fbReader{b: m.r.b}
			ref, err := m.decodeRef(r, r.tableIn(refs, mid, "a chunk reference"))
			return ref, err == nil, err
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return chunkRef{}, false, nil
}

// each calls f with every chunk index and reference of the array node.
func (m *manifest) each(node id8, ndim int, f func(coords []uint32, ref chunkRef) error) error {
	refs, ok := m.arrays[node]
	if !ok {
		return nil
	}
	if err := m.check(node, ndim); err != nil {
		return err
	}
	r := &fbReader{b: m.r.b}
	coords := make([]uint32, ndim)
	for j := 0; j < refs.n; j++ {
		idx, _ := m.indexAt(refs, j, ndim)
		for k := range coords {
			coords[k] = binary.LittleEndian.Uint32(m.r.b[idx+4*k:])
		}
		ref, err := m.decodeRef(r, r.tableIn(refs, j, "a chunk reference"))
		if err != nil {
			return err
		}
		if err := f(coords, ref); err != nil {
			return err
		}
	}
	return nil
}

// decodeRef reads a ChunkRef table: which of the three kinds it is is told
// by its fields, in the order Icechunk itself looks at them.
func (m *manifest) decodeRef(r *fbReader, t fbTable) (chunkRef, error) {
	var ref chunkRef
	ref.offset = r.fieldU64(t, refOffset, 0)
	ref.length = r.fieldU64(t, refLength, 0)
	if id := r.fieldStruct(t, refChunkID, 12); id != nil {
		ref.kind = refKindNative
		copy(ref.chunkID[:], id)
	} else if cl, ok := r.fieldBytes(t, refCompressedLoc, "a compressed location"); ok {
		ref.kind = refKindVirtual
		if r.err == nil {
			loc, err := m.decompressLocation(cl)
			if err != nil {
				return ref, err
			}
			ref.location = loc
		}
	} else if loc, ok := r.fieldString(t, refLocation, "a location"); ok {
		ref.kind = refKindVirtual
		ref.location = loc
	} else if data, ok := r.fieldBytes(t, refInline, "inline chunk data"); ok {
		ref.kind = refKindInline
		ref.inline = data
	} else if r.err == nil {
		r.fail("a chunk reference is neither inline, native nor virtual")
	}
	if ref.kind == refKindVirtual {
		ref.etag, _ = r.fieldString(t, refETag, "a checksum")
		ref.lastModified = r.fieldU32(t, refLastModified, 0)
	}
	if r.err != nil {
		return ref, corrupt(m.key, "manifest", r.err)
	}
	return ref, nil
}

// HostZstdDict decodes zstd data compressed with a dictionary to at most
// max bytes (ok false when it cannot). The WebAssembly bridge sets it to
// the host's libzstd; the core build, which has no zstd decoder of its
// own, decodes compressed virtual chunk locations with it (the other
// builds use klauspost/compress).
var HostZstdDict func(dict, src []byte, max int) (out []byte, ok bool)

// maxLocation bounds a decompressed virtual chunk location (Icechunk's own
// limit).
const maxLocation = 1024

func (m *manifest) decompressLocation(b []byte) (string, error) {
	if m.dictC != locationZstdDict || len(m.dict) == 0 {
		return "", errs.New(errs.InvalidMetadata, m.key, "a virtual chunk's location is compressed, but the manifest has no dictionary")
	}
	m.dictOnce.Do(func() { m.dictDec, m.dictErr = dictDecoder(m.dict, maxLocation) })
	if m.dictErr != nil {
		return "", errs.Wrap(errs.Codec, m.key, m.dictErr, "cannot read the location dictionary")
	}
	out, err := m.dictDec(b)
	if err == nil && len(out) > maxLocation {
		err = errs.New(errs.Codec, m.key, "a location decompresses to more than %d bytes", maxLocation)
	}
	if err != nil {
		return "", errs.Wrap(errs.Codec, m.key, err, "cannot decompress a virtual chunk's location")
	}
	return string(out), nil
}
