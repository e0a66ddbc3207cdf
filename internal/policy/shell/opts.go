package shell

import "strings"

// spec describes a program's options for getopt-style parsing.
type spec struct {
	arg    string   // short options that take a value (-o FILE, -oFILE)
	optArg string   // short options whose value must be attached (-i.bak)
	long   []string // long options that take a value (--output FILE)
	stop   bool     // options end at the first operand (POSIX; wrappers)
	num    bool     // -N (all digits) is an option "#" with value N
}

// parsed is the result of option parsing.
type parsed struct {
	opts []opt
	ops  []field
	rest int // for stop specs: index in args of the first operand
}

type opt struct {
	name string // letter for short options, name for long ones
	val  field
	has  bool // a value was given
}

func (p *parsed) has(names ...string) bool {
	for _, o := range p.opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}

// get returns the last value of any of names.
func (p *parsed) get(names ...string) (field, bool) {
	for i := len(p.opts) - 1; i >= 0; i-- {
		for _, n := range names {
			if p.opts[i].name == n {
				return p.opts[i].val, true
			}
		}
	}
	return field{}, false
}

// all returns every value of any of names.
func (p *parsed) all(names ...string) []field {
	var out []field
	for _, o := range p.opts {
		for _, n := range names {
			if o.name == n && o.has {
				out = append(out, o.val)
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sub makes a field for part of f's value.
func sub(f field, v string) field {
	f.val = v
	return f
}

// parseOpts parses args with getopt/GNU conventions.
func parseOpts(args []field, s spec) parsed {
	var p parsed
	for i := 0; i < len(args); i++ {
		f := args[i]
		v := f.val
		if !f.known || len(v) < 2 || v[0] != '-' {
			if s.stop {
				p.rest = i
				p.ops = append(p.ops, args[i:]...)
				return p
			}
			p.ops = append(p.ops, f)
			continue
		}
		if v == "--" {
			p.rest = i + 1
			p.ops = append(p.ops, args[i+1:]...)
			return p
		}
		if strings.HasPrefix(v, "--") {
			name, val, eq := strings.Cut(v[2:], "=")
			o := opt{name: name}
			if eq {
				o.val, o.has = sub(f, val), true
			} else if contains(s.long, name) && i+1 < len(args) {
				i++
				o.val, o.has = args[i], true
			}
			p.opts = append(p.opts, o)
			continue
		}
		if s.num && isDigits(v[1:]) {
			p.opts = append(p.opts, opt{name: "#", val: sub(f, v[1:]), has: true})
			continue
		}
		for j := 1; j < len(v); j++ {
			ch := v[j : j+1]
			if strings.Contains(s.arg, ch) {
				o := opt{name: ch, has: true}
				if j+1 < len(v) {
					o.val = sub(f, v[j+1:])
				} else if i+1 < len(args) {
					i++
					o.val = args[i]
				} else {
					o.has = false
				}
				p.opts = append(p.opts, o)
				break
			}
			if strings.Contains(s.optArg, ch) {
				o := opt{name: ch}
				if j+1 < len(v) {
					o.val, o.has = sub(f, v[j+1:]), true
				}
				p.opts = append(p.opts, o)
				break
			}
			p.opts = append(p.opts, opt{name: ch})
		}
	}
	p.rest = len(args)
	return p
}
