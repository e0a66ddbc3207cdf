//go:build linux

package wsfs

import (
	"io/fs"
	"syscall"
	"time"
)

// changeTime returns the inode change time (st_ctim).
func changeTime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
	}
	return fi.ModTime()
}
