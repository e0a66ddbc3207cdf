package index

import (
	"context"
	"testing"
)

// TestFusionAndBoosts: the symbol ranking lifts an exact definition over
// chunks that only mention its words; the workspace's signals break ties
// between equal chunks.
func TestFusionAndBoosts(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	same := "package p\n\n// retry the request with backoff\nfunc work() {}\n"
	writeTree(t, root, map[string]string{
		"a/same.go":  same,
		"b/same.go":  same,
		"c/same.go":  same,
		"mention.go": "package p\n\n// computeBackoff is called for backoff backoff backoff computation\nfunc other() { computeBackoff() }\n",
		"def.go":     "package p\n\nfunc computeBackoff() int { return 1 }\n",
	})
	open := map[string]bool{}
	changed := map[string]bool{}
	x, err := Open(context.Background(), Options{Root: root, Dir: dir, Boosts: Boosts{
		Open:    func(rel string) bool { return open[rel] },
		Changed: func(rel string) bool { return changed[rel] },
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	build(t, x)
	hs, err := x.Search(context.Background(), Query{Text: "computeBackoff"})
	if err != nil || len(hs) < 2 || hs[0].Path != "def.go" || hs[0].Symbol != "computeBackoff" {
		t.Fatalf("definition first: %+v %v", hs, err)
	}
	top := func() string {
		hs, err := x.Search(context.Background(), Query{Text: "retry request", Limit: 3})
		if err != nil || len(hs) != 3 {
			t.Fatalf("hits %+v %v", hs, err)
		}
		return hs[0].Path
	}
	if got := top(); got != "a/same.go" {
		t.Errorf("no signals: %s first", got)
	}
	open["c/same.go"] = true
	if got := top(); got != "c/same.go" {
		t.Errorf("open in editor: %s first", got)
	}
	changed["b/same.go"], open["b/same.go"] = true, true
	if got := top(); got != "b/same.go" {
		t.Errorf("open and changed: %s first", got)
	}
}

// Every English word the abbreviation list knows, singular and plural,
// reaches its abbreviations, in the form the index holds them.
func TestQueryAbbreviations(t *testing.T) {
	for word, want := range map[string][]string{
		"request": {"req"}, "responses": {"resp", "res"}, "response": {"resp"}, "connections": {"conn"},
		"connect": {"conn"}, "errors": {"err"}, "context": {"ctx"}, "configuration": {"cfg", "conf"},
		"directories": {"dir"}, "message": {"msg"}, "length": {"len"}, "numbers": {"num"},
		"buffer": {"buf"}, "initialize": {"init"}, "initial": {"init"},
		"arguments": {"arg", "args"}, "parameters": {"param"}, "values": {"val"}, "index": {"idx"},
		"addresses": {"addr"}, "temporary": {"tmp", "temp"}, "source": {"src"}, "destination": {"dst", "dest"},
		"previous": {"prev"}, "references": {"ref"}, "variable": {"var"}, "packages": {"pkg"},
		"attributes": {"attr"}, "position": {"pos"}, "characters": {"char"}, "identifier": {"id"},
		"information": {"info"}, "environment": {"env"}, "allocates": {"alloc"}, "allocate": {"alloc"},
		"executes": {"exec"}, "documents": {"doc"}, "sequence": {"seq"}, "statistics": {"stat"},
		"synchronize": {"sync"}, "current": {"cur"}, "maximum": {"max"}, "minimum": {"min"},
		"expression": {"expr"}, "objects": {"obj"}, "receiver": {"recv"}, "authentication": {"auth"},
		"authenticate": {"auth"}, "authorization": {"auth"}, "authorize": {"auth"}, "certificates": {"cert"},
		"transaction": {"tx", "txn"}, "implementation": {"impl"}, "implements": {"impl"},
		"specification": {"spec"}, "milliseconds": {"ms"}, "calculate": {"calc"}, "utility": {"util"},
		"declaration": {"decl"}, "definitions": {"def"}, "original": {"orig"}, "regular": {"re", "regexp"},
	} {
		terms := map[string]float64{}
		for _, wt := range queryTerms(word) {
			terms[wt.term] = wt.weight
		}
		for _, a := range want {
			if terms[a] != abbrevWeight {
				t.Errorf("%q: terms %v, want %q at %v", word, terms, a, abbrevWeight)
			}
		}
	}
}

// A definition whose name and scope say the query's words ranks above an
// equal one whose name does not, placed first.
func TestNameField(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	body := "() error {\n\tc.pool.release(c.id)\n\treturn c.shutdown()\n}\n"
	writeTree(t, root, map[string]string{
		"a.go": "package p\n\nfunc (c *ClientConn) Stop" + body,
		"z.go": "package p\n\nfunc (c *ClientConn) Close" + body,
	})
	x := openIndex(t, root, dir)
	build(t, x)
	hs, err := x.Search(context.Background(), Query{Text: "closes the connection"})
	if err != nil || len(hs) != 2 || hs[0].Symbol != "ClientConn.Close" {
		t.Fatalf("hits %+v %v", hs, err)
	}
}

// The stem of a plural is its singular's: a query's "closes" meets the
// code's Close.
func TestStemPlural(t *testing.T) {
	for plural, singular := range map[string]string{
		"closes": "close", "parses": "parse", "values": "value", "responses": "response", "messages": "message",
		"headers": "header", "entries": "entry", "matches": "match", "classes": "class",
	} {
		if stem(plural) != stem(singular) {
			t.Errorf("stem(%q) = %q, stem(%q) = %q", plural, stem(plural), singular, stem(singular))
		}
	}
}

// TestFirstCodeLine checks the preview of a ranked hit against the plain
// reading: the first line of the span that is not blank or a comment.
func TestFirstCodeLine(t *testing.T) {
	content := "// c\n\n  /* x */\n\t# y\n * z\n  code one  \nlast\n"
	d := &doc{content: []byte(content)}
	for _, c := range []struct {
		from, to int
		want     string
	}{
		{1, 7, "code one"}, {0, 7, "code one"}, {1, 5, ""}, {6, 6, "code one"}, {7, 7, "last"},
		{7, 9, "last"}, {8, 9, ""}, {3, 2, ""},
	} {
		if got := firstCodeLine(d, c.from, c.to); got != c.want {
			t.Errorf("firstCodeLine(%d, %d) = %q, want %q", c.from, c.to, got, c.want)
		}
	}
	d.content = []byte("a\nb") // no final line break
	if got := firstCodeLine(d, 2, 2); got != "b" {
		t.Errorf("last line without a break: %q", got)
	}
	if got := firstCodeLine(&doc{}, 1, 1); got != "" {
		t.Errorf("no content: %q", got)
	}
}
