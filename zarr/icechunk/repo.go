package icechunk

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// Version chooses the snapshot to open: a branch's head, a tag, or a
// snapshot id. At most one may be set; none means the branch "main".
type Version struct {
	Branch   string
	Tag      string
	Snapshot string
}

func (v Version) String() string {
	switch {
	case v.Tag != "":
		return "tag " + v.Tag
	case v.Snapshot != "":
		return "snapshot " + v.Snapshot
	case v.Branch != "":
		return "branch " + v.Branch
	}
	return "branch main"
}

// Ref is a branch or a tag and the snapshot it points at.
type Ref struct {
	Name     string
	Snapshot string
}

// SnapshotInfo describes a commit.
type SnapshotInfo struct {
	ID      string
	Parent  string // "" for the repository's first snapshot
	Message string
	Time    time.Time // when it was committed (UTC)
}

// commitTime converts Icechunk's microseconds since 1970.
func commitTime(us uint64) time.Time { return time.UnixMicro(int64(us)).UTC() }

// repo is what Open learnt of the repository: its spec version and, for
// spec 2, the repo info file.
type repo struct {
	st   store.Store
	spec int
	info *repoInfo // spec 2
}

const repoKey = "repo"

// openRepo reads the repo info file (spec 2), or finds none (spec 1: refs
// are files of their own).
func openRepo(ctx context.Context, st store.Store) (*repo, error) {
	data, ok, err := st.Get(ctx, repoKey)
	if err != nil {
		return nil, errs.Wrap(errs.Store, repoKey, err, "cannot read the repository")
	}
	if !ok {
		return &repo{st: st, spec: specV1}, nil
	}
	h, b, err := body(repoKey, data, fileRepo)
	if err != nil {
		return nil, err
	}
	info, err := parseRepo(repoKey, b)
	if err != nil {
		return nil, err
	}
	return &repo{st: st, spec: int(h.spec), info: info}, nil
}

// notARepo is the error for a store that holds no repository at all.
func notARepo() error {
	return errs.New(errs.NotFound, "", "no Icechunk repository here: neither a repo file (spec 2) nor refs/branch.main/ref.json (spec 1)")
}

// resolve turns a version into a snapshot id.
func (r *repo) resolve(ctx context.Context, v Version) (id12, error) {
	set := 0
	for _, s := range []string{v.Branch, v.Tag, v.Snapshot} {
		if s != "" {
			set++
		}
	}
	if set > 1 {
		return id12{}, errs.New(errs.InvalidArgument, "", "give one of a branch, a tag or a snapshot, not %d", set)
	}
	switch {
	case v.Snapshot != "":
		return r.resolveSnapshot(ctx, v.Snapshot)
	case v.Tag != "":
		return r.resolveRef(ctx, "tag", v.Tag)
	}
	name := v.Branch
	if name == "" {
		name = "main"
	}
	return r.resolveRef(ctx, "branch", name)
}

func (r *repo) resolveSnapshot(ctx context.Context, s string) (id12, error) {
	id, ok := parseID12(s)
	if r.info != nil {
		if ok && r.info.find(id) >= 0 {
			return id, nil
		}
		ids := make([]string, len(r.info.snapshots))
		for i := range r.info.snapshots {
			ids[i] = r.info.snapshots[i].id.String()
		}
		return id12{}, errs.New(errs.NotFound, s, "no snapshot %q in the repository", s).WithSuggestion(strings.ToUpper(s), ids)
	}
	if !ok {
		return id12{}, errs.New(errs.NotFound, s, "%q is not a snapshot id (20 characters of Crockford base32)", s)
	}
	return id, nil
}

// resolveRef finds a branch or a tag (kind "branch" or "tag").
func (r *repo) resolveRef(ctx context.Context, kind, name string) (id12, error) {
	if r.info != nil {
		list := r.info.branches
		if kind == "tag" {
			list = r.info.tags
			for _, d := range r.info.deletedTags {
				if d == name {
					return id12{}, errs.New(errs.NotFound, name, "the tag %q was deleted", name)
				}
			}
		}
		names := make([]string, len(list))
		for i, ref := range list {
			if ref.name == name {
				return r.info.snapshots[ref.index].id, nil
			}
			names[i] = ref.name
		}
		return id12{}, errs.New(errs.NotFound, name, "no %s %q in the repository", kind, name).WithSuggestion(name, names)
	}
	dir := "refs/" + kind + "." + name + "/"
	data, ok, err := r.st.Get(ctx, dir+"ref.json")
	if err != nil {
		return id12{}, errs.Wrap(errs.Store, dir+"ref.json", err, "cannot read the %s %q", kind, name)
	}
	if ok && kind == "tag" {
		_, deleted, err := r.st.Get(ctx, dir+"ref.json.deleted")
		if err != nil {
			return id12{}, errs.Wrap(errs.Store, dir+"ref.json.deleted", err, "cannot read the tag %q", name)
		}
		if deleted {
			return id12{}, errs.New(errs.NotFound, name, "the tag %q was deleted", name)
		}
	}
	if !ok {
		if !r.hasMain(ctx) {
			return id12{}, notARepo()
		}
		refs, _ := r.listRefs(ctx, kind)
		names := make([]string, len(refs))
		for i, ref := range refs {
			names[i] = ref.Name
		}
		return id12{}, errs.New(errs.NotFound, name, "no %s %q in the repository", kind, name).WithSuggestion(name, names)
	}
	return parseRefJSON(dir+"ref.json", data)
}

// hasMain tells a spec-1 repository (it always has the branch main; a
// spec-2 one its repo file) from a store that holds none.
func (r *repo) hasMain(ctx context.Context) bool {
	if r.info != nil {
		return true
	}
	_, ok, err := r.st.Get(ctx, "refs/branch.main/ref.json")
	return ok || err != nil
}

// parseRefJSON reads a spec-1 ref file: {"snapshot": "<id>"}.
func parseRefJSON(key string, data []byte) (id12, error) {
	m, err := jsonx.Object(data)
	if err != nil {
		return id12{}, errs.Wrap(errs.InvalidMetadata, key, err, "not a ref file")
	}
	raw, ok := m["snapshot"]
	if !ok {
		return id12{}, errs.New(errs.InvalidMetadata, key, "the ref file has no \"snapshot\"")
	}
	s, err := jsonx.Unquote(raw)
	if err != nil {
		return id12{}, errs.Wrap(errs.InvalidMetadata, key, err, "\"snapshot\" is not a string")
	}
	id, ok := parseID12(s)
	if !ok {
		return id12{}, errs.New(errs.InvalidMetadata, key, "\"snapshot\" is %q, not a snapshot id", s)
	}
	return id, nil
}

// listRefs lists the branches or the tags (kind "branch" or "tag"), sorted
// by name.
func (r *repo) listRefs(ctx context.Context, kind string) ([]Ref, error) {
	var out []Ref
	if r.info != nil {
		list := r.info.branches
		if kind == "tag" {
			list = r.info.tags
		}
		for _, ref := range list {
			out = append(out, Ref{Name: ref.name, Snapshot: r.info.snapshots[ref.index].id.String()})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
		return out, nil
	}
	l, ok := store.AsLister(r.st)
	if !ok {
		return nil, errs.New(errs.Unsupported, "refs/", "a spec-1 repository keeps its %ses as files under refs/, and this store cannot list them (over HTTP, a server that lists is needed; a branch or tag can still be opened by name)", kind)
	}
	names, err := l.List(ctx, "refs/")
	if err != nil {
		return nil, errs.Wrap(errs.Store, "refs/", err, "cannot list the %ses", kind)
	}
	prefix := kind + "."
	for _, n := range names {
		name, ok := strings.CutPrefix(n, prefix)
		if !ok || !strings.HasSuffix(name, "/") {
			continue
		}
		name = strings.TrimSuffix(name, "/")
		dir := "refs/" + prefix + name + "/"
		data, ok, err := r.st.Get(ctx, dir+"ref.json")
		if err != nil {
			return nil, errs.Wrap(errs.Store, dir+"ref.json", err, "cannot read the %s %q", kind, name)
		}
		if !ok {
			continue
		}
		if kind == "tag" {
			_, deleted, err := r.st.Get(ctx, dir+"ref.json.deleted")
			if err != nil {
				return nil, errs.Wrap(errs.Store, dir+"ref.json.deleted", err, "cannot read the tag %q", name)
			}
			if deleted {
				continue
			}
		}
		id, err := parseRefJSON(dir+"ref.json", data)
		if err != nil {
			return nil, err
		}
		out = append(out, Ref{Name: name, Snapshot: id.String()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// maxAncestry bounds a spec-1 ancestry walk (each step reads a file) and a
// spec-2 walk over a corrupt parent chain.
const maxAncestry = 1 << 20

// ancestry lists snapshot id and its ancestors, newest first.
func (r *repo) ancestry(ctx context.Context, id id12) ([]SnapshotInfo, error) {
	var out []SnapshotInfo
	if r.info != nil {
		i := r.info.find(id)
		if i < 0 {
			return nil, errs.New(errs.NotFound, id.String(), "the snapshot is not in the repository's list")
		}
		for steps := 0; i >= 0; steps++ {
			if steps > len(r.info.snapshots) {
				return nil, errs.New(errs.InvalidMetadata, repoKey, "the snapshots' parents form a cycle")
			}
			s := r.info.snapshots[i]
			info := SnapshotInfo{ID: s.id.String(), Message: s.message, Time: commitTime(s.flushedAt)}
			if s.parent >= 0 {
				info.Parent = r.info.snapshots[s.parent].id.String()
			}
			out = append(out, info)
			i = s.parent
		}
		return out, nil
	}
	seen := map[id12]bool{}
	for {
		if seen[id] || len(out) >= maxAncestry {
			return nil, errs.New(errs.InvalidMetadata, snapshotKey(id), "the snapshots' parents form a cycle")
		}
		seen[id] = true
		key := snapshotKey(id)
		data, ok, err := r.st.Get(ctx, key)
		if err != nil {
			return nil, errs.Wrap(errs.Store, key, err, "cannot read a snapshot")
		}
		if !ok {
			return nil, errs.New(errs.NotFound, key, "the snapshot file is missing")
		}
		_, b, err := body(key, data, fileSnapshot)
		if err != nil {
			return nil, err
		}
		info, parent, hasParent, err := snapshotSummary(key, b)
		if err != nil {
			return nil, err
		}
		out = append(out, info)
		if !hasParent {
			return out, nil
		}
		id = parent
	}
}

func snapshotKey(id id12) string { return "snapshots/" + id.String() }
func manifestKey(id id12) string { return "manifests/" + id.String() }
func chunkKey(id id12) string    { return "chunks/" + id.String() }
