//go:build !unix

package store

import (
	"io/fs"
	"strconv"
)

// fileGeneration is a file's size and modification time (ns) where the
// platform gives no inode.
func fileGeneration(fi fs.FileInfo) Generation {
	b := strconv.AppendInt(make([]byte, 0, 32), fi.Size(), 36)
	b = append(b, '.')
	b = strconv.AppendInt(b, fi.ModTime().UnixNano(), 36)
	return Generation(b)
}
