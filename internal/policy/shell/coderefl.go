package shell

import "strings"

// Reflection: a function named without naming the call. Languages let code
// reach a function through a string — a member looked up by name
// (operator.methodcaller("system", …)(os), attrgetter, __getattribute__,
// inspect.getattr_static), a module looked up by name (sys.modules[…]),
// a name evaluated as code (eval("os.system")), a module's namespace
// walked (vars(os).items(), os.__dict__.values(), inspect.getmembers(os)),
// and names glued together from pieces ("sys" + "tem"). What the code
// spells with literals is folded and read as the name it is, so the call
// is judged as the direct call; what it computes at run time is a
// function not known at check time (dynName: calling it asks).

// foldConcat joins string literals concatenated with + (or . in perl and
// php) into one literal: "o" + "s" is "os", so a name built from pieces is
// read as the name. An operand that binds tighter than + (a call, an index
// or a member of the next literal, a * or % before the first) is left
// alone.
func foldConcat(in []ctok, lang string) []ctok {
	op := "+"
	if lang == "perl" || lang == "php" {
		op = "."
	}
	plainStr := func(i int) bool { return i >= 0 && i < len(in) && in[i].kind == cStr && !in[i].interp }
	if lang == "python" || lang == "c" {
		// adjacent literals are one: "sys" "tem"
		for i := 0; i+1 < len(in); i++ {
			if plainStr(i) && plainStr(i+1) {
				merged := append(append(make([]ctok, 0, len(in)), in[:i]...), ctok{kind: cStr, val: in[i].val + in[i+1].val})
				in = append(merged, in[i+2:]...)
				i--
			}
		}
	}
	var out []ctok
	for i := 0; i < len(in); i++ {
		if !plainStr(i) || !(i+2 < len(in) && in[i+1].kind == cPunct && in[i+1].val == op && plainStr(i+2)) {
			if out != nil {
				out = append(out, in[i])
			}
			continue
		}
		if i > 0 && in[i-1].kind == cPunct && (in[i-1].val == "*" || in[i-1].val == "%" || in[i-1].val == "." || in[i-1].val == "-") {
			if out != nil {
				out = append(out, in[i])
			}
			continue
		}
		if out == nil {
			out = append(make([]ctok, 0, len(in)), in[:i]...)
		}
		v := in[i].val
		j := i
		for j+2 < len(in) && in[j+1].kind == cPunct && in[j+1].val == op && plainStr(j+2) {
			if n := j + 3; n < len(in) && in[n].kind == cPunct && (in[n].val == "." || in[n].val == "[" || in[n].val == "(" || in[n].val == "*" || in[n].val == "%") {
				break // "a" + "b".upper(): the last operand is a call
			}
			v += in[j+2].val
			j += 2
		}
		out = append(out, ctok{kind: cStr, val: v})
		i = j
	}
	if out == nil {
		return in
	}
	return out
}

// pyReflect rewrites Python's reflective lookups at in[i] (an identifier)
// to the names they look up. It returns the new output, the index of the
// last token consumed, and whether it rewrote anything.
func (s *codeScan) pyReflect(in []ctok, i int, out []ctok) ([]ctok, int, bool) {
	isP := func(i int, v string) bool { return i < len(in) && in[i].kind == cPunct && in[i].val == v }
	t := in[i]
	name := s.resolve(t.val)
	last := lastName(name)
	if s.lang == "js" {
		if name == "Reflect.get" && isP(i+1, "(") {
			// Reflect.get(OBJ, NAME) is OBJ[NAME]
			j := closeParen(in, i+1)
			if j < 0 {
				return out, i, false
			}
			args := splitArgs(in[i+2 : j])
			if len(args) != 2 {
				return out, i, false
			}
			obj := s.normalise(args[0])
			if len(obj) != 1 || obj[0].kind != cIdent {
				return out, i, false
			}
			o := s.resolve(obj[0].val)
			if m, ok := litName(args[1]); ok {
				out = appendIdent(out, ctok{kind: cIdent, val: o + "." + m})
			} else {
				out = appendIdent(out, ctok{kind: cIdent, val: o + "." + dynName})
			}
			return out, j, true
		}
		return out, i, false
	}
	switch {
	case (t.val == "getattr" || name == "builtins.getattr" || name == "operator.attrgetter" || name == "operator.methodcaller") && !isP(i+1, "("):
		// getattr handed to other code as a function (functools.reduce(
		// getattr, names, os)): the lookups it makes are not followed
		out = appendIdent(out, ctok{kind: cIdent, val: dynName})
		return out, i, true
	case (last == "methodcaller" || last == "attrgetter") && isP(i+1, "("):
		// methodcaller(NAME, ARGS…)(OBJ) is OBJ.NAME(ARGS…);
		// attrgetter(NAME)(OBJ) is OBJ.NAME
		j := closeParen(in, i+1)
		if j < 0 {
			return out, i, false
		}
		args := splitArgs(in[i+2 : j])
		if len(args) == 0 {
			return out, i, false
		}
		member, lit := litName(args[0])
		if isP(j+1, "(") {
			if k := closeParen(in, j+1); k > 0 {
				obj := s.normalise(in[j+2 : k])
				if len(obj) == 1 && obj[0].kind == cIdent {
					if !lit {
						member = dynName
					}
					out = appendIdent(out, ctok{kind: cIdent, val: s.resolve(obj[0].val) + "." + member})
					if last == "methodcaller" {
						out = append(out, ctok{kind: cPunct, val: "("})
						if len(args) > 1 {
							rest := in[i+2 : j]
							c := len(args[0])
							out = append(out, rest[c+1:]...)
						}
						out = append(out, ctok{kind: cPunct, val: ")"})
					}
					return out, k, true
				}
			}
		}
		// a caller kept or handed around (f = methodcaller("system", c);
		// f(os), map(methodcaller(…), mods)): applied to an object not
		// known here; a name that runs programs, or one computed at run
		// time, makes it a function not known at check time
		if !lit || s.runsName(member) {
			out = appendIdent(out, ctok{kind: cIdent, val: dynName})
			return out, i, true
		}
	case (last == "__getattribute__" || last == "getattr_static") && isP(i+1, "("):
		// X.__getattribute__(NAME), object.__getattribute__(X, NAME),
		// inspect.getattr_static(X, NAME): getattr by another name
		j := closeParen(in, i+1)
		if j < 0 {
			return out, i, false
		}
		recv := strings.TrimSuffix(t.val, ".__getattribute__")
		syn := []ctok{{kind: cIdent, val: "getattr"}, {kind: cPunct, val: "("}}
		if last == "__getattribute__" && recv != t.val && recv != "object" && recv != "type" {
			syn = append(syn, ctok{kind: cIdent, val: recv}, ctok{kind: cPunct, val: ","})
		}
		syn = append(append(syn, in[i+2:j]...), ctok{kind: cPunct, val: ")"})
		return append(out, s.normalise(syn)...), j, true
	case (last == "eval" && (t.val == "eval" || name == "builtins.eval")) && isP(i+1, "(") && i+3 < len(in) && in[i+2].kind == cStr && !in[i+2].interp && isP(i+3, ")") && isP(i+4, "("):
		// eval("os.system")(…): the code is a name, and the name is called
		if v := strings.TrimSpace(in[i+2].val); dottedName(v) {
			out = appendIdent(out, ctok{kind: cIdent, val: s.resolve(v)})
			return out, i + 3, true
		}
	case (t.val == "vars" || t.val == "dir" || last == "getmembers") && isP(i+1, "(") && !(t.val == "vars" && isP(i+4, "[")):
		// vars(os).items(), dir(os), inspect.getmembers(os): a module's
		// namespace walked, a function picked from it at run time
		j := closeParen(in, i+1)
		if j == i+3 && in[i+2].kind == cIdent {
			if m := s.resolve(in[i+2].val); s.runsModule(m) {
				out = appendIdent(out, ctok{kind: cIdent, val: m + "." + dynName})
				return out, j, true
			}
		}
	case strings.HasSuffix(t.val, ".__dict__") && !isP(i+1, "[") || strings.Contains(t.val, ".__dict__."):
		// os.__dict__.values(), os.__dict__.get(name): the namespace walked
		obj, rest, _ := strings.Cut(t.val, ".__dict__")
		if m := s.resolve(obj); s.runsModule(m) {
			out = appendIdent(out, ctok{kind: cIdent, val: m + "." + dynName + rest})
			return out, i, true
		}
	case name == "sys.modules" && isP(i+1, "["):
		// sys.modules["os"] is os; sys.modules[x] a module chosen at run time
		if j := closeParen(in, i+1); j > 0 {
			if m, ok := litName(in[i+2 : j]); ok {
				out = appendIdent(out, ctok{kind: cIdent, val: m})
			} else {
				out = appendIdent(out, ctok{kind: cIdent, val: dynName})
			}
			return out, j, true
		}
	}
	return out, i, false
}

// litName returns the string an argument is when it is one plain literal.
func litName(ts []ctok) (string, bool) {
	if len(ts) == 1 && ts[0].kind == cStr && !ts[0].interp {
		return ts[0].val, true
	}
	return "", false
}

// dottedName reports whether v is a (dotted) identifier: os.system.
func dottedName(v string) bool {
	if v == "" || len(v) > 128 {
		return false
	}
	for _, part := range strings.Split(v, ".") {
		if part == "" {
			return false
		}
		for j, r := range part {
			if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || j > 0 && r >= '0' && r <= '9') {
				return false
			}
		}
	}
	return true
}

// deleteNames are the last names of the functions that delete files.
var deleteNames = map[string]bool{"rmtree": true, "remove": true, "unlink": true, "rmdir": true, "removedirs": true,
	"rmSync": true, "rm": true, "unlinkSync": true, "rmdirSync": true, "kill": true, "killpg": true}

// runsName reports whether a member name is one a function that runs
// programs or code, or deletes files, goes by: system, popen, run, exec,
// rmtree, … (the last names of the sinks of the language).
func (s *codeScan) runsName(n string) bool {
	if _, ok := weakSinks[n]; ok || deleteNames[n] {
		return true
	}
	for k := range sinks[s.lang] {
		if lastName(k) == n {
			return true
		}
	}
	return false
}

// pyImportAliases reads Python's import aliases (import operator as op,
// from operator import methodcaller as mc) before the reflective spellings
// are rewritten, so they are known under the names the code gives them.
// bindings reads the same statements again with the rest.
func (s *codeScan) pyImportAliases(ts []ctok) {
	for i := 0; i < len(ts); i++ {
		if ts[i].kind != cIdent || !(i == 0 || ts[i-1].kind == cEnd) {
			continue
		}
		switch {
		case ts[i].val == "import":
			for j := i + 1; j+2 < len(ts) && ts[j].kind != cEnd; j++ {
				if ts[j].kind == cIdent && ts[j+1].kind == cIdent && ts[j+1].val == "as" && ts[j+2].kind == cIdent {
					s.alias[ts[j+2].val] = ts[j].val
					j += 2
				}
			}
		case ts[i].val == "from" && i+2 < len(ts) && ts[i+1].kind == cIdent && ts[i+2].kind == cIdent && ts[i+2].val == "import":
			mod := ts[i+1].val
			for j := i + 3; j < len(ts) && ts[j].kind != cEnd; j++ {
				if ts[j].kind != cIdent || ts[j].val == "as" {
					continue
				}
				if j+2 < len(ts) && ts[j+1].kind == cIdent && ts[j+1].val == "as" && ts[j+2].kind == cIdent {
					s.alias[ts[j+2].val] = mod + "." + ts[j].val
					j += 2
				} else {
					s.alias[ts[j].val] = mod + "." + ts[j].val
				}
			}
		}
	}
}
