package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// The lock file of a key is ".<name>.lock" beside the key's file, created
// with O_EXCL by the writer that holds it and removed when it is done. It is
// held only while a conditional write compares the file's generation and
// renames the new value into place (microseconds), so a lock older than
// staleLock was left by a writer that died, and is removed. The npm
// package's FileSystemStore takes the same lock, so Go and Node processes
// writing one directory exclude each other.
const (
	lockSuffix = ".lock"
	staleLock  = 10 * time.Second
	lockWait   = 30 * time.Second
)

func lockName(rel string) string {
	return filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+lockSuffix)
}

// lockFile takes the lock of the file rel (in fsys), waiting (with growing
// pauses) while another writer holds it; it gives up with a CONFLICT error
// after lockWait.
func lockFile(ctx context.Context, fsys files, key, rel string) (unlock func(), err error) {
	name := lockName(rel)
	deadline := time.Now().Add(lockWait)
	pause := 100 * time.Microsecond
	for {
		f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, _ = f.WriteString(strconv.Itoa(os.Getpid()))
			f.Close()
			return func() { fsys.Remove(name) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, errs.Wrap(errs.Store, key, err, "cannot create the lock file")
		}
		if fi, err := fsys.Stat(name); err == nil && time.Since(fi.ModTime()) > staleLock {
			fsys.Remove(name) // its writer died while holding it
			continue
		}
		if time.Now().After(deadline) {
			return nil, Conflict(key, "another writer holds %s", name)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, errs.Wrap(errs.Aborted, key, ctx.Err(), "aborted while waiting for the lock")
		case <-t.C:
		}
		pause = min(pause*2, 20*time.Millisecond)
	}
}
