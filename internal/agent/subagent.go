package agent

import (
	"context"
	"fmt"

	"github.com/warden-dev/warden/internal/event"
)

// runSubagent runs prompt in a child session of the call's session: the
// same workspace, model, tools and gate (a child's policy is its parent's,
// never wider), one level deeper. subagent.spawn, .progress and .complete
// go into both sessions; the child's tokens count for the parent's turn;
// aborting the parent's turn aborts the child's.
func (e *Engine) runSubagent(ctx context.Context, t *toolCtx, prompt string) (string, error) {
	h := t.h
	if h.depth+1 > e.opts.MaxDepth {
		return "", fmt.Errorf("subagents may nest %d deep; this session is at depth %d", e.opts.MaxDepth, h.depth)
	}
	// the task is a call like any other: judged and recorded
	if _, err := t.ws.Gate(ctx, t.caller, "", "task", map[string]any{"prompt": prompt}, false); err != nil {
		return "", err
	}
	select {
	case e.sem <- struct{}{}:
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
	defer func() { <-e.sem }()
	child := newSessionID()
	spawn := SubagentData{SessionID: child, ParentSessionID: h.id, Task: prompt, Model: h.model, ToolID: t.call.ID}
	if _, err := e.record(ctx,
		ev(child, h.workspace, event.SessionStart, StartData{Parent: h.id, WorkingDirectory: h.workspace, Model: h.model, Provider: providerOf(h.model), Depth: h.depth + 1, Task: prompt}),
		ev(h.id, h.workspace, event.SubagentSpawn, spawn),
		ev(child, h.workspace, event.SubagentSpawn, spawn),
	); err != nil {
		return "", err
	}
	e.notify(h.id, "subagent.spawn", map[string]any{"parentSessionId": h.id, "subagentSessionId": child, "task": prompt})
	r, ch, err := e.begin(ctx, child, ctx)
	if err != nil {
		return "", err
	}
	e.turn(r, ch, UserData{Content: prompt, Turn: 1})
	res := r.result
	text := res.Text
	if res.StopReason != StopEnd && res.StopReason != "" {
		text = fmt.Sprintf("%s\n[the subagent stopped: %s %s]", text, res.StopReason, res.Error)
	}
	usage := res.TokenUsage
	done := SubagentData{SessionID: child, ParentSessionID: h.id, Result: text, TokenUsage: &usage, Status: res.StopReason}
	if _, err := e.record(ctx, ev(h.id, h.workspace, event.SubagentComplete, done), ev(child, h.workspace, event.SubagentComplete, done)); err != nil {
		return "", err
	}
	*t.usage = t.usage.Add(usage)
	e.notify(h.id, "subagent.complete", map[string]any{"subagentSessionId": child, "parentSessionId": h.id, "result": text})
	if r.err != nil {
		return "", r.err
	}
	return text, nil
}

// progress records a child's step in both sessions.
func (e *Engine) progress(ctx context.Context, h *history, turn, step int) {
	d := SubagentData{SessionID: h.id, ParentSessionID: h.parent, Turn: turn, Step: step, Status: "running"}
	if _, err := e.record(ctx, ev(h.parent, h.workspace, event.SubagentProgress, d), ev(h.id, h.workspace, event.SubagentProgress, d)); err != nil {
		e.log.Warn("could not record subagent progress", "session", h.id, "err", err)
	}
}
