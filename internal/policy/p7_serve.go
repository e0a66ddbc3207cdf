package policy

import (
	"os"
	"path/filepath"

	"github.com/warden-dev/warden/internal/policy/shell"
)

// Bounds of the look at a served tree for the files it exposes.
const (
	serveMaxFiles   = 256
	serveMaxEntries = 4000
	serveMaxDepth   = 8
)

// serveSkip are directories a served tree is not looked into for the
// files it exposes: version control's metadata and installed packages,
// which hold no secret of the user's and would spend the bounds.
var serveSkip = map[string]bool{".git": true, ".hg": true, ".svn": true, "node_modules": true}

// servedFiles returns the reads a server over a directory makes of the
// files in it: each file below the served root can be fetched by anyone
// who reaches the port, so each is read and sent, and judged as a direct
// read is (a .env at the top of the workspace, a key, a history: denied or
// asked by the rules on reads). The tree is looked at on the file system,
// breadth first (the top level first), within bounds (serveMaxFiles files,
// serveMaxEntries entries, serveMaxDepth levels); symlinks are left to
// followLinks. What lies beyond the bounds adds nothing.
func (e *eval) servedFiles(root *effInfo) []*effInfo {
	if !root.isPath || root.Unknown {
		return nil
	}
	dir := root.resolved
	if dir == "" {
		dir = root.Target
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	var out []*effInfo
	entries := 0
	level := []string{dir}
	for depth := 0; depth <= serveMaxDepth && len(level) > 0; depth++ {
		var next []string
		for _, d := range level {
			des, err := os.ReadDir(d)
			if err != nil {
				continue
			}
			for _, de := range des {
				entries++
				if entries > serveMaxEntries || len(out) >= serveMaxFiles {
					return out
				}
				p := filepath.Join(d, de.Name())
				switch {
				case de.Type().IsRegular():
					out = append(out, e.place(shell.Effect{Kind: shell.Read, Target: p,
						Reason: "served to the network by a server over " + dir}))
				case de.IsDir() && !serveSkip[de.Name()]:
					next = append(next, p)
				}
			}
		}
		level = next
	}
	return out
}
