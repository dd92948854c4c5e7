package store

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"hash/crc32"
	"io"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// Zip is a read-only store over a zip file held in another store (a
// directory, an HTTP store, memory), read with range requests instead of
// downloading the whole file:
//
//   - opening reads the end of the file with one suffix request (the End Of
//     Central Directory record, a comment of up to 64 KiB and the Zip64
//     locator and record), then the central directory with one range
//     request, unless it already lies in that suffix;
//   - reading an entry makes one range request for its local header and
//     data together (the sizes come from the central directory; the local
//     header's name and extra fields are guessed with a margin), or two when
//     the local header is longer than the margin. Once an entry's data
//     offset is known, every further read of it is one request. Parts of the
//     file already read while opening are not requested again;
//   - reads of entries that arrive together (the engine reads a window's
//     chunks concurrently) are merged into fewer requests by the engine's
//     one coalescing policy (DefaultCoalescing, through a Batcher): in a
//     zip, neighbouring entries' local headers and data are adjacent, so a
//     window of chunks zipped in order is a few requests, not one per chunk.
//
// When the base store cannot read ranges (no RangeReader), the zip is read
// whole, once, and everything is served from memory. When the base store
// refuses a suffix longer than the file (Memory and Directory do; HTTP
// servers return the whole file), the file is smaller than that suffix:
// NewZip then reads the last 22 bytes, and, if they are an end record
// without a comment, the whole file as a suffix of the length it gives (a
// Get when there is a comment), and serves everything from memory: three
// requests in all.
//
// A hostile file cannot make the store allocate more than the file's size,
// except for inflated data: that grows with the output actually produced,
// which must match the size in the central directory, itself bounded by
// deflate's largest ratio (1032:1).
//
// Entries may be stored (method 0) or deflated (method 8); reading an entry
// with another method, or an encrypted one, is an errs.Unsupported error
// naming the entry. Whole-entry reads check the CRC-32 and that the local
// header names the same file; a range of a deflated entry inflates the
// whole entry. Spanned
// (multi-disk) archives and archives with bytes before them (self-extracting
// zips) are not supported. Names are used as they are (UTF-8 in practice;
// CP437 names are not translated).
//
// Root: zarr-python's ZipStore puts keys at the root of the zip, but a zip
// made of a directory ("zip -r data.zarr.zip data.zarr") has every name
// under "data.zarr/". Unless ZipRoot says otherwise, NewZip looks for Zarr
// metadata (".zgroup", ".zarray" or "zarr.json") at the root of the zip;
// when there is none and every entry lies under one top-level directory
// (ignoring "__MACOSX/") that has such metadata directly under it, that
// directory becomes the root: its prefix is removed from every key, and
// entries outside it are not visible. Root reports the prefix in use.
//
// Zip implements Store, RangeReader and Lister, and is safe for concurrent
// use. It has no Set or Delete: the engine reports writes as READ_ONLY.
type Zip struct {
	base      Store
	key       string
	size      int64    // of the zip file
	cdStart   int64    // the central directory's offset: local data ends there
	data      []byte   // the whole file, when it was read whole
	batch     *Batcher // merges entry reads (nil while opening, and for data)
	tail      []byte   // the end of the file, read while opening
	tailStart int64
	root      string
	comment   string
	entries   map[string]*zipEntry // files, by key (root removed)
	paths     []string             // sorted keys, and directories ending in "/"

	genMu sync.Mutex
	gen   Generation // of the zip file in base, "" if unknown
}

type zipEntry struct {
	name     string // as in the zip (with the root)
	method   uint16
	flags    uint16
	crc      uint32
	csize    int64 // compressed size
	usize    int64 // uncompressed size
	local    int64 // offset of the local header
	extraLen int64 // of the central directory's extra field
	dataOff  atomic.Int64
	_        [0]func() // (not comparable: no equality code in the .wasm)
}

// ZipOption configures NewZip.
type ZipOption func(*zipConfig)

type zipConfig struct {
	root    string
	rootSet bool
	tail    int64
	_       [0]func() // (not comparable: no equality code in the .wasm)
}

// ZipRoot sets the directory inside the zip that is the store's root
// ("data.zarr" or "data.zarr/"; "" for the zip's own root), turning off the
// detection described on Zip.
func ZipRoot(prefix string) ZipOption {
	return func(c *zipConfig) {
		prefix = strings.Trim(prefix, "/")
		if prefix != "" {
			prefix += "/"
		}
		c.root, c.rootSet = prefix, true
	}
}

// ZipTail sets the length of the first suffix request (default
// ZipDefaultTail, at least 42: the end record and the Zip64 locator). A
// shorter one saves bytes on zips without a comment, at the price of one
// more request when the central directory is not in it, and of another when
// the end record is not (a comment: the default length is read next) or a
// Zip64 end record is not.
func ZipTail(n int64) ZipOption {
	return func(c *zipConfig) {
		c.tail = max(n, eocdLen+loc64Len)
	}
}

const (
	eocdLen       = 22
	eocdSig       = 0x06054b50
	loc64Len      = 20
	loc64Sig      = 0x07064b50
	eocd64Len     = 56
	eocd64Sig     = 0x06064b50
	cdirLen       = 46
	cdirSig       = 0x02014b50
	localLen      = 30
	localSig      = 0x04034b50
	maxComment    = 0xffff
	zip64ExtraID  = 0x0001
	maxDeflateFac = 1032 // the most deflate can expand: 258 bytes from 2 bits

	// ZipDefaultTail is the first suffix request: the end record with a
	// comment of the longest length, the Zip64 locator and the Zip64 end
	// record.
	ZipDefaultTail = maxComment + eocdLen + loc64Len + eocd64Len

	// zipHeaderMargin is added to the local header's guessed length (the
	// central directory's name and extra lengths): local extra fields often
	// differ (Info-ZIP's timestamps carry one more time, Zip64 sizes).
	zipHeaderMargin = 64
	// zipJoinLimit: a first ranged read of a stored entry fetches the local
	// header together with the range when the range starts within this many
	// bytes of the data, otherwise the header alone first.
	zipJoinLimit = 64 << 10
)

// NewZip opens the zip file stored at key in base. It reads the end of the
// file and the central directory; entries are read on demand. A missing key
// is an errs.NotFound error; a file that is not a valid zip (or one whose
// offsets, sizes or counts do not fit the file) is an errs.Store error
// naming the key.
func NewZip(ctx context.Context, base Store, key string, opts ...ZipOption) (*Zip, error) {
	cfg := zipConfig{tail: ZipDefaultTail}
	for _, o := range opts {
		o(&cfg)
	}
	z := &Zip{base: base, key: key}
	tail, whole, err := z.readTail(ctx, cfg.tail)
	if err != nil {
		return nil, err
	}
	if !whole && cfg.tail < ZipDefaultTail && findEnd(tail) < loc64Len {
		// A comment too long for the tail to hold the end record and the
		// place of a Zip64 locator: read the longest possible end.
		if tail, whole, err = z.readTail(ctx, ZipDefaultTail); err != nil {
			return nil, err
		}
	}
	if whole {
		z.data = tail
	}
	cdOff, cdSize, count, err := z.parseEnd(ctx, tail)
	if err != nil {
		return nil, err
	}
	z.cdStart = cdOff
	cd, _, err := z.read(ctx, "", cdOff, cdSize)
	if err != nil {
		return nil, err
	}
	files, err := z.parseCentral(cd, count)
	if err != nil {
		return nil, err
	}
	z.index(files, cfg)
	if z.data == nil {
		z.batch = NewBatcher(z.request, BatchOptions{})
	}
	return z, nil
}

func (z *Zip) corrupt(format string, args ...any) error {
	return errs.New(errs.Store, z.key, "not a valid zip file: "+format, args...)
}

// readTail reads the last n bytes of the file. whole reports that they are
// the whole file.
func (z *Zip) readTail(ctx context.Context, n int64) (tail []byte, whole bool, err error) {
	if !Has(z.base, CanReadRange) {
		data, ok, err := z.readBase(ctx, WholeValue())
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return nil, false, errs.New(errs.NotFound, z.key, "no zip file")
		}
		return data, true, nil
	}
	tail, ok, err := z.readBase(ctx, Last(n))
	if err == nil {
		if !ok {
			return nil, false, errs.New(errs.NotFound, z.key, "no zip file")
		}
		if int64(len(tail)) > n {
			return nil, false, errs.New(errs.Store, z.key, "asked for the last %d bytes, got %d", n, len(tail))
		}
		return tail, int64(len(tail)) < n, nil
	}
	// Perhaps the file is shorter than n and the store refuses such a
	// suffix. Read the smallest end record to learn the size.
	first := err
	probe, ok, perr := z.readBase(ctx, Last(eocdLen))
	first = errs.Wrap(errs.Store, z.key, first, "cannot read the end of the zip file")
	if perr != nil || !ok || len(probe) != eocdLen {
		return nil, false, first
	}
	count, cdSize, cdOff := le16(probe[10:]), le32(probe[12:]), le32(probe[16:])
	if le32(probe) == eocdSig && le16(probe[20:]) == 0 && count != 0xffff && cdSize != 0xffffffff && cdOff != 0xffffffff {
		size := int64(cdOff) + int64(cdSize) + eocdLen
		if size >= n {
			return nil, false, first // the size was not the problem
		}
		data, ok, err := z.readBase(ctx, Last(size))
		if err != nil || !ok || int64(len(data)) != size {
			return nil, false, first
		}
		return data, false, nil
	}
	// A comment or Zip64 records: the size cannot be told from the end
	// record alone. Read the file whole.
	data, ok, err := z.readBase(ctx, WholeValue())
	if err != nil || !ok {
		return nil, false, first
	}
	return data, true, nil
}

// readBase reads r of the zip file. The first read records the file's
// generation, and every later one is conditional on it: a zip replaced
// after it was opened is a CONFLICT error (its directory no longer
// describes it) rather than bytes from another file.
func (z *Zip) readBase(ctx context.Context, r ByteRange) ([]byte, bool, error) {
	z.genMu.Lock()
	gen := z.gen
	z.genMu.Unlock()
	v, err := Read(ctx, z.base, z.key, r, Conditions{IfMatch: gen})
	if errs.CodeOf(err) == errs.Conflict {
		return nil, false, Conflict(z.key, "the zip file changed since it was opened; open it again")
	}
	if err != nil || !v.Found {
		return nil, false, err
	}
	if gen == "" && v.Generation != "" {
		z.genMu.Lock()
		if z.gen == "" {
			z.gen = v.Generation
		}
		z.genMu.Unlock()
	}
	return v.Data, true, nil
}

// ReadVersion reads an entry; its generation is the zip file's (as it was
// opened), or "" when the base store has none.
func (z *Zip) ReadVersion(ctx context.Context, key string, r ByteRange, c Conditions) (Versioned, error) {
	z.genMu.Lock()
	gen := z.gen
	z.genMu.Unlock()
	if gen != "" {
		gen = "zip:" + gen
		if z.entries[key] == nil {
			gen = Absent
		}
		if pre, done, err := Precheck(key, gen, c); done {
			return pre, err
		}
	}
	var v Versioned
	var err error
	if r.IsWhole() {
		v.Data, v.Found, err = z.Get(ctx, key)
	} else {
		v.Data, v.Found, err = z.GetRange(ctx, key, r)
	}
	if err != nil {
		return Versioned{}, err
	}
	v.Generation = gen
	return v, nil
}

// findEnd returns the index of the End Of Central Directory record in the
// last bytes of the file: the last one whose comment ends the file, or
// failing that the last one whose comment fits (trailing garbage).
func findEnd(b []byte) int {
	loose := -1
	for i := len(b) - eocdLen; i >= 0 && i >= len(b)-eocdLen-maxComment; i-- {
		if b[i] != 'P' || le32(b[i:]) != eocdSig {
			continue
		}
		end := i + eocdLen + int(le16(b[i+20:]))
		if end == len(b) {
			return i
		}
		if end < len(b) && loose < 0 {
			loose = i
		}
	}
	return loose
}

// parseEnd reads the end records, sets size, tailStart and comment, and
// returns where the central directory is and how many entries it has.
func (z *Zip) parseEnd(ctx context.Context, tail []byte) (cdOff, cdSize, count int64, err error) {
	i := findEnd(tail)
	if i < 0 {
		return 0, 0, 0, z.corrupt("no end of central directory record in the last %d bytes", len(tail))
	}
	e := tail[i:]
	z.comment = string(e[eocdLen:min(len(e), eocdLen+int(le16(e[20:])))])
	if le16(e[4:]) != 0 || le16(e[6:]) != 0 || le16(e[8:]) != le16(e[10:]) {
		return 0, 0, 0, errs.New(errs.Unsupported, z.key, "spanned (multi-disk) zip files are not supported")
	}
	count, cdSize, cdOff = int64(le16(e[10:])), int64(le32(e[12:])), int64(le32(e[16:]))
	var tailStart, cdLimit int64
	if i >= loc64Len && le32(tail[i-loc64Len:]) == loc64Sig {
		loc := tail[i-loc64Len : i]
		if le32(loc[4:]) != 0 || le32(loc[16:]) > 1 {
			return 0, 0, 0, errs.New(errs.Unsupported, z.key, "spanned (multi-disk) zip files are not supported")
		}
		recOff := le64(loc[8:])
		if recOff > 1<<62 {
			return 0, 0, 0, z.corrupt("Zip64 end record at offset %d", recOff)
		}
		var rec []byte
		j := i - loc64Len - eocd64Len
		if j >= 0 && le32(tail[j:]) == eocd64Sig && le64(tail[j+4:]) == eocd64Len-12 {
			rec = tail[j : j+eocd64Len]
			tailStart = int64(recOff) - int64(j)
		} else {
			// Not right before the locator in the tail: an extensible data
			// sector, or a tail too short. Read it where the locator says.
			if z.data != nil {
				rec, err = sliceFile(z.data, int64(recOff), eocd64Len)
			} else {
				rec, err = z.fetch(ctx, int64(recOff), eocd64Len)
			}
			if err != nil {
				return 0, 0, 0, z.corrupt("Zip64 end record at offset %d: %v", recOff, err)
			}
			if le32(rec) != eocd64Sig {
				return 0, 0, 0, z.corrupt("no Zip64 end record at offset %d", recOff)
			}
			recSize := le64(rec[4:])
			if recSize < eocd64Len-12 || recSize > 1<<40 {
				return 0, 0, 0, z.corrupt("Zip64 end record of %d bytes", recSize)
			}
			tailStart = int64(recOff) + 12 + int64(recSize) - int64(i-loc64Len)
		}
		if le32(rec[16:]) != 0 || le32(rec[20:]) != 0 || le64(rec[24:]) != le64(rec[32:]) {
			return 0, 0, 0, errs.New(errs.Unsupported, z.key, "spanned (multi-disk) zip files are not supported")
		}
		c, s, o := le64(rec[32:]), le64(rec[40:]), le64(rec[48:])
		if c > 1<<62 || s > 1<<62 || o > 1<<62 {
			return 0, 0, 0, z.corrupt("Zip64 end record: %d entries, %d bytes at offset %d", c, s, o)
		}
		count, cdSize, cdOff = int64(c), int64(s), int64(o)
		if cdOff+cdSize != int64(recOff) {
			return 0, 0, 0, z.corrupt("the central directory (%d bytes at offset %d) does not end where the Zip64 end record starts (%d)", cdSize, cdOff, recOff)
		}
		cdLimit = int64(recOff)
	} else {
		tailStart = cdOff + cdSize - int64(i)
		cdLimit = cdOff + cdSize
	}
	if tailStart < 0 || (z.data != nil && tailStart != 0) {
		return 0, 0, 0, z.corrupt("the central directory's offset (%d) and size (%d) do not fit the file (bytes before the archive are not supported)", cdOff, cdSize)
	}
	z.tail, z.tailStart = tail, tailStart
	z.size = tailStart + int64(len(tail))
	if cdOff+cdSize > cdLimit {
		return 0, 0, 0, z.corrupt("the central directory (%d bytes at offset %d) overlaps the end records", cdSize, cdOff)
	}
	if count > cdSize/cdirLen {
		return 0, 0, 0, z.corrupt("%d entries cannot fit a %d-byte central directory", count, cdSize)
	}
	return cdOff, cdSize, count, nil
}

// parseCentral reads count central directory headers.
func (z *Zip) parseCentral(cd []byte, count int64) ([]*zipEntry, error) {
	files := make([]*zipEntry, 0, count)
	for n := int64(0); n < count; n++ {
		if len(cd) < cdirLen || le32(cd) != cdirSig {
			return nil, z.corrupt("central directory entry %d: bad header", n)
		}
		nl, el, cl := int(le16(cd[28:])), int(le16(cd[30:])), int(le16(cd[32:]))
		if cdirLen+nl+el+cl > len(cd) {
			return nil, z.corrupt("central directory entry %d runs past the central directory", n)
		}
		e := &zipEntry{
			name:     string(cd[cdirLen : cdirLen+nl]),
			flags:    le16(cd[8:]),
			method:   le16(cd[10:]),
			crc:      le32(cd[16:]),
			csize:    int64(le32(cd[20:])),
			usize:    int64(le32(cd[24:])),
			local:    int64(le32(cd[42:])),
			extraLen: int64(el),
		}
		if err := e.zip64(cd[cdirLen+nl : cdirLen+nl+el]); err != nil {
			return nil, z.corrupt("entry %q: %v", e.name, err)
		}
		cd = cd[cdirLen+nl+el+cl:]
		if e.local+localLen+int64(nl) > z.cdStart || e.csize > z.cdStart-e.local-localLen-int64(nl) {
			return nil, z.corrupt("entry %q: %d bytes at offset %d do not fit before the central directory (offset %d)",
				e.name, e.csize, e.local, z.cdStart)
		}
		if e.method == 0 && e.flags&1 == 0 && e.csize != e.usize {
			return nil, z.corrupt("stored entry %q: compressed size %d differs from size %d", e.name, e.csize, e.usize)
		}
		if e.method == 8 && e.usize/maxDeflateFac > e.csize {
			return nil, z.corrupt("deflated entry %q: %d bytes cannot inflate to %d", e.name, e.csize, e.usize)
		}
		files = append(files, e)
	}
	return files, nil
}

// zip64 replaces the fields set to 0xffffffff with those of the Zip64
// extra field.
func (e *zipEntry) zip64(extra []byte) error {
	const max32 = 0xffffffff
	if e.usize != max32 && e.csize != max32 && e.local != max32 {
		return nil
	}
	for len(extra) >= 4 {
		id, n := le16(extra), int(le16(extra[2:]))
		if 4+n > len(extra) {
			return fmtx.Errorf("extra field runs past its end")
		}
		if id != zip64ExtraID {
			extra = extra[4+n:]
			continue
		}
		f := extra[4 : 4+n]
		for _, p := range []*int64{&e.usize, &e.csize, &e.local} {
			if *p != max32 {
				continue
			}
			if len(f) < 8 {
				return fmtx.Errorf("Zip64 extra field too short")
			}
			v := le64(f)
			if v > 1<<62 {
				return fmtx.Errorf("Zip64 size or offset %d", v)
			}
			*p, f = int64(v), f[8:]
		}
		return nil
	}
	return fmtx.Errorf("sizes or offset of 0xffffffff without a Zip64 extra field")
}

// index removes the root and builds the key map and the listing.
func (z *Zip) index(files []*zipEntry, cfg zipConfig) {
	names := map[string]bool{}
	for _, e := range files {
		names[e.name] = true
	}
	hasMeta := func(dir string) bool {
		return names[dir+".zgroup"] || names[dir+".zarray"] || names[dir+"zarr.json"]
	}
	root := cfg.root
	if !cfg.rootSet && !hasMeta("") {
		top := ""
		for _, e := range files {
			if e.name == "__MACOSX/" || strings.HasPrefix(e.name, "__MACOSX/") {
				continue
			}
			i := strings.IndexByte(e.name, '/')
			if i <= 0 || (top != "" && e.name[:i+1] != top) {
				top = ""
				break
			}
			top = e.name[:i+1]
		}
		if top != "" && hasMeta(top) {
			root = top
		}
	}
	z.root = root
	z.entries = map[string]*zipEntry{}
	seen := map[string]bool{}
	for _, e := range files {
		if !strings.HasPrefix(e.name, root) {
			continue
		}
		k := e.name[len(root):]
		if k == "" {
			continue
		}
		if !strings.HasSuffix(k, "/") {
			z.entries[k] = e // a later duplicate wins, as in Python
		}
		if !seen[k] {
			seen[k] = true
			z.paths = append(z.paths, k)
		}
	}
	sort.Strings(z.paths)
}

// Root returns the prefix removed from the zip's names ("" or a directory
// name ending in "/").
func (z *Zip) Root() string { return z.root }

// Comment returns the zip file's comment.
func (z *Zip) Comment() string { return z.comment }

// Size returns the zip file's size.
func (z *Zip) Size() int64 { return z.size }

// Key returns the key of the zip file in its base store.
func (z *Zip) Key() string { return z.key }

// read returns n bytes of the file at off for key (the entry read, "" while
// opening): from memory when they were already read (cached: the caller
// must copy them before handing them out), else with one range request,
// merged with those of other entries read at the same time.
func (z *Zip) read(ctx context.Context, key string, off, n int64) (b []byte, cached bool, err error) {
	if off < 0 || n < 0 || off > z.size || n > z.size-off {
		return nil, false, z.corrupt("bytes %d-%d are past the end of the %d-byte file", off, off+n-1, z.size)
	}
	switch {
	case z.data != nil:
		return z.data[off : off+n], true, nil
	case off >= z.tailStart:
		return z.tail[off-z.tailStart : off-z.tailStart+n], true, nil
	}
	if z.batch == nil {
		b, err = z.fetch(ctx, off, n)
		return b, false, err
	}
	ans, err := z.batch.Read(ctx, key, z.key, off, n)
	return ans.Data, false, err
}

// request is the Batcher's request: n bytes at off of the zip file.
func (z *Zip) request(ctx context.Context, _, _ string, off, n int64) (Fetched, error) {
	b, err := z.fetch(ctx, off, n)
	return Fetched{Data: b}, err
}

// readCopy is read with a result the caller owns.
func (z *Zip) readCopy(ctx context.Context, key string, off, n int64) ([]byte, error) {
	b, cached, err := z.read(ctx, key, off, n)
	if cached {
		b = append([]byte(nil), b...)
	}
	return b, err
}

// fetch makes one range request.
func (z *Zip) fetch(ctx context.Context, off, n int64) ([]byte, error) {
	if n == 0 {
		return []byte{}, nil
	}
	b, ok, err := z.readBase(ctx, Span(off, n))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errs.New(errs.Store, z.key, "the zip file disappeared")
	}
	if int64(len(b)) != n {
		return nil, errs.New(errs.Store, z.key, "asked for %d bytes at offset %d, got %d", n, off, len(b))
	}
	return b, nil
}

func sliceFile(data []byte, off, n int64) ([]byte, error) {
	return Slice(data, Span(off, n))
}

// entryErr is an error about one entry: it names the key asked for and the
// zip file.
func (z *Zip) entryErr(code errs.Code, key, format string, args ...any) error {
	return errs.New(code, key, "in zip %q: "+format, append([]any{z.key}, args...)...)
}

func (z *Zip) check(key string, e *zipEntry) error {
	if e.flags&0x41 != 0 {
		return z.entryErr(errs.Unsupported, key, "entry %q is encrypted", e.name)
	}
	switch e.method {
	case 0, 8:
		return nil
	}
	name := ""
	switch e.method {
	case 9:
		name = " (deflate64)"
	case 12:
		name = " (bzip2)"
	case 14:
		name = " (lzma)"
	case 93:
		name = " (zstd)"
	case 95:
		name = " (xz)"
	case 98:
		name = " (ppmd)"
	}
	return z.entryErr(errs.Unsupported, key, "entry %q: compression method %d%s is not supported (only stored and deflated)", e.name, e.method, name)
}

// stored returns bytes [from, to) of an entry's data as stored in the zip.
// Until the data's offset is known it reads the local header too, in the
// same request when the range starts near the data.
func (z *Zip) stored(ctx context.Context, key string, e *zipEntry, from, to int64) ([]byte, error) {
	if off := e.dataOff.Load(); off > 0 {
		return z.readCopy(ctx, key, off+from, to-from)
	}
	guess := localLen + int64(len(e.name)) + e.extraLen + zipHeaderMargin
	want := guess
	if from <= zipJoinLimit {
		want += to
	}
	want = min(want, z.size-e.local)
	buf, cached, err := z.read(ctx, key, e.local, want)
	if err != nil {
		return nil, err
	}
	if len(buf) < localLen || le32(buf) != localSig {
		return nil, z.entryErr(errs.Store, key, "entry %q: no local header at offset %d", e.name, e.local)
	}
	nl, el := int64(le16(buf[26:])), int64(le16(buf[28:]))
	if nl != int64(len(e.name)) || localLen+nl > int64(len(buf)) || string(buf[localLen:localLen+nl]) != e.name {
		return nil, z.entryErr(errs.Store, key, "entry %q: the local header names another file", e.name)
	}
	start := localLen + nl + el // of the data, in buf
	if e.local+start+e.csize > z.cdStart {
		return nil, z.entryErr(errs.Store, key, "entry %q: its %d bytes at offset %d run into the central directory",
			e.name, e.csize, e.local+start)
	}
	e.dataOff.Store(e.local + start)
	lo, hi := start+from, start+to
	switch {
	case hi > int64(len(buf)):
		// a local header longer than guessed: the range is read again
		// whole (rare; Info-ZIP's and Python's extras fit the margin)
		return z.readCopy(ctx, key, e.local+lo, hi-lo)
	case cached:
		return append([]byte(nil), buf[lo:hi]...), nil
	}
	return buf[lo:hi], nil
}

// Get returns an entry's content.
func (z *Zip) Get(ctx context.Context, key string) ([]byte, bool, error) {
	e := z.entries[key]
	if e == nil {
		return nil, false, nil
	}
	if err := z.check(key, e); err != nil {
		return nil, false, err
	}
	raw, err := z.stored(ctx, key, e, 0, e.csize)
	if err != nil {
		return nil, false, err
	}
	data := raw
	if e.method == 8 {
		if data, err = inflate(raw, e.usize); err != nil {
			return nil, false, z.entryErr(errs.Store, key, "entry %q: %v", e.name, err)
		}
	}
	if c := crc32.ChecksumIEEE(data); c != e.crc {
		return nil, false, z.entryErr(errs.Store, key, "entry %q: CRC-32 %08x, the central directory says %08x", e.name, c, e.crc)
	}
	return data, true, nil
}

// GetRange returns part of an entry's content: for a stored entry with one
// range request (two the first time when the range starts far into the
// entry); a deflated entry is inflated whole and sliced.
func (z *Zip) GetRange(ctx context.Context, key string, r ByteRange) ([]byte, bool, error) {
	e := z.entries[key]
	if e == nil {
		return nil, false, nil
	}
	if err := z.check(key, e); err != nil {
		return nil, false, err
	}
	off, n, err := r.Resolve(e.usize)
	if err != nil {
		return nil, false, errs.Wrap(errs.Store, key, err, "bad range")
	}
	if e.method == 0 && (off != 0 || n != e.usize) {
		if n == 0 {
			return []byte{}, true, nil
		}
		b, err := z.stored(ctx, key, e, off, off+n)
		if err != nil {
			return nil, false, err
		}
		return b, true, nil
	}
	data, ok, err := z.Get(ctx, key)
	if err != nil || !ok {
		return nil, ok, err
	}
	return data[off : off+n], true, nil
}

// List lists the keys and directories directly under prefix. Directories
// are those of the zip's explicit directory entries and those implied by
// the names.
func (z *Zip) List(_ context.Context, prefix string) ([]string, error) {
	out := []string{}
	for i := sort.SearchStrings(z.paths, prefix); i < len(z.paths) && strings.HasPrefix(z.paths[i], prefix); i++ {
		rest := z.paths[i][len(prefix):]
		if rest == "" {
			continue
		}
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			rest = rest[:j+1]
		}
		if len(out) == 0 || out[len(out)-1] != rest {
			out = append(out, rest)
		}
	}
	return out, nil
}

// inflate decompresses a deflate stream that must yield exactly size bytes.
// Memory grows with the output actually produced, not with the size the
// zip claims.
func inflate(comp []byte, size int64) ([]byte, error) {
	fr := flate.NewReader(bytes.NewReader(comp))
	defer fr.Close()
	var buf bytes.Buffer
	buf.Grow(int(min(size, 4*int64(len(comp))+4096)))
	n, err := io.Copy(&buf, io.LimitReader(fr, size+1))
	if err != nil {
		return nil, fmtx.Errorf("deflate stream: %w", err)
	}
	if n != size {
		return nil, fmtx.Errorf("inflates to %d bytes or more, the central directory says %d", n, size)
	}
	return buf.Bytes(), nil
}

func le16(b []byte) uint16 { return binary.LittleEndian.Uint16(b) }
func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }
func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }
