package main

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	zhttp "github.com/zarr-wasm/zarr-wasm/zarr/store/http"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlx"
)

// locatePipeline makes the store a URL pipeline names
// (https://host/data.zip|zip:path/in/zip|zarr3:group/array; see
// urlx.Pipeline), the node's path inside it and the format it asks for.
// The root is an http(s) URL, an s3:// or gs:// location, a file: URL or
// a local path.
func locatePipeline(ctx context.Context, location string) (zarr.Store, string, []zarr.OpenOption, error) {
	p, err := urlx.ParsePipeline(location)
	if err != nil {
		return nil, "", nil, err
	}
	root := p.Root
	if strings.HasPrefix(strings.ToLower(root), "s3") || strings.HasPrefix(strings.ToLower(root), "gs") {
		if root, err = urlx.ObjectURL(root, urlx.LocationOptions{}); err != nil {
			return nil, "", nil, err
		}
	} else if u, err := url.Parse(root); err == nil && u.Scheme == "file" {
		root = u.Path
	}
	// the directory holding the root, and the root's name in it when the
	// root is a ZIP file
	var s zarr.Store
	key := ""
	dir := root
	if len(p.Zips) > 0 {
		cut := strings.LastIndexByte(strings.TrimRight(root, "/"), '/') + 1
		dir, key = root[:cut], strings.TrimRight(root[cut:], "/")
		if isHTTP(root) {
			key, _ = url.PathUnescape(key)
		}
	}
	if isHTTP(dir) {
		s, err = zhttp.NewStore(dir, zhttp.Options{})
	} else {
		if dir == "" {
			dir = "."
		}
		s, err = zarr.NewDirectoryStore(filepath.FromSlash(dir))
	}
	if err != nil {
		return nil, "", nil, err
	}
	if len(p.Zips) > 0 {
		for _, next := range append([]string{key}, p.ZipFiles()...) {
			if s, err = zarr.NewZipStore(ctx, s, next); err != nil {
				return nil, "", nil, err
			}
		}
	}
	var opts []zarr.OpenOption
	if p.Format != 0 {
		opts = append(opts, zarr.WithZarrFormat(p.Format))
	}
	return s, p.NodePath(), opts, nil
}
