package index

import "strings"

// symTable is a file's symbols as the index keeps them: the names, kinds
// and scopes in one string (each distinct one once, kinds first), the rest
// in 20 bytes a symbol, where a []Symbol costs 64 bytes and an allocation
// per name. A file whose symbols do not fit the packed form (a kind past
// the first 255 bytes of kinds, a name or scope over 64 KiB, a definition
// over 65,535 lines) keeps its []Symbol as is. It is immutable once made.
type symTable struct {
	text string
	s    []symEntry
	raw  []Symbol // when packing does not fit
}

// symEntry is one symbol of a symTable.
type symEntry struct {
	nameOff, scopeOff uint32
	line              uint32
	span              uint16 // EndLine - Line
	nameLen, scopeLen uint16
	kindOff, kindLen  uint8
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
		put(s.Kind)
	}
	t := symTable{s: make([]symEntry, len(syms))}
	for i, s := range syms {
		k := at[s.Kind]
		if k+len(s.Kind) > 255 || len(s.Name) >= 1<<16 || len(s.Scope) >= 1<<16 ||
			s.Line < 0 || s.Line > 1<<32-1 || s.EndLine < s.Line || s.EndLine-s.Line >= 1<<16 {
			return symTable{raw: syms}
		}
		t.s[i] = symEntry{nameOff: uint32(put(s.Name)), scopeOff: uint32(put(s.Scope)),
			line: uint32(s.Line), span: uint16(s.EndLine - s.Line),
			nameLen: uint16(len(s.Name)), scopeLen: uint16(len(s.Scope)),
			kindOff: uint8(k), kindLen: uint8(len(s.Kind))}
	}
	t.text = b.String()
	return t
}

// len is the number of symbols.
func (t symTable) len() int {
	if t.raw != nil {
		return len(t.raw)
	}
	return len(t.s)
}

// name is symbol i's name, without allocating.
func (t symTable) name(i int) string {
	if t.raw != nil {
		return t.raw[i].Name
	}
	e := &t.s[i]
	return t.text[e.nameOff : e.nameOff+uint32(e.nameLen)]
}

// at is symbol i.
func (t symTable) at(i int) Symbol {
	if t.raw != nil {
		return t.raw[i]
	}
	e := &t.s[i]
	return Symbol{
		Name:    t.text[e.nameOff : e.nameOff+uint32(e.nameLen)],
		Kind:    t.text[e.kindOff : e.kindOff+e.kindLen],
		Scope:   t.text[e.scopeOff : e.scopeOff+uint32(e.scopeLen)],
		Line:    int(e.line),
		EndLine: int(e.line) + int(e.span),
	}
}

// all is every symbol, in a new slice (nil for none).
func (t symTable) all() []Symbol {
	if t.len() == 0 {
		return nil
	}
	out := make([]Symbol, t.len())
	for i := range out {
		out[i] = t.at(i)
	}
	return out
}

// size is the memory the table holds, in bytes.
func (t symTable) size() int { return len(t.text) + 20*len(t.s) + 64*len(t.raw) }

// chunkTable is a file's chunks as the index keeps them: the scopes in one
// string (each distinct one once), the rest in 16 bytes a chunk, where a
// []Chunk costs 40 and keeps every scope's own allocation. Chunks that do
// not fit (over 65,535 lines, a scope over 64 KiB) are kept as they are.
type chunkTable struct {
	text string
	c    []chunkEntry
	raw  []Chunk
}

// chunkEntry is one chunk of a chunkTable.
type chunkEntry struct {
	line     uint32
	sym      int32
	scopeOff uint32
	span     uint16 // EndLine - Line
	scopeLen uint16
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
		if len(c.Scope) >= 1<<16 || c.Line < 0 || c.Line > 1<<32-1 || c.EndLine < c.Line || c.EndLine-c.Line >= 1<<16 ||
			c.Symbol < -1 || c.Symbol > 1<<31-1 {
			return chunkTable{raw: chunks}
		}
		off, ok := at[c.Scope]
		if !ok {
			off = b.Len()
			b.WriteString(c.Scope)
			at[c.Scope] = off
		}
		t.c[i] = chunkEntry{line: uint32(c.Line), span: uint16(c.EndLine - c.Line), sym: int32(c.Symbol),
			scopeOff: uint32(off), scopeLen: uint16(len(c.Scope))}
	}
	t.text = b.String()
	return t
}

// len is the number of chunks.
func (t chunkTable) len() int {
	if t.raw != nil {
		return len(t.raw)
	}
	return len(t.c)
}

// at is chunk i.
func (t chunkTable) at(i int) Chunk {
	if t.raw != nil {
		return t.raw[i]
	}
	e := &t.c[i]
	return Chunk{Line: int(e.line), EndLine: int(e.line) + int(e.span), Symbol: int(e.sym),
		Scope: t.text[e.scopeOff : e.scopeOff+uint32(e.scopeLen)]}
}

// size is the memory the table holds, in bytes.
func (t chunkTable) size() int { return len(t.text) + 16*len(t.c) + 40*len(t.raw) }
