package index

import "sort"

// MaxChunkLines is the most lines a chunk holds: a definition longer than
// this is cut at its members, and what has no member is cut in windows.
const MaxChunkLines = 60

// Chunk is a span of lines of one file ranked as a unit: a definition
// (function, method, class, ...) when one fits, otherwise part of one.
type Chunk struct {
	// Line and EndLine are the 1-based first and last lines.
	Line    int
	EndLine int
	// Symbol indexes the file's symbol whose definition the chunk is (or
	// is part of), -1 for none.
	Symbol int
	// Scope is the chain of enclosing definitions ("Server.ServeHTTP"),
	// empty at top level.
	Scope string
}

// chunkFile cuts a file of n lines into chunks along its symbols: each
// definition that fits MaxChunkLines is one chunk, unless it holds
// functions or methods (a class); a longer one, or a class, is cut into
// its member definitions and the gaps between them; gaps and
// memberless remainders are cut into windows of MaxChunkLines lines.
// Chunks never overlap and cover every line.
func chunkFile(syms []Symbol, n int) []Chunk {
	if n <= 0 {
		return nil
	}
	// Keep definitions with a real extent, outermost first.
	idx := make([]int, 0, len(syms))
	for i, s := range syms {
		if s.Line >= 1 && s.EndLine >= s.Line && s.Line <= n && blockKind(s.Kind) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		sa, sb := syms[idx[a]], syms[idx[b]]
		if sa.Line != sb.Line {
			return sa.Line < sb.Line
		}
		return sa.EndLine > sb.EndLine
	})
	var out []Chunk
	var cut func(from, to, sym int, scope string, members []int)
	window := func(from, to, sym int, scope string) {
		for l := from; l <= to; l += MaxChunkLines {
			out = append(out, Chunk{Line: l, EndLine: min(to, l+MaxChunkLines-1), Symbol: sym, Scope: scope})
		}
	}
	cut = func(from, to, sym int, scope string, members []int) {
		// members are candidate definitions within [from, to], sorted.
		line := from
		for k := 0; k < len(members); {
			s := syms[members[k]]
			if s.Line < line { // overlaps what is already placed
				k++
				continue
			}
			end := min(s.EndLine, to)
			// Its own members: the following candidates inside it.
			j := k + 1
			for j < len(members) && syms[members[j]].Line <= end {
				j++
			}
			if s.Line > line {
				window(line, s.Line-1, sym, scope)
			}
			inner := scope
			switch {
			case inner != "":
				inner += "."
			case s.Scope != "": // a Go method: its receiver type
				inner = s.Scope + "."
			}
			inner += s.Name
			if end-s.Line+1 <= MaxChunkLines && !hasCallableMember(syms, members[k+1:j]) {
				out = append(out, Chunk{Line: s.Line, EndLine: end, Symbol: members[k], Scope: inner})
			} else {
				cut(s.Line, end, members[k], inner, members[k+1:j])
			}
			line = end + 1
			k = j
		}
		if line <= to {
			window(line, to, sym, scope)
		}
	}
	cut(1, n, -1, "", idx)
	return out
}

// hasCallableMember reports whether any of members is a function or
// method: a class is ranked by its methods, each a chunk of its own,
// while a struct with fields only stays whole.
func hasCallableMember(syms []Symbol, members []int) bool {
	for _, m := range members {
		if callableKind(syms[m].Kind) {
			return true
		}
	}
	return false
}

// callableKind reports the kinds of functions and methods.
func callableKind(k string) bool {
	switch k {
	case "function", "method", "constructor", "func", "procedure", "subroutine":
		return true
	}
	return false
}

// blockKind reports the kinds of definitions that bound chunks:
// callables, types and classes, modules, and document sections; fields,
// variables, constants and prototypes stay in the chunk around them.
func blockKind(k string) bool {
	if callableKind(k) {
		return true
	}
	switch k {
	case "class", "struct", "interface", "type", "enum", "trait", "impl", "module", "namespace",
		"union", "object", "chapter", "section", "subsection", "subsubsection":
		return true
	}
	return false
}
