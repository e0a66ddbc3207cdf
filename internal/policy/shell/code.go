package shell

import (
	"path"
	"strings"
)

// This file finds, in inline programs of other languages, the calls that
// run other programs or code, and judges what they run:
//
//   - a shell command line (os.system("..."), `...`, qx{}, execSync,
//     os.execute, awk's system() and print | "sh") is analysed as shell
//     code;
//   - an argv (subprocess.run([...]), os.execvp("rm", [...]), perl's
//     system LIST, ruby's system("rm", "-rf", ...), node's spawnSync(cmd,
//     [args])) is analysed as that command;
//   - code of the same language (exec, eval, Function, load) is analysed
//     again when it is a literal;
//   - any of them fed from the network (exec(urlopen(...).read()),
//     eval(file_get_contents("https://..."))) is remote code.
//
// What the model cannot read statically is never allowed silently: a
// command or code built at run time (a variable, a concatenation, an
// interpolation, a decoded blob) is analysed with the unknown parts
// standing for values not known at check time, so destructive commands
// on them ask, and code that cannot be read at all is dynamic (ask).
// Calls whose name is ambiguous (run, call, spawn, exec on an object not
// known to be a process module) count only when given literals.

// sinkKind says how a call runs its arguments.
type sinkKind uint8

const (
	skShell         sinkKind = iota + 1 // arg 0 is a shell command line
	skShellArgv                         // one string: a command line; several strings or a list: an argv
	skArgvList                          // arg 0 is an argv list (a string: a command line)
	skProgList                          // arg 0 the program, arg 1 the list of its arguments
	skProgArgv0                         // arg 0 the program, arg 1 its argv including argv[0]
	skProgVar                           // arg 0 the program, args 1.. its argv including argv[0]
	skModeProgArgv0                     // a mode, then as skProgArgv0 (os.spawnv)
	skModeProgVar                       // a mode, then as skProgVar (os.spawnl)
	skArgs                              // the args are the argv (create_subprocess_exec)
	skEval                              // arg 0 is code of the same language
	skPipeOpen                          // perl's open with a pipe
	skCmdOption                         // an object whose cmd: list is the argv (Deno.run, Bun.spawn)
	skProgOption                        // arg 0 the program, arg 1 an object whose args: list are its arguments (Deno.Command)
	skDynamic                           // a call whose callee is computed (getattr(os, name))
)

// sinks are the calls, by language and resolved name, that run programs or code.
var sinks = map[string]map[string]sinkKind{
	"python": {
		"os.system": skShell, "os.popen": skShell, "os.popen2": skShell, "os.popen3": skShell, "os.popen4": skShell,
		"subprocess.getoutput": skShell, "subprocess.getstatusoutput": skShell, "commands.getoutput": skShell,
		"commands.getstatusoutput": skShell, "asyncio.create_subprocess_shell": skShell, "platform.popen": skShell,
		"subprocess.run": skArgvList, "subprocess.call": skArgvList, "subprocess.check_call": skArgvList,
		"subprocess.check_output": skArgvList, "subprocess.Popen": skArgvList, "pty.spawn": skArgvList,
		"os.execv": skProgArgv0, "os.execve": skProgArgv0, "os.execvp": skProgArgv0, "os.execvpe": skProgArgv0,
		"os.posix_spawn": skProgArgv0, "os.posix_spawnp": skProgArgv0,
		"os.execl": skProgVar, "os.execle": skProgVar, "os.execlp": skProgVar, "os.execlpe": skProgVar,
		"os.spawnv": skModeProgArgv0, "os.spawnve": skModeProgArgv0, "os.spawnvp": skModeProgArgv0, "os.spawnvpe": skModeProgArgv0,
		"os.spawnl": skModeProgVar, "os.spawnle": skModeProgVar, "os.spawnlp": skModeProgVar, "os.spawnlpe": skModeProgVar,
		"asyncio.create_subprocess_exec": skArgs,
		"exec":                           skEval, "eval": skEval, "compile": skEval, "builtins.exec": skEval, "builtins.eval": skEval,
		"pickle.loads": skEval, "marshal.loads": skEval, "runpy.run_path": skEval,
		"os.__dynamic__": skDynamic, "subprocess.__dynamic__": skDynamic, "builtins.__dynamic__": skDynamic, "pty.__dynamic__": skDynamic,
	},
	"js": {
		"child_process.exec": skShell, "child_process.execSync": skShell,
		"child_process.execFile": skProgList, "child_process.execFileSync": skProgList,
		"child_process.spawn": skProgList, "child_process.spawnSync": skProgList, "child_process.fork": skProgList,
		"Bun.spawn": skArgvList, "Bun.spawnSync": skArgvList, "Bun.$": skShell, "$": skShell,
		"Deno.run": skCmdOption, "Deno.Command": skProgOption,
		"eval": skEval, "Function": skEval, "vm.runInThisContext": skEval, "vm.runInNewContext": skEval,
		"vm.runInContext": skEval, "vm.Script": skEval, "child_process.__dynamic__": skDynamic,
		"process.binding": skDynamic, "process._linkedBinding": skDynamic, "process.dlopen": skDynamic,
	},
	"ruby": {
		"system": skShellArgv, "exec": skShellArgv, "spawn": skShellArgv, "Kernel.system": skShellArgv,
		"Kernel.exec": skShellArgv, "Kernel.spawn": skShellArgv, "Process.spawn": skShellArgv, "Process.exec": skShellArgv,
		"IO.popen": skShellArgv, "Open3.popen3": skShellArgv, "Open3.popen2": skShellArgv, "Open3.popen2e": skShellArgv,
		"Open3.capture2": skShellArgv, "Open3.capture2e": skShellArgv, "Open3.capture3": skShellArgv,
		"Open3.pipeline": skShellArgv, "Open3.pipeline_r": skShellArgv, "Open3.pipeline_w": skShellArgv, "PTY.spawn": skShellArgv,
		"Kernel.__dynamic__": skDynamic,
		"eval":               skEval, "Kernel.eval": skEval, "instance_eval": skEval, "class_eval": skEval, "module_eval": skEval,
		"binding.eval": skEval, "RubyVM.InstructionSequence.compile": skEval,
	},
	"perl": {
		"system": skShellArgv, "exec": skShellArgv, "readpipe": skShell, "open": skPipeOpen,
		"IPC.Open3.open3": skShellArgv, "IPC.Open2.open2": skShellArgv, "open3": skShellArgv, "open2": skShellArgv,
		"eval": skEval,
	},
	"php": {
		"system": skShell, "exec": skShell, "shell_exec": skShell, "passthru": skShell, "popen": skShell,
		"proc_open": skArgvList, "pcntl_exec": skProgList, "eval": skEval, "assert": skEval, "create_function": skEval,
		"include": skEval, "include_once": skEval, "require": skEval, "require_once": skEval,
	},
	"lua": {
		"os.execute": skShell, "io.popen": skShell, "load": skEval, "loadstring": skEval,
	},
	"r": {
		"system": skShell, "shell": skShell, "pipe": skShell, "eval": skEval, "source": skEval, "system2": skProgList,
		"processx.run": skProgList, "sys.exec_wait": skProgList, "sys.exec_background": skProgList,
	},
	"julia": {
		"run": skShell, "read": skShell, "pipeline": skShell, "eval": skEval, "include_string": skEval,
	},
	"awk": {
		"system": skShell,
	},
	"vim": {
		"system": skShell, "systemlist": skShell, "job_start": skArgvList, "jobstart": skArgvList, "termopen": skArgvList,
		"term_start": skArgvList, "execute": skDynamic,
	},
	"c": {
		"system": skShell, "popen": skShell, "execl": skProgVar, "execlp": skProgVar, "execv": skProgArgv0, "execvp": skProgArgv0,
	},
}

// weakSinks are sinks known only by their last name: they count when
// given literals (x.run("rm -rf ~") may be anything; with a literal
// command line it is judged as one).
var weakSinks = map[string]sinkKind{
	"system": skShellArgv, "popen": skShell, "check_output": skArgvList, "check_call": skArgvList,
	"getoutput": skShell, "Popen": skArgvList, "run": skArgvList, "call": skArgvList, "spawn": skProgList,
	"spawnSync": skProgList, "execSync": skShell, "execFileSync": skProgList, "execFile": skProgList, "exec": skShell,
	"shell_exec": skShell, "passthru": skShell, "proc_open": skShell, "capture2": skShellArgv, "capture2e": skShellArgv,
	"capture3": skShellArgv, "popen3": skShellArgv, "execute": skShell,
}

// fetchWords mark an expression that reads from the network.
var fetchWords = []string{"urlopen", "urlretrieve", "requests.", "httpx.", "urllib", "curl_exec", "URI.open", "open-uri",
	"Net.HTTP", "HTTParty", "Faraday", "LWP", "HTTP.Tiny", "getstore", "fetch", "axios", "http.get", "https.get",
	"http.request", "https.request", "socket.http", "Invoke-WebRequest", "WebClient", "download", "recv"}

// codeVal is the value of an argument expression, as far as it is known.
type codeVal struct {
	kind    byte // 's' string, 'l' list, 'o' object {...}, 'k' keyword argument, 'x' anything else
	s       string
	partial bool // s holds codePH for parts computed at run time
	list    []codeVal
	toks    []ctok
	fetch   bool
}

// codeScan is one program being read.
type codeScan struct {
	k       *call
	code    field
	lang    string
	label   string
	depth   int
	toks    []ctok
	alias   map[string]string
	star    []string
	vars    map[string]codeVal
	multi   map[string]bool
	tainted map[string]bool
	imports []string  // modules imported by name (python)
	walked  *[]string // walkRoots, once computed
	// funcVals are variables assigned a function literal (perl's sub {…},
	// php's function () {…} and fn () =>): calling one calls the code's own
	// function
	funcVals map[string]bool
}

// maxCodeDepth bounds eval-of-a-literal recursion in inline code.
const maxCodeDepth = 3

// codeLang maps an interpreter's model name to the language its code is in.
func codeLang(lang string) string {
	switch lang {
	case "node", "nodejs", "deno", "bun", "ts-node", "tsx", "js":
		return "js"
	case "lua", "luajit":
		return "lua"
	case "Rscript", "R", "r":
		return "r"
	case "tclsh", "wish", "expect", "tcl":
		return "tcl"
	case "osascript":
		return "applescript"
	case "pwsh", "powershell":
		return "pwsh"
	case "gawk", "mawk", "nawk":
		return "awk"
	}
	return lang
}

// codeSinks judges the calls of inline code that run programs or code.
// It returns the program's scan (nil for the languages read elsewhere),
// whose imports say which modules the code uses under which names.
func (k *call) codeSinks(code field, lang string, depth int) *codeScan {
	lang = codeLang(lang)
	switch lang {
	case "tcl":
		k.tclCode(code, code.val, depth)
		return nil
	case "applescript":
		k.appleScript(code)
		return nil
	case "pwsh":
		k.pwshCode(code)
		return nil
	}
	toks, ok := lexCode(code.val, lang)
	if !ok {
		k.dynamicExec(k.name + " runs inline code too long to analyse")
		return nil
	}
	s := &codeScan{k: k, code: code, lang: lang, label: k.name + " -c", depth: depth,
		alias: map[string]string{}, vars: map[string]codeVal{}, multi: map[string]bool{}, tainted: map[string]bool{}}
	if lang == "python" {
		s.pyImportAliases(toks)
	}
	s.toks = s.normalise(foldConcat(toks, lang))
	// the interpreter's own path is the interpreter: subprocess.run([
	// sys.executable, "-m", "pytest"]) runs python
	switch lang {
	case "python":
		s.vars["sys.executable"] = codeVal{kind: 's', s: "python3"}
	case "js":
		s.vars["process.execPath"] = codeVal{kind: 's', s: "node"}
	case "perl":
		s.vars["$^X"] = codeVal{kind: 's', s: "perl"}
	}
	for n, f := range k.codeVars {
		if f.known {
			s.vars[n] = codeVal{kind: 's', s: homeVal(f.val)}
		}
	}
	s.bindings()
	s.scan()
	if lang == "awk" {
		s.awkPipes()
	}
	return s
}

// normalise rewrites the ways a callee is named indirectly to its name:
// require("child_process"), __import__("os"), getattr(os, "system"),
// obj["exec"], obj.send(:system, ...), method(:system).call(...).
func (s *codeScan) normalise(in []ctok) []ctok {
	out := make([]ctok, 0, len(in))
	isP := func(i int, v string) bool { return i < len(in) && in[i].kind == cPunct && in[i].val == v }
	isS := func(i int) bool { return i < len(in) && in[i].kind == cStr && !in[i].interp }
	for i := 0; i < len(in); i++ {
		t := in[i]
		if t.kind == cIdent && (s.lang == "python" || s.lang == "js") {
			if o, j, ok := s.pyReflect(in, i, out); ok {
				out, i = o, j
				continue
			}
		}
		if t.kind == cIdent {
			switch last := lastName(t.val); {
			case (t.val == "require" || t.val == "__import__" || last == "import_module") && isP(i+1, "(") && isS(i+2) && isP(i+3, ")"):
				// a module by name
				out = appendIdent(out, ctok{kind: cIdent, val: strings.TrimPrefix(in[i+2].val, "node:")})
				i += 3
				continue
			case (t.val == "require" && s.lang == "js" || (t.val == "__import__" || last == "import_module") && s.lang == "python") && isP(i+1, "("):
				// a module whose name is computed at run time: what is
				// called on it cannot be known
				if j := closeParen(in, i+1); j > 0 {
					out = appendIdent(out, ctok{kind: cIdent, val: dynName})
					i = j
					continue
				}
			case t.val == "getattr" && s.lang == "python" && isP(i+1, "(") && !(i+2 < len(in) && in[i+2].kind == cIdent && isP(i+3, ",")):
				// getattr(EXPR, NAME): the object is an expression
				// (__import__("os"), sys.modules["os"])
				if j := closeParen(in, i+1); j > 0 {
					if args := splitArgs(in[i+2 : j]); len(args) >= 2 {
						obj := s.normalise(args[0])
						switch {
						case len(obj) == 1 && obj[0].kind == cIdent && len(args[1]) == 1 && args[1][0].kind == cStr && !args[1][0].interp:
							out = appendIdent(out, ctok{kind: cIdent, val: s.resolve(obj[0].val) + "." + args[1][0].val})
						case len(obj) == 1 && obj[0].kind == cIdent:
							out = appendIdent(out, ctok{kind: cIdent, val: s.resolve(obj[0].val) + "." + dynName})
						case len(args[1]) == 1 && args[1][0].kind == cStr && !args[1][0].interp:
							out = append(out, in[i:j+1]...)
						default:
							out = appendIdent(out, ctok{kind: cIdent, val: dynName})
						}
						i = j
						continue
					}
				}
			case last == "promisify" && s.lang == "js" && isP(i+1, "("):
				// util.promisify(cp.exec) is cp.exec, awaited
				if j := closeParen(in, i+1); j > i+2 {
					if inner := s.normalise(in[i+2 : j]); len(inner) == 1 && inner[0].kind == cIdent {
						out = appendIdent(out, inner[0])
						i = j
						continue
					}
				}
			case (t.val == "vars" || t.val == "globals" || t.val == "locals") && s.lang == "python" && isP(i+1, "("):
				// vars(os)["system"] is os.system; globals()["x"] a name in scope
				j := closeParen(in, i+1)
				switch {
				case t.val == "vars" && j == i+3 && in[i+2].kind == cIdent:
					out = appendIdent(out, ctok{kind: cIdent, val: in[i+2].val})
					i = j
					continue
				case t.val != "vars" && j == i+2:
					out = appendIdent(out, ctok{kind: cIdent, val: "builtins"})
					i = j
					continue
				}
			case t.val == "__builtins__" || strings.HasSuffix(t.val, ".__builtins__"):
				out = appendIdent(out, ctok{kind: cIdent, val: "builtins"})
				continue
			case strings.HasSuffix(t.val, ".__dict__") && s.lang == "python":
				out = appendIdent(out, ctok{kind: cIdent, val: strings.TrimSuffix(t.val, ".__dict__")})
				continue
			case (t.val == "array_map") && s.lang == "php" && isP(i+1, "(") && isS(i+2) && isP(i+3, ","):
				// array_map("unlink", $files) calls unlink on each of them
				out = appendIdent(out, ctok{kind: cIdent, val: in[i+2].val})
				out = append(out, ctok{kind: cPunct, val: "("})
				i += 3
				continue
			case (t.val == "array_walk" || t.val == "array_filter" || t.val == "usort" || t.val == "uasort" || t.val == "uksort" || t.val == "iterator_apply") &&
				s.lang == "php" && isP(i+1, "("):
				// array_walk($files, "unlink"): the callable comes last
				if j := closeParen(in, i+1); j > i+3 && isS(j-1) && isP(j-2, ",") {
					out = appendIdent(out, ctok{kind: cIdent, val: in[j-1].val})
					out = append(out, ctok{kind: cPunct, val: "("})
					out = append(out, in[i+2:j-2]...)
					out = append(out, ctok{kind: cPunct, val: ")"})
					i = j
					continue
				}
			case (t.val == "call_user_func" || t.val == "call_user_func_array" || t.val == "forward_static_call") && s.lang == "php" && isP(i+1, "("):
				// call_user_func("system", "…") calls system("…")
				if isS(i + 2) {
					out = appendIdent(out, ctok{kind: cIdent, val: in[i+2].val})
					out = append(out, ctok{kind: cPunct, val: "("})
					i += 2
					if isP(i+1, ",") {
						i++
					}
					if t.val == "call_user_func_array" && isP(i+1, "[") {
						// call_user_func_array("f", [a, b]) is f(a, b)
						if k := closeParen(in, i+1); k > i+1 {
							out = append(out, in[i+2:k]...)
							i = k
						}
					}
					continue
				}
				out = appendIdent(out, ctok{kind: cIdent, val: dynName})
				continue
			case (last == "send" || last == "public_send" || last == "__send__" || t.val == "method") && s.lang == "ruby" && isP(i+1, "(") &&
				!(isS(i+2) && (isP(i+3, ",") || isP(i+3, ")"))) && !isP(i+2, ":") && !isP(i+2, ")"):
				// (a symbol of an operator, x.send(:+, 1), names no program)
				// obj.send(name, …) with a name computed at run time
				out = appendIdent(out, ctok{kind: cIdent, val: dynName})
				out = append(out, ctok{kind: cPunct, val: "("})
				j := i + 2
				for depth := 0; j < len(in); j++ {
					if in[j].kind != cPunct {
						continue
					}
					if v := in[j].val; v == "(" || v == "[" || v == "{" {
						depth++
					} else if v == ")" || v == "]" || v == "}" {
						if depth == 0 {
							break
						}
						depth--
					} else if v == "," && depth == 0 {
						break
					}
				}
				if j < len(in) && in[j].kind == cPunct && in[j].val == "," {
					i = j
				} else {
					i = j - 1
				}
				continue
			case t.val == "getattr" && isP(i+1, "(") && i+2 < len(in) && in[i+2].kind == cIdent && isP(i+3, ","):
				if isS(i+4) && isP(i+5, ")") {
					out = appendIdent(out, ctok{kind: cIdent, val: s.resolve(in[i+2].val) + "." + in[i+4].val})
					i += 5
					continue
				}
				if j := closeParen(in, i+1); j > 0 {
					out = appendIdent(out, ctok{kind: cIdent, val: s.resolve(in[i+2].val) + ".__dynamic__"})
					i = j
					continue
				}
			case (last == "send" || last == "public_send" || last == "__send__") && isP(i+1, "(") && isS(i+2) && (isP(i+3, ",") || isP(i+3, ")")):
				recv := strings.TrimSuffix(t.val, "."+last)
				if recv == t.val {
					recv = ""
				}
				name := in[i+2].val
				if recv != "" {
					name = recv + "." + name
				}
				out = appendIdent(out, ctok{kind: cIdent, val: name})
				out = append(out, ctok{kind: cPunct, val: "("})
				i += 2
				if isP(i+1, ",") {
					i++
				}
				continue
			case t.val == "method" && isP(i+1, "(") && isS(i+2) && isP(i+3, ")"):
				out = appendIdent(out, ctok{kind: cIdent, val: in[i+2].val})
				i += 3
				if isP(i+1, ".") && i+2 < len(in) && in[i+2].kind == cIdent && in[i+2].val == "call" {
					i += 2
				}
				continue
			}
		}
		if t.kind == cPunct && t.val == "[" && isS(i+1) && isP(i+2, "]") && len(out) > 0 && out[len(out)-1].kind == cIdent {
			// obj["name"]: a member by name
			out[len(out)-1].val += "." + in[i+1].val
			if strings.HasSuffix(out[len(out)-1].val, ".__builtins__") {
				out[len(out)-1].val = "builtins" // globals()["__builtins__"]
			}
			i += 2
			continue
		}
		if t.kind == cPunct && t.val == "[" && len(out) > 0 && out[len(out)-1].kind == cIdent {
			// child_process["exec" + "Sync"](…), os.__dict__[name]: a
			// member chosen at run time (dynamic when the object is a
			// module that runs programs; see sinkOf)
			if j := closeParen(in, i); j > 0 && (isP(j+1, "(") || s.runsModule(out[len(out)-1].val)) {
				out[len(out)-1].val += "." + dynName
				i = j
				continue
			}
		}
		if s.lang == "perl" && t.kind == cPunct {
			switch {
			case t.val == "\\" && isP(i+1, "&") && i+2 < len(in) && in[i+2].kind == cIdent:
				// \&CORE::system: a reference to the function is the function
				i++
				continue
			case t.val == "&" && isP(i+1, "{"):
				// &{"name"}(…): a function named by a string
				if j := closeParen(in, i+1); j > 0 {
					if j == i+3 && isS(i+2) {
						out = appendIdent(out, ctok{kind: cIdent, val: in[i+2].val})
					} else {
						out = appendIdent(out, ctok{kind: cIdent, val: dynName})
					}
					i = j
					continue
				}
			case t.val == "&" && i+1 < len(in) && in[i+1].kind == cIdent && strings.HasPrefix(in[i+1].val, "$") && (len(out) == 0 || out[len(out)-1].kind != cIdent):
				continue // &$f(…) calls what $f holds
			case t.val == "->" && isP(i+1, "(") && len(out) > 0 && out[len(out)-1].kind == cIdent:
				continue // $f->(…) calls what $f holds
			}
		}
		if t.kind == cIdent && len(out) >= 2 && out[len(out)-2].kind == cIdent && out[len(out)-1].kind == cPunct &&
			(out[len(out)-1].val == "." || out[len(out)-1].val == "->" || out[len(out)-1].val == "::") {
			out = out[:len(out)-1]
			out[len(out)-1].val += "." + t.val
			continue
		}
		out = append(out, t)
	}
	return out
}

// appendIdent appends an identifier, joining it to a preceding "x." chain.
func appendIdent(out []ctok, t ctok) []ctok {
	if len(out) >= 2 && out[len(out)-2].kind == cIdent && out[len(out)-1].kind == cPunct && out[len(out)-1].val == "." {
		out = out[:len(out)-1]
		out[len(out)-1].val += "." + t.val
		return out
	}
	return append(out, t)
}

// closeParen returns the index of the ")" matching the "(" at i, or -1.
func closeParen(ts []ctok, i int) int {
	depth := 0
	for j := i; j < len(ts); j++ {
		if ts[j].kind != cPunct {
			continue
		}
		switch ts[j].val {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// resolve maps a name through the imports and aliases of the program.
func (s *codeScan) resolve(n string) string {
	n = strings.TrimPrefix(n, "new.")
	switch {
	case s.lang == "python" && (n == "__builtins__" || strings.HasPrefix(n, "__builtins__.")):
		n = "builtins" + n[len("__builtins__"):]
	case s.lang == "js":
		// globalThis.eval, window["eval"], global.process: the global object's members are the globals
		for _, g := range []string{"globalThis.", "global.", "window.", "self."} {
			if rest, ok := strings.CutPrefix(n, g); ok && rest != "" {
				n = rest
				break
			}
		}
	}
	if a, ok := s.alias[n]; ok {
		return a
	}
	first, rest, dotted := strings.Cut(n, ".")
	if a, ok := s.alias[first]; ok && dotted {
		return a + "." + rest
	}
	return n
}

// sinkOf returns the sink a resolved name is, and whether it is strong
// (known for what it is, not only by its last name).
func (s *codeScan) sinkOf(n string) (sinkKind, bool) {
	if n == dynName || strings.HasPrefix(n, dynName+".") {
		return skDynamic, true // a function of a module chosen at run time
	}
	if obj, ok := strings.CutSuffix(n, "."+dynName); ok && (s.runsModule(obj) || strings.HasPrefix(obj, dynName)) {
		return skDynamic, true // a function of a module that runs programs, chosen at run time
	}
	if obj, _, ok := strings.Cut(n, "."+dynName+"."); ok && s.runsModule(obj) {
		return skDynamic, true // vars(os).items(): a module's namespace walked for a function
	}
	tab := sinks[s.lang]
	if sk, ok := tab[n]; ok {
		return sk, true
	}
	for _, m := range s.star {
		if sk, ok := tab[m+"."+n]; ok {
			return sk, true
		}
	}
	if s.lang == "perl" || s.lang == "php" {
		if sk, ok := tab[strings.TrimPrefix(n, "CORE.")]; ok {
			return sk, true
		}
	}
	if sk, ok := weakSinks[lastName(n)]; ok {
		return sk, false
	}
	return 0, false
}

// dynName stands for a name computed at run time: a module imported by a
// computed name (__import__(x), require(x)), a member chosen by one
// (getattr(os, x), cp[x], obj.send(x, …), &{$x}). Calling it, or a member
// of it, runs a function not known at check time (dynamic).
const dynName = "__dynamic__"

// runsModule reports whether a resolved name is a module whose members run
// programs or code (os, subprocess, child_process, builtins, Kernel, …).
func (s *codeScan) runsModule(n string) bool {
	if isProcModule(n) || n == "builtins" {
		return true
	}
	_, ok := sinks[s.lang][n+"."+dynName]
	return ok
}

// bindings reads imports, module aliases and variables assigned literal
// values (or values fetched from the network).
func (s *codeScan) bindings() {
	ts := s.toks
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		if t.kind != cIdent {
			continue
		}
		stmtStart := i == 0 || ts[i-1].kind == cEnd || ts[i-1].kind == cPunct && (ts[i-1].val == "{" || ts[i-1].val == "}") ||
			s.lang == "js" && ts[i-1].kind == cPunct && ts[i-1].val == "," && i+1 < len(ts) && ts[i+1].kind == cPunct && ts[i+1].val == "="
		switch {
		case s.lang == "python" && stmtStart && t.val == "import":
			// import a.b as c, d
			for j := i + 1; j < len(ts) && ts[j].kind != cEnd; j++ {
				if ts[j].kind == cIdent && len(s.imports) < 16 {
					s.imports = append(s.imports, ts[j].val)
				}
				if ts[j].kind == cIdent && j+2 < len(ts) && ts[j+1].kind == cIdent && ts[j+1].val == "as" && ts[j+2].kind == cIdent {
					s.alias[ts[j+2].val] = ts[j].val
					j += 2
				}
			}
		case s.lang == "python" && stmtStart && t.val == "from" && i+2 < len(ts) && ts[i+1].kind == cIdent && ts[i+2].kind == cIdent && ts[i+2].val == "import":
			mod := ts[i+1].val
			if len(s.imports) < 16 {
				s.imports = append(s.imports, mod)
			}
			for j := i + 3; j < len(ts) && ts[j].kind != cEnd; j++ {
				switch {
				case ts[j].kind == cPunct && ts[j].val == "*":
					s.star = append(s.star, mod)
				case ts[j].kind == cIdent && ts[j].val != "as":
					name := ts[j].val
					if j+2 < len(ts) && ts[j+1].kind == cIdent && ts[j+1].val == "as" && ts[j+2].kind == cIdent {
						s.alias[ts[j+2].val] = mod + "." + name
						j += 2
					} else {
						s.alias[name] = mod + "." + name
					}
				}
			}
		case s.lang == "js" && t.val == "import" && stmtStart:
			s.jsImport(i)
		case s.lang == "js" && (t.val == "const" || t.val == "let" || t.val == "var") && i+3 < len(ts) &&
			ts[i+1].kind == cPunct && ts[i+1].val == "{":
			// const { execSync, spawn: sp } = child_process
			j := closeParen(ts, i+1)
			if j > 0 && j+2 < len(ts) && ts[j+1].kind == cPunct && ts[j+1].val == "=" && ts[j+2].kind == cIdent {
				mod := s.resolve(ts[j+2].val)
				for m := i + 2; m < j; m++ {
					if ts[m].kind != cIdent {
						continue
					}
					name, local := ts[m].val, ts[m].val
					if m+2 < j && ts[m+1].kind == cPunct && ts[m+1].val == ":" && ts[m+2].kind == cIdent {
						local = ts[m+2].val
						m += 2
					}
					s.alias[local] = mod + "." + name
				}
			}
		}
		// NAME = value
		name := t.val
		j := i + 1
		if (name == "my" || name == "local" || name == "our" || name == "const" || name == "let" || name == "var") && j < len(ts) && ts[j].kind == cIdent {
			name = ts[j].val
			j++
		}
		if j >= len(ts) || ts[j].kind != cPunct || ts[j].val != "=" || !stmtStart {
			continue
		}
		e := j + 1
		for e < len(ts) && ts[e].kind != cEnd && !(ts[e].kind == cPunct && (ts[e].val == "}" || ts[e].val == ",")) {
			e++
		}
		if e-j-1 == 1 && ts[j+1].kind == cIdent && ts[j+1].val != name && !s.known(ts[j+1].val) {
			// f = os.system, run = subprocess.run, m = __import__(x): the
			// name is what it is bound to
			if r := s.resolve(ts[j+1].val); r != name {
				s.alias[name] = r
			}
		}
		if j+1 < len(ts) && ts[j+1].kind == cIdent && (ts[j+1].val == "sub" || ts[j+1].val == "function" || ts[j+1].val == "fn" || ts[j+1].val == "static") {
			if s.funcVals == nil {
				s.funcVals = map[string]bool{}
			}
			s.funcVals[name] = true
		}
		v := s.eval(ts[j+1 : e])
		if v.fetch {
			s.tainted[name] = true
		}
		if _, seen := s.vars[name]; seen || s.multi[name] {
			s.multi[name] = true
			delete(s.vars, name)
			continue
		}
		if v.kind == 's' || v.kind == 'l' {
			s.vars[name] = v
		}
	}
}

func isProcModule(n string) bool {
	switch n {
	case "os", "subprocess", "child_process", "pty", "asyncio", "commands", "Open3", "Process", "Kernel",
		"path", "fs", "fs.promises", "fs/promises", "shutil", "pathlib", "FileUtils":
		return true
	}
	return false
}

// jsImport reads import X from "m", import * as X from "m", import { a,
// b as c } from "m".
func (s *codeScan) jsImport(i int) {
	ts := s.toks
	end := i + 1
	for end < len(ts) && ts[end].kind != cEnd {
		end++
	}
	mod := ""
	for j := i + 1; j < end; j++ {
		if ts[j].kind == cIdent && ts[j].val == "from" && j+1 < end && ts[j+1].kind == cStr {
			mod = strings.TrimPrefix(ts[j+1].val, "node:")
			end = j
		}
	}
	if mod == "" {
		return
	}
	for j := i + 1; j < end; j++ {
		if ts[j].kind != cIdent {
			continue
		}
		switch {
		case ts[j].val == "as" && j+1 < end && ts[j+1].kind == cIdent:
			prev := ""
			if j > 0 && ts[j-1].kind == cIdent {
				prev = ts[j-1].val
			}
			if prev != "" {
				s.alias[ts[j+1].val] = mod + "." + prev
			} else {
				s.alias[ts[j+1].val] = mod
			}
			j++
		case j+1 < end && ts[j+1].kind == cIdent && ts[j+1].val == "as":
		default:
			inBraces := false
			for m := i + 1; m < j; m++ {
				if ts[m].kind == cPunct && ts[m].val == "{" {
					inBraces = true
				}
				if ts[m].kind == cPunct && ts[m].val == "}" {
					inBraces = false
				}
			}
			if inBraces {
				s.alias[ts[j].val] = mod + "." + ts[j].val
			} else {
				s.alias[ts[j].val] = mod
			}
		}
	}
	if j := i + 1; j+1 < end && ts[j].kind == cPunct && ts[j].val == "*" {
		// import * as cp from: handled by "as" above
		return
	}
}

// isFetch reports whether tokens read from the network.
func (s *codeScan) isFetch(ts []ctok) bool {
	for _, t := range ts {
		switch t.kind {
		case cCmd:
			// `curl -s URL`, qx{wget -qO- URL}: a command that downloads
			if fs := strings.Fields(t.val); len(fs) > 0 && fetchProgram(path.Base(fs[0])) {
				return true
			}
		case cStr:
			v := strings.ToLower(strings.TrimSpace(t.val))
			if strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") || strings.HasPrefix(v, "ftp://") {
				return true
			}
		case cIdent:
			if s.tainted[t.val] {
				return true
			}
			for _, w := range fetchWords {
				if strings.Contains(t.val, w) {
					return true
				}
			}
			if s.lang == "perl" && (t.val == "get" || t.val == "getprint") {
				return true
			}
		}
	}
	return false
}

// eval returns the value of one argument expression.
func (s *codeScan) eval(ts []ctok) codeVal {
	v := codeVal{kind: 'x', toks: ts, fetch: s.isFetch(ts)}
	if len(ts) == 0 {
		return v
	}
	if len(ts) == 1 && ts[0].kind == cWords {
		v.kind = 'l'
		for _, w := range strings.Fields(ts[0].val) {
			v.list = append(v.list, codeVal{kind: 's', s: w})
		}
		return v
	}
	if first, last := ts[0], ts[len(ts)-1]; first.kind == cPunct && last.kind == cPunct &&
		(first.val == "[" && last.val == "]" || first.val == "(" && last.val == ")" && (s.lang == "perl" || s.lang == "python")) &&
		closeParen(ts, 0) == len(ts)-1 {
		v.kind = 'l'
		for _, part := range splitArgs(ts[1 : len(ts)-1]) {
			v.list = append(v.list, s.eval(part))
		}
		return v
	}
	if first := ts[0]; first.kind == cPunct && first.val == "{" {
		v.kind = 'o'
		return v
	}
	if len(ts) >= 2 && ts[0].kind == cIdent && ts[1].kind == cPunct && (ts[1].val == "=" && s.lang == "python" || ts[1].val == "=>" || ts[1].val == ":") {
		v.kind = 'k'
		v.s = ts[0].val
		if ts[0].val == "args" || ts[0].val == "cmd" {
			v.list = []codeVal{s.eval(ts[2:])} // Popen(args=[…]): the argv by keyword
		}
		return v
	}
	if s.lang == "r" && len(ts) >= 3 && ts[0].kind == cIdent && ts[0].val == "c" && ts[1].kind == cPunct && ts[1].val == "(" && closeParen(ts, 1) == len(ts)-1 {
		// R's c("-rf", "x") is a vector
		v.kind = 'l'
		for _, part := range splitArgs(ts[2 : len(ts)-1]) {
			v.list = append(v.list, s.eval(part))
		}
		return v
	}
	var b strings.Builder
	strs, others := 0, false
	ph := func() {
		if !strings.HasSuffix(b.String(), codePH) {
			b.WriteString(codePH)
		}
		v.partial = true
	}
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		switch {
		case t.kind == cStr:
			strs++
			b.WriteString(t.val)
			if t.interp {
				v.partial = true
			}
		case t.kind == cIdent && i+3 < len(ts) && ts[i+1].kind == cPunct && ts[i+1].val == "[" && ts[i+2].kind == cNum && ts[i+3].kind == cPunct && ts[i+3].val == "]" && s.argvBase(t.val) >= 0:
			// sys.argv[1], process.argv[2], ARGV[0], $ARGV[0], $argv[1]:
			// an operand given after the code
			if f, ok := s.operand(t.val, ts[i+2].val); ok {
				strs++
				b.WriteString(homeVal(f.val))
			} else {
				ph()
				others = true
			}
			i += 3
		case t.kind == cIdent && s.known(t.val) && !(i+1 < len(ts) && ts[i+1].kind == cPunct && ts[i+1].val == "("):
			vv := s.vars[t.val]
			if vv.kind != 's' {
				ph()
				others = true
				continue
			}
			strs++
			b.WriteString(vv.s)
			v.partial = v.partial || vv.partial
		case t.kind == cIdent && isHomeIdent(t.val) && !(i+1 < len(ts) && ts[i+1].kind == cPunct && ts[i+1].val == "("):
			strs++
			b.WriteString(homeTok)
		case t.kind == cIdent && (t.val == "$ENV" || t.val == "ENV") && i+3 < len(ts) && ts[i+1].kind == cPunct && (ts[i+1].val == "{" || ts[i+1].val == "[") &&
			ts[i+2].val == "HOME" && ts[i+3].kind == cPunct:
			strs++
			b.WriteString(homeTok)
			i += 3
		case t.kind == cIdent && i+1 < len(ts) && ts[i+1].kind == cPunct && ts[i+1].val == "(":
			j := closeParen(ts, i+1)
			if j < 0 {
				j = len(ts) // unclosed: the arguments run to the end
			}
			if val, ok := s.callValue(t.val, ts[min(i+2, j):j]); ok {
				strs++
				b.WriteString(val)
				v.partial = v.partial || strings.Contains(val, codePH)
			} else {
				ph()
				others = true
			}
			i = j
		case t.kind == cPunct && t.val == "." && i+3 < len(ts) && ts[i+1].kind == cIdent && ts[i+2].kind == cPunct && ts[i+2].val == "(" && ts[i+3].kind == cPunct && ts[i+3].val == ")" && pathMethod(ts[i+1].val):
			// Path(...).expanduser(), .resolve(), .absolute()
			if ts[i+1].val == "expanduser" || ts[i+1].val == "expand_path" {
				cur := b.String()
				if strings.HasPrefix(cur, "~") {
					b.Reset()
					b.WriteString(homeTok + cur[1:])
				}
			}
			i += 3
		case t.kind == cPunct && t.val == "." && i > 0 && i+2 < len(ts) && ts[i+1].kind == cIdent && (ts[i+1].val == "joinpath" || ts[i+1].val == "join" && s.lang == "python" && strs > 0) &&
			ts[i+2].kind == cPunct && ts[i+2].val == "(":
			// pathlib's Path.home().joinpath(".ssh", "id_rsa")
			j := closeParen(ts, i+2)
			if j < 0 {
				j = len(ts)
			}
			for _, a := range splitArgs(ts[min(i+3, j):j]) {
				av := s.eval(a)
				b.WriteByte('/')
				if av.kind == 's' {
					b.WriteString(av.s)
					v.partial = v.partial || av.partial
				} else {
					ph()
				}
			}
			i = j
		case t.kind == cPunct && t.val == "/" && s.lang == "python" && i > 0 && i+1 < len(ts):
			// pathlib joins with /
			b.WriteByte('/')
		case t.kind == cPunct && (t.val == "+" || t.val == "." || t.val == ".." || t.val == "&") && i > 0 && i+1 < len(ts):
			// concatenation
		case t.kind == cIdent && s.lang == "awk" && i > 0 && ts[i-1].kind == cStr:
			// awk concatenates by juxtaposition: "rm -rf " dir
			ph()
			others = true
		default:
			ph()
			others = true
			if t.kind == cPunct && (t.val == "(" || t.val == "[" || t.val == "{") {
				if j := closeParen(ts, i); j > 0 {
					i = j
				}
			}
		}
	}
	if strs == 0 {
		return v
	}
	v.kind = 's'
	v.s = b.String()
	v.partial = v.partial || others
	return v
}

func (s *codeScan) known(name string) bool {
	_, ok := s.vars[name]
	return ok
}

// splitArgs splits tokens on top-level commas.
func splitArgs(ts []ctok) [][]ctok {
	var out [][]ctok
	depth, start := 0, 0
	for i, t := range ts {
		if t.kind != cPunct {
			continue
		}
		switch t.val {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case ",":
			if depth == 0 {
				out = append(out, ts[start:i])
				start = i + 1
			}
		}
	}
	if start < len(ts) {
		out = append(out, ts[start:])
	}
	return out
}

// bareCalls are the languages whose calls may omit parentheses.
func bareCalls(lang string) bool {
	return lang == "perl" || lang == "ruby" || lang == "lua" || lang == "php"
}

// callArgs returns the arguments of the call whose callee is ts[i], and
// whether there is a call.
func (s *codeScan) callArgs(i int) ([][]ctok, bool) {
	ts := s.toks
	j := i + 1
	if j < len(ts) && ts[j].kind == cPunct && ts[j].val == "{" && s.lang == "perl" {
		// exec { "prog" } LIST: the indirect object names the program
		if e := closeParen(ts, j); e > 0 {
			j = e + 1
		}
	}
	if j < len(ts) && ts[j].kind == cPunct && ts[j].val == "(" {
		e := closeParen(ts, j)
		if e < 0 {
			e = len(ts)
		}
		return splitArgs(ts[j+1 : e]), true
	}
	if !bareCalls(s.lang) || j >= len(ts) {
		return nil, false
	}
	if t := ts[j]; t.kind != cStr && t.kind != cIdent && t.kind != cCmd && t.kind != cWords && !(t.kind == cPunct && t.val == "[") {
		return nil, false
	}
	if ts[j].kind == cIdent && (ts[j].val == "or" || ts[j].val == "and" || ts[j].val == "if" || ts[j].val == "unless" || ts[j].val == "do") {
		return nil, false
	}
	e := j
	depth := 0
	for ; e < len(ts); e++ {
		t := ts[e]
		if t.kind == cEnd && depth == 0 {
			break
		}
		if t.kind == cIdent && depth == 0 && (t.val == "or" || t.val == "and" || t.val == "if" || t.val == "unless") {
			break
		}
		if t.kind == cPunct {
			switch t.val {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth--
			case "||", "&&":
				if depth == 0 {
					e = len(ts) + 1
				}
			}
			if depth < 0 || e > len(ts) {
				break
			}
		}
	}
	return splitArgs(ts[j:min(e, len(ts))]), true
}

// scan walks the program's calls.
func (s *codeScan) scan() {
	ts := s.toks
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		switch t.kind {
		case cCmd:
			s.runShell(codeVal{kind: 's', s: t.val, partial: t.interp, fetch: false}, true, s.k.name+" `...`")
			continue
		case cStr:
			// tagged templates: Bun.$`...`, zx's $`...`
			continue
		case cIdent:
		default:
			continue
		}
		name := s.resolve(t.val)
		if (s.lang == "php" || s.lang == "perl") && strings.HasPrefix(t.val, "$") && !strings.Contains(t.val, ".") && i+1 < len(ts) && ts[i+1].kind == cPunct && ts[i+1].val == "(" {
			// $f("…") calls the function whose name $f holds; a name not
			// known at check time (str_rot13("…"), $argv[1]) is a function
			// not known, unless $f holds a function of the code's own
			if v, ok := s.vars[t.val]; ok && v.kind == 's' {
				if v.partial {
					name = dynName
				} else {
					name = s.resolve(v.s)
				}
			} else if _, aliased := s.alias[t.val]; !aliased && !s.funcVals[t.val] && !s.multi[t.val] {
				name = dynName
			}
		}
		sk, strong := s.sinkOf(name)
		via := ""
		if sk == 0 || !strong {
			// fn.call(this, …), fn.apply(this, [...]), fn.bind(…): the
			// function called another way
			for _, m := range []string{".call", ".apply", ".bind"} {
				if pre, ok := strings.CutSuffix(name, m); ok {
					if psk, pstrong := s.sinkOf(pre); psk != 0 && pstrong {
						name, sk, strong, via = pre, psk, true, m
					}
				}
			}
		}
		if sk == 0 {
			s.fileCall(i, name)
			s.downloadCall(i, name)
			if s.lang == "js" && i+1 < len(ts) && ts[i+1].kind == cStr && (t.val == "$" || strings.HasSuffix(t.val, ".$")) {
				s.runShell(codeVal{kind: 's', s: ts[i+1].val, partial: ts[i+1].interp}, true, s.label)
			}
			continue
		}
		if s.lang == "js" && i+1 < len(ts) && ts[i+1].kind == cStr && sk == skShell && (name == "$" || name == "Bun.$") {
			s.runShell(codeVal{kind: 's', s: ts[i+1].val, partial: ts[i+1].interp}, true, s.label)
			continue
		}
		if sk == skEval && s.lang == "perl" && i+1 < len(ts) && ts[i+1].kind == cPunct && ts[i+1].val == "{" {
			continue // eval BLOCK is not string eval
		}
		args, ok := s.callArgs(i)
		if !ok {
			if sk == skEval && (strong || s.lang == "js") && s.isFetch(ts) {
				// eval handed around as a value: fetch(u).then(r => r.text()).then(eval)
				s.k.remoteExec(s.k.name + " evaluates code fetched from the network")
			} else if strong && i+1 < len(ts) && ts[i+1].kind == cPunct && (ts[i+1].val == "," || ts[i+1].val == ")" || ts[i+1].val == "]") && !(s.lang == "perl" && sk == skEval) {
				// map(os.system, cmds), Thread(target=os.system, args=…),
				// functools.partial(os.system, …), Reflect.apply(cp.execSync,
				// …): the function is handed to code that calls it with
				// arguments not read here
				s.k.dynamicExec(s.k.name + " hands " + name + " to code that calls it with arguments not known at check time")
			}
			continue
		}
		if via == ".bind" {
			s.k.dynamicExec(s.k.name + " binds " + name + " to call it later")
			continue
		}
		if len(args) > 0 && (via == ".call" || via == ".apply") {
			args = args[1:] // the receiver
		}
		vals := make([]codeVal, len(args))
		fetch := false
		for n, a := range args {
			vals[n] = s.eval(a)
			fetch = fetch || vals[n].fetch
		}
		if fetch {
			s.k.remoteExec(s.k.name + " runs code or a command fetched from the network (" + name + ")")
			continue
		}
		if via == ".apply" && len(vals) > 0 {
			if vals[0].kind == 'l' {
				vals = vals[0].list // fn.apply(this, [args])
			} else {
				s.k.dynamicExec(s.k.name + " applies " + name + " to arguments not known at check time")
				continue
			}
		}
		s.apply(name, sk, strong, vals)
	}
}

// positional drops keyword arguments and options objects.
func positional(vals []codeVal) []codeVal {
	out := vals[:0:0]
	for _, v := range vals {
		if v.kind != 'k' {
			out = append(out, v)
		}
	}
	return out
}

// apply judges one sink call.
func (s *codeScan) apply(name string, sk sinkKind, strong bool, vals []codeVal) {
	label := s.label
	pos := positional(vals)
	if len(pos) == 0 {
		for _, v := range vals {
			if v.kind == 'k' && (v.s == "args" || v.s == "cmd") && len(v.list) == 1 {
				pos = []codeVal{v.list[0]} // subprocess.Popen(args=[…], …)
			}
		}
	}
	if len(pos) > 0 && pos[0].kind == 'o' && (sk == skShellArgv) {
		pos = pos[1:] // ruby's env hash before the command
	}
	arg := func(n int) codeVal {
		if n < len(pos) {
			return pos[n]
		}
		return codeVal{kind: 'x'}
	}
	switch sk {
	case skDynamic:
		s.k.dynamicExec(s.k.name + " calls a function of " + strings.TrimSuffix(name, ".__dynamic__") + " chosen at run time")
	case skShell:
		s.runShell(arg(0), strong, label)
	case skEval:
		a := arg(0)
		switch {
		case len(pos) == 0:
		case a.kind == 's' && !a.partial && s.depth < maxCodeDepth:
			if s.lang == "php" && strings.HasPrefix(name, "include") || s.lang == "php" && strings.HasPrefix(name, "require") || s.lang == "r" && name == "source" || name == "runpy.run_path" {
				return // a local file: its code is not in the line
			}
			s.k.inlineCodeDepth(sub(plain(s.code), a.s), s.lang, s.depth+1)
		case s.lang == "php" && (strings.HasPrefix(name, "include") || strings.HasPrefix(name, "require")) || s.lang == "r" && name == "source" || name == "runpy.run_path":
		case s.evalsFile(a.toks):
			// exec(open("x.py").read()): runs a local file, as python3 x.py does
		case strong:
			s.k.dynamicExec(s.k.name + " evaluates code computed at run time (" + name + ")")
		}
	case skShellArgv:
		switch {
		case len(pos) == 1 && pos[0].kind == 'l':
			s.runArgv(pos[0].list, strong, label)
		case len(pos) == 1:
			s.runShell(pos[0], strong, label)
		case len(pos) > 1:
			if pos[0].kind == 'l' && len(pos[0].list) == 2 {
				// ruby's system(["rm", "argv0"], "-rf", ...)
				pos = append([]codeVal{pos[0].list[0]}, pos[1:]...)
			}
			s.runArgv(pos, strong, label)
		}
	case skArgvList:
		a := arg(0)
		if a.kind == 'l' {
			s.runArgv(a.list, strong, label)
		} else {
			s.runShell(a, strong, label)
		}
	case skProgList:
		prog := arg(0)
		if prog.kind == 's' && !prog.partial && strings.ContainsAny(prog.s, " ;|&") && len(pos) == 1 {
			s.runShell(prog, strong, label) // spawn("rm -rf x", {shell: true})
			return
		}
		argv := []codeVal{prog}
		if a := arg(1); a.kind == 'l' {
			argv = append(argv, a.list...)
		} else if len(pos) > 1 && a.kind != 'o' {
			argv = append(argv, codeVal{kind: 'x'})
		}
		s.runArgv(argv, strong, label)
	case skProgArgv0, skModeProgArgv0:
		off := 0
		if sk == skModeProgArgv0 {
			off = 1
		}
		argv := []codeVal{arg(off)}
		if a := arg(off + 1); a.kind == 'l' {
			if len(a.list) > 1 {
				argv = append(argv, a.list[1:]...)
			}
		} else {
			argv = append(argv, codeVal{kind: 'x'})
		}
		s.runArgv(argv, strong, label)
	case skProgVar, skModeProgVar:
		off := 0
		if sk == skModeProgVar {
			off = 1
		}
		argv := []codeVal{arg(off)}
		if len(pos) > off+2 {
			argv = append(argv, pos[off+2:]...)
		}
		s.runArgv(argv, strong, label)
	case skArgs:
		s.runArgv(pos, strong, label)
	case skPipeOpen:
		s.perlOpen(pos)
	case skCmdOption, skProgOption:
		var obj []ctok
		argv := []codeVal{}
		if sk == skProgOption {
			argv = append(argv, arg(0))
			obj = arg(1).toks
		} else {
			obj = arg(0).toks
		}
		key := "cmd"
		if sk == skProgOption {
			key = "args"
		}
		for j := 0; j+2 < len(obj); j++ {
			if obj[j].kind == cIdent && obj[j].val == key && obj[j+1].kind == cPunct && obj[j+1].val == ":" {
				if e := closeParen(obj, j+2); e > 0 {
					if l := s.eval(obj[j+2 : e+1]); l.kind == 'l' {
						argv = append(argv, l.list...)
					}
				}
			}
		}
		if len(argv) > 0 {
			s.runArgv(argv, strong, label)
		}
	}
}

// perlOpen judges perl's open with a pipe: open(F, "cmd |"), open(F, "|
// cmd"), open(F, "-|", LIST), open(F, "|-", LIST).
func (s *codeScan) perlOpen(pos []codeVal) {
	if len(pos) < 2 || pos[1].kind != 's' {
		return
	}
	m := strings.TrimSpace(pos[1].s)
	s.perlOpenFile(pos, m)
	if len(pos) == 2 {
		switch {
		case strings.HasSuffix(m, "|"):
			v := pos[1]
			v.s = strings.TrimSuffix(m, "|")
			s.runShell(v, true, "perl open")
		case strings.HasPrefix(m, "|"):
			v := pos[1]
			v.s = strings.TrimPrefix(m, "|")
			s.runShell(v, true, "perl open")
		}
		return
	}
	if m == "-|" || m == "|-" {
		if len(pos) == 3 {
			s.runShell(pos[2], true, "perl open")
		} else {
			s.runArgv(pos[2:], true, "perl open")
		}
	}
}

// perlOpenFile judges the file a perl open names (open F, "<$ENV{HOME}/x";
// open(my $f, ">>", "x")): read, or written when the mode writes.
func (s *codeScan) perlOpenFile(pos []codeVal, m string) {
	v := pos[1]
	if len(pos) == 3 {
		// a mode: <, >>, +<, <:encoding(UTF-8); not a pipe (-|, |-)
		if m == "" || !strings.ContainsRune("<>+", rune(m[0])) || strings.Contains(m, "|") {
			return
		}
		v = pos[2]
	} else if len(pos) != 2 || strings.HasPrefix(m, "|") || strings.HasSuffix(m, "|") {
		return
	}
	if v.kind != 's' || v.partial || strings.Contains(v.s, codePH) {
		return
	}
	p := strings.TrimSpace(v.s)
	mode := m
	if len(pos) == 2 {
		t := strings.TrimLeft(p, "+<>& ")
		mode, p = p[:len(p)-len(t)], t
	}
	kind := Read
	if strings.ContainsAny(mode, ">+") {
		kind = Write
	}
	if p = s.final(p); p != "" && p != "-" && looksLikePath(p) {
		s.k.file(kind, sub(plain(s.code), p), false)
	}
}

// runShell judges a command line the code runs.
func (s *codeScan) runShell(v codeVal, strong bool, label string) {
	k := s.k
	v.s = s.final(v.s)
	switch {
	case v.kind != 's':
		if strong && v.kind != 'k' {
			k.dynamicExec(k.name + " runs a command computed at run time")
		}
	case !v.partial:
		if _, err := parseShell(v.s); err == nil {
			k.nested(sub(plain(s.code), v.s), label, nil, false)
		} else if strong {
			k.dynamicExec(k.name + " runs a command that cannot be parsed")
		}
	case strong || strings.TrimSpace(strings.ReplaceAll(v.s, codePH, "")) != "":
		if strings.TrimSpace(v.s) == codePH {
			k.dynamicExec(k.name + " runs a command computed at run time")
			return
		}
		if _, err := parseShell(v.s); err != nil {
			k.dynamicExec(k.name + " runs a command built at run time")
			return
		}
		f := sub(plain(s.code), v.s)
		f.known = false
		f.tmpl = true
		u := unknownField("a value " + k.name + " computes at run time")
		f.bind = &u
		f.reason = u.reason
		k.nested(f, label, nil, false)
	}
}

// runArgv judges an argv the code runs.
func (s *codeScan) runArgv(argv []codeVal, strong bool, label string) {
	if len(argv) == 0 {
		return
	}
	if !strong {
		for _, a := range argv {
			if a.kind != 's' || a.partial {
				return
			}
		}
	}
	fs := make([]field, 0, len(argv))
	for _, a := range argv {
		switch {
		case a.kind == 'l':
			for _, x := range a.list {
				fs = append(fs, s.argField(x))
			}
		case a.kind == 'k' || a.kind == 'o':
		default:
			fs = append(fs, s.argField(a))
		}
	}
	if len(fs) == 0 {
		return
	}
	s.k.inner(fs, label, nil, nil)
}

func (s *codeScan) argField(a codeVal) field {
	if a.kind == 's' && !a.partial {
		return sub(plain(s.code), s.final(a.s))
	}
	f := plain(s.code)
	f.known = false
	f.val = ""
	f.reason = "an argument " + s.k.name + " computes at run time"
	return f
}

// awkPipes judges awk's pipes and redirections: print ... | "cmd",
// "cmd" | getline, print ... > "file".
func (s *codeScan) awkPipes() {
	ts := s.toks
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		if t.kind != cPunct {
			continue
		}
		switch t.val {
		case "<":
			// getline [var] < FILE reads FILE
			g := i - 1
			if g > 0 && ts[g].kind == cIdent && ts[g].val != "getline" {
				g--
			}
			if g < 0 || ts[g].kind != cIdent || ts[g].val != "getline" {
				continue
			}
			e := i + 1
			for e < len(ts) && ts[e].kind != cEnd && !(ts[e].kind == cPunct && (ts[e].val == "}" || ts[e].val == ")" || ts[e].val == ";" || ts[e].val == ">" || ts[e].val == "<")) {
				e++
			}
			if v := s.eval(ts[i+1 : e]); v.kind == 's' && !v.partial && !strings.Contains(v.s, codePH) {
				if p := s.final(v.s); p != "" && p != "-" && p != "/dev/stdin" {
					s.k.file(Read, sub(plain(s.code), p), false)
				}
			}
			continue
		case "|", "|&":
			// the statement's start
			st := i - 1
			for st > 0 && ts[st-1].kind != cEnd && !(ts[st-1].kind == cPunct && (ts[st-1].val == "{" || ts[st-1].val == "}")) {
				st--
			}
			e := i + 1
			for e < len(ts) && ts[e].kind != cEnd && !(ts[e].kind == cPunct && (ts[e].val == "}" || ts[e].val == ")" || ts[e].val == "|" || ts[e].val == ";")) {
				e++
			}
			if e > i+1 && ts[i+1].kind == cIdent && ts[i+1].val == "getline" {
				// "cmd" | getline: the left side is the command, from the
				// statement's start or the innermost open parenthesis
				ls := max(st, 0)
				for m := i - 1; m >= ls; m-- {
					if ts[m].kind == cPunct && ts[m].val == "(" && parenDepth(ts[m:i]) > 0 {
						ls = m + 1
						break
					}
				}
				s.runShell(s.eval(ts[ls:i]), true, "awk getline")
				continue
			}
			if st < 0 || st >= i || ts[st].kind != cIdent || (ts[st].val != "print" && ts[st].val != "printf") {
				continue
			}
			right := s.eval(ts[i+1 : e])
			if right.kind == 's' && !right.partial && isShellCmd(right.s) {
				// print ... | "sh": what is printed is the script
				printed := ts[st+1 : i]
				if len(printed) > 0 && printed[0].kind == cPunct && printed[0].val == "(" && closeParen(printed, 0) == len(printed)-1 {
					printed = printed[1 : len(printed)-1]
				}
				var parts []codeVal
				for _, a := range splitArgs(printed) {
					parts = append(parts, s.eval(a))
				}
				line := codeVal{kind: 's'}
				for n, p := range parts {
					if n > 0 {
						line.s += " "
					}
					if p.kind == 's' {
						line.s += p.s
						line.partial = line.partial || p.partial
					} else {
						line.s += codePH
						line.partial = true
					}
				}
				if len(parts) == 0 {
					line = codeVal{kind: 's', s: codePH, partial: true}
				}
				s.runShell(line, true, "awk | "+right.s)
				continue
			}
			s.runShell(right, true, "awk |")
		case ">", ">>":
			st := i - 1
			for st > 0 && ts[st-1].kind != cEnd && !(ts[st-1].kind == cPunct && (ts[st-1].val == "{" || ts[st-1].val == "}")) {
				st--
			}
			if st < 0 || ts[st].kind != cIdent || (ts[st].val != "print" && ts[st].val != "printf") || i+1 >= len(ts) {
				continue
			}
			if parenDepth(ts[st:i]) > 0 {
				continue // print (a > b) compares
			}
			e := i + 1
			for e < len(ts) && ts[e].kind != cEnd && !(ts[e].kind == cPunct && ts[e].val == "}") {
				e++
			}
			v := s.eval(ts[i+1 : e])
			switch {
			case v.kind == 's' && !v.partial:
				s.k.file(Write, sub(plain(s.code), s.final(v.s)), false)
			case v.kind == 's' && (strings.HasPrefix(v.s, "/") || strings.HasPrefix(v.s, "~") || strings.HasPrefix(v.s, homeTok) || strings.Contains(v.s, "..")):
				s.k.eff(Effect{Kind: Write, Unknown: true, Reason: "awk writes to a file named at run time"})
			}
		}
	}
}

// isShellCmd reports whether a command line starts a shell that reads its
// script from stdin.
func isShellCmd(c string) bool {
	f := strings.Fields(c)
	if len(f) == 0 {
		return false
	}
	n := f[0]
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		n = n[i+1:]
	}
	if n == "env" && len(f) > 1 {
		n = f[1]
	}
	if !isShell(n) {
		return false
	}
	for _, a := range f[1:] {
		if a == "-c" {
			return false
		}
	}
	return true
}

// parenDepth is the nesting depth of brackets left open at the end of ts.
func parenDepth(ts []ctok) int {
	d := 0
	for _, t := range ts {
		if t.kind == cPunct {
			switch t.val {
			case "(", "[":
				d++
			case ")", "]":
				d--
			}
		}
	}
	return d
}

// homeTok stands for the user's home directory in values inline code
// computes (os.path.expanduser("~"), Path.home(), $ENV{HOME}, process.env.HOME).
const homeTok = "\x00HOME\x00"

// isHomeIdent reports whether a name is the home directory's variable.
func isHomeIdent(n string) bool {
	switch n {
	case "os.environ.HOME", "process.env.HOME", "Bun.env.HOME", "ENV.HOME", "ENVIRON.HOME", "Deno.env.HOME", "$_SERVER.HOME", "$_ENV.HOME", "Dir.home", "Path.home", "pathlib.Path.home":
		return true
	}
	return false
}

// isHomeText reports whether the text of an interpolation is the home
// directory: $ENV{HOME}, #{Dir.home}, ${process.env.HOME}, {Path.home()}.
func isHomeText(t string) bool {
	l := strings.ToLower(t)
	switch {
	case strings.Contains(t, "HOME") && (strings.Contains(l, "env") || strings.Contains(l, "server") || strings.Contains(l, "getenv")):
		return true
	case strings.Contains(l, "home()") || strings.Contains(l, "dir.home") || strings.Contains(l, "homedir"):
		return true
	case strings.Contains(l, "expanduser") && strings.Contains(t, "~"):
		return true
	}
	return false
}

func pathMethod(m string) bool {
	switch m {
	case "expanduser", "expand_path", "resolve", "absolute", "as_posix", "toString", "to_s", "normalize", "realpath":
		return true
	}
	return false
}

// callValue is the value of a call that builds a path or names the home
// directory: os.path.join, path.join, File.join, Path(...), expanduser,
// os.getenv("HOME"), Path.home(), os.homedir().
func (s *codeScan) callValue(name string, argToks []ctok) (string, bool) {
	n := s.resolve(name)
	last := lastName(n)
	var args []codeVal
	for _, a := range splitArgs(argToks) {
		args = append(args, s.eval(a))
	}
	str := func(i int) (string, bool) {
		if i < len(args) && args[i].kind == 's' {
			return args[i].s, true
		}
		return "", false
	}
	switch last {
	case "home", "homedir", "gethomedir", "home_dir":
		return homeTok, true
	case "glob", "bsd_glob", "iglob":
		// the files a pattern names: the pattern stands for them
		if v, ok := str(0); ok {
			if v == "~" || strings.HasPrefix(v, "~/") {
				return homeTok + v[1:], true
			}
			return v, true
		}
	case "getenv", "get", "fetch", "env":
		if v, ok := str(0); ok && (v == "HOME" || v == "USERPROFILE") && (last != "get" || strings.Contains(n, "environ") || strings.Contains(n, "env")) {
			return homeTok, true
		}
	case "expanduser", "expand_path", "untildify":
		if v, ok := str(0); ok {
			if strings.HasPrefix(v, "~") {
				return homeTok + v[1:], true
			}
			return v, true
		}
	case "join", "resolve", "joinpath", "Path", "PurePath", "PosixPath", "abspath", "realpath", "normpath", "fspath", "str", "String", "expand":
		if last == "join" && !(strings.Contains(n, "path") || strings.HasPrefix(n, "File") || strings.HasPrefix(n, "os")) {
			return "", false
		}
		var parts []string
		for i := range args {
			v, ok := str(i)
			if !ok {
				if args[i].kind == 'k' {
					continue
				}
				v = codePH
			}
			if strings.HasPrefix(v, "/") || strings.HasPrefix(v, homeTok) {
				parts = parts[:0]
			}
			parts = append(parts, v)
		}
		if len(parts) == 0 {
			return "", false
		}
		return strings.Join(parts, "/"), true
	}
	return "", false
}

// final makes a computed value concrete: the home directory for homeTok.
func (s *codeScan) final(v string) string {
	if !strings.Contains(v, homeTok) {
		return v
	}
	home := s.k.a.opts.Home
	if home == "" {
		home = "~"
	}
	return strings.ReplaceAll(v, homeTok, home)
}

// fileCall judges a file operation whose path is an expression (a join, a
// home directory, a variable): the literal ones are read by inlineCode.
func (s *codeScan) fileCall(i int, name string) {
	ts := s.toks
	if s.methodFileCall(i, name) {
		return
	}
	last := lastName(name)
	kind, ok := qualifiedOps[name]
	if !ok {
		kind, ok = fileOps[last]
	}
	if !ok || twoPathOps[last] {
		return
	}
	paren := i+1 < len(ts) && ts[i+1].kind == cPunct && ts[i+1].val == "("
	if !paren && !(bareCalls(s.lang) && i+1 < len(ts) && (ts[i+1].kind == cIdent || ts[i+1].kind == cStr && (ts[i+1].interp || strings.Contains(ts[i+1].val, homeTok)))) {
		return // perl's unlink glob(…) and unlink "$ENV{HOME}/…" take no parentheses
	}
	args, _ := s.callArgs(i)
	if len(args) == 0 {
		return
	}
	if len(args[0]) == 1 && args[0][0].kind == cStr && !args[0][0].interp && !strings.Contains(args[0][0].val, homeTok) {
		if strings.Contains(s.code.val, last+"(") || strings.Contains(s.code.val, last+" (") {
			return // a literal: inlineCode's scan has it
		}
		// the operation under another name (from shutil import rmtree as
		// r; r("…"), const {rmSync: r} = require("fs")): inlineCode's
		// scan sees only the alias
		if p := args[0][0].val; looksLikePath(p) {
			if p == "~" || strings.HasPrefix(p, "~/") {
				p = homeTok + p[1:]
			}
			s.k.file(kind, sub(plain(s.code), s.final(p)), recursiveOps[last])
		}
		return
	}
	v := s.eval(args[0])
	if (last == "open" || last == "fopen") && len(args) > 1 {
		if m := s.eval(args[1]); m.kind == 's' && !m.partial && m.s != "" && strings.Trim(m.s, "rwabtxU+<>|") == "" && strings.ContainsAny(m.s, "wax+>") {
			kind = Write // open(os.path.join(home, ".bashrc"), "w")
		}
	}
	if kind == Read {
		// a read whose path is computed counts when the whole path is
		// known (readFileSync(os.homedir() + "/.ssh/id_rsa")); a read
		// of a path not known adds nothing, as everywhere
		if v.kind == 's' && !v.partial && !strings.Contains(v.s, codePH) && (strings.Contains(v.s, homeTok) || strings.HasPrefix(v.s, "/")) {
			if p := s.final(v.s); looksLikePath(p) {
				s.k.file(Read, sub(plain(s.code), p), false)
			}
		}
		return
	}
	rec := recursiveOps[last]
	switch {
	case v.kind == 's' && !strings.Contains(v.s, codePH):
		p := s.final(v.s)
		if looksLikePath(p) {
			s.k.file(kind, sub(plain(s.code), p), rec)
		}
	case kind == Delete && len(s.walkRoots()) > 0:
		// a delete of each path a walk of a tree yields (os.walk, rglob,
		// readdirSync, Dir.glob) deletes the tree
		for _, r := range s.walkRoots() {
			s.k.file(Delete, sub(plain(s.code), r), true)
		}
	case v.kind == 's' && strings.Contains(v.s, homeTok) || kind == Delete && rec && (v.kind == 's' || v.kind == 'x') && strings.Contains(name, "."):
		// a path computed at run time: under home, or a tree deleted by a
		// module's function (shutil.rmtree(x), fs.rmSync(p)); a single
		// file removed by name (os.remove(f) over a glob) is not held
		s.k.eff(Effect{Kind: kind, Unknown: true, Recursive: rec, Reason: "a path " + s.k.name + " computes at run time"})
	}
}

// evalsFile reports whether code evaluated is the content of a local file
// named by a literal (exec(open("x.py").read()), eval(File.read("x.rb"))),
// which it then judges as running that file.
func (s *codeScan) evalsFile(ts []ctok) bool {
	for i := 0; i+2 < len(ts); i++ {
		if ts[i].kind != cIdent || ts[i+1].kind != cPunct || ts[i+1].val != "(" || ts[i+2].kind != cStr || ts[i+2].interp {
			continue
		}
		switch lastName(s.resolve(ts[i].val)) {
		case "open", "read_text", "readFileSync", "file_get_contents", "read", "readfile", "dofile", "loadfile", "Path":
			p := ts[i+2].val
			if !looksLikePath(p) || strings.Contains(p, "://") {
				return false
			}
			f := sub(plain(s.code), p)
			s.k.script(s.k.home(f), false)
			return true
		}
	}
	return false
}

// downloadCall records the file a download call writes
// (urllib.request.urlretrieve(url, "/tmp/x.sh"), Invoke-WebRequest's
// kin in other languages), so running it later in the line is remote code.
func (s *codeScan) downloadCall(i int, name string) {
	switch lastName(name) {
	case "urlretrieve", "download_file", "DownloadFile", "downloadFile", "getstore", "mirror":
	default:
		return
	}
	args, ok := s.callArgs(i)
	if !ok || len(args) < 2 {
		return
	}
	v := s.eval(args[1])
	if v.kind != 's' || v.partial {
		return
	}
	f := sub(plain(s.code), s.final(v.s))
	s.k.file(Write, f, false)
	if e, ok := s.k.a.target(s.k.st, Write, s.k.home(f), false); ok && !e.Unknown {
		if s.k.a.downloaded == nil {
			s.k.a.downloaded = map[string]bool{}
		}
		s.k.a.downloaded[e.Target] = true
	}
}

// methodFileCall judges a file operation called as a method of a path
// object whose path is computed (Path.home().joinpath(".bashrc")
// .write_text(…), (Path.home() / ".ssh" / "id_rsa").read_text()): the
// receiver is the path. It reports whether name was such a method.
func (s *codeScan) methodFileCall(i int, name string) bool {
	ts := s.toks
	if i+1 >= len(ts) || ts[i+1].kind != cPunct || ts[i+1].val != "(" {
		return false
	}
	var recv []ctok
	if dot := strings.LastIndexByte(ts[i].val, '.'); dot > 0 && s.known(ts[i].val[:dot]) {
		// p.read_text() with p = Path.home() / ".ssh" / "id_rsa"
		name = ts[i].val[dot+1:]
		recv = []ctok{{kind: cIdent, val: ts[i].val[:dot]}}
	}
	kind, ok := pathMethods[name]
	if !ok {
		return false
	}
	if recv == nil {
		if i < 2 || ts[i-1].kind != cPunct || ts[i-1].val != "." {
			return false
		}
		start := receiverStart(ts, i-1)
		if start < 0 {
			return false
		}
		recv = ts[start : i-1]
	}
	if len(recv) >= 2 && recv[0].kind == cPunct && recv[0].val == "(" && closeParen(recv, 0) == len(recv)-1 {
		recv = recv[1 : len(recv)-1]
	}
	v := s.eval(recv)
	if v.kind != 's' || !strings.Contains(v.s, homeTok) {
		return true // literal receivers are read by inlineCode
	}
	if name == "open" {
		if args, _ := s.callArgs(i); len(args) > 0 {
			if m := s.eval(args[0]); m.kind == 's' && strings.ContainsAny(m.s, "wax+") {
				kind = Write
			}
		}
	}
	if v.partial || strings.Contains(v.s, codePH) {
		if kind != Read {
			s.k.eff(Effect{Kind: kind, Unknown: true, Recursive: name == "rmtree", Reason: "a path under home " + s.k.name + " computes at run time"})
		}
		return true
	}
	s.k.file(kind, sub(plain(s.code), s.final(v.s)), name == "rmtree")
	return true
}

// receiverStart returns the index of the first token of the expression
// whose method is called at the "." ts[dot], or -1: a chain of names,
// calls and a parenthesised expression.
func receiverStart(ts []ctok, dot int) int {
	j := dot - 1
	for j >= 0 {
		switch t := ts[j]; {
		case t.kind == cPunct && t.val == ")":
			d := 0
			for ; j >= 0; j-- {
				if ts[j].kind == cPunct && ts[j].val == ")" {
					d++
				} else if ts[j].kind == cPunct && ts[j].val == "(" {
					d--
					if d == 0 {
						break
					}
				}
			}
			if j < 0 {
				return -1
			}
			if j > 0 && ts[j-1].kind == cIdent {
				j--
			}
		case t.kind == cIdent || t.kind == cStr:
		default:
			return -1
		}
		if j > 0 && ts[j-1].kind == cPunct && ts[j-1].val == "." {
			j -= 2
			continue
		}
		return j
	}
	return -1
}

// fetchProgram reports whether a program prints what it downloads.
func fetchProgram(n string) bool {
	switch n {
	case "curl", "wget", "http", "https", "xh", "aria2c", "lwp-request", "GET", "fetch", "lynx", "links", "w3m":
		return true
	}
	return false
}

// walkFuncs are the calls that walk a directory tree (or list a directory)
// and yield the paths below it.
var walkFuncs = map[string]bool{"walk": true, "rglob": true, "iglob": true, "scandir": true, "listdir": true, "readdirSync": true,
	"readdir": true, "opendir": true, "find": true, "glob": true, "Find.find": true, "each_child": true, "children": true, "iterdir": true}

// walkRoots returns the known directories the code walks (os.walk(D),
// Path(D).rglob(…), fs.readdirSync(D), glob.glob("D/**")), computed once.
func (s *codeScan) walkRoots() []string {
	if s.walked != nil {
		return *s.walked
	}
	var roots []string
	ts := s.toks
	for i := 0; i+1 < len(ts); i++ {
		if ts[i].kind != cIdent || ts[i+1].kind != cPunct || ts[i+1].val != "(" {
			continue
		}
		n := s.resolve(ts[i].val)
		if !walkFuncs[lastName(n)] && !walkFuncs[n] {
			continue
		}
		var v codeVal
		if st := receiverStart(ts, i); lastName(n) != n && st >= 0 && (lastName(n) == "rglob" || lastName(n) == "iterdir" || lastName(n) == "glob" && strings.Contains(n, "Path")) {
			v = s.eval(ts[st:i])
		} else if j := closeParen(ts, i+1); j > i+2 {
			if args := splitArgs(ts[i+2 : j]); len(args) > 0 {
				v = s.eval(args[0])
			}
		}
		if v.kind != 's' || v.partial {
			continue
		}
		r := s.final(v.s)
		if k := strings.IndexAny(r, "*?["); k >= 0 {
			r = r[:k] // glob.glob("D/**/*"): the tree below D
			if j := strings.LastIndexByte(r, '/'); j >= 0 {
				r = r[:j]
			}
		}
		if r = strings.TrimSuffix(r, "/"); r != "" && looksLikePath(r) && len(roots) < 8 {
			roots = append(roots, r)
		}
	}
	s.walked = &roots
	return roots
}
