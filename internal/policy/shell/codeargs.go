package shell

import (
	"strconv"
	"strings"
)

// Operands of inline code. The words after an interpreter's inline code
// are its arguments (python3 -c CODE a b: sys.argv[1:]; node -e:
// process.argv[1:]; ruby -e: ARGV; perl -e: @ARGV; php -r: $argv[1:]; awk:
// ARGV[1:]), and awk -v NAME=VALUE sets a variable the program reads.
// Code reads them as values: a path given as an operand and opened,
// deleted or written by the code is that path (python3 -c
// 'shutil.rmtree(sys.argv[1])' ~/x deletes ~/x), and code that reads the
// files named on its command line (perl's <>, ruby -n/-p, ARGF, python's
// fileinput, a read of the argv) reads the operands that name files.

// argvBase returns the index at which a language's argv name holds the
// first operand, or -1 when name is not the argv.
func (s *codeScan) argvBase(name string) int {
	switch s.lang {
	case "python":
		if s.resolve(name) == "sys.argv" {
			return 1
		}
	case "js":
		if name == "process.argv" || name == "Deno.args" {
			if name == "Deno.args" {
				return 0
			}
			return 1
		}
	case "ruby":
		if name == "ARGV" || name == "$*" {
			return 0
		}
	case "perl":
		if name == "$ARGV" || name == "$_[ARGV]" {
			return 0
		}
	case "php":
		if name == "$argv" || name == "$_SERVER.argv" {
			return 1
		}
	case "awk":
		if name == "ARGV" {
			return 1
		}
	}
	return -1
}

// operand returns the operand an argv name indexed by num holds.
func (s *codeScan) operand(name, num string) (field, bool) {
	n, err := strconv.Atoi(num)
	base := s.argvBase(name)
	if err != nil || base < 0 {
		return field{}, false
	}
	n -= base
	if n < 0 || n >= len(s.k.codeOps) || !s.k.codeOps[n].known {
		return field{}, false
	}
	return s.k.codeOps[n], true
}

// homeVal writes a leading ~ of a value as the home directory inline code
// computes (homeTok), so final makes it the real one.
func homeVal(v string) string {
	if v == "~" || strings.HasPrefix(v, "~/") {
		return homeTok + v[1:]
	}
	return v
}

// codeReadsOperands are the spellings of code that reads the files named on
// its command line.
var codeReadsOperands = []string{"<>", "<<>>", "<argv>", "argf", "fileinput", "sys.argv", "process.argv", "argv[", "$argv", "@argv",
	"deno.args", "$<"}

// codeOperands judges the operands given after inline code: when the code
// reads the files named on its command line (or reads files and takes its
// argv), each operand that names a file is read, as any program reads its
// file arguments.
func (k *call) codeOperands(code field, ops []field) {
	if len(ops) == 0 || !code.known {
		return
	}
	l := strings.ToLower(code.val)
	if !hasAny(l, codeReadsOperands) {
		return
	}
	for _, o := range ops {
		if !o.known || o.val == "" || o.val == "-" || strings.HasPrefix(o.val, "-") || strings.Contains(o.val, "://") {
			continue
		}
		if strings.ContainsAny(o.val, "/.~") {
			k.file(Read, k.home(o), false)
		}
	}
}
