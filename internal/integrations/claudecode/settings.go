// Package claudecode connects Claude Code to warden: it merges warden's hook
// commands (`warden hook claude`) into Claude Code's settings JSON without
// touching the user's own hooks or other keys, idempotently, and takes them
// out again. The merge works on JSON values and is pure; Install and
// Uninstall add the file I/O.
package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/warden-dev/warden/internal/atomicfile"
	"github.com/warden-dev/warden/internal/policy/shell"
)

// Hook timeouts written into the settings, in seconds. The gate's must
// outlast warden's approval deadline (120 s by default) and the command's
// own HTTP timeout (140 s), so a timeout is warden's block, never Claude's
// fail-open.
const (
	GateTimeoutSeconds  = 150
	EventTimeoutSeconds = 30
)

// Hook is one hook event warden installs.
type Hook struct {
	// Event is Claude Code's hook event name.
	Event string
	// Matcher is the tool matcher ("" for events without tools).
	Matcher string
	// Timeout is the hook timeout in seconds.
	Timeout int
}

// Hooks are the hook events warden installs: every event Claude Code
// reports, PreToolUse (the gate) on every tool. Only PreToolUse's command is
// guarded (Guard): exit 2 means "block" there, but "keep going" for Stop and
// "erase the prompt" for UserPromptSubmit, so the other events' failures stay
// non-blocking.
func Hooks() []Hook {
	return []Hook{
		{"SessionStart", "", EventTimeoutSeconds},
		{"UserPromptSubmit", "", EventTimeoutSeconds},
		{"PreToolUse", "*", GateTimeoutSeconds},
		{"PostToolUse", "*", EventTimeoutSeconds},
		{"PostToolUseFailure", "*", EventTimeoutSeconds},
		{"PermissionRequest", "*", EventTimeoutSeconds},
		{"Notification", "", EventTimeoutSeconds},
		{"Stop", "", EventTimeoutSeconds},
		{"StopFailure", "", EventTimeoutSeconds},
		{"SubagentStart", "", EventTimeoutSeconds},
		{"SubagentStop", "", EventTimeoutSeconds},
		{"PreCompact", "", EventTimeoutSeconds},
		{"SessionEnd", "", EventTimeoutSeconds},
	}
}

// Command returns the hook command line for a warden binary: the binary
// (shell-quoted, since Claude runs hooks with /bin/sh -c), "hook claude" and
// extra arguments (each quoted).
func Command(binary string, extra ...string) string {
	parts := []string{shell.Quote(binary), "hook", "claude"}
	for _, a := range extra {
		parts = append(parts, shell.Quote(a))
	}
	return strings.Join(parts, " ")
}

// Guard makes a gating hook command fail closed on its own: Claude Code blocks
// a call only when its PreToolUse hook exits 2, and lets it run on every other
// failure, so a missing or broken warden binary (exit 127, a crash, a signal)
// must become exit 2 with a reason on stderr. warden's own exit 2 passes
// through untouched (its reason is already on stderr). Claude Code runs hook
// commands with /bin/sh -c, so this is POSIX sh.
func Guard(command string) string {
	return command + ` || { s=$?; [ "$s" -eq 2 ] || echo "warden: the hook command failed with exit status $s (is the warden binary still there? run: warden install claude); the call is blocked" >&2; exit 2; }`
}

// IsWardenCommand reports whether a hook command line is one warden
// installed: a program named warden* followed by "hook claude".
func IsWardenCommand(cmd string) bool {
	f := strings.Fields(cmd)
	for i := 1; i+1 < len(f); i++ {
		if f[i] == "hook" && f[i+1] == "claude" {
			prog := strings.Trim(f[i-1], `'"`)
			return strings.HasPrefix(filepath.Base(prog), "warden")
		}
	}
	return false
}

// Parse decodes a settings file: empty (or only whitespace) is an empty
// object; anything but one JSON object is an error.
func Parse(data []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("settings are not valid JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("settings hold more than one JSON value")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("settings must be a JSON object")
	}
	if h, ok := m["hooks"]; ok && h != nil {
		if _, ok := h.(map[string]any); !ok {
			return nil, errors.New(`settings "hooks" must be a JSON object`)
		}
	}
	return m, nil
}

// Merge puts warden's hooks (running command) into settings and returns
// the new settings and a line per change ("added PreToolUse", "updated
// Stop", "removed PostToolBatch"). The user's own hooks and every other key
// stay as they are; a warden hook already in place stays in place, so
// merging twice changes nothing.
func Merge(settings map[string]any, command string) (map[string]any, []string) {
	out := deepCopy(settings).(map[string]any)
	hooks, _ := out["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
	}
	var changes []string
	want := map[string]bool{}
	for _, h := range Hooks() {
		want[h.Event] = true
		c := command
		if h.Event == "PreToolUse" {
			c = Guard(command) // the gate: every failure blocks
		}
		entry := map[string]any{"type": "command", "command": c, "timeout": json.Number(fmt.Sprint(h.Timeout))}
		orig := deepCopy(hooks[h.Event])
		before, _ := hooks[h.Event].([]any)
		groups, found := placeHook(before, h.Matcher, entry)
		if !found {
			g := map[string]any{"hooks": []any{entry}}
			if h.Matcher != "" {
				g["matcher"] = h.Matcher
			}
			groups = append(groups, g)
		}
		if !reflect.DeepEqual(orig, any(groups)) {
			if origList, _ := orig.([]any); countWarden(origList) == 0 {
				changes = append(changes, "added "+h.Event)
			} else {
				changes = append(changes, "updated "+h.Event)
			}
		}
		hooks[h.Event] = groups
	}
	// Events an older warden installed that this one does not.
	for _, ev := range sortedKeys(hooks) {
		if want[ev] {
			continue
		}
		list, ok := hooks[ev].([]any)
		if !ok || countWarden(list) == 0 {
			continue
		}
		if kept := dropWarden(list); len(kept) > 0 {
			hooks[ev] = kept
		} else {
			delete(hooks, ev)
		}
		changes = append(changes, "removed "+ev)
	}
	out["hooks"] = hooks
	return out, changes
}

// Remove takes every warden hook out of settings, dropping matcher groups
// and events left empty by that (and "hooks" itself when it ends empty).
func Remove(settings map[string]any) (map[string]any, []string) {
	out := deepCopy(settings).(map[string]any)
	hooks, ok := out["hooks"].(map[string]any)
	if !ok {
		return out, nil
	}
	var changes []string
	for _, ev := range sortedKeys(hooks) {
		list, ok := hooks[ev].([]any)
		if !ok || countWarden(list) == 0 {
			continue
		}
		if kept := dropWarden(list); len(kept) > 0 {
			hooks[ev] = kept
		} else {
			delete(hooks, ev)
		}
		changes = append(changes, "removed "+ev)
	}
	if len(hooks) == 0 && len(changes) > 0 {
		delete(out, "hooks")
	}
	return out, changes
}

// placeHook puts entry in the first warden hook of a group with the given
// matcher (in place) and drops every other warden hook. found reports
// whether such a place existed.
func placeHook(groups []any, matcher string, entry map[string]any) (out []any, found bool) {
	for _, g := range groups {
		gm, ok := g.(map[string]any)
		if !ok {
			out = append(out, g)
			continue
		}
		hs, ok := gm["hooks"].([]any)
		if !ok {
			out = append(out, g)
			continue
		}
		var kept []any
		for _, hk := range hs {
			if !isWardenHook(hk) {
				kept = append(kept, hk)
				continue
			}
			if !found && matcherOf(gm) == matcher {
				kept = append(kept, entry)
				found = true
			}
		}
		if len(kept) == 0 && len(hs) > 0 {
			continue // the group held only warden's hooks
		}
		if kept == nil {
			kept = []any{}
		}
		gm["hooks"] = kept
		out = append(out, gm)
	}
	return out, found
}

func dropWarden(groups []any) []any {
	var out []any
	for _, g := range groups {
		gm, ok := g.(map[string]any)
		if !ok {
			out = append(out, g)
			continue
		}
		hs, ok := gm["hooks"].([]any)
		if !ok {
			out = append(out, g)
			continue
		}
		var kept []any
		for _, hk := range hs {
			if !isWardenHook(hk) {
				kept = append(kept, hk)
			}
		}
		if len(kept) == 0 && len(hs) > 0 {
			continue
		}
		if kept == nil {
			kept = []any{}
		}
		gm["hooks"] = kept
		out = append(out, gm)
	}
	return out
}

func countWarden(groups []any) int {
	n := 0
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		hs, _ := gm["hooks"].([]any)
		for _, hk := range hs {
			if isWardenHook(hk) {
				n++
			}
		}
	}
	return n
}

func isWardenHook(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	cmd, _ := m["command"].(string)
	return IsWardenCommand(cmd)
}

// matcherOf is a group's matcher; "" and "*" both match every tool.
func matcherOf(g map[string]any) string {
	m, _ := g["matcher"].(string)
	return m
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}

// Encode writes settings as indented JSON (keys sorted, as encoding/json
// does) with a final newline.
func Encode(settings map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(settings); err != nil {
		return nil, fmt.Errorf("encode settings: %w", err)
	}
	return buf.Bytes(), nil
}

// Change reports what Install or Uninstall did to a settings file.
type Change struct {
	// Path is the settings file.
	Path string `json:"path"`
	// Action is "created", "updated", "unchanged" or "absent" (nothing to
	// uninstall from).
	Action string `json:"action"`
	// Changes lists the hook events added, updated or removed.
	Changes []string `json:"changes,omitempty"`
	// Command is the hook command installed.
	Command string `json:"command,omitempty"`
}

// Install merges warden's hooks running command into the settings file at
// path, creating it (and its directory) if needed. The file is written only
// when something changed, atomically, keeping its mode.
func Install(path, command string) (Change, error) {
	ch := Change{Path: path, Command: command}
	data, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return ch, fmt.Errorf("read %s: %w", path, err)
	}
	settings, err := Parse(data)
	if err != nil {
		return ch, fmt.Errorf("%s: %w (fix or move the file; warden will not overwrite it)", path, err)
	}
	merged, changes := Merge(settings, command)
	ch.Changes = changes
	if exists && len(changes) == 0 {
		ch.Action = "unchanged"
		return ch, nil
	}
	out, err := Encode(merged)
	if err != nil {
		return ch, err
	}
	if err := writeAtomic(path, out); err != nil {
		return ch, err
	}
	ch.Action = "updated"
	if !exists {
		ch.Action = "created"
	}
	return ch, nil
}

// Uninstall removes warden's hooks from the settings file at path, leaving
// everything else.
func Uninstall(path string) (Change, error) {
	ch := Change{Path: path}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		ch.Action = "absent"
		return ch, nil
	}
	if err != nil {
		return ch, fmt.Errorf("read %s: %w", path, err)
	}
	settings, err := Parse(data)
	if err != nil {
		return ch, fmt.Errorf("%s: %w (fix or move the file; warden will not overwrite it)", path, err)
	}
	out, changes := Remove(settings)
	ch.Changes = changes
	if len(changes) == 0 {
		ch.Action = "unchanged"
		return ch, nil
	}
	b, err := Encode(out)
	if err != nil {
		return ch, err
	}
	if err := writeAtomic(path, b); err != nil {
		return ch, err
	}
	ch.Action = "updated"
	return ch, nil
}

func writeAtomic(path string, data []byte) error {
	perm := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	return atomicfile.Write(path, data, perm, 0o755)
}
