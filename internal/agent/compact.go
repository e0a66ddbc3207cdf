package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/provider"
)

// summaryPrompt is the fixed template compaction asks the model to fill.
const summaryPrompt = `You compact the history of a coding agent's session so the agent can go on working. Summarise the transcript you are given in exactly this template, keeping file paths, names, commands and decisions exact:

## Goal
## Constraints
## Done
## Pending
## Files
## Decisions`

// Compact compacts session id's view now (context.compact): it returns
// the marker recorded, or ErrContextOverflow when nothing can be saved.
// It runs only between turns (ErrBusy during one).
func (e *Engine) Compact(ctx context.Context, id string) (CompactionData, error) {
	r, h, err := e.begin(ctx, id, e.ctx)
	if err != nil {
		return CompactionData{}, err
	}
	defer e.release(r, id)
	p, model, err := e.opts.Models.Resolve(h.model)
	if err != nil {
		return CompactionData{}, err
	}
	window, reserve := e.window(r.ctx, p, model, h.model)
	c, err := e.compact(r.ctx, h, p, model, window-reserve, true)
	if err != nil && errors.Is(context.Cause(r.ctx), errAborted) {
		return CompactionData{}, fmt.Errorf("%w: the compaction was aborted before it was recorded", ErrAborted)
	}
	return c, err
}

// compact records a context.compaction marker for h so that its view fits
// budget tokens: first old tool outputs are trimmed; when that is not
// enough (or force), the middle of the session (after the original task,
// before the last Options.KeepTurns user turns) is summarised by the model
// from the full events into summaryPrompt's template. The system prompt,
// the original task and the last turns stay word for word. Nothing to
// save is ErrContextOverflow.
func (e *Engine) compact(ctx context.Context, h *history, p provider.Provider, model string, budget int, force bool) (CompactionData, error) {
	var users []int // indexes of message.user events
	for i, x := range h.events {
		if x.Type == event.MessageUser {
			users = append(users, i)
		}
	}
	if len(users) < 2 {
		return CompactionData{}, fmt.Errorf("%w: the session has only its original task and the current turn, which compaction keeps word for word", ErrContextOverflow)
	}
	keep := e.opts.KeepTurns
	if keep > len(users)-1 {
		keep = len(users) - 1
	}
	first, last := users[0], users[len(users)-keep]
	if last-first < 2 {
		return CompactionData{}, fmt.Errorf("%w: nothing lies between the original task and the last turn", ErrContextOverflow)
	}
	tools := e.toolDefs(h.depth)
	before := estimate(e.buildView(h, nil), tools)
	base := CompactionData{
		FromSeq: h.events[first+1].Seq, ToSeq: h.events[last-1].Seq,
		TurnsBefore: len(users), TurnsAfter: 1 + keep,
	}
	if !force {
		trim := base
		trim.Mode = "trim"
		if after := estimate(e.buildView(h, &trim), tools); after <= budget && after < before {
			trim.TokensSaved = before - after
			trim.TurnsAfter = len(users)
			return trim, e.mark(ctx, h, trim)
		}
	}
	sumReq := provider.Request{Model: model, System: summaryPrompt, MaxTokens: e.opts.MaxOutput, Messages: []provider.Message{{
		Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "The transcript to summarise:\n\n" + clip(transcript(h.events[first:last]), budget*2)}},
	}}}
	resp, err := p.Stream(ctx, sumReq, nil)
	if err != nil {
		return CompactionData{}, fmt.Errorf("compaction: summarise with %s: %w", h.model, err)
	}
	summary := strings.TrimSpace(resp.Message.Text())
	if summary == "" {
		return CompactionData{}, fmt.Errorf("%w: the model returned an empty summary", ErrContextOverflow)
	}
	sum := base
	sum.Mode, sum.Summary = "summary", summary
	after := estimate(e.buildView(h, &sum), tools)
	if after >= before {
		return CompactionData{}, fmt.Errorf("%w: the summary would save nothing (%d tokens before, %d after)", ErrContextOverflow, before, after)
	}
	sum.TokensSaved = before - after
	return sum, e.mark(ctx, h, sum)
}

func (e *Engine) mark(ctx context.Context, h *history, c CompactionData) error {
	if _, err := e.record(ctx, ev(h.id, h.workspace, event.ContextCompaction, c)); err != nil {
		return err
	}
	e.notify(h.id, "context.compaction", map[string]any{"sessionId": h.id, "turnsBefore": c.TurnsBefore, "turnsAfter": c.TurnsAfter, "tokensSaved": c.TokensSaved})
	return nil
}

// ContextSnapshot is the model's view of a session and its token figures
// (context.get).
type ContextSnapshot struct {
	SessionID string             `json:"sessionId"`
	Model     string             `json:"model"`
	System    string             `json:"system"`
	Messages  []provider.Message `json:"messages"`
	Turns     int                `json:"turns"`
	// EstimatedTokens is warden's estimate of the next request's prompt;
	// LastInputTokens what the provider reported for the last one.
	EstimatedTokens int   `json:"estimatedTokens"`
	LastInputTokens int64 `json:"lastInputTokens"`
	ContextWindow   int   `json:"contextWindow"`
	ReservedOutput  int   `json:"reservedOutput"`
	// TokenUsage is the session's total (its subagents' included).
	TokenUsage provider.Usage  `json:"tokenUsage"`
	Compaction *CompactionData `json:"compaction,omitempty"`
}

// Context returns session id's view as the next step would send it.
func (e *Engine) Context(ctx context.Context, id string) (ContextSnapshot, error) {
	h, err := e.readHistory(ctx, id)
	if err != nil {
		return ContextSnapshot{}, err
	}
	v := e.buildView(h, nil)
	tools := e.toolDefs(h.depth)
	s := ContextSnapshot{SessionID: id, Model: h.model, System: v.System, Messages: v.Messages, Turns: v.Turns,
		EstimatedTokens: estimate(v, tools), LastInputTokens: h.lastInput, TokenUsage: h.usage, Compaction: h.compaction}
	if s.Messages == nil {
		s.Messages = []provider.Message{}
	}
	if p, model, err := e.opts.Models.Resolve(h.model); err == nil {
		s.ContextWindow, s.ReservedOutput = e.window(ctx, p, model, h.model)
	}
	return s, nil
}
