package index

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// A trigram is three bytes of ASCII-folded text packed into an int.
type trigram uint32

// fold lowers an ASCII letter; the trigram index is case-folded so one
// index answers case-sensitive and case-insensitive queries alike (the
// matcher checks case afterwards).
func fold(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func mkTrigram(a, b, c byte) trigram {
	return trigram(fold(a))<<16 | trigram(fold(b))<<8 | trigram(fold(c))
}

// plan is what a file must contain to possibly match: all of and, and, for
// each alternative group in any, at least one branch. A nil plan matches
// every file.
type plan struct {
	all []trigram // every one must be present
	any [][]*plan // each group: at least one branch must hold
}

// matchAll is the plan that excludes nothing.
func (p *plan) matchAll() bool { return p == nil || (len(p.all) == 0 && len(p.any) == 0) }

// literalPlan is the plan of a literal string.
func literalPlan(s string) *plan {
	if len(s) < 3 {
		return nil
	}
	p := &plan{}
	seen := map[trigram]bool{}
	for i := 0; i+3 <= len(s); i++ {
		t := mkTrigram(s[i], s[i+1], s[i+2])
		if !seen[t] {
			seen[t] = true
			p.all = append(p.all, t)
		}
	}
	return p
}

// and combines plans that must all hold.
func and(ps ...*plan) *plan {
	out := &plan{}
	for _, p := range ps {
		if p == nil {
			continue
		}
		out.all = append(out.all, p.all...)
		out.any = append(out.any, p.any...)
	}
	if out.matchAll() {
		return nil
	}
	return out
}

// or is the plan of alternatives; any alternative that matches everything
// makes the whole match everything.
func or(ps []*plan) *plan {
	for _, p := range ps {
		if p.matchAll() {
			return nil
		}
	}
	if len(ps) == 1 {
		return ps[0]
	}
	return &plan{any: [][]*plan{ps}}
}

// regexpPlan derives a plan from a regular expression: the literal text
// every match must contain. It is conservative: whatever it cannot
// reason about matches every file.
func regexpPlan(expr string, flags syntax.Flags) *plan {
	re, err := syntax.Parse(expr, flags)
	if err != nil {
		return nil
	}
	return rePlan(re.Simplify(), 0)
}

// maxPlanDepth bounds the recursion over deeply nested expressions.
const maxPlanDepth = 64

func rePlan(re *syntax.Regexp, depth int) *plan {
	if depth > maxPlanDepth {
		return nil
	}
	switch re.Op {
	case syntax.OpLiteral:
		var parts []*plan
		var run strings.Builder
		addLiteral(re, &run, func() { parts = append(parts, literalPlan(run.String())); run.Reset() })
		parts = append(parts, literalPlan(run.String()))
		return and(parts...)
	case syntax.OpCapture:
		return rePlan(re.Sub[0], depth+1)
	case syntax.OpPlus:
		return rePlan(re.Sub[0], depth+1)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return rePlan(re.Sub[0], depth+1)
		}
		return nil
	case syntax.OpConcat:
		var parts []*plan
		var run strings.Builder
		flush := func() {
			if run.Len() > 0 {
				parts = append(parts, literalPlan(run.String()))
				run.Reset()
			}
		}
		for _, sub := range re.Sub {
			switch {
			case sub.Op == syntax.OpLiteral:
				addLiteral(sub, &run, flush)
			case isEmptyWidth(sub):
				// ^, $, \b: zero width, the literal run goes on.
			default:
				flush()
				parts = append(parts, rePlan(sub, depth+1))
			}
		}
		flush()
		return and(parts...)
	case syntax.OpAlternate:
		alts := make([]*plan, len(re.Sub))
		for i, sub := range re.Sub {
			alts[i] = rePlan(sub, depth+1)
		}
		return or(alts)
	}
	return nil
}

func isEmptyWidth(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpEmptyMatch:
		return true
	}
	return false
}

// addLiteral appends a literal node's text to run, calling flush where
// the text cannot be matched byte for byte in the folded index: under
// case folding a non-ASCII rune, or k and s, which also fold to non-ASCII
// runes (the Kelvin sign, the long s), break the run.
func addLiteral(re *syntax.Regexp, run *strings.Builder, flush func()) {
	folded := re.Flags&syntax.FoldCase != 0
	for _, r := range re.Rune {
		if r == utf8.RuneError || folded && (r >= utf8.RuneSelf || r == 'k' || r == 'K' || r == 's' || r == 'S') {
			flush()
			continue
		}
		run.WriteRune(r)
	}
}
