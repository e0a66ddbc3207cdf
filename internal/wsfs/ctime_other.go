//go:build !linux

package wsfs

import (
	"io/fs"
	"time"
)

// changeTime returns the modification time: the change time is only read
// on Linux.
func changeTime(fi fs.FileInfo) time.Time { return fi.ModTime() }
