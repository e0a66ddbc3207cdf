// Package confine is the one rule by which warden makes an external agent's
// allowed shell call run under its kernel sandbox: the daemon computes the
// rewritten command once, for every door (the monitor door hands it to
// warden's OpenCode plugin as the answer's "args", the hook door to Claude
// Code as PreToolUse "updatedInput"), and records it in the log
// (tool.confined) before the agent is told.
//
// A call is rewritten when it is a shell call (tool "bash") the gate
// allowed, warden saw the whole command (not a spec client's 100-character
// head), the kernel enforces Landlock, and confinement is on for the
// workspace: the workspace's metadata key MetadataKey ("on" or "off") wins,
// else the global setting (the config file's agentSandbox, default on).
package confine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/event"
)

// MetadataKey is the workspace metadata key that switches confinement for
// one workspace: "on" or "off" (anything else, or none, follows the global
// setting). Keys starting with "warden." are reserved: only the CLI (the
// admin door) sets them, never an agent through the MCP door.
const MetadataKey = "warden.sandbox"

// ReservedPrefix marks the metadata keys only warden's CLI may set.
const ReservedPrefix = "warden."

// Settings of MetadataKey.
const (
	On  = "on"
	Off = "off"
)

// Recorder makes events durable (core.Core.Record).
type Recorder interface {
	Record(ctx context.Context, evs ...event.Event) ([]event.Event, error)
}

// LineFunc builds the shell line that runs command confined to workspace
// (sandbox.ShellLine).
type LineFunc func(exe, workspace string, extraArgs []string, command string) string

// Rule decides and records the rewrite. The zero Rule (or a nil *Rule)
// rewrites nothing.
type Rule struct {
	// Recorder records tool.confined before the rewrite is handed out.
	Recorder Recorder
	// Exe is the warden program the rewritten line runs (the daemon's own).
	Exe string
	// ExtraArgs go after "sandbox -w WORKSPACE" (--data-dir, --policy: the
	// daemon's, so the sandbox hides the right data dir).
	ExtraArgs []string
	// Default is the global setting (config agentSandbox).
	Default bool
	// Supported says the kernel enforces Landlock; without it nothing is
	// rewritten (the sandbox would refuse to run the command at all).
	Supported bool
	// Setting returns a workspace's MetadataKey value ("" when unset or the
	// workspace is not registered).
	Setting func(workspace string) string
	// Line builds the rewritten command.
	Line LineFunc
}

// Enabled reports whether calls in workspace are confined.
func (r *Rule) Enabled(workspace string) bool {
	if r == nil || !r.Supported || r.Line == nil || r.Exe == "" {
		return false
	}
	on := r.Default
	if r.Setting != nil {
		switch r.Setting(workspace) {
		case On:
			on = true
		case Off:
			on = false
		}
	}
	return on
}

// Confine returns the command to run instead of req's for an allowed call,
// ok=false when it runs as it is. The rewrite is durable in the log
// (tool.confined) before it returns; err means it could not be recorded, and
// the door must block the call.
func (r *Rule) Confine(ctx context.Context, req core.GateRequest, v core.Verdict) (string, bool, error) {
	if !v.Allowed || req.Truncated || req.Call.Tool != "bash" {
		return "", false, nil
	}
	cmd, _ := req.Call.Args["command"].(string)
	ws := req.Call.Workspace
	if strings.TrimSpace(cmd) == "" || !filepath.IsAbs(ws) || !r.Enabled(ws) {
		return "", false, nil
	}
	line := r.Line(r.Exe, ws, r.ExtraArgs, cmd)
	if r.Recorder == nil {
		return "", false, errors.New("warden cannot record the sandbox rewrite (no log)")
	}
	data, err := json.Marshal(event.ToolConfinedData{CallID: req.CallID, Tool: req.Call.Tool, Command: cmd, Line: line})
	if err != nil {
		return "", false, fmt.Errorf("encode tool.confined: %w", err)
	}
	ev := event.Event{Session: req.Call.Session, Type: event.ToolConfined, Source: req.Source, Workspace: ws, Data: data}
	if _, err := r.Recorder.Record(ctx, ev); err != nil {
		return "", false, fmt.Errorf("warden could not record the sandbox rewrite: %w", err)
	}
	return line, true, nil
}
