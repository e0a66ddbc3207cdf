package archtest

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/warden-dev/warden/"

// pkg is what `go list -json` says of a package that matters here: its
// non-test imports.
type pkg struct {
	ImportPath string
	Imports    []string
}

func listPackages(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", module+"...")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	dec := json.NewDecoder(out)
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		var own []string
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module) {
				own = append(own, strings.TrimPrefix(imp, module))
			}
		}
		pkgs[strings.TrimPrefix(p.ImportPath, module)] = own
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("go list: %v", err)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// TestImportRules checks the rules of docs/architecture.md on every
// package's (non-test) imports.
func TestImportRules(t *testing.T) {
	pkgs := listPackages(t)
	for p, imports := range pkgs {
		for _, imp := range imports {
			var broken string
			switch {
			case under(p, "internal/protocol") && under(imp, "internal/protocol") && doorOf(p) != doorOf(imp):
				broken = "a door imports another door"
			case under(p, "internal/core") && (under(imp, "internal/protocol") || under(imp, "internal/ops") || under(imp, "internal/integrations")):
				broken = "the core imports a door, the operations layer or an integration"
			case under(p, "internal/ops") && (under(imp, "internal/protocol") || under(imp, "internal/integrations") || under(imp, "internal/daemon")):
				broken = "the operations layer imports a door, an integration or the daemon"
			case (imp == "internal/core/coretest" || under(imp, "internal/testtools") || under(imp, "internal/fakemodel")) &&
				!(under(p, "internal/fakemodel") && under(imp, "internal/fakemodel")):
				// the fakes share their helpers (internal/fakemodel)
				broken = "non-test code imports test support (it answers approvals and fakes models)"
			case under(p, "internal/integrations") && under(imp, "internal/protocol"):
				broken = "an integration imports a door"
			case p == "internal/policy" && imp != "internal/policy/shell":
				broken = "the policy imports more of warden than policy/shell"
			case under(p, "internal/policy/shell") && !under(imp, "internal/policy/shell"):
				broken = "policy/shell imports warden"
			case under(p, "internal/sandbox") && !(imp == "internal/policy" || under(imp, "internal/policy/shell")):
				broken = "the sandbox imports more of warden than the policy"
			case p == "internal/event":
				// every part writes and reads the typed payloads: they
				// depend on nothing of warden
				broken = "the event vocabulary imports warden"
			case under(p, "internal/jsonrpc"):
				// the door's own error codes live with the door
				broken = "jsonrpc imports warden"
			}
			if broken != "" {
				t.Errorf("%s imports %s: %s", p, imp, broken)
			}
		}
	}
}

// doorOf is the door a protocol package belongs to (internal/protocol/X).
func doorOf(p string) string {
	parts := strings.Split(p, "/")
	if len(parts) < 3 {
		return p
	}
	return strings.Join(parts[:3], "/")
}

// TestDoorsServeWorkspacesThroughOps checks that the doors that serve a
// workspace do not build its services themselves: the file system,
// language servers and terminals belong to the operations layer.
func TestDoorsServeWorkspacesThroughOps(t *testing.T) {
	pkgs := listPackages(t)
	for _, door := range []string{"internal/protocol/control", "internal/protocol/mcp"} {
		imports, ok := pkgs[door]
		if !ok {
			t.Fatalf("no package %s", door)
		}
		has := func(x string) bool {
			for _, i := range imports {
				if i == x {
					return true
				}
			}
			return false
		}
		if !has("internal/ops") {
			t.Errorf("%s does not use the operations layer", door)
		}
		// no door builds a workspace service of its own
		dir := "../../" + door
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no sources (%v)", dir, err)
		}
		fset := token.NewFileSet()
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(af, func(n ast.Node) bool {
				var name string
				switch x := n.(type) {
				case *ast.CallExpr:
					if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
						if id, ok := sel.X.(*ast.Ident); ok {
							name = id.Name + "." + sel.Sel.Name
						}
					}
				case *ast.CompositeLit:
					if sel, ok := x.Type.(*ast.SelectorExpr); ok {
						if id, ok := sel.X.(*ast.Ident); ok {
							name = id.Name + "." + sel.Sel.Name + "{}"
						}
					}
				}
				switch name {
				case "wsfs.Open", "lsp.NewManager", "terminal.NewManager", "debug.New", "editor.New", "gitcli.Repo{}", "search.Find", "search.Replace":
					t.Errorf("%s: %s builds or runs a workspace service itself; use the operations layer", fset.Position(n.Pos()), name)
				}
				return true
			})
		}
	}
}
