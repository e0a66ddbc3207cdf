package index

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Symbol is a definition found in a file.
type Symbol struct {
	// Name is the symbol's own name ("ServeHTTP", not "Server.ServeHTTP").
	Name string `json:"name"`
	// Kind is the kind in universal-ctags' long form: function, method,
	// type, struct, interface, class, member, variable, constant, field,
	// package, ... (Go symbols use the same words).
	Kind string `json:"kind"`
	// Scope is the enclosing symbol's name ("Server" for a method of
	// Server), empty at top level.
	Scope string `json:"scope,omitempty"`
	// Line and EndLine are the 1-based first and last lines of the
	// definition (EndLine == Line when the extent is unknown).
	Line    int `json:"line"`
	EndLine int `json:"endLine"`
}

// goSymbols extracts the definitions of a Go file with go/parser: package
// level functions, methods, types (struct, interface or plain), constants
// and variables, and the fields and methods of struct and interface types.
// A file that does not parse yields what the parser recovered.
func goSymbols(content []byte) []Symbol {
	fset := token.NewFileSet()
	f, _ := parser.ParseFile(fset, "x.go", content, parser.SkipObjectResolution|parser.ParseComments)
	if f == nil {
		return nil
	}
	line := func(p token.Pos) int { return fset.Position(p).Line }
	var out []Symbol
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			s := Symbol{Name: d.Name.Name, Kind: "function", Line: line(d.Pos()), EndLine: line(d.End())}
			if d.Recv != nil && len(d.Recv.List) > 0 {
				s.Kind, s.Scope = "method", recvName(d.Recv.List[0].Type)
			}
			if d.Doc != nil {
				s.Line = line(d.Doc.Pos())
			}
			out = append(out, s)
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					kind := "type"
					start := sp.Pos()
					if len(d.Specs) == 1 {
						start = d.Pos()
						if d.Doc != nil {
							start = d.Doc.Pos()
						}
					}
					s := Symbol{Name: sp.Name.Name, Line: line(start), EndLine: line(sp.End())}
					switch t := sp.Type.(type) {
					case *ast.StructType:
						kind = "struct"
						out = append(out, fieldSymbols(t.Fields, "field", sp.Name.Name, line)...)
					case *ast.InterfaceType:
						kind = "interface"
						out = append(out, fieldSymbols(t.Methods, "method", sp.Name.Name, line)...)
					}
					s.Kind = kind
					out = append(out, s)
				case *ast.ValueSpec:
					kind := "variable"
					if d.Tok == token.CONST {
						kind = "constant"
					}
					for _, n := range sp.Names {
						if n.Name == "_" {
							continue
						}
						out = append(out, Symbol{Name: n.Name, Kind: kind, Line: line(sp.Pos()), EndLine: line(sp.End())})
					}
				}
			}
		}
	}
	return slices.Clone(out) // kept as long as the file is indexed: no spare capacity
}

func fieldSymbols(fl *ast.FieldList, kind, scope string, line func(token.Pos) int) []Symbol {
	if fl == nil {
		return nil
	}
	var out []Symbol
	for _, f := range fl.List {
		for _, n := range f.Names {
			out = append(out, Symbol{Name: n.Name, Kind: kind, Scope: scope, Line: line(f.Pos()), EndLine: line(f.End())})
		}
	}
	return out
}

// recvName is the type name of a method's receiver ("T" for *T, T[K]).
func recvName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

// Ctags runs universal-ctags. Its zero value finds "ctags" on PATH.
type Ctags struct {
	// Program is the ctags binary; "" means "ctags" on PATH.
	Program string
}

// ctagsFile is one file handed to ctags: its workspace path (whose
// extension chooses the language) and the exact content indexed.
type ctagsFile struct {
	rel     string
	content []byte
}

// Symbols runs ctags once over files and returns each one's definitions,
// keyed by rel. ctags never reads the workspace: each content is written
// to a private temporary directory under its own relative path (so the
// extension picks the language), which also makes the symbols belong to
// exactly the content that was hashed. --options=NONE keeps a
// workspace's .ctags.d from configuring (or running) anything.
func (c Ctags) symbols(ctx context.Context, files []ctagsFile) (map[string][]Symbol, error) {
	if len(files) == 0 {
		return nil, nil
	}
	prog := c.Program
	if prog == "" {
		prog = "ctags"
	}
	dir, err := os.MkdirTemp("", "warden-ctags-")
	if err != nil {
		return nil, fmt.Errorf("index: ctags: %w", err)
	}
	defer os.RemoveAll(dir)
	var list bytes.Buffer
	names := make(map[string]string, len(files))
	for i, f := range files {
		// A flat name keeps the temp tree shallow; the base name keeps the
		// extension (and names like Makefile) for ctags' language guess.
		name := strconv.Itoa(i) + "_" + path.Base(f.rel)
		if err := os.WriteFile(filepath.Join(dir, name), f.content, 0o600); err != nil {
			return nil, fmt.Errorf("index: ctags: %w", err)
		}
		names[name] = f.rel
		list.WriteString(name)
		list.WriteByte('\n')
	}
	cmd := exec.CommandContext(ctx, prog, "--options=NONE", "--output-format=json",
		"--fields=+neKzS", "--sort=no", "-L", "-", "-f", "-")
	cmd.Dir = dir
	cmd.Stdin = &list
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("index: ctags: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("index: ctags: %w", err)
	}
	res := make(map[string][]Symbol, len(files))
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var t struct {
			Type  string `json:"_type"`
			Name  string `json:"name"`
			Path  string `json:"path"`
			Line  int    `json:"line"`
			End   int    `json:"end"`
			Kind  string `json:"kind"`
			Scope string `json:"scope"`
			Sig   string `json:"signature"`
		}
		if json.Unmarshal(sc.Bytes(), &t) != nil || t.Type != "tag" || t.Line <= 0 {
			continue
		}
		rel, ok := names[t.Path]
		if !ok {
			continue
		}
		if t.End < t.Line {
			t.End = t.Line
		}
		scope := t.Scope
		if i := strings.LastIndexAny(scope, ".:"); i >= 0 {
			scope = scope[i+1:]
		}
		kind := t.Kind
		if kind == "member" && t.Sig != "" {
			kind = "method" // Python's methods; C's members (fields) have no signature
		}
		res[rel] = append(res[rel], Symbol{Name: t.Name, Kind: kind, Scope: scope, Line: t.Line, EndLine: t.End})
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("index: ctags: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return res, nil
}
