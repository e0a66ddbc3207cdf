package shell

import (
	"bytes"
	"encoding/base64"
	"strings"
	"unicode/utf16"

	"mvdan.cc/sh/v3/syntax"
)

// PowerShell code (pwsh -Command, -EncodedCommand) is read with the shell
// parser, which accepts the simple pipelines agents write, and its
// cmdlets are translated to the programs that do the same (Remove-Item
// -Recurse is rm -r, Invoke-WebRequest is curl, Invoke-Expression is eval
// or, fed by a pipe, a shell reading its stdin). Code the parser cannot
// read is dynamic (ask).

// pwshAction is what a cmdlet does, as the program that does the same.
type pwshAction struct {
	prog string
	path []string // parameters that name paths (or URLs)
}

var pwshCmdlets = map[string]pwshAction{
	"remove-item": {"rm", []string{"path", "literalpath"}}, "ri": {"rm", []string{"path", "literalpath"}},
	"rm": {"rm", []string{"path", "literalpath"}}, "del": {"rm", []string{"path", "literalpath"}},
	"erase": {"rm", []string{"path", "literalpath"}}, "rd": {"rm", []string{"path", "literalpath"}},
	"rmdir":       {"rm", []string{"path", "literalpath"}},
	"set-content": {"tee", []string{"path", "literalpath"}}, "sc": {"tee", []string{"path", "literalpath"}},
	"add-content": {"tee", []string{"path", "literalpath"}}, "ac": {"tee", []string{"path", "literalpath"}},
	"out-file": {"tee", []string{"filepath", "literalpath"}}, "new-item": {"touch", []string{"path"}}, "ni": {"touch", []string{"path"}},
	"clear-content": {"truncate", []string{"path", "literalpath"}}, "clc": {"truncate", []string{"path", "literalpath"}},
	"get-content": {"cat", []string{"path", "literalpath"}}, "gc": {"cat", []string{"path", "literalpath"}},
	"cat": {"cat", []string{"path", "literalpath"}}, "type": {"cat", []string{"path", "literalpath"}},
	"copy-item": {"cp", []string{"path", "literalpath", "destination"}}, "copy": {"cp", []string{"path", "literalpath", "destination"}},
	"cp": {"cp", []string{"path", "literalpath", "destination"}}, "cpi": {"cp", []string{"path", "literalpath", "destination"}},
	"move-item": {"mv", []string{"path", "literalpath", "destination"}}, "move": {"mv", []string{"path", "literalpath", "destination"}},
	"mv": {"mv", []string{"path", "literalpath", "destination"}}, "mi": {"mv", []string{"path", "literalpath", "destination"}},
	"invoke-webrequest": {"curl", []string{"uri", "outfile", "infile"}}, "iwr": {"curl", []string{"uri", "outfile", "infile"}},
	"invoke-restmethod": {"curl", []string{"uri", "outfile", "infile"}}, "irm": {"curl", []string{"uri", "outfile", "infile"}},
	"wget": {"curl", []string{"uri", "outfile"}}, "curl": {"curl", []string{"uri", "outfile"}},
	"invoke-expression": {"eval", []string{"command"}}, "iex": {"eval", []string{"command"}},
	"start-process": {"", []string{"filepath", "argumentlist"}}, "saps": {"", []string{"filepath", "argumentlist"}},
	"start": {"", []string{"filepath", "argumentlist"}}, "invoke-item": {"xdg-open", []string{"path"}}, "ii": {"xdg-open", []string{"path"}},
}

// pwshCode judges PowerShell code.
func (k *call) pwshCode(code field) {
	if l := strings.ToLower(code.val); (hasWord(l, "iex") || strings.Contains(l, "invoke-expression")) &&
		(hasAny(l, []string{"irm ", "iwr ", "invoke-restmethod", "invoke-webrequest", "downloadstring", "net.webclient", "http://", "https://"})) {
		// iex (irm URL), Invoke-Expression (New-Object Net.WebClient).DownloadString(URL)
		k.remoteExec(k.name + " evaluates code fetched from the network")
		return
	}
	f, err := parseShell(code.val)
	if err != nil {
		k.dynamicExec(k.name + " runs PowerShell code that cannot be analysed")
		return
	}
	changed := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
			changed = pwshTranslate(ce) || changed
		}
		if bc, ok := n.(*syntax.BinaryCmd); ok && (bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) {
			// iwr URL | iex: the expression reads its code from the pipe
			if ce, ok := bc.Y.Cmd.(*syntax.CallExpr); ok && len(ce.Args) == 1 {
				if n := strings.ToLower(ce.Args[0].Lit()); n == "iex" || n == "invoke-expression" || n == "eval" {
					ce.Args[0] = litWord("sh")
					changed = true
				}
			}
		}
		return true
	})
	src := code.val
	if changed {
		var b bytes.Buffer
		if err := syntax.NewPrinter().Print(&b, f); err != nil {
			k.dynamicExec(k.name + " runs PowerShell code that cannot be analysed")
			return
		}
		src = b.String()
	}
	k.nested(sub(plain(code), src), k.name+" -Command", nil, false)
}

func litWord(s string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: s}}}
}

// pwshTranslate rewrites one cmdlet call to the program that does the
// same; other Verb-Noun cmdlets become ":" (they run no program).
func pwshTranslate(ce *syntax.CallExpr) bool {
	name := strings.ToLower(ce.Args[0].Lit())
	if name == "" {
		return false
	}
	act, ok := pwshCmdlets[name]
	if !ok {
		if strings.Contains(name, "-") && !strings.HasPrefix(name, "-") {
			ce.Args = []*syntax.Word{litWord(":")}
			return true
		}
		return false
	}
	var paths, flags []*syntax.Word
	var argList []*syntax.Word
	prog := act.prog
	args := ce.Args[1:]
	for i := 0; i < len(args); i++ {
		w := args[i]
		p := strings.ToLower(w.Lit())
		if !strings.HasPrefix(p, "-") || len(p) < 2 {
			paths = append(paths, w)
			continue
		}
		p = strings.TrimSuffix(p[1:], ":")
		switch {
		case strings.HasPrefix("recurse", p) && len(p) >= 1 && p[0] == 'r':
			flags = append(flags, litWord("-r"))
		case strings.HasPrefix("force", p) && len(p) >= 2:
			if prog == "rm" || prog == "cp" || prog == "mv" {
				flags = append(flags, litWord("-f"))
			}
		case contains(act.path, p) || pwshPrefix(act.path, p):
			if i+1 < len(args) {
				i++
				if p == "argumentlist" || strings.HasPrefix("argumentlist", p) && p[0] == 'a' {
					argList = append(argList, args[i])
				} else if p == "outfile" && prog == "curl" {
					flags = append(flags, litWord("-o"), args[i])
				} else if p == "infile" && prog == "curl" {
					flags = append(flags, litWord("-T"), args[i])
				} else {
					paths = append(paths, args[i])
				}
			}
		case p == "method" || p == "body" || p == "headers" || p == "erroraction" || p == "encoding" || p == "value" || p == "itemtype" || p == "name" || p == "filter" || p == "include" || p == "exclude" || p == "credential" || p == "wait" || p == "verb" || p == "workingdirectory":
			if p != "wait" && i+1 < len(args) {
				i++
				if p == "value" && prog == "tee" {
					continue
				}
			}
		}
	}
	if prog == "" {
		// Start-Process: the program and its arguments
		if len(paths) == 0 {
			ce.Args = []*syntax.Word{litWord(":")}
			return true
		}
		ce.Args = append(paths[:1:1], append(argList, paths[1:]...)...)
		return true
	}
	if prog == "rm" {
		flags = append(flags, litWord("-f"))
	}
	out := []*syntax.Word{litWord(prog)}
	out = append(out, flags...)
	if prog != "eval" && prog != "curl" {
		out = append(out, litWord("--"))
	}
	ce.Args = append(out, paths...)
	return true
}

func pwshPrefix(params []string, p string) bool {
	for _, x := range params {
		if len(p) >= 2 && strings.HasPrefix(x, p) {
			return true
		}
	}
	return false
}

// pwshEncoded decodes -EncodedCommand: base64 of UTF-16LE text.
func pwshEncoded(s string) (string, bool) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b)%2 != 0 {
		return "", false
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u)), true
}

// pwsh models PowerShell's command line: -Command (the rest of the line,
// or stdin with -), -EncodedCommand (base64 of UTF-16LE), -File. Its
// parameters are case-insensitive and may be shortened.
func (k *call) pwsh() {
	args := k.args
	for i := 0; i < len(args); i++ {
		f := args[i]
		if !f.known {
			k.dynamicExec(k.name + " runs code not known at check time")
			return
		}
		v := strings.ToLower(f.val)
		if !strings.HasPrefix(v, "-") || v == "-" {
			if k.name == "pwsh" || k.name == "pwsh.exe" {
				k.script(f, false)
				k.runScript(f, "pwsh")
				return
			}
			k.pwshCommand(args[i:])
			return
		}
		p := strings.TrimLeft(v, "-/")
		switch {
		case p == "c" || len(p) >= 2 && strings.HasPrefix("command", p):
			k.pwshCommand(args[i+1:])
			return
		case p == "e" || p == "ec" || len(p) >= 2 && strings.HasPrefix("encodedcommand", p):
			if i+1 >= len(args) {
				return
			}
			k.eff(Effect{Kind: Exec, Reason: "inline code (" + k.name + ")"})
			code := args[i+1]
			txt, ok := pwshEncoded(code.val)
			if !code.known || !ok {
				k.dynamicExec(k.name + " runs an encoded command that cannot be decoded")
				return
			}
			k.inlineCode(sub(code, txt), "pwsh")
			return
		case p == "f" || len(p) >= 2 && strings.HasPrefix("file", p):
			if i+1 < len(args) {
				if a := args[i+1]; a.known && a.val == "-" {
					k.pwshCommand(args[i+1:])
					return
				}
				k.script(args[i+1], false)
				k.runScript(args[i+1], "pwsh")
			}
			return
		case p == "ex" || p == "ep" || strings.HasPrefix("executionpolicy", p) && len(p) > 2,
			p == "w" || strings.HasPrefix("windowstyle", p) && len(p) > 1,
			p == "wd" || strings.HasPrefix("workingdirectory", p) && len(p) > 2,
			p == "of" || strings.HasPrefix("outputformat", p) && len(p) > 1,
			p == "if" || strings.HasPrefix("inputformat", p) && len(p) > 1,
			p == "v" || strings.HasPrefix("version", p) && len(p) > 1,
			strings.HasPrefix("configurationname", p) && len(p) > 3, strings.HasPrefix("custompipename", p) && len(p) > 2,
			strings.HasPrefix("settingsfile", p) && len(p) > 1:
			i++
		}
	}
}

// pwshCommand judges -Command's code: the words joined, or stdin (-).
func (k *call) pwshCommand(words []field) {
	if len(words) == 0 {
		return
	}
	k.eff(Effect{Kind: Exec, Reason: "inline code (" + k.name + ")"})
	if words[0].known && words[0].val == "-" {
		k.stdinCode(false)
		if in := k.c.stdin; in.literal && !in.remote {
			k.inlineCode(lit(in.text), "pwsh")
		}
		return
	}
	code := joinCode(words)
	if code.remote {
		k.remoteExec(k.name + " runs code fetched from the network")
		return
	}
	if !code.known {
		k.dynamicExec(k.name + " runs code not known at check time: " + orDefault(code.reason, "dynamic"))
		return
	}
	k.inlineCode(code, "pwsh")
}

// hasWord reports whether w occurs in s as a word of its own.
func hasWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !isIdentChar(s[j-1])) && (end == len(s) || !isIdentChar(s[end])) {
			return true
		}
		i = j + 1
	}
}
