package shell

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"strings"
)

// Scripts run by their path. A script the line does not write — bash
// /tmp/x.sh, sh ../x.sh, python3 /tmp/a.py, source ~/x, . /dev/shm/y, or
// /tmp/x.sh run directly — runs whatever the file holds, so when the file
// exists, is small and can be read (Options.ReadFile), its content is
// judged as code of that language, the way inline code is. A script that
// cannot be read (too large, not a regular file, no permission) or is not
// text, run by a shell or an interpreter, runs code not known at check
// time (dynamic: ask). A file that does not exist runs nothing. What is
// read is the file the path reaches now: it may change before the command
// runs (the kernel sandbox is the backstop; see docs/policy.md).
//
// Left to what they were: the system's own programs and setups (/usr,
// /opt, /etc, …), the user's installed setups in home (a hidden file or
// directory: ~/.bashrc, ~/.nvm/nvm.sh, ~/.local/bin/x), and a script of
// the workspace run directly (./gradlew, ./configure), which is the
// project's own as its Makefile is; run through a shell or an interpreter
// (bash scripts/test.sh, python3 tools/gen.py) it is read.

// maxScriptSize bounds the size of a script read from disk.
const maxScriptSize = 256 << 10

// maxDiskScripts bounds the scripts read from disk for one command line.
const maxDiskScripts = 8

// runScript judges script f, run by k as code of lang ("" for a script
// run directly: by its #! line), by its content: written earlier in the
// line, or read from disk. It reports whether the content was judged (or
// found not readable, which asks).
func (k *call) runScript(f field, lang string) bool {
	if k.runWritten(f, lang) {
		return true
	}
	return k.runDisk(f, lang)
}

// runDisk judges a script that exists on disk by its content.
func (k *call) runDisk(f field, lang string) bool {
	txt, st := k.diskText(f, lang == "")
	if st == diskText {
		k.runText(txt, f, lang)
	}
	return st != diskNone
}

// What diskText found.
const (
	diskNone   = iota // not read: out of scope, missing, a directory, a program
	diskText          // read: the text
	diskUnread        // cannot be read, or not text: asked (dynamic)
)

// scriptText is the content of a script file a program reads its program
// from (awk -f, sed -f, vim -S, gdb -x): written earlier in the line, or
// read from disk (one that cannot be read asks).
func (k *call) scriptText(f field) (string, bool) {
	if txt, ok := k.writtenScript(f); ok {
		return txt, true
	}
	txt, st := k.diskText(f, false)
	return txt, st == diskText
}

// diskText reads script f from disk for its content. direct says it is
// run directly (./x): a file that is not a script is a program, and the
// project's own scripts are not read.
func (k *call) diskText(f field, direct bool) (string, int) {
	rd := k.a.opts.ReadFile
	if rd == nil || !f.known || f.proc || f.glob || f.val == "" || f.val == "-" {
		return "", diskNone
	}
	e, ok := k.a.target(k.st, Read, k.home(f), false)
	if !ok || e.Unknown || e.Target == "" {
		return "", diskNone
	}
	if r := k.a.opts.Resolve; r != nil {
		e.Target = r(e.Target) // where the kernel goes: ./x.sh -> /tmp/w.sh
	}
	if !k.a.readsScript(e.Target, direct) {
		return "", diskNone
	}
	if k.a.opts.IsDir != nil && k.a.opts.IsDir(e.Target) {
		return "", diskNone // a directory: a subcommand's name (swift build), not a script
	}
	if k.a.diskScripts >= maxDiskScripts {
		if direct {
			return "", diskNone
		}
		k.dynamicExec(k.name + " runs more scripts than are read at check time")
		return "", diskUnread
	}
	k.a.diskScripts++
	b, err := rd(e.Target, maxScriptSize)
	switch {
	case isNotExist(err):
		return "", diskNone // nothing runs
	case err != nil:
		if direct {
			return "", diskNone
		}
		k.dynamicExec(k.name + " runs " + e.Target + ", a script that cannot be read at check time: " + err.Error())
		return "", diskUnread
	case bytes.IndexByte(b, 0) >= 0:
		if direct {
			return "", diskNone // a program, not a script
		}
		k.dynamicExec(k.name + " runs " + e.Target + ", which is not text that can be read as a script")
		return "", diskUnread
	}
	return string(b), diskText
}

// systemDirs hold the system's programs and setups.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/etc", "/nix", "/snap", "/gnu", "/run/current-system"}

// readsScript reports whether a script at p is read for its content (see
// the comment at the top of this file for what is left alone).
func (a *analyzer) readsScript(p string, direct bool) bool {
	for _, d := range systemDirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return false
		}
	}
	if h := a.opts.Home; h != "" && strings.HasPrefix(p, h+"/") {
		for _, c := range strings.Split(p[len(h)+1:], "/") {
			if strings.HasPrefix(c, ".") {
				return false // the user's installed setups: ~/.bashrc, ~/.nvm/nvm.sh
			}
		}
	}
	if direct {
		ws := a.opts.Workspace
		if ws == "" {
			ws = a.opts.Cwd
		}
		if ws != "" && ws != "/" && (p == ws || strings.HasPrefix(p, path.Clean(ws)+"/")) {
			return false // the project's own, run directly (./gradlew)
		}
	}
	return true
}

// isNotExist reports whether err says a file does not exist.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
