package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/warden-dev/warden/internal/search"
)

// MaxIndexSize is the size above which a file is left out of the ranked
// and symbol views. Exact search still answers for it, as Find does, by
// reading it when a query needs it (up to search.MaxFileSize).
const MaxIndexSize = 1 << 20

// secretFile reports whether a file's base name is one that holds secrets
// (.env files, private keys, keystores), whatever the caller's exclusion
// says: the index never holds them, so it cannot become a way around the
// gate. It mirrors the default policy's secret-read rule.
func secretFile(rel string) bool {
	base := path.Base(rel)
	lower := strings.ToLower(base)
	switch {
	case lower == ".env":
		return true
	case strings.HasPrefix(lower, ".env."):
		for _, ok := range []string{".example", ".sample", ".template", ".dist"} {
			if strings.HasSuffix(lower, ok) {
				return false
			}
		}
		return true
	case strings.HasSuffix(lower, ".pub"):
		return false
	}
	for _, p := range []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"} {
		if strings.HasPrefix(lower, p) {
			return true
		}
	}
	for _, ext := range []string{".pem", ".key", ".p12", ".pfx", ".jks", ".keystore"} {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	if strings.HasPrefix(lower, "ssh_host_") && strings.HasSuffix(lower, "_key") {
		return true
	}
	switch lower {
	case ".netrc", ".npmrc", ".pypirc", ".pgpass", ".git-credentials", ".vault-token":
		return true
	}
	return false
}

// minified reports whether content looks machine-written on few lines
// (minified JavaScript or CSS, a bundled map): long lines on average and
// at least one very long line.
func minified(content []byte) bool {
	if len(content) < 1024 {
		return false
	}
	lines := bytes.Count(content, []byte{'\n'}) + 1
	if len(content)/lines < 200 {
		return false
	}
	longest, start := 0, 0
	for i, c := range content {
		if c == '\n' {
			longest = max(longest, i-start)
			start = i + 1
		}
	}
	longest = max(longest, len(content)-start)
	return longest > 1000
}

// hashOf is the catalog's content hash.
func hashOf(content []byte) string {
	sum := sha256.Sum256(content)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// readFile reads a regular file of the workspace (never through a
// symlink: os.Root refuses to leave the root, and the file must be a
// regular file), up to search.MaxFileSize bytes. ok is false when the file
// is absent, not regular or larger.
func readFile(r *os.Root, rel string) (content []byte, fi os.FileInfo, ok bool) {
	return readFileWith(r, rel, func(n int) []byte { return make([]byte, n) })
}

// readFileWith is readFile with the buffer (of the size Lstat gives) from
// alloc.
func readFileWith(r *os.Root, rel string, alloc func(int) []byte) (content []byte, fi os.FileInfo, ok bool) {
	fi, err := r.Lstat(rel)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > search.MaxFileSize {
		return nil, fi, false
	}
	f, err := r.Open(rel)
	if err != nil {
		return nil, fi, false
	}
	defer f.Close()
	// A buffer of the size Lstat gave, so the content kept in memory
	// has no spare capacity; a file that grew meanwhile reads on.
	b := alloc(int(fi.Size()))
	n, err := io.ReadFull(f, b)
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		b = b[:n:n]
	case err != nil:
		return nil, fi, false
	default:
		var one [1]byte
		if m, _ := f.Read(one[:]); m > 0 {
			rest, err := io.ReadAll(io.LimitReader(f, search.MaxFileSize))
			if err != nil {
				return nil, fi, false
			}
			b = append(append(b, one[0]), rest...)
		}
	}
	if len(b) > search.MaxFileSize {
		return nil, fi, false
	}
	return b, fi, true
}

// ctagsLanguage reports whether universal-ctags should be asked for the
// symbols of a file: source code and documentation in the languages it
// parses well; data files (JSON, YAML, golden files) and Go (go/parser)
// are not sent.
func ctagsLanguage(rel string) bool {
	ext := strings.ToLower(path.Ext(rel))
	switch ext {
	case ".py", ".pyi", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts",
		".java", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".rs", ".rb",
		".php", ".cs", ".kt", ".kts", ".swift", ".scala", ".sh", ".bash", ".zsh", ".lua",
		".pl", ".pm", ".m", ".mm", ".ex", ".exs", ".erl", ".hrl", ".hs", ".ml", ".mli",
		".r", ".dart", ".groovy", ".clj", ".el", ".vim", ".tcl", ".md", ".markdown",
		".rst", ".proto", ".sql", ".zig", ".nim", ".jl", ".f90", ".v", ".sv", ".vhd":
		return true
	}
	return false
}

// language names a file's language for queries' lang: filter (the
// extension without its dot, with the commonest aliases folded).
func language(rel string) string {
	ext := strings.TrimPrefix(strings.ToLower(path.Ext(rel)), ".")
	switch ext {
	case "py", "pyi":
		return "python"
	case "ts", "tsx", "mts", "cts":
		return "typescript"
	case "js", "jsx", "mjs", "cjs":
		return "javascript"
	case "rs":
		return "rust"
	case "rb":
		return "ruby"
	case "md", "markdown":
		return "markdown"
	case "h", "c":
		return "c"
	case "cc", "cpp", "cxx", "hpp", "hh", "hxx":
		return "cpp"
	case "sh", "bash", "zsh":
		return "shell"
	case "kt", "kts":
		return "kotlin"
	case "yml":
		return "yaml"
	}
	return ext
}

// slabSize is the size of the slabs a build reads files into; a file over
// an eighth of it gets its own buffer.
const slabSize = 1 << 20

// slab hands out pieces of large buffers, one after the other; the
// workers of a build share one, so only its last slab has room left
// unused. The docs of a build keep their slabs alive: a file changed
// later leaves its old text in its slab until the next build, at most the
// corpus once.
type slab struct {
	mu  sync.Mutex
	buf []byte
}

// alloc returns n bytes (with no spare capacity).
func (s *slab) alloc(n int) []byte {
	if n > slabSize/8 {
		return make([]byte, n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.buf)+n > cap(s.buf) {
		s.buf = make([]byte, 0, slabSize)
	}
	at := len(s.buf)
	s.buf = s.buf[:at+n]
	return s.buf[at : at+n : at+n]
}

// giveBack returns b when it is still the last piece alloc handed out (a
// binary file, a duplicate), for the next file to use.
func (s *slab) giveBack(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(b)
	if n > 0 && n <= len(s.buf) && &s.buf[len(s.buf)-n] == &b[0] {
		s.buf = s.buf[:len(s.buf)-n]
	}
}
