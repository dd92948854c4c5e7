package s3

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/s3"
)

// WeedVersion is the SeaweedFS module version tests/s3/build-seaweedfs.sh
// builds.
const WeedVersion = "v0.0.0-20261109003541-7506e5f91cd6"

// Identities the SeaweedFS server is started with: Admin may do anything,
// Reader may read and list, and anonymous requests may read.
var (
	Admin  = s3.Credentials{AccessKeyID: "ZARRWASMADMIN0000001", SecretAccessKey: "zarr-wasm-test-admin-secret-0000000000001"}
	Reader = s3.Credentials{AccessKeyID: "ZARRWASMREADER000001", SecretAccessKey: "zarr-wasm-test-reader-secret-000000000001"}
)

// WeedBinary returns where build-seaweedfs.sh puts the weed binary (it may
// not be there).
func WeedBinary() string {
	cache := os.Getenv("ZARR_WASM_CACHE")
	if cache == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, _ := os.UserHomeDir()
			base = filepath.Join(home, ".cache")
		}
		cache = filepath.Join(base, "zarr-wasm")
	}
	return filepath.Join(cache, "seaweedfs-"+WeedVersion, "weed")
}

// Weed is a running SeaweedFS server (master, volume, filer and S3
// gateway) on 127.0.0.1.
type Weed struct {
	// Endpoint is the S3 gateway's URL (path-style buckets under it).
	Endpoint string
	cmd      *exec.Cmd
	dir      string
	done     chan struct{}
	log      *os.File
}

// StartWeed starts SeaweedFS with its data in dir, every port free and
// bound to 127.0.0.1, signatures verified for the identities above, and
// telemetry off; it returns once the S3 gateway answers.
func StartWeed(ctx context.Context, bin, dir string) (*Weed, error) {
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("SeaweedFS is not built (make seaweedfs, or tests/s3/build-seaweedfs.sh): %w", err)
	}
	ports, err := freePorts(8)
	if err != nil {
		return nil, err
	}
	config := map[string]any{"identities": []any{
		map[string]any{"name": "anonymous", "actions": []string{"Read"}},
		map[string]any{"name": "admin", "credentials": []any{map[string]string{"accessKey": Admin.AccessKeyID, "secretKey": Admin.SecretAccessKey}},
			"actions": []string{"Admin", "Read", "List", "Tagging", "Write"}},
		map[string]any{"name": "reader", "credentials": []any{map[string]string{"accessKey": Reader.AccessKeyID, "secretKey": Reader.SecretAccessKey}},
			"actions": []string{"Read", "List"}},
	}}
	cfg, _ := json.Marshal(config)
	cfgPath := filepath.Join(dir, "s3.json")
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}
	p := func(i int) string { return strconv.Itoa(ports[i]) }
	args := []string{"server", "-s3", "-filer",
		"-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-dir=" + data,
		"-master.port=" + p(0), "-master.port.grpc=" + p(1),
		"-volume.port=" + p(2), "-volume.port.grpc=" + p(3),
		"-filer.port=" + p(4), "-filer.port.grpc=" + p(5),
		"-s3.port=" + p(6), "-s3.port.grpc=" + p(7),
		"-s3.port.iceberg=0", "-s3.port.lance=0",
		"-s3.config=" + cfgPath,
		"-filer.localSocket=" + filepath.Join(dir, "filer.sock"), "-s3.localSocket=" + filepath.Join(dir, "s3.sock"),
		"-master.telemetry=false", "-volume.max=0", "-master.volumeSizeLimitMB=64",
	}
	logf, err := os.Create(filepath.Join(dir, "weed.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Dir = dir
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	w := &Weed{Endpoint: "http://127.0.0.1:" + p(6), cmd: cmd, dir: dir, done: make(chan struct{}), log: logf}
	go func() { cmd.Wait(); close(w.done) }()
	if err := w.waitReady(ctx); err != nil {
		w.Stop()
		return nil, fmt.Errorf("%w\n%s", err, w.Log())
	}
	return w, nil
}

// waitReady waits until the S3 gateway answers a signed request (the
// filer and volume server behind it take a few seconds), and until it can
// store an object.
func (w *Weed) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	var last error
	for {
		select {
		case <-w.done:
			return errors.New("SeaweedFS exited while starting")
		case <-ctx.Done():
			return fmt.Errorf("SeaweedFS did not become ready: %v", last)
		case <-time.After(300 * time.Millisecond):
		}
		if last = w.Do(ctx, http.MethodPut, "/zarr-wasm-ready", nil); last != nil {
			continue
		}
		if last = w.Do(ctx, http.MethodPut, "/zarr-wasm-ready/probe", []byte("ok")); last == nil {
			return w.Do(ctx, http.MethodDelete, "/zarr-wasm-ready/probe", nil)
		}
	}
}

// Do sends a request signed by Admin to the gateway (path: "/bucket/key")
// and fails unless it is answered 2xx.
func (w *Weed) Do(ctx context.Context, method, path string, body []byte) error {
	u := w.Endpoint + path
	req, err := http.NewRequestWithContext(ctx, method, u, strings.NewReader(string(body)))
	if err != nil {
		return err
	}
	hs, err := s3.Signer{}.Sign(s3.Request{Method: method, URL: u, PayloadHash: s3.PayloadHash(body)}, Admin, time.Now())
	if err != nil {
		return err
	}
	for _, h := range hs {
		req.Header.Set(h.Name, h.Value)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode/100 != 2 && !(method == http.MethodPut && resp.StatusCode == http.StatusConflict) {
		return fmt.Errorf("%s %s: %s %s", method, path, resp.Status, b)
	}
	return nil
}

// CreateBucket creates a bucket (an existing one is fine).
func (w *Weed) CreateBucket(ctx context.Context, name string) error {
	return w.Do(ctx, http.MethodPut, "/"+name, nil)
}

// Log returns the end of the server's log.
func (w *Weed) Log() string {
	b, _ := os.ReadFile(filepath.Join(w.dir, "weed.log"))
	if len(b) > 8000 {
		b = b[len(b)-8000:]
	}
	return string(b)
}

// Stop ends the server and the processes it started.
func (w *Weed) Stop() {
	if w.cmd.Process != nil {
		killGroup(w.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-w.done:
		case <-time.After(10 * time.Second):
			killGroup(w.cmd.Process.Pid, syscall.SIGKILL)
			<-w.done
		}
	}
	w.log.Close()
}

// freePorts returns n ports nothing listens on (each also free at +10000,
// where SeaweedFS puts a gRPC port it is not told).
func freePorts(n int) ([]int, error) {
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, l)
		port := l.Addr().(*net.TCPAddr).Port
		if port+10000 > 65535 {
			continue
		}
		if l2, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+10000)); err == nil {
			l2.Close()
			ports = append(ports, port)
		}
	}
	return ports, nil
}
