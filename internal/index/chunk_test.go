package index

import "testing"

func TestChunkFile(t *testing.T) {
	syms := []Symbol{
		{Name: "Small", Kind: "function", Line: 3, EndLine: 10},
		{Name: "Point", Kind: "struct", Line: 12, EndLine: 15},
		{Name: "X", Kind: "field", Scope: "Point", Line: 13, EndLine: 13},
		{Name: "Big", Kind: "function", Line: 20, EndLine: 150},
		{Name: "Shape", Kind: "class", Line: 160, EndLine: 180},
		{Name: "area", Kind: "method", Scope: "Shape", Line: 162, EndLine: 170},
		{Name: "draw", Kind: "method", Scope: "Shape", Line: 172, EndLine: 179},
		{Name: "Draw", Kind: "method", Scope: "Canvas", Line: 185, EndLine: 190},
	}
	chunks := chunkFile(syms, 200)
	// Every line is in exactly one chunk, none is over MaxChunkLines.
	line := 1
	for _, c := range chunks {
		if c.Line != line || c.EndLine < c.Line || c.EndLine-c.Line+1 > MaxChunkLines {
			t.Fatalf("bad chunk %+v after line %d in %+v", c, line-1, chunks)
		}
		line = c.EndLine + 1
	}
	if line != 201 {
		t.Fatalf("chunks end at %d", line-1)
	}
	has := func(from, to int, scope string) {
		t.Helper()
		for _, c := range chunks {
			if c.Line == from && c.EndLine == to && c.Scope == scope {
				return
			}
		}
		t.Errorf("no chunk %d-%d %q in %+v", from, to, scope, chunks)
	}
	has(3, 10, "Small")
	has(12, 15, "Point")        // a struct with fields only stays whole
	has(20, 79, "Big")          // a long function is cut in windows
	has(140, 150, "Big")        //
	has(162, 170, "Shape.area") // a class is cut at its methods
	has(172, 179, "Shape.draw")
	has(185, 190, "Canvas.Draw") // a Go method's scope is its receiver
	if c := chunkFile(nil, 130); len(c) != 3 || c[2].Line != 121 || c[2].Symbol != -1 {
		t.Errorf("no symbols: %+v", c)
	}
	if c := chunkFile(syms, 0); c != nil {
		t.Errorf("empty file: %+v", c)
	}
}
