package urlx

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// pipelineCase is one entry of testdata/pipelines.json.
type pipelineCase struct {
	URL      string   `json:"url"`
	Root     string   `json:"root"`
	Zips     []string `json:"zips"`
	Format   int      `json:"format"`
	Path     string   `json:"path"`
	NodePath string   `json:"node_path"`
	Error    string   `json:"error"`
	Suggest  string   `json:"suggest"`
}

func TestParsePipeline(t *testing.T) {
	raw, err := os.ReadFile("testdata/pipelines.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []pipelineCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	for _, c := range file.Cases {
		p, err := ParsePipeline(c.URL)
		if c.Error != "" {
			var e *errs.Error
			if !errors.As(err, &e) || string(e.Code) != c.Error || e.Suggest != c.Suggest {
				t.Errorf("%s: %v, want a %s error (suggesting %q)", c.URL, err, c.Error, c.Suggest)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.URL, err)
			continue
		}
		zips := p.Zips
		if zips == nil {
			zips = []string{}
		}
		if p.Root != c.Root || fmt.Sprint(zips) != fmt.Sprint(c.Zips) || p.Format != c.Format || p.Path != c.Path || p.NodePath() != c.NodePath {
			t.Errorf("%s: %+v (node path %q), want %+v", c.URL, p, p.NodePath(), c)
		}
	}
}
