package hostread

import (
	"strconv"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// The JSON form of plans and expansions (schema version 1, described in
// docs/read-plan.md). Written by hand: plans are written for every read,
// and the core WebAssembly build links no reflection. A region is flat:
// "in" holds start, step, count per dimension; "out" start, step (the
// count is in's).

// AppendJSON appends p's JSON form to b.
func (p *Plan) AppendJSON(b []byte) []byte {
	b = append(b, `{"version":`...)
	b = strconv.AppendInt(b, Version, 10)
	if p.Engine != "" {
		b = append(b, `,"engine":`...)
		b = strconv.AppendQuote(b, p.Engine)
		b = append(b, `,"fixed":`...)
		b = strconv.AppendBool(b, p.Fixed)
		return append(b, '}')
	}
	b = appendInt(b, "itemSize", p.ItemSize)
	b = appendInts(b, "shape", p.Shape)
	b = appendInts(b, "fullShape", p.FullShape)
	b = append(b, `,"fill":`...)
	if p.Fill == nil {
		b = append(b, "null"...)
	} else {
		b = appendIntList(b, p.Fill)
	}
	b = appendInt(b, "concurrency", p.Concurrency)
	b = appendInt(b, "workers", p.Workers)
	b = append(b, `,"fetches":`...)
	b = appendFetches(b, p.Fetches)
	return append(b, '}')
}

// AppendExpansionsJSON appends the JSON form of Expand's answer to b.
func AppendExpansionsJSON(b []byte, xs []Expansion) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"chunks":`...)
		b = appendChunks(b, x.Chunks)
		b = append(b, `,"fetches":`...)
		b = appendFetches(b, x.Fetches)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendFetches(b []byte, fs []Fetch) []byte {
	b = append(b, '[')
	for i := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		f := &fs[i]
		b = append(b, `{"key":`...)
		b = strconv.AppendQuote(b, f.Key)
		b = append(b, `,"range":`...)
		switch r := f.Range; {
		case r.Whole():
			b = append(b, "null"...)
		case r.Suffix > 0:
			b = append(b, `{"suffix":`...)
			b = strconv.AppendInt(b, r.Suffix, 10)
			b = append(b, '}')
		default:
			b = append(b, `{"offset":`...)
			b = strconv.AppendInt(b, r.Offset, 10)
			b = append(b, `,"length":`...)
			b = strconv.AppendInt(b, r.Length, 10)
			b = append(b, '}')
		}
		if f.IfMatch != "" {
			b = append(b, `,"ifMatch":`...)
			b = strconv.AppendQuote(b, f.IfMatch)
		}
		if f.Versioned {
			b = append(b, `,"versioned":true`...)
		}
		if f.URL != "" {
			b = append(b, `,"url":`...)
			b = strconv.AppendQuote(b, f.URL)
		}
		if f.ETag != "" {
			b = append(b, `,"etag":`...)
			b = strconv.AppendQuote(b, f.ETag)
		}
		if f.LastModified != 0 {
			b = append(b, `,"lastModified":`...)
			b = strconv.AppendInt(b, f.LastModified, 10)
		}
		if f.Data != nil {
			b = append(b, `,"data":`...)
			b = appendIntList(b, f.Data)
		}
		if s := f.Shard; s != nil {
			b = append(b, `,"shard":{"coords":`...)
			b = appendIntList(b, s.Coords)
			b = appendInts(b, "shape", s.Shape)
			b = appendRegion(b, s.In, s.Out)
			b = append(b, `,"indexLength":`...)
			b = strconv.AppendInt(b, s.IndexLength, 10)
			b = append(b, `,"atEnd":`...)
			b = strconv.AppendBool(b, s.AtEnd)
			b = append(b, `,"whole":`...)
			b = strconv.AppendBool(b, s.Whole)
			b = append(b, '}')
		}
		b = append(b, `,"chunks":`...)
		b = appendChunks(b, f.Chunks)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendChunks(b []byte, cs []Chunk) []byte {
	b = append(b, '[')
	for i := range cs {
		if i > 0 {
			b = append(b, ',')
		}
		c := &cs[i]
		b = append(b, `{"coords":`...)
		b = appendIntList(b, c.Coords)
		if c.Inner {
			b = append(b, `,"inner":true`...)
		}
		b = append(b, `,"offset":`...)
		b = strconv.AppendInt(b, c.Offset, 10)
		b = append(b, `,"length":`...)
		b = strconv.AppendInt(b, c.Length, 10)
		b = append(b, `,"decode":"`...)
		b = append(b, c.Decode...) // (a fixed name: nothing to escape)
		b = append(b, '"')
		b = appendInts(b, "shape", c.Shape)
		b = appendRegion(b, c.In, c.Out)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendRegion(b []byte, in, out []nd.Range) []byte {
	b = append(b, `,"in":[`...)
	for d, r := range in {
		if d > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(r.Start), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.Step), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.Count), 10)
	}
	b = append(b, `],"out":[`...)
	for d, r := range out {
		if d > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(r.Start), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.Step), 10)
	}
	return append(b, ']')
}

func appendInt(b []byte, name string, v int) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, int64(v), 10)
}

func appendInts(b []byte, name string, v []int) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendIntList(b, v)
}

func appendIntList[T int | byte](b []byte, v []T) []byte {
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}

// shardJSON is a shard request as the host sends it back: the fetch's
// "shard" object, with the answer's "generation" and (a whole shard) its
// "size".
type shardJSON struct {
	Shard      shardFields `json:"shard"`
	Generation string      `json:"generation"`
	Size       int64       `json:"size"`
}

func (s *shardJSON) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("shard", &s.Shard), jsonx.F("generation", &s.Generation), jsonx.F("size", &s.Size)}
}

type shardFields struct {
	Coords      []int `json:"coords"`
	Shape       []int `json:"shape"`
	In          []int `json:"in"`
	Out         []int `json:"out"`
	IndexLength int64 `json:"indexLength"`
	AtEnd       bool  `json:"atEnd"`
	Whole       bool  `json:"whole"`
}

func (s *shardFields) JSONFields() []jsonx.Field {
	return []jsonx.Field{
		jsonx.F("coords", &s.Coords), jsonx.F("shape", &s.Shape), jsonx.F("in", &s.In), jsonx.F("out", &s.Out),
		jsonx.F("indexLength", &s.IndexLength), jsonx.F("atEnd", &s.AtEnd), jsonx.F("whole", &s.Whole),
	}
}

// ParseShardRequests reads the shard requests a host sends (a JSON array
// of {shard, generation, size}) with their indexes, one after the other
// in indexes, each shard.indexLength bytes. ndim is the array's rank;
// malformed requests are SELECTION errors naming what is wrong (they come
// from the package's own executor, never from a user).
func ParseShardRequests(text []byte, indexes []byte, ndim int) ([]ShardRequest, error) {
	var raw []shardJSON
	if err := jsonx.UnmarshalStrict(text, jsonx.Objects(&raw)); err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, "shard requests", err, "malformed")
	}
	bad := func(what string) error {
		return errs.New(errs.InvalidArgument, "shard requests", "malformed: %s", what)
	}
	out := make([]ShardRequest, len(raw))
	at := int64(0)
	for i, r := range raw {
		s := r.Shard
		if len(s.Coords) != ndim || len(s.Shape) != ndim || len(s.In) != 3*ndim || len(s.Out) != 2*ndim {
			return nil, bad("a shard's rank")
		}
		if s.IndexLength < 0 || s.IndexLength > int64(len(indexes))-at {
			return nil, bad("index lengths")
		}
		in := make([]nd.Range, ndim)
		o := make([]nd.Range, ndim)
		for d := 0; d < ndim; d++ {
			in[d] = nd.Range{Start: s.In[3*d], Step: s.In[3*d+1], Count: s.In[3*d+2]}
			o[d] = nd.Range{Start: s.Out[2*d], Step: s.Out[2*d+1], Count: in[d].Count}
			if in[d].Start < 0 || in[d].Count < 0 || in[d].Step < 1 || (in[d].Count > 0 && in[d].Start+(in[d].Count-1)*in[d].Step >= s.Shape[d]) {
				return nil, bad("a region")
			}
		}
		out[i] = ShardRequest{
			Shard:      Shard{Coords: s.Coords, Shape: s.Shape, In: in, Out: o, IndexLength: s.IndexLength, AtEnd: s.AtEnd, Whole: s.Whole},
			Generation: r.Generation,
			Size:       r.Size,
			Index:      indexes[at : at+s.IndexLength],
		}
		at += s.IndexLength
	}
	if at != int64(len(indexes)) {
		return nil, bad("index lengths")
	}
	return out, nil
}
