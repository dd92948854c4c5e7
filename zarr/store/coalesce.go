package store

import "sort"

// Coalescing is how several byte ranges one read needs from one stored
// value are merged into fewer requests: neighbours closer than Gap bytes
// are read as one request (the gap is read and thrown away), as long as
// the merged request stays within MaxRequest bytes. The inner chunks of a
// shard (the engine's reads and the hosts' read plans), the targets of a
// reference set and the entries of a zip read from a server all go
// through one policy, DefaultCoalescing.
type Coalescing struct {
	Gap        int64
	MaxRequest int64
}

// DefaultCoalescing is the policy reads use. A gap of 64 KiB costs less
// than a request's round trip on any link slower than ~50 Mbit/s at 10 ms;
// the largest merged request (16 MiB) keeps one failed or slow request
// from holding a whole shard (the peers' defaults range from 32 KiB to
// 1 MiB for the gap; fsspec merges up to 256 MB).
var DefaultCoalescing = Coalescing{Gap: 64 << 10, MaxRequest: 16 << 20}

// Extent is one range a read needs: Length bytes from Offset.
type Extent struct {
	Offset, Length int64
}

// Merged is one request of a coalesced read: Length bytes from Offset,
// serving the ranges Members (indexes into the ranges given to Coalesce,
// in the order of their offsets).
type Merged struct {
	Offset, Length int64
	Members        []int
}

// Coalesce merges ranges into requests by the policy. Ranges may overlap
// or repeat; every range is served by exactly one request, which contains
// it whole. A range longer than MaxRequest is a request of its own, which
// the ranges it contains join.
func (c Coalescing) Coalesce(ranges []Extent) []Merged {
	order := make([]int, len(ranges))
	for i := range order {
		order[i] = i
	}
	// by offset, the longer first: ranges it contains then join it
	sort.SliceStable(order, func(x, y int) bool {
		a, b := ranges[order[x]], ranges[order[y]]
		return a.Offset < b.Offset || (a.Offset == b.Offset && a.Length > b.Length)
	})
	var out []Merged
	for _, i := range order {
		r := ranges[i]
		end := r.Offset + r.Length
		if n := len(out); n > 0 {
			last := &out[n-1]
			lastEnd := last.Offset + last.Length
			merged := max(end, lastEnd) - last.Offset
			if r.Offset-lastEnd <= c.Gap && (merged <= c.MaxRequest || end <= lastEnd) {
				last.Length = merged
				last.Members = append(last.Members, i)
				continue
			}
		}
		out = append(out, Merged{Offset: r.Offset, Length: r.Length, Members: []int{i}})
	}
	return out
}
