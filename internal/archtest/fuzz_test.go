package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// repoRoot is the module's root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// makefileFuzzTargets reads FUZZ_TARGETS from the Makefile: each entry is
// PKG:FuzzName:N, N the number of inputs CI runs.
func makefileFuzzTargets(t *testing.T, root string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)\nFUZZ_TARGETS\s*:=(.*?)\n\n`).FindSubmatch(b)
	if m == nil {
		t.Fatal("the Makefile has no FUZZ_TARGETS list")
	}
	targets := map[string]int{}
	for _, entry := range strings.Fields(strings.ReplaceAll(string(m[1]), "\\\n", " ")) {
		i := strings.LastIndexByte(entry, ':')
		n, err := strconv.Atoi(entry[i+1:])
		if i < 0 || err != nil || n <= 0 {
			t.Errorf("FUZZ_TARGETS entry %q: want PKG:FuzzName:N with N > 0 inputs", entry)
			continue
		}
		if _, dup := targets[entry[:i]]; dup {
			t.Errorf("FUZZ_TARGETS lists %s twice", entry[:i])
		}
		targets[entry[:i]] = n
	}
	return targets
}

// Every fuzz function in the module runs in `make fuzz` (an unlisted one
// would only ever run its seeds), and every listed one exists.
func TestEveryFuzzTargetIsListed(t *testing.T) {
	root := repoRoot(t)
	listed := makefileFuzzTargets(t, root)
	found := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, name := range fuzzFuncs(f) {
			found["./"+filepath.ToSlash(rel)+":"+name] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 {
		t.Fatal("found no fuzz functions at all")
	}
	var missing, stale []string
	for k := range found {
		if _, ok := listed[k]; !ok {
			missing = append(missing, k)
		}
	}
	for k := range listed {
		if !found[k] {
			stale = append(stale, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(stale)
	for _, k := range missing {
		t.Errorf("fuzz target %s is not in the Makefile's FUZZ_TARGETS: add it as %s:N (N inputs, about 10 s on 2 cores)", k, k)
	}
	for _, k := range stale {
		t.Errorf("FUZZ_TARGETS lists %s, which does not exist", k)
	}
}

// fuzzFuncs names the top-level FuzzXxx(*testing.F) functions of f.
func fuzzFuncs(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Fuzz") || len(fn.Type.Params.List) != 1 {
			continue
		}
		star, ok := fn.Type.Params.List[0].Type.(*ast.StarExpr)
		if !ok {
			continue
		}
		if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "F" {
			names = append(names, fn.Name.Name)
		}
	}
	return names
}
