//go:build unix

package store

import (
	"io/fs"
	"strconv"
	"syscall"
)

// fileGeneration is a file's identity: device, inode, size and modification
// time (ns). A rename puts a new inode in place, so a rewrite through a
// temporary file changes it even within one tick of the file system's clock.
func fileGeneration(fi fs.FileInfo) Generation {
	b := make([]byte, 0, 64)
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		b = strconv.AppendUint(b, uint64(st.Dev), 36)
		b = append(b, '.')
		b = strconv.AppendUint(b, uint64(st.Ino), 36)
		b = append(b, '.')
	}
	b = strconv.AppendInt(b, fi.Size(), 36)
	b = append(b, '.')
	b = strconv.AppendInt(b, fi.ModTime().UnixNano(), 36)
	return Generation(b)
}
