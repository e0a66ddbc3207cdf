package search

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	ignore "github.com/sabhiram/go-gitignore"
)

// ignoreRule is one line of an ignore file, compiled on its own so that
// rules from several files can be evaluated in git's order (the last match
// wins). The library cannot tell "negated" from "not matched", so the "!"
// is stripped and remembered here.
type ignoreRule struct {
	base   string // directory of the ignore file, slash form, "" for root
	gi     *ignore.GitIgnore
	negate bool
}

// parseIgnore compiles the rules of one ignore file found in base.
func parseIgnore(base string, content []byte) []ignoreRule {
	var rules []ignoreRule
	for line := range strings.SplitSeq(string(content), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		neg := false
		if strings.HasPrefix(line, "!") {
			neg, line = true, line[1:]
		} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		gi := ignore.CompileIgnoreLines(line)
		rules = append(rules, ignoreRule{base: base, gi: gi, negate: neg})
	}
	return rules
}

// ignored reports whether the slash path p (a directory when dir) is
// ignored by rules.
func ignored(rules []ignoreRule, p string, dir bool) bool {
	res := false
	for _, r := range rules {
		sub := p
		if r.base != "" {
			if !strings.HasPrefix(p, r.base+"/") {
				continue
			}
			sub = p[len(r.base)+1:]
		}
		if dir {
			sub += "/"
		}
		if r.gi.MatchesPath(sub) {
			res = !r.negate
		}
	}
	return res
}

// globs is a compiled Include or Exclude option.
type globs []string

// compileGlobs parses a comma-separated VS Code style glob list.
func compileGlobs(s string) (globs, error) {
	var out globs
	for _, p := range splitTopLevel(s) {
		p = strings.TrimSpace(strings.ReplaceAll(p, `\`, "/"))
		if p == "" {
			continue
		}
		var base string
		switch {
		case strings.HasPrefix(p, "./"):
			base = strings.TrimLeft(p[2:], "/")
		case strings.HasPrefix(p, "/"):
			base = strings.TrimLeft(p, "/")
		case strings.HasPrefix(p, "**/") || p == "**":
			base = p
		default:
			base = "**/" + p
		}
		base = strings.TrimSuffix(base, "/")
		if base == "" {
			base = "**"
		}
		for _, g := range []string{base, base + "/**"} {
			if !doublestar.ValidatePattern(g) {
				return nil, fmt.Errorf("search: %q: %w", p, ErrBadGlob)
			}
			out = append(out, g)
		}
	}
	return out, nil
}

// splitTopLevel splits s on commas outside braces.
func splitTopLevel(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

func (g globs) match(p string) bool {
	for _, pat := range g {
		if ok, _ := doublestar.Match(pat, p); ok {
			return true
		}
	}
	return false
}

// listFiles opens root and returns it with the sorted slash paths of the
// candidate files: regular files not ignored, not excluded, and included.
func listFiles(ctx context.Context, root string, opts Options) (*os.Root, []string, error) {
	inc, err := compileGlobs(opts.Include)
	if err != nil {
		return nil, nil, err
	}
	exc, err := compileGlobs(opts.Exclude)
	if err != nil {
		return nil, nil, err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, nil, fmt.Errorf("search: %w", err)
	}
	var rules []ignoreRule
	if b, err := r.ReadFile(".git/info/exclude"); err == nil {
		rules = parseIgnore("", b)
	}
	var files []string
	// Each directory is opened as a Root of its own, relative to its
	// parent's, so an entry costs one openat instead of one per component.
	var walk func(d *os.Root, dir string, rules []ignoreRule) error
	walk = func(d *os.Root, dir string, rules []ignoreRule) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		df, err := d.Open(".")
		if err != nil {
			return nil // vanished or unreadable: skip, like rg
		}
		ents, err := df.ReadDir(-1)
		df.Close()
		if err != nil && len(ents) == 0 {
			return nil
		}
		prefix := ""
		if dir != "." {
			prefix = dir + "/"
		}
		for _, e := range ents {
			if e.Name() == ".gitignore" && e.Type().IsRegular() {
				if b, err := d.ReadFile(".gitignore"); err == nil {
					rules = append(rules[:len(rules):len(rules)], parseIgnore(strings.TrimSuffix(prefix, "/"), b)...)
				}
			}
		}
		for _, e := range ents {
			name := e.Name()
			if name == ".git" {
				continue
			}
			p := prefix + name
			switch t := e.Type(); {
			case t.IsDir():
				if ignored(rules, p, true) || exc.match(p) {
					continue
				}
				sub, err := d.OpenRoot(name)
				if err != nil {
					continue
				}
				err = walk(sub, p, rules)
				sub.Close()
				if err != nil {
					return err
				}
			case t.IsRegular():
				if ignored(rules, p, false) || exc.match(p) {
					continue
				}
				if len(inc) > 0 && !inc.match(p) {
					continue
				}
				files = append(files, p)
			}
		}
		return nil
	}
	if err := walk(r, ".", rules); err != nil {
		r.Close()
		return nil, nil, fmt.Errorf("search: %w", err)
	}
	sortStrings(files)
	return r, files, nil
}
