//go:build !unix

package wsfs

import "io/fs"

// linkCount returns 1: hard links are not counted on this platform.
func linkCount(fs.FileInfo) uint64 { return 1 }
