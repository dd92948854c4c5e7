package zarr

import (
	"context"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/meta"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	"github.com/zarr-wasm/zarr-wasm/zarr/tsspec"
)

// openSpecV3 opens or creates a zarr v3 array (TensorStore's zarr3 driver).
func openSpecV3(ctx context.Context, s *tsspec.Spec, st Store, path string) (*Array, error) {
	prefix := meta.Prefix(path)
	key := prefix + keyZarrJSON
	shown := key
	if s.KvStore != nil && s.KvStore.Driver != "memory" {
		shown = s.KvStore.Path + keyZarrJSON
	}
	var m *tsspec.V3Metadata
	var data []byte
	var err error
	create := false
	assumed := s.AssumeMetadata || s.AssumeCachedMetadata
	if assumed {
		if m, err = s.NewV3Metadata(); err != nil {
			return nil, err
		}
	} else {
		var ok bool
		if data, ok, err = get(ctx, st, key); err != nil {
			return nil, err
		}
		switch {
		case ok && s.Open:
			if m, err = tsspec.ParseV3Metadata(shown, data); err != nil {
				return nil, err
			}
			if err = s.CheckV3(m); err != nil {
				return nil, err
			}
		case ok && !s.DeleteExisting:
			return nil, errs.New(errs.Exists, shown, "Error writing %q: the array already exists (give \"open\": true to open it, or \"delete_existing\": true to replace it)", shown)
		case !s.Create:
			return nil, errs.New(errs.NotFound, shown, "Metadata at %q does not exist", shown)
		default:
			if m, err = s.NewV3Metadata(); err != nil {
				return nil, err
			}
			data, create = nil, true
		}
	}
	if data == nil {
		if data, err = m.Document(); err != nil {
			return nil, errs.Wrap(errs.InvalidMetadata, key, err, "cannot write metadata")
		}
	}
	n, err := meta.ParseV3(key, data) // the engine must read what it writes
	if err != nil {
		return nil, err
	}
	if n.Array == nil {
		return nil, errs.New(errs.NotFound, shown, "is a group, not an array")
	}
	if create {
		w, ok := store.AsWriter(st)
		if !ok {
			return nil, errs.New(errs.ReadOnly, shown, "the store cannot be written")
		}
		if s.DeleteExisting {
			if err := deletePrefix(ctx, st, w, prefix); err != nil {
				return nil, err
			}
		}
		if err := setKey(ctx, w, key, data); err != nil {
			return nil, err
		}
	}
	arr := newArrayV3(st, path, n.Array, specCacheConfig(s))
	arr.spec = &specState{spec: s, v3: m, assumed: assumed, recheck: recheckSpecMetadata}
	if !assumed {
		arr.spec.checked = time.Now()
	}
	if arr.spec.view, err = newArrayView(arr, m.Shape, len(m.Shape), m.Labels, tsspec.Field{Type: m.DType}, true, s.Transform); err != nil {
		return nil, err
	}
	return arr, nil
}

func (a *Array) specV3() (map[string]any, error) {
	m, err := a.v3Model()
	if err != nil {
		return nil, err
	}
	if a.spec != nil {
		return a.spec.spec.V3Spec(m, a.spec.view.tsView(a)), nil
	}
	s, _ := tsspec.Parse(`{"driver":"zarr3"}`)
	return s.V3Spec(m, tsspec.DefaultView(m.Shape, len(m.Shape), m.Labels)), nil
}

func (a *Array) schemaV3() (map[string]any, error) {
	m, err := a.v3Model()
	if err != nil {
		return nil, err
	}
	if a.spec != nil {
		return tsspec.V3Schema(m, a.spec.view.tsView(a)), nil
	}
	return tsspec.V3Schema(m, nil), nil
}

// v3Model is the array's zarr.json in TensorStore's terms, with the
// current shape.
func (a *Array) v3Model() (*tsspec.V3Metadata, error) {
	doc, err := a.meta.Document()
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, a.meta.Key, err, "")
	}
	return tsspec.ParseV3Metadata(a.meta.Key, doc)
}
