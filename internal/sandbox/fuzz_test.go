package sandbox_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/warden-dev/warden/internal/sandbox"
)

// FuzzDecodeProfile: the child's profile decoder never panics, and every
// profile it accepts has absolute clean paths and known access.
func FuzzDecodeProfile(f *testing.F) {
	good, _ := json.Marshal(&sandbox.Profile{Workspace: "/w", Grants: []sandbox.Entry{
		{Path: "/w", Access: sandbox.ReadWrite, Why: "the workspace"},
		{Path: "/usr", Access: sandbox.ReadExec},
		{Path: "/dev/pts", Access: sandbox.ReadWrite, Device: true},
		{Path: "/home/u/.gitconfig", Access: sandbox.ReadOnly, Missing: true},
	}})
	f.Add(good)
	f.Add([]byte(`{"workspace":"/w","grants":[{"path":"../x","access":"read-write"}]}`))
	f.Add([]byte(`{"workspace":"relative","grants":[]}`))
	f.Add([]byte(`{"workspace":"/w","grants":[{"path":"/x","access":"everything"}]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := sandbox.DecodeProfile(data)
		if err != nil {
			return
		}
		if !filepath.IsAbs(p.Workspace) || len(p.Grants) == 0 {
			t.Fatalf("accepted %+v", p)
		}
		for _, g := range p.Grants {
			if !filepath.IsAbs(g.Path) || filepath.Clean(g.Path) != g.Path {
				t.Fatalf("accepted grant path %q", g.Path)
			}
			switch g.Access {
			case sandbox.ReadWrite, sandbox.ReadExec, sandbox.ReadOnly:
			default:
				t.Fatalf("accepted access %q", g.Access)
			}
		}
	})
}
