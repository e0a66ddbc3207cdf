package policy

import (
	"os"
	"path/filepath"

	"github.com/warden-dev/warden/internal/policy/shell"
)

// Bounds of the look at a tree for the symlinks a following walk meets.
const (
	followMaxEntries = 10000
	followMaxDepth   = 24
	followMaxLinks   = 64
)

// followLinks returns the reads a walk that follows symlinks (find -L,
// grep -R, zip -r, rsync -L, tar -h, a web server over a directory) makes
// beyond its tree: for each symlink below the walked directory that leads
// out of it, a read of where it leads (recursive when that is a
// directory), judged as a direct read is. A workspace holding
// key -> ~/.ssh/id_rsa or home -> ~ is read through them. The tree is
// looked at on the file system, within bounds (followMaxEntries entries,
// followMaxDepth levels): what lies beyond them adds nothing, as a value
// not known at check time adds nothing to a read.
func (e *eval) followLinks(walk *effInfo) []*effInfo {
	if !walk.isPath || !walk.Recursive || walk.Unknown {
		return nil
	}
	// files called NAME anywhere below the tree (find -L ROOT -name NAME
	// -exec …): ROOT/**/NAME
	name := ""
	if walk.Glob != "" {
		if filepath.Base(filepath.Dir(walk.Glob)) != "**" || filepath.Dir(filepath.Dir(walk.Glob)) != walk.Target {
			return nil
		}
		name = filepath.Base(walk.Glob)
	}
	root := walk.resolved
	if root == "" {
		root = walk.Target
	}
	fi, err := os.Stat(root)
	if err != nil || !fi.IsDir() {
		return nil
	}
	var out []*effInfo
	seen := map[string]bool{}
	entries := 0
	var scan func(dir string, depth int)
	scan = func(dir string, depth int) {
		if depth > followMaxDepth || entries > followMaxEntries || len(out) >= followMaxLinks {
			return
		}
		des, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, de := range des {
			entries++
			if entries > followMaxEntries || len(out) >= followMaxLinks {
				return
			}
			p := filepath.Join(dir, de.Name())
			switch {
			case de.Type()&os.ModeSymlink != 0:
				t := resolvePath(p)
				if t == p || within(t, root) || seen[t] {
					continue // a link inside the tree is walked anyway
				}
				seen[t] = true
				ti, err := os.Stat(t)
				if err != nil {
					continue // dangling: nothing is read
				}
				// what the walk does to the tree it does to what the link
				// leads to: reads it, deletes it, changes its modes
				ef := shell.Effect{Kind: walk.Kind, Target: t, Recursive: ti.IsDir(), Meta: walk.Meta}
				if name != "" {
					if ti.IsDir() {
						ef.Glob = filepath.Join(t, "**", name)
					} else if ok, err := filepath.Match(name, de.Name()); !ok && err == nil {
						continue // a file link whose name the walk does not take
					}
				}
				out = append(out, e.place(ef))
			case de.IsDir():
				scan(p, depth+1)
			}
		}
	}
	scan(root, 0)
	return out
}
