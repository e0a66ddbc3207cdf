package shell

import (
	"regexp"
	"strings"
)

// SQL that reads and writes files. Database clients run SQL whose
// functions and statements open files by name: sqlite's readfile() and
// writefile() and its dot commands (.read, .import, .output, .once,
// .backup, .save), MySQL's LOAD_FILE(), LOAD DATA [LOCAL] INFILE and
// SELECT … INTO OUTFILE/DUMPFILE, PostgreSQL's pg_read_file(),
// pg_read_binary_file(), lo_import(), lo_export(), COPY … FROM/TO 'file'
// and psql's \copy, \i, \o. Each is a read or a write of that file, judged
// as any program's is, so readfile('~/.ssh/id_rsa') is a secret read.
// The server-side functions take paths on the server; a relative one is in
// its data directory and adds nothing here.

var (
	sqlReadFn  = regexp.MustCompile(`(?i)\b(?:readfile|load_file|pg_read_file|pg_read_binary_file|lo_import)\s*\(\s*'((?:[^']|'')*)'`)
	sqlWriteFn = regexp.MustCompile(`(?i)\b(?:writefile|lo_export)\s*\(\s*(?:[^,()']+,\s*)?'((?:[^']|'')*)'`)
	sqlInfile  = regexp.MustCompile(`(?i)\bload\s+data\s+(?:low_priority\s+|concurrent\s+)?(?:local\s+)?infile\s+'((?:[^']|'')*)'`)
	sqlOutfile = regexp.MustCompile(`(?i)\binto\s+(?:outfile|dumpfile)\s+'((?:[^']|'')*)'`)
	sqlCopy    = regexp.MustCompile(`(?i)(?:^|[\s;])\\?copy\s+[^;]*?\b(from|to)\s+'((?:[^']|'')*)'`)
	sqlDotRead = regexp.MustCompile(`^\s*(?:\.read|\.import(?:\s+--?\w+)*|\\i|\\include|\\ir)\s+'?([^'\s|][^'\s]*)'?`)
	sqlDotOut  = regexp.MustCompile(`^\s*(?:\.output|\.once(?:\s+-\w)?|\.backup(?:\s+\w+)?|\.save|\\o|\\out)\s+'?([^'\s|][^'\s]*)'?`)
)

// sqlFileFns are the functions and statements that name one file in
// their first group, with what they do to it.
var sqlFileFns = []struct {
	re   *regexp.Regexp
	kind Kind
}{{sqlReadFn, Read}, {sqlInfile, Read}, {sqlWriteFn, Write}, {sqlOutfile, Write}}

// sqlFiles judges the files the SQL a database client runs reads and
// writes: its inline statements and what it reads on stdin.
func (k *call) sqlFiles(code []string) {
	path := func(v string) (field, bool) {
		v = strings.ReplaceAll(v, "''", "'")
		if v == "" || v == "-" || v == "stdin" || v == "stdout" || strings.HasPrefix(v, "|") {
			return field{}, false
		}
		return k.home(lit(v)), true
	}
	n := 0
	for _, c := range code {
		for _, fn := range sqlFileFns {
			for _, m := range fn.re.FindAllStringSubmatch(c, 8) {
				if f, ok := path(m[1]); ok {
					k.file(fn.kind, f, false)
				}
			}
		}
		for _, m := range sqlCopy.FindAllStringSubmatch(c, 8) {
			if f, ok := path(m[2]); ok {
				if strings.EqualFold(m[1], "from") {
					k.file(Read, f, false)
				} else {
					k.file(Write, f, false)
				}
			}
		}
		for _, line := range strings.Split(c, "\n") {
			if n++; n > maxEdLines {
				return
			}
			if m := sqlDotRead.FindStringSubmatch(line); m != nil {
				if f, ok := path(m[1]); ok {
					k.file(Read, f, false)
				}
			}
			if m := sqlDotOut.FindStringSubmatch(line); m != nil {
				if f, ok := path(m[1]); ok {
					k.file(Write, f, false)
				}
			}
		}
	}
}
