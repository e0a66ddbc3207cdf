package gitcli

import (
	"slices"
	"strings"
	"testing"
)

const sampleStatus = "# branch.oid 0123456789abcdef0123456789abcdef01234567\x00" +
	"# branch.head main\x00" +
	"# branch.upstream origin/main\x00" +
	"# branch.ab +2 -3\x00" +
	"1 .M N... 100644 100644 100644 aaaa aaaa file with spaces.txt\x00" +
	"1 MD N... 100644 100644 000000 aaaa bbbb both.txt\x00" +
	"1 .A N... 000000 000000 100644 0000 0000 intent.txt\x00" +
	"1 T. N... 100644 120000 120000 aaaa cccc link\x00" +
	"2 R. N... 100644 100644 100644 aaaa aaaa R100 new name.txt\x00old name.txt\x00" +
	"2 C. N... 100644 100644 100644 aaaa aaaa C75 copy.txt\x00orig.txt\x00" +
	"u AA N... 000000 100644 100644 100644 0000 aaaa bbbb conflict.txt\x00" +
	"? new/é.txt\x00" +
	"! build/out.o\x00"

func TestParseStatus(t *testing.T) {
	st, err := parseStatus([]byte(sampleStatus))
	if err != nil {
		t.Fatal(err)
	}
	if st.Branch != "main" || st.Upstream != "origin/main" || st.Ahead != 2 || st.Behind != 3 || !strings.HasPrefix(st.Commit, "0123") {
		t.Fatalf("header %+v", st)
	}
	want := []string{
		"both.txt deleted unstaged",
		"both.txt modified staged",
		"build/out.o ignored unstaged",
		"conflict.txt conflicted unstaged",
		"copy.txt copied staged from orig.txt",
		"file with spaces.txt modified unstaged",
		"intent.txt added unstaged",
		"link typechanged staged",
		"new name.txt renamed staged from old name.txt",
		"new/é.txt untracked unstaged",
	}
	if got := changeSet(st.Changes); !slices.Equal(got, want) {
		t.Fatalf("got:\n%s", strings.Join(got, "\n"))
	}
}

func TestParseStatusRejects(t *testing.T) {
	for _, in := range []string{
		"1 .M N... 100644\x00",
		"2 R. N... 100644 100644 100644 aaaa aaaa R100 new.txt\x00",
		"1 .M N... 100644 100644 100644 aaaa aaaa x", // unterminated
		"X what\x00",
		"\x00",
		"1 zz N... 100644 100644 100644 aaaa aaaa f\x00",
		"# branch.ab +x -1\x00",
		"?\x00",
	} {
		if _, err := parseStatus([]byte(in)); err == nil {
			t.Errorf("parseStatus(%q) accepted", in)
		}
	}
}

var knownStatus = map[string]bool{
	StatusModified: true, StatusAdded: true, StatusDeleted: true, StatusRenamed: true,
	StatusCopied: true, StatusTypeChanged: true, StatusUntracked: true, StatusIgnored: true,
	StatusConflicted: true,
}

func FuzzParseStatus(f *testing.F) {
	f.Add([]byte(sampleStatus))
	f.Add([]byte("# branch.oid (initial)\x00# branch.head main\x00? a\x00"))
	f.Add([]byte("# branch.head (detached)\x00"))
	f.Add([]byte("2 RM N... 100644 100644 100644 aa bb R50 b\x00a\x00"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := parseStatus(data)
		if err != nil {
			return
		}
		if st.Changes == nil {
			t.Fatal("nil Changes on success")
		}
		for _, c := range st.Changes {
			if c.Path == "" || !knownStatus[c.Status] || len(c.XY) != 2 {
				t.Fatalf("bad change %+v from %q", c, data)
			}
			if c.OrigPath != "" && c.Status != StatusRenamed && c.Status != StatusCopied {
				t.Fatalf("OrigPath on %+v", c)
			}
		}
	})
}
