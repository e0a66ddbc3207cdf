package policy

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"strings"
)

// maxBraceExpansions bounds how many patterns one pattern with {a,b}
// alternatives may expand to, so a hostile policy file cannot blow up memory.
const maxBraceExpansions = 256

// textPattern matches a short string: a tool, command or program name, an
// argument, a tag, an attribute value, a source. A pattern is a glob ("*"
// matches any run of characters, "?" one character, "[...]" a class, "{a,b}"
// alternatives, "\" escapes) or, with the prefix "re:", an unanchored RE2
// regular expression.
type textPattern struct {
	src     string
	literal string // set when the pattern has no metacharacters
	isLit   bool
	re      *regexp.Regexp
	// needs are, for a re: pattern, groups of literals: a match contains
	// one of each group, so a text that does not is refused without
	// running the regex.
	needs [][]string
}

func compileText(p string, fold bool) (textPattern, error) {
	if rest, ok := strings.CutPrefix(p, "re:"); ok {
		if fold {
			rest = "(?i)" + rest
		}
		re, err := regexp.Compile(rest)
		if err != nil {
			return textPattern{}, fmt.Errorf("bad regular expression %q: %w", p, err)
		}
		return textPattern{src: p, re: re, needs: requiredLiterals(rest)}, nil
	}
	if fold {
		p = strings.ToLower(p)
	}
	if !strings.ContainsAny(p, `*?[{\`) {
		return textPattern{src: p, literal: p, isLit: true}, nil
	}
	alts, err := expandBraces(p)
	if err != nil {
		return textPattern{}, err
	}
	var b strings.Builder
	b.WriteString(`^(?:`)
	for i, a := range alts {
		if i > 0 {
			b.WriteByte('|')
		}
		if err := globToRegexp(&b, a); err != nil {
			return textPattern{}, fmt.Errorf("bad glob %q: %w", p, err)
		}
	}
	b.WriteString(`)$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return textPattern{}, fmt.Errorf("bad glob %q: %w", p, err)
	}
	return textPattern{src: p, re: re}, nil
}

func (t *textPattern) match(s string) bool {
	if t.isLit {
		return s == t.literal
	}
	for _, group := range t.needs {
		found := false
		for _, l := range group {
			if strings.Contains(s, l) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return t.re.MatchString(s)
}

// requiredLiterals returns groups of literals a match of expr must
// contain (one of each group), read from the top-level sequence of the
// regex: its literal runs, and its groups of literal alternatives.
func requiredLiterals(expr string) [][]string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	var out [][]string
	for _, sub := range subs {
		if g := literalStarts(sub); g != nil && isWholeLiteral(sub) {
			out = append(out, g)
		}
	}
	return out
}

// isWholeLiteral reports whether every match of re is one of the literals
// literalStarts gives (a literal, or an alternation or group of them).
func isWholeLiteral(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Flags&syntax.FoldCase == 0
	case syntax.OpCapture:
		return isWholeLiteral(re.Sub[0])
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if !isWholeLiteral(s) {
				return false
			}
		}
		return true
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !isWholeLiteral(s) {
				return false
			}
		}
		return len(re.Sub) > 0
	}
	return false
}

// globToRegexp appends the regexp for one brace-free glob where "*" crosses
// every character.
func globToRegexp(b *strings.Builder, g string) error {
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '\\':
			if i+1 >= len(g) {
				return errors.New("trailing backslash")
			}
			i++
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		case '[':
			j := i + 1
			if j < len(g) && (g[j] == '!' || g[j] == '^') {
				j++
			}
			if j < len(g) && g[j] == ']' {
				j++
			}
			for j < len(g) && g[j] != ']' {
				j++
			}
			if j >= len(g) {
				return errors.New("unterminated [")
			}
			class := g[i+1 : j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteByte('[')
			b.WriteString(strings.ReplaceAll(class, `\`, `\\`))
			b.WriteByte(']')
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		}
	}
	return nil
}

// expandBraces expands "{a,b}" alternatives (nested allowed, "\" escapes).
func expandBraces(p string) ([]string, error) {
	out := []string{}
	var walk func(string) error
	walk = func(s string) error {
		open := -1
		for i := 0; i < len(s); i++ {
			if s[i] == '\\' {
				i++
				continue
			}
			if s[i] == '{' {
				open = i
				break
			}
		}
		if open < 0 {
			if len(out) >= maxBraceExpansions {
				return fmt.Errorf("pattern %q expands to more than %d alternatives", p, maxBraceExpansions)
			}
			out = append(out, s)
			return nil
		}
		depth, start := 0, open+1
		var parts []string
		for i := open; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '{':
				depth++
			case '}':
				depth--
				if depth == 0 {
					parts = append(parts, s[start:i])
					prefix, suffix := s[:open], s[i+1:]
					if len(parts) == 1 {
						// "{x}" with no comma is literal text.
						return walk(prefix + `\{` + parts[0] + `\}` + suffix)
					}
					for _, alt := range parts {
						if err := walk(prefix + alt + suffix); err != nil {
							return err
						}
					}
					return nil
				}
			case ',':
				if depth == 1 {
					parts = append(parts, s[start:i])
					start = i + 1
				}
			}
		}
		return fmt.Errorf("pattern %q: unbalanced {", p)
	}
	if err := walk(p); err != nil {
		return nil, err
	}
	return out, nil
}

// pathPattern matches an absolute, cleaned path. Its segments are globs
// where "*" stays inside one segment and a "**" segment spans any number of
// segments (a trailing "/**" needs at least one). Patterns rooted at
// $WORKSPACE match paths relative to the call's workspace.
type pathPattern struct {
	src       string
	segs      []pathSeg // after the leading "/" (or after $WORKSPACE)
	workspace bool      // rooted at the call's workspace
	re        *regexp.Regexp
}

type pathSeg struct {
	s       string
	literal bool
	any     bool // "**"
}

// pathVars are the values a path pattern's leading variable expands to.
type pathVars struct {
	home        string
	temp        []string
	protected   []string
	binaries    []string // $WARDEN_BINARIES
	policyFiles []string // $POLICY_FILES
}

// compilePath compiles one path pattern; variables may expand it into
// several (one per temp or protected dir), or none when the variable has no
// value.
func compilePath(p string, v pathVars) ([]pathPattern, error) {
	if rest, ok := strings.CutPrefix(p, "re:"); ok {
		re, err := regexp.Compile(rest)
		if err != nil {
			return nil, fmt.Errorf("bad regular expression %q: %w", p, err)
		}
		return []pathPattern{{src: p, re: re}}, nil
	}
	if p == "" {
		return nil, errors.New("empty path pattern")
	}
	var bases []string
	ws := false
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if v.home == "" {
			return nil, nil
		}
		bases, p = []string{v.home}, p[1:]
	case p == "$HOME" || strings.HasPrefix(p, "$HOME/"):
		if v.home == "" {
			return nil, nil
		}
		bases, p = []string{v.home}, p[len("$HOME"):]
	case p == "$TEMP" || strings.HasPrefix(p, "$TEMP/"):
		bases, p = v.temp, p[len("$TEMP"):]
	case p == "$PROTECTED" || strings.HasPrefix(p, "$PROTECTED/"):
		bases, p = v.protected, p[len("$PROTECTED"):]
	case p == "$WARDEN_BINARIES":
		bases, p = v.binaries, ""
	case p == "$POLICY_FILES":
		bases, p = v.policyFiles, ""
	case p == "$WORKSPACE" || strings.HasPrefix(p, "$WORKSPACE/"):
		ws, bases, p = true, []string{""}, p[len("$WORKSPACE"):]
	case strings.HasPrefix(p, "$"):
		return nil, fmt.Errorf("path pattern %q: unknown variable (use ~, $HOME, $TEMP, $PROTECTED, $WORKSPACE, $WARDEN_BINARIES or $POLICY_FILES)", p)
	case strings.HasPrefix(p, "/"):
		bases = []string{""}
	default:
		// A relative pattern matches at any depth.
		bases, p = []string{""}, "/**/"+p
	}
	var out []pathPattern
	for _, base := range bases {
		full := escapeGlob(strings.TrimSuffix(base, "/")) + p
		alts, err := expandBraces(full)
		if err != nil {
			return nil, err
		}
		for _, a := range alts {
			pp := pathPattern{src: a, workspace: ws}
			trimmed := strings.Trim(a, "/")
			if trimmed != "" {
				for _, s := range strings.Split(trimmed, "/") {
					if s == "" || s == "." {
						continue
					}
					if s == ".." {
						return nil, fmt.Errorf("path pattern %q: '..' is not allowed", p)
					}
					if s == "**" {
						pp.segs = append(pp.segs, pathSeg{s: s, any: true})
						continue
					}
					if _, err := path.Match(s, ""); err != nil {
						return nil, fmt.Errorf("bad path pattern %q: %w", a, err)
					}
					lit := !strings.ContainsAny(s, `*?[\`)
					pp.segs = append(pp.segs, pathSeg{s: s, literal: lit})
				}
			}
			out = append(out, pp)
		}
	}
	return out, nil
}

// escapeGlob escapes glob metacharacters in a literal path.
func escapeGlob(s string) string {
	if !strings.ContainsAny(s, `*?[]{}\,`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`*?[]{}\,`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// match reports whether the absolute path p matches; ws is the call's
// workspace in the same space (lexical or resolved) as p.
func (pp *pathPattern) match(p, ws string) bool {
	if pp.re != nil {
		return pp.re.MatchString(p)
	}
	rel := p
	if pp.workspace {
		if ws == "" {
			return false
		}
		if p == ws {
			rel = "/"
		} else if r, ok := strings.CutPrefix(p, ws); ok && strings.HasPrefix(r, "/") {
			rel = r
		} else {
			return false
		}
	}
	return matchSegs(pp.segs, strings.TrimPrefix(rel, "/"))
}

// matchSegs matches pattern segments against the rest of a path (no leading
// slash; "" means no segments left).
func matchSegs(pat []pathSeg, name string) bool {
	for len(pat) > 0 {
		p := pat[0]
		if p.any {
			if len(pat) == 1 {
				return name != ""
			}
			for {
				if matchSegs(pat[1:], name) {
					return true
				}
				i := strings.IndexByte(name, '/')
				if i < 0 {
					return false
				}
				name = name[i+1:]
			}
		}
		if name == "" {
			return false
		}
		seg, rest := name, ""
		if i := strings.IndexByte(name, '/'); i >= 0 {
			seg, rest = name[:i], name[i+1:]
		}
		if p.literal {
			if seg != p.s {
				return false
			}
		} else if ok, _ := path.Match(p.s, seg); !ok {
			return false
		}
		pat, name = pat[1:], rest
	}
	return name == ""
}

// maxGlobMatches bounds the paths a glob is expanded to when a rule asks
// what it reaches.
const maxGlobMatches = 256

// reaches reports whether ef can reach a path pp names without its target
// being one (Match.Reach): a recursive effect, not on names only, on a
// directory under home that holds such a path, or a glob there that can
// name one. Only patterns rooted at a directory count.
func (pp *pathPattern) reaches(ef *effInfo) bool {
	if pp.re != nil || pp.workspace || len(pp.segs) == 0 || !pp.segs[0].literal || ef.Meta || ef.class != ClassHome {
		// the user's own stores: a copy of /etc holds /etc/shadow, which
		// the user cannot read anyway
		return false
	}
	if ef.Glob != "" {
		if matches, ok := ef.expanded(); ok {
			for _, m := range matches {
				if pp.match(m, "") || ef.Recursive && pp.holdsBelow(m) {
					return true
				}
			}
			return false
		}
		return pp.globMeets(splitPath(ef.Glob), ef.Recursive)
	}
	if !ef.Recursive {
		return false
	}
	return pp.holdsBelow(ef.Target) || ef.resolved != ef.Target && pp.holdsBelow(ef.resolved)
}

// holdsBelow reports whether pp names a path strictly below dir.
func (pp *pathPattern) holdsBelow(dir string) bool {
	ds := splitPath(dir)
	for i, d := range ds {
		if i >= len(pp.segs) {
			return false
		}
		p := pp.segs[i]
		switch {
		case p.any:
			return true
		case p.literal && p.s != d:
			return false
		case !p.literal:
			if ok, _ := path.Match(p.s, d); !ok {
				return false
			}
		}
	}
	return len(pp.segs) > len(ds)
}

// globMeets reports whether the shell glob gs (split in segments) and pp
// can name a common path, or (recursive) gs a directory above one pp
// names: segment by segment, a literal on one side must match the other
// side's pattern, two patterns are taken to meet.
func (pp *pathPattern) globMeets(gs []string, recursive bool) bool {
	var meet func(ps []pathSeg, gs []string) bool
	meet = func(ps []pathSeg, gs []string) bool {
		if len(ps) == 0 {
			return len(gs) == 0
		}
		if ps[0].any {
			if len(ps) == 1 {
				return len(gs) > 0 || recursive // a trailing ** names what is below
			}
			return meet(ps[1:], gs) || len(gs) > 0 && meet(ps, gs[1:])
		}
		if len(gs) == 0 {
			return recursive
		}
		g, p := gs[0], ps[0]
		if g == "**" {
			return meet(ps, gs[1:]) || meet(ps[1:], gs)
		}
		wild := strings.ContainsAny(g, "*?[")
		switch {
		case p.literal && !globSegment(g, p.s):
			return false
		case !p.literal && !wild:
			if ok, _ := path.Match(p.s, g); !ok {
				return false
			}
		}
		return meet(ps[1:], gs[1:])
	}
	return meet(pp.segs, gs)
}

// expandGlob expands an absolute shell glob against the file system, as
// the shell would when the command runs. It reports false when the
// directory before the first wildcard does not exist (there is nothing to
// expand against: the pattern itself is judged) or the glob is too wide
// to expand here.
func expandGlob(glob string) ([]string, bool) {
	if strings.Contains(glob, "**") || strings.Count(glob, "/") > 32 {
		return nil, false
	}
	base := glob
	if i := strings.IndexAny(glob, "*?["); i >= 0 {
		base = glob[:strings.LastIndexByte(glob[:i], '/')+1]
	}
	if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
		return nil, false
	}
	matches, err := filepath.Glob(glob)
	if err != nil || len(matches) > maxGlobMatches {
		return nil, false
	}
	return matches, true
}

// splitPath splits an absolute path into its segments.
func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// globNames reports whether a shell glob that names files (not trees:
// rm .claude/settings*.json, the files find -name selects) can name a path
// pp names, whether or not such files exist yet. The glob and the pattern
// must meet segment by segment (globMeets), and more narrowly: the glob's
// last segment must be able to be the pattern's last one (*.pyc is never
// settings.json), and each named directory of the pattern must be in the
// glob itself, not left to a ** (find . -name '*.pyc' does not reach into
// .husky by name), unless the glob's last segment is the pattern's very
// name (find . -name settings.local.json).
func (pp *pathPattern) globNames(gs []string) bool {
	if pp.re != nil || pp.workspace || len(pp.segs) == 0 || len(gs) == 0 {
		return false
	}
	last, g := pp.segs[len(pp.segs)-1], gs[len(gs)-1]
	if g == "**" || g == "*" {
		return false // no name given: any file (xargs, $(git ls-files)), judged as before
	}
	if !last.any && (last.literal && !globSegment(g, last.s) || !last.literal && !segsMeet(g, last.s)) {
		return false
	}
	exact := last.literal && g == last.s // find -name settings.local.json: the very name
	for _, p := range pp.segs[:len(pp.segs)-1] {
		if p.any || exact {
			continue
		}
		found := false
		for _, x := range gs[:len(gs)-1] {
			if x != "**" && (p.literal && globSegment(x, p.s) || !p.literal && segsMeet(x, p.s)) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return pp.globMeets(gs, false)
}

// segsMeet reports whether the glob segment a (of a command) and the
// pattern segment b (of a rule) can name one name: one matches the other's
// text, or their fixed prefixes and suffixes agree. A bare * on the
// command's side names nothing in particular and meets no wild pattern.
func segsMeet(a, b string) bool {
	if ok, _ := path.Match(a, b); ok {
		return true
	}
	if ok, _ := path.Match(b, a); ok {
		return true
	}
	if a == "*" {
		return false // no name given: the glob stands for any file (xargs, $(git ls-files))
	}
	if b == "*" {
		return true
	}
	// both wild: each fixed end must be given on both sides and agree
	// (*.json and settings*.json meet; *.go and id_rsa* do not say)
	pa, sa := fixedEnds(a)
	pb, sb := fixedEnds(b)
	pre := pa == "" && pb == "" || pa != "" && pb != "" && (strings.HasPrefix(pa, pb) || strings.HasPrefix(pb, pa)) || pa == "" && sa != "" && sb != ""
	suf := sa != "" && sb != "" && (strings.HasSuffix(sa, sb) || strings.HasSuffix(sb, sa))
	return pre && suf
}

// fixedEnds returns the text of a glob segment before its first and after
// its last wildcard.
func fixedEnds(s string) (prefix, suffix string) {
	i := strings.IndexAny(s, "*?[")
	if i < 0 {
		return s, s
	}
	j := strings.LastIndexAny(s, "*?]")
	return s[:i], s[j+1:]
}
