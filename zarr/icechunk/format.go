package icechunk

import (
	"strings"

	"github.com/zarr-wasm/zarr-wasm/zarr/budget"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// The FlatBuffers tables of Icechunk's schemas (icechunk-format/flatbuffers
// in earth-mover/icechunk; field numbers in declaration order, a union
// taking two: its type, then its value). Spec 2 only appended fields, so
// one reader serves both versions.

// Snapshot fields.
const (
	snapID              = 0
	snapParentID        = 1 // spec 1 only
	snapNodes           = 2
	snapFlushedAt       = 3
	snapMessage         = 4
	nodeID              = 0
	nodePath            = 1
	nodeUserData        = 2
	nodeDataType        = 3 // the NodeData union's type: 1 array, 2 group
	nodeData            = 4
	arrayShape          = 0 // [DimensionShape] (spec 1), 16-byte structs
	arrayManifests      = 2
	arrayShapeV2        = 3
	manifestRefObjectID = 0
	manifestRefExtents  = 1 // [ChunkIndexRange], 8-byte structs
)

// Manifest fields.
const (
	manArrays            = 1
	manLocationDict      = 2
	manCompression       = 3
	arrManNodeID         = 0
	arrManRefs           = 1
	refIndex             = 0
	refInline            = 1
	refOffset            = 2
	refLength            = 3
	refChunkID           = 4
	refLocation          = 5
	refETag              = 6
	refLastModified      = 7
	refCompressedLoc     = 8
	locationUncompressed = 0
	locationZstdDict     = 1
)

// Repo info fields (spec 2).
const (
	repoTags         = 1
	repoBranches     = 2
	repoDeletedTags  = 3
	repoSnapshots    = 4
	refName          = 0
	refSnapshotIndex = 1
	infoID           = 0
	infoParent       = 1
	infoFlushedAt    = 2
	infoMessage      = 3
)

// What a parsed node and a snapshot's entry in the repo info take in
// memory at most (beyond the file's body they point into), checked against
// the engine's budget before they are allocated.
const (
	nodeCost     = 192
	snapInfoCost = 96
)

// snapshot is a parsed snapshot file: its nodes with their metadata.
type snapshot struct {
	key       string // "snapshots/<id>"
	id        id12
	parent    id12 // spec 1 only (spec 2 keeps parents in the repo info)
	hasParent bool
	flushedAt uint64 // microseconds since 1970
	message   string
	nodes     []node
	byPath    map[string]int
}

// node is an array or a group of a snapshot.
type node struct {
	id        id8
	path      string // "/" or "/a/b"
	meta      []byte // its zarr.json
	array     bool
	ndim      int
	manifests []manifestRef
}

// manifestRef points at the manifest holding an array's chunk references
// for a region of its chunk grid: extents are [from, to) pairs per
// dimension (none: the whole grid).
type manifestRef struct {
	id      id12
	extents []uint32
}

// covers reports whether the manifest holds the region of chunk coords.
func (m *manifestRef) covers(coords []uint32) bool {
	if len(m.extents) == 0 {
		return true
	}
	if len(m.extents) != 2*len(coords) {
		return false
	}
	for i, c := range coords {
		if c < m.extents[2*i] || c >= m.extents[2*i+1] {
			return false
		}
	}
	return true
}

func corrupt(key, what string, err error) error {
	return errs.Wrap(errs.InvalidMetadata, key, err, "corrupt %s", what)
}

// parseSnapshot reads a snapshot file's body.
func parseSnapshot(key string, b []byte) (*snapshot, error) {
	r := &fbReader{b: b}
	root := r.root()
	s := &snapshot{key: key}
	id := r.fieldStruct(root, snapID, 12)
	if id == nil && r.err == nil {
		r.fail("the snapshot has no id")
	}
	copy(s.id[:], id)
	if p := r.fieldStruct(root, snapParentID, 12); p != nil {
		copy(s.parent[:], p)
		s.hasParent = true
	}
	s.flushedAt = r.fieldU64(root, snapFlushedAt, 0)
	s.message, _ = r.fieldString(root, snapMessage, "the message")
	nodes, ok := r.fieldVec(root, snapNodes, 4, "the nodes")
	if !ok && r.err == nil {
		r.fail("the snapshot has no node list")
	}
	if r.err != nil {
		return nil, corrupt(key, "snapshot", r.err)
	}
	if err := budget.Check(key, int64(nodes.n)*nodeCost); err != nil {
		return nil, err
	}
	s.nodes = make([]node, nodes.n)
	s.byPath = make(map[string]int, nodes.n)
	for i := range s.nodes {
		n := &s.nodes[i]
		t := r.tableIn(nodes, i, "a node")
		copy(n.id[:], r.fieldStruct(t, nodeID, 8))
		var ok bool
		n.path, ok = r.fieldString(t, nodePath, "a node's path")
		if r.err == nil && (!ok || !validPath(n.path)) {
			r.fail("node %d has the path %q, not an absolute path", i, n.path)
		}
		n.meta, ok = r.fieldBytes(t, nodeUserData, "a node's zarr.json")
		if r.err == nil && !ok {
			r.fail("node %s has no zarr.json", n.path)
		}
		switch kind := r.fieldU8(t, nodeDataType, 0); kind {
		case 1:
			n.array = true
			data, _ := r.fieldTable(t, nodeData, "an array's data")
			if v, ok := r.fieldVec(data, arrayShapeV2, 4, "an array's shape"); ok {
				n.ndim = v.n
			} else {
				v, _ := r.fieldVec(data, arrayShape, 16, "an array's shape")
				n.ndim = v.n
			}
			refs, _ := r.fieldVec(data, arrayManifests, 4, "an array's manifests")
			if !r.charge(refs.n) {
				break
			}
			n.manifests = make([]manifestRef, 0, refs.n)
			for j := 0; j < refs.n && r.err == nil; j++ {
				mt := r.tableIn(refs, j, "a manifest reference")
				var m manifestRef
				mid := r.fieldStruct(mt, manifestRefObjectID, 12)
				if mid == nil && r.err == nil {
					r.fail("a manifest reference of %s has no id", n.path)
				}
				copy(m.id[:], mid)
				ext, _ := r.fieldVec(mt, manifestRefExtents, 8, "a manifest's extents")
				if r.err == nil && ext.n != 0 && ext.n != n.ndim {
					r.fail("manifest %s of %s covers %d dimensions, the array has %d", m.id, n.path, ext.n, n.ndim)
				}
				if !r.charge(ext.n) {
					break
				}
				m.extents = make([]uint32, 0, 2*ext.n)
				for k := 0; k < ext.n; k++ {
					m.extents = append(m.extents, r.u32(ext.at+8*k), r.u32(ext.at+8*k+4))
				}
				n.manifests = append(n.manifests, m)
			}
		case 2:
		default:
			if r.err == nil {
				r.fail("node %s is neither an array nor a group (type %d)", n.path, kind)
			}
		}
		if r.err != nil {
			return nil, corrupt(key, "snapshot", r.err)
		}
		if _, dup := s.byPath[n.path]; dup {
			return nil, corrupt(key, "snapshot", errs.New(errs.InvalidMetadata, n.path, "two nodes have this path"))
		}
		s.byPath[n.path] = i
	}
	return s, nil
}

// validPath: absolute, no trailing slash (but the root), no empty, "." or
// ".." segment.
func validPath(p string) bool {
	if p == "/" {
		return true
	}
	if !strings.HasPrefix(p, "/") {
		return false
	}
	for _, seg := range strings.Split(p[1:], "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// snapshotSummary reads only a snapshot's id, parent, time and message (a
// spec-1 ancestry walks snapshot files this way).
func snapshotSummary(key string, b []byte) (SnapshotInfo, id12, bool, error) {
	r := &fbReader{b: b}
	root := r.root()
	var id, parent id12
	copy(id[:], r.fieldStruct(root, snapID, 12))
	p := r.fieldStruct(root, snapParentID, 12)
	copy(parent[:], p)
	info := SnapshotInfo{ID: id.String(), Time: commitTime(r.fieldU64(root, snapFlushedAt, 0))}
	info.Message, _ = r.fieldString(root, snapMessage, "the message")
	if p != nil {
		info.Parent = parent.String()
	}
	if r.err != nil {
		return info, parent, false, corrupt(key, "snapshot", r.err)
	}
	return info, parent, p != nil, nil
}

// repoInfo is a parsed spec-2 repo info file.
type repoInfo struct {
	branches, tags []repoRef
	deletedTags    []string
	snapshots      []snapInfo
}

type repoRef struct {
	name  string
	index int // into snapshots
}

type snapInfo struct {
	id        id12
	parent    int // index into snapshots, -1 for none
	flushedAt uint64
	message   string
}

// parseRepo reads a repo info file's body.
func parseRepo(key string, b []byte) (*repoInfo, error) {
	r := &fbReader{b: b}
	root := r.root()
	info := &repoInfo{}
	snaps, ok := r.fieldVec(root, repoSnapshots, 4, "the snapshot list")
	if !ok && r.err == nil {
		r.fail("the repo info has no snapshot list")
	}
	if r.err != nil {
		return nil, corrupt(key, "repo info", r.err)
	}
	if err := budget.Check(key, int64(snaps.n)*snapInfoCost); err != nil {
		return nil, err
	}
	info.snapshots = make([]snapInfo, snaps.n)
	for i := range info.snapshots {
		t := r.tableIn(snaps, i, "a snapshot's info")
		s := &info.snapshots[i]
		id := r.fieldStruct(t, infoID, 12)
		if id == nil && r.err == nil {
			r.fail("snapshot %d of the list has no id", i)
		}
		copy(s.id[:], id)
		s.parent = int(int32(r.fieldU32(t, infoParent, 0)))
		if r.err == nil && (s.parent < -1 || s.parent >= snaps.n) {
			r.fail("snapshot %s has parent index %d, outside the %d-snapshot list", s.id, s.parent, snaps.n)
		}
		s.flushedAt = r.fieldU64(t, infoFlushedAt, 0)
		s.message, _ = r.fieldString(t, infoMessage, "a commit message")
		if r.err != nil {
			break
		}
	}
	refs := func(field int, what string) []repoRef {
		v, ok := r.fieldVec(root, field, 4, what)
		if !ok && r.err == nil {
			r.fail("the repo info has no %s", what)
		}
		out := make([]repoRef, 0, v.n)
		for i := 0; i < v.n && r.err == nil; i++ {
			t := r.tableIn(v, i, what)
			name, ok := r.fieldString(t, refName, "a name")
			idx := int(r.fieldU32(t, refSnapshotIndex, 0))
			if r.err == nil && (!ok || idx >= snaps.n) {
				r.fail("%s %q points at snapshot %d of %d", what, name, idx, snaps.n)
			}
			out = append(out, repoRef{name: name, index: idx})
		}
		return out
	}
	info.tags = refs(repoTags, "tag")
	info.branches = refs(repoBranches, "branch")
	if v, ok := r.fieldVec(root, repoDeletedTags, 4, "the deleted tags"); ok {
		for i := 0; i < v.n && r.err == nil; i++ {
			info.deletedTags = append(info.deletedTags, r.stringIn(v, i, "a deleted tag"))
		}
	}
	if r.err != nil {
		return nil, corrupt(key, "repo info", r.err)
	}
	return info, nil
}

// find returns the index of snapshot id in the list, or -1.
func (ri *repoInfo) find(id id12) int {
	for i := range ri.snapshots {
		if ri.snapshots[i].id == id {
			return i
		}
	}
	return -1
}
