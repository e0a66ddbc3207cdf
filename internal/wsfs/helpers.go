package wsfs

import (
	"crypto/rand"
	"io/fs"
	"slices"
	"strings"
)

// randRead fills b with random bytes (temporary file names, watcher ids).
func randRead(b []byte) (int, error) { return rand.Read(b) }

// sortEntries sorts directory entries by name (File.ReadDir returns them
// in directory order).
func sortEntries(ents []fs.DirEntry) {
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}
