package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Quote returns s as one word of a bash command line: as it is when no
// character in it means anything to the shell, else quoted (mvdan.cc/sh's
// syntax.Quote). A string bash cannot hold (a NUL byte) is single-quoted
// as is, so that the line still names it and the analyser refuses it.
func Quote(s string) string {
	if q, err := syntax.Quote(s, syntax.LangBash); err == nil {
		return q
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each word of argv and joins them with spaces: the command
// line a door hands the policy for an operation that is, in effect, that
// command (fs.deleteFile is `rm -- PATH`).
func Join(argv ...string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}
