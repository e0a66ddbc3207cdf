package shell

import "strings"

// exitTrap is an EXIT trap set by the line's own shell: its code runs when
// that shell exits, with the values its variables hold then.
type exitTrap struct {
	code string
	c    *ctx
}

// exitTrap records a trap on EXIT (or 0) set in the line's own shell, to
// be judged when the line ends (runExitTraps) with the variables as they
// are then: in trap 'rm -rf "$T"' EXIT; T=$(mktemp -d); … the trap
// removes the temp dir T names at exit, which is known only after the
// assignment that follows it. A trap in a subshell or a nested shell, or
// on other signals (which may fire at any point), is judged when it is
// set, as before. It reports whether the trap was recorded.
func (k *call) exitTrap(action field, sigs []field) bool {
	if !action.known || k.c.depth != 0 || k.st != k.a.top || len(sigs) == 0 {
		return false
	}
	for _, s := range sigs {
		if !s.known {
			return false
		}
		switch strings.ToUpper(strings.TrimPrefix(s.val, "SIG")) {
		case "EXIT", "0":
		default:
			return false
		}
	}
	if len(k.a.exitTraps) >= maxLoopItems {
		return false
	}
	c := &ctx{src: action.val, outer: k.c.outerFor(k.ro.sp), depth: k.c.depth + 1, stdin: k.c.stdin}
	c.via = append(append(make([]string, 0, len(k.c.via)+1), k.c.via...), "trap")
	k.a.exitTraps = append(k.a.exitTraps, exitTrap{code: action.val, c: c})
	return true
}

// runExitTraps judges the EXIT traps the line set, in the state its shell
// ends in. Only the last trap set is the one that runs, but each was the
// trap at some point (a later statement may fail and exit), so all are
// judged.
func (a *analyzer) runExitTraps(st *state) {
	for _, t := range a.exitTraps {
		if a.full {
			return
		}
		f, err := parseShell(t.code)
		if err != nil {
			a.finding(TagDynamicExec, "trap runs code that cannot be parsed: "+err.Error(), Span{Text: t.code})
			continue
		}
		a.stmts(t.c, st, f.Stmts)
	}
}
