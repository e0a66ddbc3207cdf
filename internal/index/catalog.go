package index

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/warden-dev/warden/internal/atomicfile"
)

// The catalog is the index's memory on disk, one directory per workspace:
//
//	<dir>/CURRENT              the name of the generation in use ("gen-000003")
//	<dir>/gen-000003/catalog   one JSON record per line, appended
//
// A record says what one file was when it was indexed: its path, size,
// modification time, content hash ("sha256:<hex>") and symbols, or that
// it was skipped (binary, too large) or removed. A record is written with
// one write(2) as soon as its file is done, so a build that is interrupted
// (killed, crashed, the machine stopped) keeps every file it finished:
// the next build of that generation resumes where it stopped. The same
// content is indexed once: a record whose content hash was already
// recorded in its generation carries no symbols of its own. A rebuild
// writes a new generation beside the current one and switches CURRENT to
// it atomically only when it is complete; the old generation is then
// removed. Later records for a path replace earlier ones; a generation's
// log is compacted by the next rebuild.

// record is one line of a catalog.
type record struct {
	Path    string   `json:"p,omitempty"`
	Hash    string   `json:"h,omitempty"`
	Size    int64    `json:"s,omitempty"`
	MTime   int64    `json:"m,omitempty"`
	Symbols []catSym `json:"y,omitempty"`
	// Skip says why the file is not indexed ("binary", "large").
	Skip    string `json:"k,omitempty"`
	Deleted bool   `json:"d,omitempty"`
	// Done marks a complete generation (the last line of a build).
	Done bool `json:"done,omitempty"`
}

// catSym is a Symbol in the catalog's short form.
type catSym struct {
	N string `json:"n"`
	K string `json:"k"`
	S string `json:"s,omitempty"`
	L int    `json:"l"`
	E int    `json:"e"`
}

func toCat(syms symTable) []catSym {
	out := make([]catSym, syms.len())
	for i := range out {
		s := syms.at(i)
		out[i] = catSym{N: s.Name, K: s.Kind, S: s.Scope, L: s.Line, E: s.EndLine}
	}
	return out
}

func fromCat(cs []catSym) symTable {
	out := make([]Symbol, len(cs))
	for i, c := range cs {
		out[i] = Symbol{Name: c.N, Kind: c.K, Scope: c.S, Line: c.L, EndLine: c.E}
	}
	return newSymTable(out)
}

// generation is one catalog generation open for appending.
type generation struct {
	dir  string
	name string
	mu   sync.Mutex
	f    *os.File
	// files is the last record of every path; hashes the symbols of every
	// content hash (and language, see symKey) recorded (nil slice for content without symbols).
	files  map[string]fileRec
	hashes map[symKeyT]symTable
	done   bool
}

// catalogDir holds a workspace's generations.
type catalogDir struct{ dir string }

// current returns the name of the generation in use ("" when none).
func (c catalogDir) current() (string, error) {
	b, err := os.ReadFile(filepath.Join(c.dir, "CURRENT"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("index: catalog: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// generations lists the generation directories, oldest first.
func (c catalogDir) generations() ([]string, error) {
	ents, err := os.ReadDir(c.dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("index: catalog: %w", err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), "gen-") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// openGen opens (creating) generation name and loads its records.
func (c catalogDir) openGen(name string) (*generation, error) {
	dir := filepath.Join(c.dir, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("index: catalog: %w", err)
	}
	g := &generation{dir: dir, name: name, files: map[string]fileRec{}, hashes: map[symKeyT]symTable{}}
	p := filepath.Join(dir, "catalog")
	if f, err := os.Open(p); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			var r record
			if json.Unmarshal(sc.Bytes(), &r) != nil {
				continue // a torn last line: that file is simply not done
			}
			g.apply(r)
		}
		f.Close()
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("index: catalog: %w", err)
	}
	g.f = f
	return g, nil
}

// apply folds a record into the generation's state.
func (g *generation) apply(r record) {
	switch {
	case r.Done:
		g.done = true
	case r.Deleted:
		delete(g.files, r.Path)
	default:
		if r.Hash != "" {
			if _, ok := g.hashes[symKey(r.Hash, r.Path)]; !ok || r.Symbols != nil {
				g.hashes[symKey(r.Hash, r.Path)] = fromCat(r.Symbols)
			}
		}
		g.files[r.Path] = fileRec{Hash: r.Hash, Skip: r.Skip, Size: r.Size, MTime: r.MTime}
	}
}

// fileRec is what a generation remembers of a path's last record.
type fileRec struct {
	Hash, Skip  string
	Size, MTime int64
}

// write appends r with one write(2), so that it is either wholly there or
// (torn by a crash) ignored when read back. Symbols are left out when the
// content hash is already recorded.
func (g *generation) write(r record, syms symTable) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r.Hash != "" {
		if _, ok := g.hashes[symKey(r.Hash, r.Path)]; !ok {
			r.Symbols = toCat(syms)
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("index: catalog: %w", err)
	}
	if _, err := g.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("index: catalog: %w", err)
	}
	if r.Hash != "" {
		if _, ok := g.hashes[symKey(r.Hash, r.Path)]; !ok {
			g.hashes[symKey(r.Hash, r.Path)] = syms
		}
	}
	if r.Deleted {
		delete(g.files, r.Path)
	} else if !r.Done {
		g.files[r.Path] = fileRec{Hash: r.Hash, Skip: r.Skip, Size: r.Size, MTime: r.MTime}
	}
	return nil
}

// lookup returns the record of path and, for an indexed file, its symbols.
func (g *generation) lookup(path string) (record, symTable, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	f, ok := g.files[path]
	if !ok {
		return record{}, symTable{}, false
	}
	r := record{Path: path, Hash: f.Hash, Size: f.Size, MTime: f.MTime, Skip: f.Skip}
	return r, g.hashes[symKey(r.Hash, r.Path)], true
}

// symKey is what symbols are recorded under: the content hash and the
// language the file's name gives it (the same bytes are Go in a .go file
// and nothing in a .txt).
func symKey(hash, rel string) symKeyT { return symKeyT{hash, language(rel)} }

// symKeyT is a content hash and a language.
type symKeyT struct{ hash, lang string }

// symbolsOf returns the symbols recorded for a content hash in the
// language of rel.
func (g *generation) symbolsOf(hash, rel string) (symTable, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s, ok := g.hashes[symKey(hash, rel)]
	return s, ok
}

// finish marks the generation complete and syncs it.
func (g *generation) finish() error {
	if err := g.write(record{Done: true}, symTable{}); err != nil {
		return err
	}
	if err := g.f.Sync(); err != nil {
		return fmt.Errorf("index: catalog: %w", err)
	}
	g.done = true
	return nil
}

func (g *generation) close() error {
	if g == nil || g.f == nil {
		return nil
	}
	return g.f.Close()
}

// size is the generation's size on disk in bytes.
func (g *generation) diskSize() int64 {
	fi, err := os.Stat(filepath.Join(g.dir, "catalog"))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// nextName is the name of the generation after the newest one in gens.
func nextName(gens []string) string {
	n := 0
	if len(gens) > 0 {
		n, _ = strconv.Atoi(strings.TrimPrefix(gens[len(gens)-1], "gen-"))
	}
	return fmt.Sprintf("gen-%06d", n+1)
}

// swap makes generation name current (atomically) and removes every other
// generation.
func (c catalogDir) swap(name string) error {
	if err := atomicfile.Write(filepath.Join(c.dir, "CURRENT"), []byte(name+"\n"), 0o600, 0o700); err != nil {
		return fmt.Errorf("index: catalog: %w", err)
	}
	gens, err := c.generations()
	if err != nil {
		return err
	}
	for _, g := range gens {
		if g != name {
			os.RemoveAll(filepath.Join(c.dir, g))
		}
	}
	return nil
}
