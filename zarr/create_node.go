// Where a new node goes: the path and store checked, a node already there
// replaced (Overwrite) or refused, missing ancestor groups created.

package zarr

import (
	"context"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/meta"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// newNodeTarget checks what creating a node needs: a valid path, a
// writable store and a format it can write (0 means v3).
func newNodeTarget(s Store, path string, format int) (string, store.Writer, int, error) {
	p, err := meta.NormalizePath(path)
	if err != nil {
		return "", nil, 0, err
	}
	w, ok := store.AsWriter(s)
	if !ok {
		return "", nil, 0, errs.New(errs.ReadOnly, p, "the store cannot be written")
	}
	if format == 0 {
		format = 3
	}
	if format != 2 && format != 3 {
		return "", nil, 0, errs.New(errs.Unsupported, p, "writing zarr_format %d is not supported", format)
	}
	return p, w, format, nil
}

// writeGroupDoc writes a group's metadata (and v2 attributes).
func writeGroupDoc(ctx context.Context, w store.Writer, prefix string, format int, attrs map[string]any) error {
	if format == 3 {
		doc, err := meta.GroupDocV3(attrs)
		if err != nil {
			return errs.Wrap(errs.InvalidMetadata, prefix+keyZarrJSON, err, "attributes cannot be written as JSON")
		}
		return setKey(ctx, w, prefix+keyZarrJSON, doc)
	}
	if err := setKey(ctx, w, prefix+keyZgroup, meta.GroupDocV2()); err != nil {
		return err
	}
	if attrs != nil {
		data, err := meta.MarshalAttrs(attrs)
		if err != nil {
			return errs.Wrap(errs.InvalidMetadata, prefix+keyZattrs, err, "attributes cannot be written as JSON")
		}
		return setKey(ctx, w, prefix+keyZattrs, data)
	}
	return nil
}

// prepareNode checks that path is free (or clears it when overwriting) and
// creates missing ancestor groups; an ancestor that is an array is an error.
func prepareNode(ctx context.Context, s Store, w store.Writer, p string, overwrite bool, format int) error {
	prefix := meta.Prefix(p)
	for _, k := range []string{keyZarray, keyZgroup, keyZarrJSON} {
		_, ok, err := get(ctx, s, prefix+k)
		if err != nil {
			return err
		}
		if ok {
			if !overwrite {
				return errs.New(errs.Exists, p, "a node already exists here (pass Overwrite to replace it)")
			}
			if err := deleteTree(ctx, s, w, prefix); err != nil {
				return err
			}
			break
		}
	}
	if p == "" {
		return nil
	}
	segs := strings.Split(p, "/")
	for i := 0; i < len(segs); i++ {
		anc := strings.Join(segs[:i], "/")
		ap := meta.Prefix(anc)
		node, err := open(ctx, s, anc, "", openConfig{})
		if err == nil {
			if _, isArray := node.(*Array); isArray {
				return errs.New(errs.Exists, anc, "an ancestor of %q is an array", p)
			}
			continue
		}
		// (ACCESS_DENIED: every metadata key refused, which an object store
		// answers for keys that do not exist; the write below fails if
		// the store is private indeed)
		if c := errs.CodeOf(err); c != errs.NotFound && c != errs.AccessDenied {
			return err
		}
		if err := writeGroupDoc(ctx, w, ap, format, nil); err != nil {
			return err
		}
	}
	return nil
}

// deleteTree deletes every key below prefix (when the store can list) and
// the node's metadata keys.
func deleteTree(ctx context.Context, s Store, w store.Writer, prefix string) error {
	if l, ok := store.AsLister(s); ok {
		names, err := l.List(ctx, prefix)
		if err != nil {
			return err
		}
		for _, n := range names {
			if strings.HasSuffix(n, "/") {
				if err := deleteTree(ctx, s, w, prefix+n); err != nil {
					return err
				}
				continue
			}
			if err := deleteKey(ctx, w, prefix+n); err != nil {
				return err
			}
		}
		return nil
	}
	for _, k := range []string{keyZarray, keyZgroup, keyZattrs, keyZarrJSON} {
		if err := deleteKey(ctx, w, prefix+k); err != nil {
			return err
		}
	}
	return nil
}
