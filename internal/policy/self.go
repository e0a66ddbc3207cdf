package policy

import (
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/warden-dev/warden/internal/policy/shell"
)

// TagWardenSignal is added to a command that signals or stops the warden
// daemon: kill of its pid, pkill/killall of a pattern that matches warden,
// systemctl stop of warden's unit, or kill of pids looked up by a pgrep or
// pidof of warden in the same command line (kill $(pgrep warden)).
const TagWardenSignal = "warden.signal"

// markWardenSignals tags the commands that signal the daemon.
func (e *eval) markWardenSignals() {
	r := e.p.roots
	lookup := false
	lister, filter := false, false
	for _, s := range e.subjects {
		if s.cmd == nil {
			continue
		}
		if hasTag(s.tags, shell.TagProcessFind) && (r.matchesWarden(s.attrs) || r.holdsPort(s.attrs)) {
			lookup = true
		}
		switch s.cmd.Name {
		case "ps", "pgrep", "pidof", "lsof", "fuser", "top", "pstree", "pidstat":
			lister = true
		case "grep", "egrep", "fgrep", "rg", "awk", "gawk", "mawk", "sed":
			filter = filter || r.filtersWarden(s.cmd.Argv[1:])
		}
	}
	// ps aux | grep warden | awk '{print $2}' | xargs kill
	lookup = lookup || lister && filter
	for _, s := range e.subjects {
		if s.cmd == nil || !hasTag(s.tags, shell.TagSignal) {
			continue
		}
		unknownPid := strings.Contains(","+s.attrs["pid"]+",", ",?,")
		if r.matchesWarden(s.attrs) || r.holdsPort(s.attrs) || lookup && unknownPid {
			s.tags = append(append([]string(nil), s.tags...), TagWardenSignal)
		}
	}
}

func hasTag(tags []string, t string) bool {
	for _, x := range tags {
		if x == t {
			return true
		}
	}
	return false
}

// filtersWarden reports whether one of a text filter's arguments (a grep
// pattern, an awk or sed program) selects lines that name warden: it
// contains a name of warden's, or is a regex that matches one.
func (r *roots) filtersWarden(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		for _, n := range r.names() {
			if strings.Contains(strings.ToLower(a), n) {
				return true
			}
			if re, err := regexp.Compile(strings.Trim(a, "/")); err == nil && len(a) > 1 && re.MatchString(n) && !re.MatchString("") {
				return true
			}
		}
	}
	return false
}

// names are the process names warden's daemon runs under.
func (r *roots) names() []string {
	out := []string{shell.WardenName}
	for _, b := range r.binaries {
		if n := path.Base(b); n != shell.WardenName {
			out = append(out, n)
		}
	}
	return out
}

// matchesWarden reports whether the targets of a process.signal or
// process.find command (its attrs) include the warden daemon.
func (r *roots) matchesWarden(attrs map[string]string) bool {
	for _, p := range strings.Split(attrs["pid"], ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n <= 0 {
			continue
		}
		for _, pid := range r.pids {
			if pid == n {
				return true
			}
		}
	}
	procs := attrs["process"]
	if procs == "" {
		return false
	}
	icase := attrs["icase"] == "true"
	for _, pat := range strings.Split(procs, ",") {
		if pat == "" || pat == "?" {
			continue
		}
		switch attrs["match"] {
		case "exact":
			for _, n := range r.names() {
				if pat == n || icase && strings.EqualFold(pat, n) || path.Base(pat) == n {
					return true
				}
			}
		case "unit":
			// a service unit or launchd label of warden's
			u := strings.ToLower(pat)
			if strings.Contains(u, shell.WardenName) {
				return true
			}
			if ok, err := path.Match(u, shell.WardenName+".service"); ok || err != nil {
				return true
			}
			if ok, _ := path.Match(u, shell.WardenName); ok {
				return true
			}
		case "regex", "full":
			if icase {
				pat = "(?i)" + pat
			}
			re, err := regexp.Compile(pat)
			if err != nil {
				continue // pkill refuses it: nothing is signalled
			}
			for _, n := range r.names() {
				subject := n
				if attrs["match"] == "full" {
					subject = n + " serve"
					// the daemon's full command line is not known: a
					// pattern that names warden is aimed at it
					if strings.Contains(strings.ToLower(pat), n) {
						return true
					}
				}
				if re.MatchString(subject) {
					return true
				}
			}
			if attrs["match"] == "full" {
				for _, b := range r.binaries {
					if re.MatchString(b + " serve") {
						return true
					}
				}
			}
		}
	}
	return false
}
