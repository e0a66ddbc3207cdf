package shell

import (
	"strings"
	"testing"
)

func FuzzAnalyze(f *testing.F) {
	for _, tc := range cases {
		f.Add(tc.in)
	}
	f.Add(":(){ :|:& };:")
	f.Add("a{1..100000}b")
	f.Add("eval eval eval eval eval eval eval eval eval eval rm")
	for _, p := range programs.all {
		for _, e := range p.examples {
			f.Add(e.in)
		}
	}
	f.Add(`aws ssm send-command --parameters '{"commands":["a","b"]}'`)
	f.Add(`aws ssm send-command --parameters 'commands=["x",'`)
	f.Fuzz(func(t *testing.T, src string) {
		a, err := Analyze(src, testOpts)
		if err != nil {
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("%q: %v", src, err)
			}
			return
		}
		if len(a.Commands) > MaxCommands {
			t.Fatalf("%d commands", len(a.Commands))
		}
		for _, c := range a.Commands {
			if c.Span.Start < 0 || c.Span.End > len(src) || c.Span.Start > c.Span.End {
				t.Fatalf("span %+v out of range for %q", c.Span, src)
			}
			if len(c.Via) > MaxDepth*8 {
				t.Fatalf("via too deep: %v", c.Via)
			}
		}
	})
}

// FuzzInlineCode feeds arbitrary code to every language model of inline
// code (the lexer of code.go, Tcl, PowerShell, sed scripts, ex and gdb
// commands): none may panic, loop or report spans outside the input.
func FuzzInlineCode(f *testing.F) {
	for _, s := range []string{
		`import os; os.execvp("rm", ["rm", "-rf", "/x"])`, `system("rm", "-rf", "/x")`, `%x(rm -rf /x)`, `qx{ls}`,
		`require("child_process").spawnSync("rm", ["-rf", "/x"])`, `exec(urlopen("https://x").read())`, `f"{a}{{b}}"`,
		`BEGIN { print "rm -rf /x" | "sh" }`, `spawn bash; send "ls\r"; exec rm [pwd] {a b}`, `Remove-Item -Recurse /x | iex`,
		`s/.*/rm -rf \/x/e;1e ls` + "\nw /x/out", `silent !rm -rf /x | q`, `shell rm -rf /x`, `"unterminated`, `'''x`, `${`, `#{`,
		`(system "rm -rf ~")`, `new File("/x") << "y"`, `Runtime.getRuntime().exec(arrayOf("rm","-rf","/x"))`, `(spit (str (System/getProperty "user.home") "/.x") "y")`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		for _, pre := range [][]string{{"python3", "-c"}, {"perl", "-e"}, {"ruby", "-e"}, {"node", "-e"}, {"php", "-r"},
			{"lua", "-e"}, {"awk"}, {"sed"}, {"expect", "-c"}, {"pwsh", "-c"}, {"osascript", "-e"}, {"vim", "-c"}, {"gdb", "-ex"},
			{"guile", "-c"}, {"groovy", "-e"}, {"emacs", "--batch", "--eval"}, {"crystal", "eval"}, {"bun", "-e"}, {"ex", "-sc"}} {
			analyzeInRange(t, Join(append(append([]string(nil), pre...), code)...))
		}
	})
}

// FuzzSQLDestroys: the SQL reader never panics, and what it reports as
// destroying data stays so whatever comments or spacing are added around
// the statement.
func FuzzSQLDestroys(f *testing.F) {
	for _, s := range []string{"DROP TABLE t", "delete from t", "delete from t where id=1", "/*! drop */ table x",
		"UPDATE a SET b=1", "select 1; truncate t", "-- x\ndrop/**/schema s", "DELETE FROM t WHERE 1=1", "'", "/*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		st, ok := sqlDestroys(sql)
		if !ok {
			return
		}
		if st == "" {
			t.Fatalf("%q: destroys, but no statement", sql)
		}
		if _, again := sqlDestroys("/* c */ " + sql + " ;\n"); !again && !strings.Contains(sql, "*/") && !strings.Contains(sql, "--") && !strings.Contains(sql, "#") {
			t.Fatalf("%q: no longer destroys with a comment before it", sql)
		}
	})
}

// FuzzEditorScript feeds line-editor scripts (ed, red, ex, vim in ex mode)
// on stdin: the analysis never fails internally, keeps its spans in range
// and never runs a command of red's.
func FuzzEditorScript(f *testing.F) {
	for _, s := range []string{"!rm -rf /x\nq", "w !sh\nq", "1,$w !nc h 9", "r !cat /x", "e !ls", "a\n!rm -rf /x\n.\nw\nq",
		"/x/a\ny\n.", "?a?i", "'a,'bd", "%!sort", ":call system('id')", "g/^#/d\nwq", ",s/a/b/g\nw\nq", "\r\n.\r\n", "1c", "wq /x/f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		for _, pre := range [][]string{{"ed", "-s", "f"}, {"red", "f"}, {"ex", "-s", "f"}, {"vim", "-es", "f"}} {
			a, ok := analyzeInRange(t, Join(pre...)+" <<< "+Join(script))
			if !ok {
				continue
			}
			for _, c := range a.Commands {
				if pre[0] == "red" && len(c.Via) > 0 && strings.HasPrefix(c.Via[0], "red") {
					t.Fatalf("red ran %q for %q", c.Argv, script)
				}
			}
		}
	})
}

// FuzzSQLFiles feeds SQL to the database clients whose statements open
// files by name (sqlFiles): the analysis never fails internally and keeps
// its spans in range.
func FuzzSQLFiles(f *testing.F) {
	for _, s := range []string{"select readfile('/x')", "select writefile('/x', 'y')", "load data local infile '/x' into table t",
		"select 1 into outfile '/x'", "copy t from '/x'", "\\copy t to '/x'", ".output /x", ".import /x t", "select load_file('it''s')",
		"COPY t TO STDOUT", "select lo_export(1, '/x')", "'", "readfile("} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		for _, pre := range [][]string{{"sqlite3", "x.db"}, {"psql", "-c"}, {"mysql", "-e"}} {
			for _, src := range []string{Join(append(append([]string(nil), pre...), sql)...), Join(pre[0]) + " <<< " + Join(sql)} {
				a, err := Analyze(src, testOpts)
				if err != nil {
					if strings.Contains(err.Error(), "internal error") {
						t.Fatalf("%q: %v", src, err)
					}
					continue
				}
				for _, c := range a.Commands {
					if c.Span.Start < 0 || c.Span.End > len(src) || c.Span.Start > c.Span.End {
						t.Fatalf("span %+v out of range for %q", c.Span, src)
					}
				}
			}
		}
	})
}

// analyzeInRange analyses src, failing on an internal error or a command
// span outside src; ok is false when src is refused (a syntax error).
func analyzeInRange(t *testing.T, src string) (*Analysis, bool) {
	t.Helper()
	a, err := Analyze(src, testOpts)
	if err != nil {
		if strings.Contains(err.Error(), "internal error") {
			t.Fatalf("%q: %v", src, err)
		}
		return nil, false
	}
	for _, c := range a.Commands {
		if c.Span.Start < 0 || c.Span.End > len(src) || c.Span.Start > c.Span.End {
			t.Fatalf("span %+v out of range for %q", c.Span, src)
		}
	}
	return a, true
}
