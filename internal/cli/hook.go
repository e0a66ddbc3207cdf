package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/warden-dev/warden/internal/daemon"
	"github.com/warden-dev/warden/internal/proof"
	"github.com/warden-dev/warden/internal/protocol/admin"
	"github.com/warden-dev/warden/internal/protocol/hooks"
)

// Timeouts of `warden hook claude`. The gating timeout must outlast the
// approval deadline (120 s by default) and stay under the hook timeout
// `warden install claude` writes into Claude's settings (150 s), so that
// warden, not Claude, decides what a timeout means: a block.
const (
	DefaultHookGateTimeout  = 140 * time.Second
	DefaultHookEventTimeout = 10 * time.Second
)

// blockExit is the exit status that makes Claude Code block a tool call. Every
// other failure of a hook lets the call run, so the gate fails closed here.
const blockExit = 2

func newHookCmd(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Run as an agent's hook (Claude Code)",
	}
	cmd.AddCommand(newHookClaudeCmd(o))
	return cmd
}

func newHookClaudeCmd(o *options) *cobra.Command {
	var (
		autoApprove  bool
		gateTimeout  time.Duration
		eventTimeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "claude",
		Short: "Forward a Claude Code hook event (JSON on stdin) to warden",
		Long: `Forward one Claude Code hook event, read as JSON on stdin, to warden's hook door
(its address is in the data dir's daemon.json, its token in the data dir's token file),
with X-Workspace-Path from $CLAUDE_PROJECT_DIR (else the event's cwd).

PreToolUse is gated and fails closed: when warden denies, the answer is Claude's
permissionDecision "deny" with the reason; when warden cannot be asked (not running,
timeout, bad answer, any error) the command exits 2 with the reason on stderr, which
Claude treats as a block. When warden allows, nothing is printed and Claude's own
permission rules stay in charge, unless --auto-approve is given (then "allow").

Other events are recorded; when warden cannot be reached they are written to the
data dir's spool/ and the daemon ingests them when it is back. They never block.

"warden install claude" writes this command into Claude Code's settings.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h := hookRun{o: o, autoApprove: autoApprove, gateTimeout: gateTimeout, eventTimeout: eventTimeout}
			return h.run(cmd.Context())
		},
	}
	cmd.Flags().BoolVar(&autoApprove, "auto-approve", false, `answer "allow" to Claude when warden allows, skipping Claude's own permission prompt`)
	cmd.Flags().DurationVar(&gateTimeout, "timeout", DefaultHookGateTimeout, "how long a PreToolUse waits for warden (an approval included) before it is blocked")
	cmd.Flags().DurationVar(&eventTimeout, "event-timeout", DefaultHookEventTimeout, "how long other events wait for warden before they are spooled")
	return cmd
}

type hookRun struct {
	o            *options
	autoApprove  bool
	gateTimeout  time.Duration
	eventTimeout time.Duration
}

// hookHead is the part of the hook JSON the command itself reads.
type hookHead struct {
	HookEventName string `json:"hook_event_name"`
	Cwd           string `json:"cwd"`
}

// preToolUseOutput is Claude Code's answer format for PreToolUse.
type preToolUseOutput struct {
	HookSpecificOutput struct {
		HookEventName            string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision,omitempty"`
		PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
		// UpdatedInput replaces the tool's input (warden's sandbox
		// rewrite); without a permissionDecision Claude's own permission
		// rules still judge the call.
		UpdatedInput map[string]any `json:"updatedInput,omitempty"`
	} `json:"hookSpecificOutput"`
}

func (h hookRun) run(ctx context.Context) error {
	body, readErr := io.ReadAll(io.LimitReader(h.o.stdin, hooks.MaxBody+1))
	var head hookHead
	parseErr := json.Unmarshal(body, &head)
	gating := head.HookEventName == hooks.EventPreToolUse
	switch {
	case readErr != nil:
		return h.block(fmt.Sprintf("could not read the hook event: %v", readErr))
	case len(body) > hooks.MaxBody:
		if gating || parseErr != nil {
			return h.block(fmt.Sprintf("the hook event is larger than %d bytes", hooks.MaxBody))
		}
		fmt.Fprintf(h.o.stderr, "warden: %s event larger than %d bytes; not recorded\n", head.HookEventName, hooks.MaxBody)
		return nil
	case parseErr != nil || head.HookEventName == "":
		// Cannot tell whether this is a tool call: treat it as one.
		return h.block("the hook event is not the JSON Claude Code sends (no hook_event_name)")
	}
	ws := os.Getenv("CLAUDE_PROJECT_DIR")
	if !filepath.IsAbs(ws) {
		ws = head.Cwd
	}
	if !filepath.IsAbs(ws) {
		if wd, err := os.Getwd(); err == nil {
			ws = wd
		}
	}
	cfg, err := h.o.loadConfig()
	if err != nil {
		return h.fail(gating, fmt.Sprintf("could not read warden's config: %v", err), "", ws, body)
	}
	dataDir, err := h.o.resolveDataDir(cfg)
	if err != nil {
		return h.fail(gating, fmt.Sprintf("could not find warden's data dir: %v", err), "", ws, body)
	}
	timeout := h.eventTimeout
	if gating {
		timeout = h.gateTimeout
	}
	status, answer, err := postHook(ctx, dataDir, ws, body, timeout)
	if gating {
		if err != nil {
			return h.block(err.Error())
		}
		return h.answerGate(status, answer)
	}
	switch {
	case err == nil && status == http.StatusAccepted:
		// The daemon's log could not write; it kept the event (or counted
		// it as dropped). Spooling here would only hit the same disk.
		var held hooks.HeldAnswer
		_ = json.Unmarshal(answer, &held)
		fmt.Fprintf(h.o.stderr, "warden: %s event not recorded yet (%s); warden kept it: %s\n", head.HookEventName, held.Error, held.Held)
		return nil
	case err == nil && status/100 == 2:
		return nil
	case err == nil && status/100 == 4:
		// The door refused this event for good; spooling would not help.
		fmt.Fprintf(h.o.stderr, "warden: %s event refused: %s\n", head.HookEventName, errorText(status, answer))
		return nil
	case err == nil:
		err = errors.New(errorText(status, answer))
	}
	return h.fail(false, err.Error(), dataDir, ws, body)
}

// fail ends a run that could not reach warden: a gated call is blocked, any
// other event is spooled (when the data dir is known) and lets Claude go on.
func (h hookRun) fail(gating bool, reason, dataDir, ws string, body []byte) error {
	if gating {
		return h.block(reason)
	}
	if dataDir == "" {
		fmt.Fprintf(h.o.stderr, "warden: event not recorded: %s\n", reason)
		return nil
	}
	path, err := hooks.WriteSpool(filepath.Join(dataDir, hooks.SpoolDirName), hooks.SpoolEntry{Workspace: ws, Payload: body})
	if err != nil {
		fmt.Fprintf(h.o.stderr, "warden: event not recorded (%s) and could not be spooled: %v\n", reason, err)
		return nil
	}
	fmt.Fprintf(h.o.stderr, "warden: %s; event spooled to %s\n", reason, path)
	return nil
}

// block makes Claude Code block the call: reason on stderr, exit 2.
func (h hookRun) block(reason string) error {
	fmt.Fprintf(h.o.stderr, "warden blocked this call (fail-closed): %s\n", reason)
	return exitCode{code: blockExit}
}

func (h hookRun) answerGate(status int, answer []byte) error {
	if status/100 != 2 {
		return h.block("warden's hook door answered " + errorText(status, answer))
	}
	var v hooks.Verdict
	dec := json.NewDecoder(bytes.NewReader(answer))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return h.block(fmt.Sprintf("warden's answer is not a verdict: %v", err))
	}
	if (v.Decision != "allow" && v.Decision != "deny") || v.Allow != (v.Decision == "allow") {
		return h.block(fmt.Sprintf("warden's answer is inconsistent (allow=%v decision=%q)", v.Allow, v.Decision))
	}
	var out preToolUseOutput
	out.HookSpecificOutput.HookEventName = hooks.EventPreToolUse
	if !v.Allow {
		reason := v.Reason
		if v.Rule != "" {
			reason = fmt.Sprintf("%s [warden rule %s]", reason, v.Rule)
		}
		out.HookSpecificOutput.PermissionDecision = "deny"
		out.HookSpecificOutput.PermissionDecisionReason = "warden: " + reason
		return h.o.printCompactJSON(out)
	}
	out.HookSpecificOutput.UpdatedInput = v.UpdatedInput
	if !h.autoApprove {
		if v.UpdatedInput == nil {
			return nil // Claude's own permission rules stay in charge
		}
		// The rewrite alone: Claude's own permission rules still apply.
		return h.o.printCompactJSON(out)
	}
	out.HookSpecificOutput.PermissionDecision = "allow"
	out.HookSpecificOutput.PermissionDecisionReason = "allowed by warden: " + v.Reason
	return h.o.printCompactJSON(out)
}

func (o *options) printCompactJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	_, err = fmt.Fprintf(o.stdout, "%s\n", b)
	return err
}

// doorOf finds the running daemon's address for door and its token, or
// says what to do when warden is not running or the door is off.
func doorOf(dataDir, door string) (addr, token string, err error) {
	rt, err := daemon.ReadRuntime(dataDir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", "", fmt.Errorf("warden is not running (no %s in %s): start it with `warden serve`", daemon.RuntimeName, dataDir)
		}
		return "", "", fmt.Errorf("read %s: %w", filepath.Join(dataDir, daemon.RuntimeName), err)
	}
	addr = rt.Listeners[door]
	if addr == "" {
		where := fmt.Sprintf("listeners.%s in the config, or serve --%s-addr", door, door)
		if door == "control" {
			where = "control.enabled or listeners.control in the config, or serve --control-addr"
		}
		return "", "", fmt.Errorf("warden's %s door is switched off in the running daemon (%s): give it an address there and restart warden (warden stop; warden serve)", door, where)
	}
	tok, err := os.ReadFile(filepath.Join(dataDir, admin.TokenName))
	if err != nil {
		return "", "", fmt.Errorf("read warden's token: %w", err)
	}
	return addr, strings.TrimSpace(string(tok)), nil
}

// postHook sends one hook body to the running daemon's hook door, signed
// with the hook key, and returns the status and body of its answer once the
// answer's proof verifies against warden's public key. The hook key itself
// never travels (see package proof), and an answer without warden's proof
// (whoever listens on a stopped daemon's port) is an error, never a verdict.
func postHook(ctx context.Context, dataDir, ws string, body []byte, timeout time.Duration) (int, []byte, error) {
	rt, err := daemon.ReadRuntime(dataDir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, nil, fmt.Errorf("warden is not running (no %s in %s): start it with `warden serve`", daemon.RuntimeName, dataDir)
		}
		return 0, nil, fmt.Errorf("read %s: %w", filepath.Join(dataDir, daemon.RuntimeName), err)
	}
	addr := rt.Listeners["hooks"]
	if addr == "" {
		return 0, nil, errors.New("warden's hooks door is switched off (serve --hooks-addr)")
	}
	key, err := proof.ReadHookKey(dataDir)
	if err != nil {
		return 0, nil, err
	}
	pub, err := proof.ReadPublic(dataDir)
	if err != nil {
		return 0, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+hooks.Path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(hooks.WorkspaceHeader, ws)
	nonce, err := proof.SignRequest(req, key, ws, body, time.Now())
	if err != nil {
		return 0, nil, err
	}
	client := &http.Client{Timeout: timeout, Transport: &http.Transport{Proxy: nil}}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return 0, nil, fmt.Errorf("warden did not answer within %s", timeout)
		}
		return 0, nil, fmt.Errorf("cannot reach warden at %s: %w", addr, admin.ErrNotRunningFrom(err))
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, nil, fmt.Errorf("read warden's answer: %w", err)
	}
	if err := proof.Verify(pub, proof.DoorHooks, nonce, resp.StatusCode, answer, resp.Header.Get(proof.ProofHeader)); err != nil {
		return 0, nil, fmt.Errorf("the listener on %s is not warden: %w (%s); warden may have stopped without cleaning up (check with `warden status`, start it with `warden serve`)",
			addr, err, filepath.Join(dataDir, proof.DoorPubName))
	}
	return resp.StatusCode, answer, nil
}

// errorText describes a non-2xx answer of the hook door.
func errorText(status int, answer []byte) string {
	var e hooks.Error
	if json.Unmarshal(answer, &e) == nil && e.Error != "" {
		return fmt.Sprintf("%d: %s", status, e.Error)
	}
	return fmt.Sprintf("%d %s", status, http.StatusText(status))
}
