package index

import "strings"

// symTable is a file's symbols as the index keeps them: the names, kinds
// and scopes in one string (each distinct one once, kinds first), the rest
// in 24 bytes a symbol, where a []Symbol costs 64 bytes and an allocation
// per name. It is immutable once made.
type symTable struct {
	text string
	s    []symEntry
}

// symEntry is one symbol of a symTable. Names and scopes are cut to 64 KiB
// and kinds to 255 bytes (no real definition comes near).
type symEntry struct {
	nameOff, scopeOff uint32
	line, end         uint32
	nameLen, scopeLen uint16
	kindOff           uint16
	kindLen           uint8
}

// newSymTable packs syms.
func newSymTable(syms []Symbol) symTable {
	if len(syms) == 0 {
		return symTable{}
	}
	var b strings.Builder
	at := map[string]int{}
	put := func(s string) int {
		if i, ok := at[s]; ok {
			return i
		}
		i := b.Len()
		b.WriteString(s)
		at[s] = i
		return i
	}
	for _, s := range syms {
		put(s.Kind[:min(len(s.Kind), 255)])
	}
	t := symTable{s: make([]symEntry, len(syms))}
	for i, s := range syms {
		name, scope, kind := s.Name[:min(len(s.Name), 1<<16-1)], s.Scope[:min(len(s.Scope), 1<<16-1)], s.Kind[:min(len(s.Kind), 255)]
		e := symEntry{line: clampLine(s.Line), end: clampLine(s.EndLine),
			nameLen: uint16(len(name)), scopeLen: uint16(len(scope)), kindLen: uint8(len(kind))}
		e.nameOff = uint32(put(name))
		e.scopeOff = uint32(put(scope))
		k := at[kind]
		if k >= 1<<16 { // kinds come first: only a table of 64 KiB of kinds gets here
			k = 0
			e.kindLen = 0
		}
		e.kindOff = uint16(k)
		t.s[i] = e
	}
	t.text = b.String()
	return t
}

func clampLine(n int) uint32 {
	return uint32(max(0, min(n, 1<<32-1)))
}

// len is the number of symbols.
func (t symTable) len() int { return len(t.s) }

// name is symbol i's name, without allocating.
func (t symTable) name(i int) string {
	e := &t.s[i]
	return t.text[e.nameOff : e.nameOff+uint32(e.nameLen)]
}

// at is symbol i.
func (t symTable) at(i int) Symbol {
	e := &t.s[i]
	return Symbol{
		Name:    t.text[e.nameOff : e.nameOff+uint32(e.nameLen)],
		Kind:    t.text[e.kindOff : e.kindOff+uint16(e.kindLen)],
		Scope:   t.text[e.scopeOff : e.scopeOff+uint32(e.scopeLen)],
		Line:    int(e.line),
		EndLine: int(e.end),
	}
}

// all is every symbol, in a new slice (nil for none).
func (t symTable) all() []Symbol {
	if len(t.s) == 0 {
		return nil
	}
	out := make([]Symbol, len(t.s))
	for i := range t.s {
		out[i] = t.at(i)
	}
	return out
}

// size is the memory the table holds, in bytes.
func (t symTable) size() int { return len(t.text) + 24*len(t.s) }

// chunkTable is a file's chunks as the index keeps them: the scopes in one
// string (each distinct one once), the rest in 20 bytes a chunk, where a
// []Chunk costs 40 and keeps every scope's own allocation.
type chunkTable struct {
	text string
	c    []chunkEntry
}

// chunkEntry is one chunk of a chunkTable; scopes are cut to 64 KiB.
type chunkEntry struct {
	line, end uint32
	sym       int32
	scopeOff  uint32
	scopeLen  uint16
}

// newChunkTable packs chunks.
func newChunkTable(chunks []Chunk) chunkTable {
	if len(chunks) == 0 {
		return chunkTable{}
	}
	var b strings.Builder
	at := map[string]int{}
	t := chunkTable{c: make([]chunkEntry, len(chunks))}
	for i, c := range chunks {
		scope := c.Scope[:min(len(c.Scope), 1<<16-1)]
		off, ok := at[scope]
		if !ok {
			off = b.Len()
			b.WriteString(scope)
			at[scope] = off
		}
		t.c[i] = chunkEntry{line: clampLine(c.Line), end: clampLine(c.EndLine), sym: int32(max(-1, min(c.Symbol, 1<<31-1))),
			scopeOff: uint32(off), scopeLen: uint16(len(scope))}
	}
	t.text = b.String()
	return t
}

// len is the number of chunks.
func (t chunkTable) len() int { return len(t.c) }

// at is chunk i.
func (t chunkTable) at(i int) Chunk {
	e := &t.c[i]
	return Chunk{Line: int(e.line), EndLine: int(e.end), Symbol: int(e.sym), Scope: t.text[e.scopeOff : e.scopeOff+uint32(e.scopeLen)]}
}

// size is the memory the table holds, in bytes.
func (t chunkTable) size() int { return len(t.text) + 20*len(t.c) }
