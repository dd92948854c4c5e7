package codec

import (
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// V2PipelineName is the model name of the array→bytes codec that runs a v2
// filter+compressor list with numcodecs' semantics, for lists the v3 chain
// cannot express (an array filter after a bytes filter, byte orders that
// differ between the dtype and a filter). Package meta builds it; no
// document names it.
const V2PipelineName = "zarr-wasm.v2_pipeline"

// v2Pipeline applies numcodecs codecs in sequence, each to what the one
// before produced, as zarr-python 2 does: a bytes codec gets the bytes of
// its input; an array filter views its input's bytes as its configured
// dtype (with that dtype's byte order) and produces its astype. Between
// steps the data is held as stored bytes, or as an array where an object
// codec needs one.
type v2Pipeline struct {
	dt    *dtype.DataType // the v2 dtype, with its byte orders
	steps []pipelineStep
}

type pipelineStep struct {
	name  string
	codec any
	// in is the type (with byte order) of the array the step receives when
	// encoding, nil for bytes; out likewise for what it produces.
	in, out *dtype.DataType
}

// v2PipelineConfig is the pipeline's configuration: the v2 dtype (as the
// .zarray writes it) and the codecs in encoding order (filters, then the
// compressor), by model name.
type v2PipelineConfig struct {
	DType  jsonx.RawMessage `json:"dtype"`
	Codecs []NamedConfig    `json:"codecs"`
}

func (c *v2PipelineConfig) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("dtype", &c.DType), jsonx.F("codecs", jsonx.Objects(&c.Codecs))}
}

func init() { Register(newV2Pipeline, V2PipelineName) }

func newV2Pipeline(cfg jsonx.RawMessage, in Spec) (any, error) {
	var c v2PipelineConfig
	if err := jsonx.UnmarshalStrict(cfg, &c); err != nil {
		return nil, err
	}
	dt, err := dtype.ParseV2(c.DType)
	if err != nil {
		return nil, err
	}
	p := &v2Pipeline{dt: dt}
	cur := dt // the type of the array a step receives; nil for bytes
	for _, k := range c.Codecs {
		spec := Spec{DType: in.DType, Shape: in.Shape}
		if cur != nil {
			spec.DType = memType(cur)
		}
		built, err := Build(Config{Name: k.Name, Configuration: k.Configuration}, spec)
		if err != nil {
			return nil, err
		}
		st := pipelineStep{name: k.Name, codec: built, in: cur}
		switch b := built.(type) {
		case ArrayToArray:
			if v, ok := b.(Viewer); ok {
				var vin *dtype.DataType
				vin, st.out = v.ViewTypes()
				if cur == nil || !cur.Variable() || vin.Variable() {
					st.in = vin
				}
			} else if cur == nil {
				return nil, errs.New(errs.Unsupported, k.Name, "this filter needs an array, but follows a codec that produces bytes")
			} else {
				st.out = cur
			}
		case ArrayToBytes:
			if cur == nil {
				return nil, errs.New(errs.Unsupported, k.Name, "this codec needs an array, but follows a codec that produces bytes")
			}
		case BytesToBytes:
		default:
			return nil, fmtx.Errorf("codec %q has no known kind", k.Name)
		}
		cur = st.out
		p.steps = append(p.steps, st)
	}
	if cur != nil && cur.Variable() {
		return nil, errs.New(errs.InvalidMetadata, "filters", "%s elements need an object codec (such as vlen-utf8)", cur)
	}
	return p, nil
}

// held is the data between two steps: an array (in memory, of ordered
// type t) or stored bytes.
type held struct {
	arr *nd.Array
	t   *dtype.DataType
	b   []byte
}

// bytes returns the stored bytes: an array's elements in its type's orders.
func (h held) bytes(step string) ([]byte, error) {
	if h.arr == nil {
		return h.b, nil
	}
	if h.t.Variable() {
		return nil, Corrupt(step, "%s elements have no bytes without an object codec", h.t)
	}
	data := append([]byte(nil), h.arr.Bytes()...)
	dtype.SwapTo(h.t, data, dtype.Little)
	return data, nil
}

// view returns the data as an array of ordered type t (NumPy's view of the
// stored bytes), flat unless it already has that type.
func (h held) view(step string, t *dtype.DataType) (*nd.Array, error) {
	if h.arr != nil && (t.Variable() || sameStored(h.t, t)) {
		return h.arr, nil
	}
	b, err := h.bytes(step)
	if err != nil {
		return nil, err
	}
	if t.Variable() || t.Size == 0 || len(b)%t.Size != 0 {
		return nil, Corrupt(step, "%d bytes cannot be viewed as %s", len(b), t)
	}
	data := append([]byte(nil), b...)
	dtype.SwapTo(t, data, dtype.Little)
	return nd.FromBytes(memType(t), []int{len(b) / t.Size}, data)
}

// sameStored reports whether two ordered types store elements alike.
func sameStored(a, b *dtype.DataType) bool {
	if !a.Equal(b) {
		return false
	}
	la, lb := a.Leaves(0, nil), b.Leaves(0, nil)
	for i := range la {
		if la[i].Endian != lb[i].Endian {
			return false
		}
	}
	return true
}

func (p *v2Pipeline) Encode(a *nd.Array) ([]byte, error) {
	h := held{arr: a, t: p.dt}
	for _, st := range p.steps {
		switch k := st.codec.(type) {
		case ArrayToArray:
			x, err := h.view(st.name, st.in)
			if err != nil {
				return nil, err
			}
			y, err := k.Encode(x)
			if err != nil {
				return nil, err
			}
			h = held{arr: y, t: st.out}
		case ArrayToBytes:
			b, err := k.Encode(h.arr)
			if err != nil {
				return nil, err
			}
			h = held{b: b}
		case BytesToBytes:
			b, err := h.bytes(st.name)
			if err != nil {
				return nil, err
			}
			if b, err = k.Encode(b); err != nil {
				return nil, err
			}
			h = held{b: b}
		}
	}
	return h.bytes(V2PipelineName)
}

func (p *v2Pipeline) Decode(b []byte, out Spec) (*nd.Array, error) {
	h := held{b: b}
	for i := len(p.steps) - 1; i >= 0; i-- {
		st := p.steps[i]
		switch k := st.codec.(type) {
		case BytesToBytes:
			b, err := h.bytes(st.name)
			if err != nil {
				return nil, err
			}
			if b, err = k.Decode(b); err != nil {
				return nil, err
			}
			h = held{b: b}
		case ArrayToBytes:
			b, err := h.bytes(st.name)
			if err != nil {
				return nil, err
			}
			a, err := k.Decode(b, out)
			if err != nil {
				return nil, err
			}
			h = held{arr: a, t: st.in}
		case ArrayToArray:
			x, err := h.view(st.name, st.out)
			if err != nil {
				return nil, err
			}
			want := Spec{Shape: []int{x.Len()}, DType: memType(st.in)}
			if st.in.Variable() {
				want = out
			}
			if n, ok := decodedCount(k, x); ok {
				want.Shape = []int{n}
			}
			if i == 0 && nd.Size(want.Shape) == nd.Size(out.Shape) {
				want.Shape = out.Shape // filters that work along axes see the chunk's shape
			}
			y, err := k.Decode(x, want)
			if err != nil {
				return nil, err
			}
			h = held{arr: y, t: st.in}
		}
	}
	if out.DType.Variable() {
		if h.arr == nil || !h.arr.DType().Variable() {
			return nil, Corrupt(V2PipelineName, "the filters did not produce objects")
		}
		return h.arr.Reshape(out.Shape)
	}
	x, err := h.view(V2PipelineName, p.dt)
	if err != nil {
		return nil, err
	}
	if x.Len() != nd.Size(out.Shape) {
		return nil, Corrupt(V2PipelineName, "decoded %d elements, expected %d for shape %v", x.Len(), nd.Size(out.Shape), out.Shape)
	}
	return nd.FromBytes(out.DType, out.Shape, x.Bytes())
}

// decodedCount is the element count a filter decodes x into when that is
// not x's length (packbits: eight bits a byte, less the padding).
func decodedCount(k ArrayToArray, x *nd.Array) (int, bool) {
	if _, ok := k.(packbitsCodec); ok && x.Len() > 0 {
		pad := int(x.Bytes()[0])
		return max(0, (x.Len()-1)*8-pad), true
	}
	return 0, false
}
