package store

import (
	"context"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// Generation identifies one version of a stored value: an HTTP ETag, a
// file's identity (device, inode, size, modification time), a counter. It is
// opaque and compared only for equality; "" means unknown: the store cannot
// tell versions apart, and nothing read from it can be checked for change.
type Generation string

// Absent is the generation of a key without a value. A write conditional on
// Absent creates the key only if nobody else has.
const Absent Generation = "<absent>"

// Conditions make a read depend on the version the caller knows.
type Conditions struct {
	// IfMatch: read only if the value is still this version; otherwise
	// the read fails with a CONFLICT error and returns no data.
	IfMatch Generation
	// IfNoneMatch: the caller holds this version; if the value is
	// unchanged the answer is NotModified, without data.
	IfNoneMatch Generation
}

// Versioned is the answer of a versioned read.
type Versioned struct {
	Data       []byte
	Found      bool       // the key has a value (also with NotModified)
	Generation Generation // of the value read ("" when unknown; Absent when not found)
	// NotModified: Conditions.IfNoneMatch matched, Data is nil.
	NotModified bool
	// Denied: not found because the server refused access (HTTP 403),
	// which object stores answer for a key that does not exist when the
	// reader may not list the bucket. The engine opens nodes past such
	// keys, and says "access denied" when every metadata key of a path
	// was refused.
	Denied bool
}

// VersionedReader is implemented by stores that tell which version of a
// value a read returned and can make reads conditional (memory: a counter;
// directory: the file's identity; HTTP: ETag or Last-Modified with If-Match
// and If-None-Match).
type VersionedReader interface {
	// ReadVersion reads r of key (WholeValue for all of it) under c.
	ReadVersion(ctx context.Context, key string, r ByteRange, c Conditions) (Versioned, error)
}

// ConditionalWriter writes only while a key is at a known version, which is
// how a read-modify-write notices that another process changed the value
// since it was read.
type ConditionalWriter interface {
	// SetIf stores value if the key is still at ifMatch (Absent: has no
	// value; "": unconditionally) and returns the new generation ("" if
	// unknown). A CONFLICT error when the key changed.
	SetIf(ctx context.Context, key string, value []byte, ifMatch Generation) (Generation, error)
	// DeleteIf deletes the key if it is still at ifMatch ("": always).
	DeleteIf(ctx context.Context, key string, ifMatch Generation) error
}

// Conflict is the error of a conditional read or write whose key is no
// longer at the generation the caller expected.
func Conflict(key string, format string, args ...any) error {
	return errs.New(errs.Conflict, key, format, args...)
}

// Precheck applies c to a value whose current generation the store knows
// before reading (gen; Absent when there is no value): done is true when
// the answer is given without reading (NotModified, or a CONFLICT error).
func Precheck(key string, gen Generation, c Conditions) (v Versioned, done bool, err error) {
	switch {
	case c.IfMatch != "" && c.IfMatch != gen:
		return Versioned{}, true, Conflict(key, "changed (version %s, expected %s)", string(gen), string(c.IfMatch))
	case c.IfNoneMatch != "" && c.IfNoneMatch == gen:
		return Versioned{Found: gen != Absent, Generation: gen, NotModified: true}, true, nil
	case gen == Absent:
		return Versioned{Generation: Absent}, true, nil
	}
	return Versioned{}, false, nil
}

// Read reads r of key through s under c. A store that cannot version is
// read plainly (Generation "": the conditions cannot be checked). Whatever
// the store, an answer whose generation shows the condition failed is
// treated so here: a different version under IfMatch is a CONFLICT, the same
// version under IfNoneMatch is NotModified (for stores, servers and JS
// stores that report versions but ignore conditions).
func Read(ctx context.Context, s Store, key string, r ByteRange, c Conditions) (Versioned, error) {
	var v Versioned
	var err error
	if Has(s, CanVersion) {
		v, err = s.(VersionedReader).ReadVersion(ctx, key, r, c)
	} else if r.IsWhole() {
		v.Data, v.Found, err = s.Get(ctx, key)
	} else {
		v.Data, v.Found, err = GetRange(ctx, s, key, r)
	}
	if err != nil {
		return Versioned{}, err
	}
	if v.NotModified && c.IfNoneMatch == "" {
		return Versioned{}, errs.New(errs.Store, key, "the store answered \"not modified\" to a read without a condition")
	}
	if v.NotModified || v.Generation == "" {
		return v, nil
	}
	if c.IfMatch != "" && v.Generation != c.IfMatch {
		return Versioned{}, Conflict(key, "changed while it was read (version %s, expected %s)", string(v.Generation), string(c.IfMatch))
	}
	if c.IfNoneMatch != "" && v.Generation == c.IfNoneMatch {
		return Versioned{Found: v.Found, Generation: v.Generation, NotModified: true}, nil
	}
	return v, nil
}

// SetIf writes through s, conditionally when s can (see ConditionalWriter);
// otherwise plainly, returning "" (the write could not be checked).
func SetIf(ctx context.Context, s Store, key string, value []byte, ifMatch Generation) (Generation, error) {
	if Has(s, CanWriteIf) {
		return s.(ConditionalWriter).SetIf(ctx, key, value, ifMatch)
	}
	w, ok := AsWriter(s)
	if !ok {
		return "", errs.New(errs.ReadOnly, key, "the store cannot be written")
	}
	return "", w.Set(ctx, key, value)
}

// DeleteIf deletes through s, conditionally when s can.
func DeleteIf(ctx context.Context, s Store, key string, ifMatch Generation) error {
	if Has(s, CanWriteIf) {
		return s.(ConditionalWriter).DeleteIf(ctx, key, ifMatch)
	}
	w, ok := AsWriter(s)
	if !ok {
		return errs.New(errs.ReadOnly, key, "the store cannot be written")
	}
	return w.Delete(ctx, key)
}
