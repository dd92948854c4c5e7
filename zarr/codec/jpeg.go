//go:build !zarrcore

package codec

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// jpegCodec is the "jpeg" codec the registry's pull request 66 proposes
// (array→bytes, in the full build): a uint8 chunk of shape (H, W), (H, W,
// 1) or (H, W, 3) as a baseline JPEG image, decoded and encoded by Go's
// image/jpeg. Decoding takes any baseline or progressive stream (the
// stream says its color transform); encoding writes what image/jpeg writes:
// grayscale, and YCbCr with 4:2:0 chroma subsampling; other configurations
// are refused when writing.
type jpegCodec struct {
	quality    int
	colorSpace string
	sub        [][2]int
}

func init() { Register(newJPEG, "jpeg") }

type jpegConfig struct {
	Quality     *int             `json:"quality"`
	ColorSpace  string           `json:"encoded_color_space"`
	Subsampling jsonx.RawMessage `json:"subsampling"`
}

func (c *jpegConfig) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("quality", &c.Quality), jsonx.F("encoded_color_space", &c.ColorSpace),
		jsonx.F("subsampling", &c.Subsampling)}
}

func newJPEG(cfg jsonx.RawMessage, in Spec) (any, error) {
	var c jpegConfig
	if err := StrictConfig(cfg, &c); err != nil {
		return nil, err
	}
	if c.Quality == nil || *c.Quality < 0 || *c.Quality > 100 {
		return nil, fmtx.Errorf("quality (0 to 100) is required")
	}
	k := &jpegCodec{quality: *c.Quality, colorSpace: c.ColorSpace}
	if c.Subsampling == nil {
		return nil, fmtx.Errorf("subsampling is required")
	}
	var sub [][]int
	if err := jsonx.UnmarshalStrict(c.Subsampling, &sub); err != nil {
		return nil, fmtx.Errorf("subsampling must be a list of [horizontal, vertical] factors")
	}
	for i, s := range sub {
		if len(s) != 2 || s[0] < 1 || s[0] > 4 || s[1] < 1 || s[1] > 4 {
			return nil, fmtx.Errorf("subsampling[%d] must be [horizontal, vertical] factors of 1 to 4", i)
		}
		k.sub = append(k.sub, [2]int{s[0], s[1]})
	}
	if in.DType != nil && (in.DType.Kind != dtype.Uint || in.DType.Size != 1 || in.DType.Format != "") {
		return nil, errs.New(errs.Unsupported, "jpeg", "JPEG stores uint8 samples, not %s", in.DType)
	}
	if in.Shape != nil {
		comps, err := jpegComponents(in.Shape)
		if err != nil {
			return nil, err
		}
		if len(k.sub) != comps {
			return nil, fmtx.Errorf("subsampling has %d entries for %d components", len(k.sub), comps)
		}
		switch {
		case comps == 1:
			if k.sub[0] != [2]int{1, 1} {
				return nil, fmtx.Errorf("grayscale subsampling must be [[1, 1]]")
			}
		case k.colorSpace != "ycbcr" && k.colorSpace != "rgb":
			return nil, fmtx.Errorf("encoded_color_space must be ycbcr or rgb for 3 components, got %q", k.colorSpace)
		case k.sub[1] != [2]int{1, 1} || k.sub[2] != [2]int{1, 1} || k.sub[0][0] < 1 || k.sub[0][1] < 1:
			return nil, fmtx.Errorf("subsampling: the second and third components must be [1, 1]")
		case k.colorSpace == "rgb" && k.sub[0] != [2]int{1, 1}:
			return nil, fmtx.Errorf("rgb components must not be subsampled")
		}
	}
	return k, nil
}

// jpegComponents is the component count of a chunk shape (H, W), (H, W,
// 1) or (H, W, 3).
func jpegComponents(shape []int) (int, error) {
	switch {
	case len(shape) == 2:
		return 1, nil
	case len(shape) == 3 && (shape[2] == 1 || shape[2] == 3):
		return shape[2], nil
	}
	return 0, fmtx.Errorf("JPEG chunks have shape (H, W), (H, W, 1) or (H, W, 3), not %v: reshape or transpose them first", shape)
}

func (k *jpegCodec) Decode(b []byte, out Spec) (*nd.Array, error) {
	comps, err := jpegComponents(out.Shape)
	if err != nil {
		return nil, err
	}
	h, w := out.Shape[0], out.Shape[1]
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, Corrupt("jpeg", "%v", err)
	}
	if cfg.Width != w || cfg.Height != h {
		return nil, Corrupt("jpeg", "a %dx%d image for a %dx%d chunk", cfg.Width, cfg.Height, w, h)
	}
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, Corrupt("jpeg", "%v", err)
	}
	data := make([]byte, h*w*comps)
	switch m := img.(type) {
	case *image.Gray:
		if comps != 1 {
			return nil, Corrupt("jpeg", "a grayscale image for a chunk of %d components", comps)
		}
		for y := 0; y < h; y++ {
			copy(data[y*w:(y+1)*w], m.Pix[y*m.Stride:])
		}
	default:
		if comps != 3 {
			return nil, Corrupt("jpeg", "a color image for a grayscale chunk")
		}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
				i := 3 * (y*w + x)
				data[i], data[i+1], data[i+2] = c.R, c.G, c.B
			}
		}
	}
	return nd.FromBytes(out.DType, out.Shape, data)
}

func (k *jpegCodec) Encode(a *nd.Array) ([]byte, error) {
	comps, err := jpegComponents(a.Shape())
	if err != nil {
		return nil, err
	}
	h, w := a.Shape()[0], a.Shape()[1]
	if h > 65535 || w > 65535 {
		return nil, fmtx.Errorf("jpeg: a %dx%d image is beyond JPEG's 65535", w, h)
	}
	var img image.Image
	src := a.Bytes()
	if comps == 1 {
		img = &image.Gray{Pix: src, Stride: w, Rect: image.Rect(0, 0, w, h)}
	} else {
		if k.colorSpace != "ycbcr" || k.sub[0] != [2]int{2, 2} {
			return nil, errs.New(errs.Unsupported, "jpeg", "writes grayscale, and color as ycbcr with subsampling [[2, 2], [1, 1], [1, 1]] (Go's encoder), not %s %s", k.colorSpace, pairsText(k.sub))
		}
		rgba := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := 0; i < h*w; i++ {
			copy(rgba.Pix[4*i:], src[3*i:3*i+3])
			rgba.Pix[4*i+3] = 255
		}
		img = rgba
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: max(k.quality, 1)}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// pairsText writes subsampling factors as the configuration gives them.
func pairsText(p [][2]int) string {
	out := "["
	for i, x := range p {
		if i > 0 {
			out += ", "
		}
		out += fmtx.Sprintf("[%d, %d]", x[0], x[1])
	}
	return out + "]"
}
