package main

// Maps in sample.zarr beside climate/ (which is a −180–180° grid, north at
// row 0, months in a 360_day calendar):
//
//   - reanalysis/t2m: an ERA5-like grid — latitudes rising from the south
//     pole (row 0 is the south), longitudes 0–358°, time in hours since
//     1900-01-01 (standard calendar), coordinates named latitude/longitude
//     with CF standard_name and units;
//   - polar/sea_ice: a polar stereographic grid (NSIDC's 25 km northern
//     grid, EPSG:3413's parameters) described the CF way: x/y coordinates
//     in metres and a grid_mapping variable "crs";
//   - polar_geozarr/sea_ice: the same grid described the GeoZarr way
//     (zarr-conventions proj: and spatial: attributes on the group: an
//     EPSG code and an affine transform; no coordinate arrays).

import (
	"context"
	"encoding/binary"
	"math"

	"github.com/zarr-wasm/zarr-wasm/zarr"
)

const (
	nT2mTime, nT2mLat, nT2mLon = 4, 91, 180
	// Hours from 1900-01-01 to 2020-01-01 (43829 days).
	t2mHour0 = 43829 * 24
	// NSIDC's polar stereographic north grid: 304 × 448 cells of 25 km.
	iceNX, iceNY, iceCell = 304, 448, 25000.0
	iceX0, iceY0          = -3850000.0, 5850000.0 // top-left corner
)

// T2mLat and T2mLon are the reanalysis grid's coordinates (degrees).
func T2mLat(i int) float64 { return -90 + 2*float64(i) }
func T2mLon(j int) float64 { return 2 * float64(j) }

// T2m is the reanalysis temperature (K) at step t (6-hourly), row i, column j.
func T2m(t, i, j int) float32 {
	lat := T2mLat(i) * math.Pi / 180
	lon := T2mLon(j) * math.Pi / 180
	s := math.Sin(lat)
	v := 288 - 40*s*s + 6*math.Cos(lon-float64(t)*math.Pi/2)*math.Cos(lat)
	return float32(math.Round(v*64) / 64)
}

// IceX and IceY are the centres of the sea-ice grid's column j and row i (metres).
func IceX(j int) float64 { return iceX0 + (float64(j)+0.5)*iceCell }
func IceY(i int) float64 { return iceY0 - (float64(i)+0.5)*iceCell }

// SeaIce is the made-up sea-ice concentration (0–1) at row i, column j:
// full near the pole, none beyond 3500 km from it.
func SeaIce(i, j int) float32 {
	r := math.Hypot(IceX(j), IceY(i))
	v := math.Min(1, math.Max(0, (3.5e6-r)/2e6))
	return float32(math.Round(v*256) / 256)
}

func f64Bytes(v []float64) []byte {
	b := make([]byte, 8*len(v))
	for k, x := range v {
		binary.LittleEndian.PutUint64(b[8*k:], math.Float64bits(x))
	}
	return b
}

// polarStereographic is EPSG:3413's projection as CF grid-mapping attributes.
var polarStereographic = map[string]any{
	"grid_mapping_name":                     "polar_stereographic",
	"straight_vertical_longitude_from_pole": -45.0,
	"latitude_of_projection_origin":         90.0,
	"standard_parallel":                     70.0,
	"false_easting":                         0.0,
	"false_northing":                        0.0,
	"semi_major_axis":                       6378137.0,
	"inverse_flattening":                    298.257223563,
}

func writeMaps(ctx context.Context, s zarr.Store) error {
	zstd := []map[string]any{
		{"name": "bytes", "configuration": map[string]any{"endian": "little"}},
		{"name": "zstd", "configuration": map[string]any{"level": 3, "checksum": false}},
	}
	// The reanalysis grid.
	if _, err := zarr.CreateGroup(ctx, s, "reanalysis", zarr.GroupOptions{Attributes: map[string]any{
		"title": "Synthetic 6-hourly reanalysis (0–360° longitudes, south at row 0)", "Conventions": "CF-1.8",
	}}); err != nil {
		return err
	}
	t2m := make([]float32, 0, nT2mTime*nT2mLat*nT2mLon)
	for t := 0; t < nT2mTime; t++ {
		for i := 0; i < nT2mLat; i++ {
			for j := 0; j < nT2mLon; j++ {
				t2m = append(t2m, T2m(t, i, j))
			}
		}
	}
	if err := writeArray(ctx, s, "reanalysis/t2m", zarr.ArrayOptions{
		Shape: []int{nT2mTime, nT2mLat, nT2mLon}, Chunks: []int{1, nT2mLat, nT2mLon}, DType: "float32", FillValue: "NaN",
		Codecs: zstd, DimensionNames: []string{"time", "latitude", "longitude"},
		Attributes: map[string]any{"units": "K", "long_name": "2 metre temperature", "standard_name": "air_temperature"},
	}, f32Bytes(t2m)); err != nil {
		return err
	}
	lat := make([]float64, nT2mLat)
	for i := range lat {
		lat[i] = T2mLat(i)
	}
	lon := make([]float64, nT2mLon)
	for j := range lon {
		lon[j] = T2mLon(j)
	}
	hours := make([]byte, 4*nT2mTime)
	for t := 0; t < nT2mTime; t++ {
		binary.LittleEndian.PutUint32(hours[4*t:], uint32(t2mHour0+6*t))
	}
	for _, c := range []struct {
		name  string
		n     int
		dtype string
		attrs map[string]any
		data  []byte
	}{
		{"latitude", nT2mLat, "float64", map[string]any{"standard_name": "latitude", "units": "degrees_north", "long_name": "latitude"}, f64Bytes(lat)},
		{"longitude", nT2mLon, "float64", map[string]any{"standard_name": "longitude", "units": "degrees_east", "long_name": "longitude"}, f64Bytes(lon)},
		{"time", nT2mTime, "int32", map[string]any{"standard_name": "time", "units": "hours since 1900-01-01 00:00:00.0", "calendar": "gregorian", "long_name": "time"}, hours},
	} {
		if err := writeArray(ctx, s, "reanalysis/"+c.name, zarr.ArrayOptions{
			Shape: []int{c.n}, Chunks: []int{c.n}, DType: c.dtype, DimensionNames: []string{c.name}, Attributes: c.attrs,
		}, c.data); err != nil {
			return err
		}
	}

	// The polar grid, CF's way and GeoZarr's.
	ice := make([]float32, 0, iceNY*iceNX)
	for i := 0; i < iceNY; i++ {
		for j := 0; j < iceNX; j++ {
			ice = append(ice, SeaIce(i, j))
		}
	}
	iceAttrs := func(extra map[string]any) map[string]any {
		a := map[string]any{"units": "1", "long_name": "sea ice area fraction (made up)", "standard_name": "sea_ice_area_fraction"}
		for k, v := range extra {
			a[k] = v
		}
		return a
	}
	if _, err := zarr.CreateGroup(ctx, s, "polar", zarr.GroupOptions{Attributes: map[string]any{
		"title": "Synthetic sea ice on a polar stereographic grid (CF grid_mapping)", "Conventions": "CF-1.8",
	}}); err != nil {
		return err
	}
	if err := writeArray(ctx, s, "polar/sea_ice", zarr.ArrayOptions{
		Shape: []int{iceNY, iceNX}, Chunks: []int{224, 152}, DType: "float32", FillValue: "NaN",
		Codecs: zstd, DimensionNames: []string{"y", "x"}, Attributes: iceAttrs(map[string]any{"grid_mapping": "crs"}),
	}, f32Bytes(ice)); err != nil {
		return err
	}
	xs := make([]float64, iceNX)
	for j := range xs {
		xs[j] = IceX(j)
	}
	ys := make([]float64, iceNY)
	for i := range ys {
		ys[i] = IceY(i)
	}
	for _, c := range []struct {
		name string
		v    []float64
		sn   string
	}{{"x", xs, "projection_x_coordinate"}, {"y", ys, "projection_y_coordinate"}} {
		if err := writeArray(ctx, s, "polar/"+c.name, zarr.ArrayOptions{
			Shape: []int{len(c.v)}, Chunks: []int{len(c.v)}, DType: "float64", DimensionNames: []string{c.name},
			Attributes: map[string]any{"standard_name": c.sn, "units": "m", "axis": map[string]string{"x": "X", "y": "Y"}[c.name]},
		}, f64Bytes(c.v)); err != nil {
			return err
		}
	}
	if err := writeArray(ctx, s, "polar/crs", zarr.ArrayOptions{
		Shape: []int{}, Chunks: []int{}, DType: "int32", Attributes: polarStereographic,
	}, make([]byte, 4)); err != nil {
		return err
	}
	if _, err := zarr.CreateGroup(ctx, s, "polar_geozarr", zarr.GroupOptions{Attributes: map[string]any{
		"title": "Synthetic sea ice on a polar stereographic grid (GeoZarr proj: and spatial:)",
		"zarr_conventions": []any{
			map[string]any{"uuid": "f17cb550-5864-4468-aeb7-f3180cfb622f", "name": "proj:", "spec_url": "https://github.com/zarr-experimental/geo-proj/blob/v1/README.md"},
			map[string]any{"uuid": "689b58e2-cf7b-45e0-9fff-9cfc0883d6b4", "name": "spatial:", "spec_url": "https://github.com/zarr-conventions/spatial/blob/v1/README.md"},
		},
		"proj:code":          "EPSG:3413",
		"spatial:dimensions": []any{"y", "x"},
		"spatial:transform":  []any{iceCell, 0.0, iceX0, 0.0, -iceCell, iceY0},
		"spatial:shape":      []any{iceNY, iceNX},
	}}); err != nil {
		return err
	}
	return writeArray(ctx, s, "polar_geozarr/sea_ice", zarr.ArrayOptions{
		Shape: []int{iceNY, iceNX}, Chunks: []int{224, 152}, DType: "float32", FillValue: "NaN",
		Codecs: zstd, DimensionNames: []string{"y", "x"}, Attributes: iceAttrs(nil),
	}, f32Bytes(ice))
}
