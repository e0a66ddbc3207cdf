package policy

import (
	"os"
	"strings"
	"testing"
)

func TestDevExplain(t *testing.T) {
	cmds := os.Getenv("EXPLAIN")
	if cmds == "" {
		t.Skip()
	}
	p, err := Default(Env{Home: "/home/dev", TempDirs: []string{"/tmp", "/var/tmp"}, ProtectedDirs: []string{"/home/dev/.local/share/warden"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range strings.Split(cmds, "\n") {
		ex := p.Explain(Call{Tool: "bash", Args: map[string]any{"command": c}, Workspace: "/home/dev/proj"})
		t.Log("\n$ " + c + "\n" + ex.String())
	}
}
