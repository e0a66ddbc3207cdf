package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// approvers are the only packages whose (non-test) code may let a waiting
// call run: the approval queue and the core define it, the admin door,
// which admits only the admin credential, is the one door that asks, and
// the CLI (warden approve) is its client, with the admin credential read
// from the data dir. coretest, the core tests build on, answers approvals
// for tests: no non-test code imports it (TestImportRules checks that).
var approvers = map[string]bool{
	"internal/approval":       true,
	"internal/core":           true,
	"internal/core/coretest":  true,
	"internal/protocol/admin": true,
	"internal/cli":            true,
}

// TestOnlyTheAdminDoorApproves checks "approvals are resolved only by
// admin-authenticated clients" on the source: outside the approvers, no
// code names approval.Approved (the one outcome that lets a call run), and
// no code calls Core.Resolve (a three-argument Resolve: ctx, id,
// resolution). core.Withdraw, the agent bridge's way out, refuses an
// approving outcome itself (core's tests check it).
func TestOnlyTheAdminDoorApproves(t *testing.T) {
	root := "../.."
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".cache", "node_modules", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		af, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		if approvers[pkg] {
			return nil
		}
		approvalName := "" // the file's name for the approval package
		for _, imp := range af.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == module+"internal/approval" {
				approvalName = "approval"
				if imp.Name != nil {
					approvalName = imp.Name.Name
				}
			}
		}
		ast.Inspect(af, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && approvalName != "" && id.Name == approvalName && x.Sel.Name == "Approved" {
					t.Errorf("%s: %s names approval.Approved: only the admin door (admin credential) approves a call", fset.Position(x.Pos()), pkg)
				}
			case *ast.CallExpr:
				if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Resolve" && len(x.Args) == 3 {
					t.Errorf("%s: %s calls Resolve(ctx, id, resolution): only the admin door (admin credential) resolves approvals", fset.Position(x.Pos()), pkg)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked only %d files", checked)
	}
}
