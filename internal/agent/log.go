package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/provider"
	"github.com/warden-dev/warden/internal/store"
)

// history is one session's log as the engine reads it: its events and
// what they say about the session.
type history struct {
	id     string
	events []event.Event
	// data holds, beside each event, its payload as fold decoded it once
	// (UserData, AssistantData, ResultData; nil for other types): each
	// step's view is built from it without decoding the session again
	data []any

	model     string
	workspace string
	parent    string
	depth     int
	forkedOf  *ForkData
	deleted   bool
	turns     int
	usage     provider.Usage // the session's own steps and its subagents'
	lastInput int64          // input tokens the provider reported last
	// open are the tool calls of the last message.assistant steps that
	// have no tool.result, in call order
	open []provider.ToolCall
	// busy says the last turn began (message.user) and did not end
	// (session.status idle)
	busy bool
	// compaction is the latest context.compaction marker
	compaction *CompactionData
}

// readHistory reads session id from the log. A session that warden's agent
// did not start, or that was deleted, is ErrSessionNotFound.
func (e *Engine) readHistory(ctx context.Context, id string) (*history, error) {
	if id == "" {
		return nil, fmt.Errorf("%w: sessionId is empty", ErrSessionNotFound)
	}
	evs, err := e.core.Events(ctx, store.Filter{Session: id})
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", id, err)
	}
	h, err := foldHistory(id, evs)
	if err != nil {
		return nil, err
	}
	if h.deleted {
		return nil, fmt.Errorf("%w: %s was deleted", ErrSessionNotFound, id)
	}
	return h, nil
}

// Bounds of the engine's history cache (current): how many sessions, and
// how many events a session may have to be kept.
const (
	maxCachedHistories  = 64
	maxCachedHistoryLen = 4096
)

// current returns session id as the log has it now, from the history the
// engine kept of it (only the newer events are read) or, the first time,
// from the whole log; the result is kept for the next turn.
func (e *Engine) current(ctx context.Context, id string) (*history, error) {
	e.hmu.Lock()
	h := e.hist[id]
	e.hmu.Unlock()
	var err error
	if h == nil {
		h, err = e.readHistory(ctx, id)
	} else {
		h, err = e.refresh(ctx, h)
	}
	if err != nil {
		e.hmu.Lock()
		delete(e.hist, id)
		e.hmu.Unlock()
		return h, err
	}
	e.keep(h)
	return h, nil
}

// keep puts h in the engine's history cache (current), within its bounds.
func (e *Engine) keep(h *history) {
	e.hmu.Lock()
	defer e.hmu.Unlock()
	if len(h.events) > maxCachedHistoryLen {
		delete(e.hist, h.id)
		return
	}
	if _, ok := e.hist[h.id]; !ok && len(e.hist) >= maxCachedHistories {
		for k := range e.hist { // any one goes
			delete(e.hist, k)
			break
		}
	}
	e.hist[h.id] = h
}

// refresh brings h up to date with the log: it reads only the events after
// the newest h holds and folds the whole again (a session is read whole
// once per turn, not once per step).
func (e *Engine) refresh(ctx context.Context, h *history) (*history, error) {
	evs, err := e.core.Events(ctx, store.Filter{Session: h.id, AfterSeq: h.lastSeq()})
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", h.id, err)
	}
	if len(evs) == 0 {
		return h, nil
	}
	nh, err := h.extend(evs)
	if err != nil {
		return nil, err
	}
	if nh.deleted {
		return nil, fmt.Errorf("%w: %s was deleted", ErrSessionNotFound, h.id)
	}
	return nh, nil
}

// foldHistory derives a history from a session's events.
func foldHistory(id string, evs []event.Event) (*history, error) {
	if len(evs) == 0 || evs[0].Source != Source || (evs[0].Type != event.SessionStart && evs[0].Type != event.SessionFork) {
		return nil, fmt.Errorf("%w: %s", ErrSessionNotFound, id)
	}
	return (&history{id: id}).extend(evs)
}

// extend returns h with evs after its events, folded on from h's state:
// only evs are decoded, so a step of a long session does not decode the
// session again. h is left as it was (histories are shared: the engine's
// cache, a turn, a reader).
func (h *history) extend(evs []event.Event) (*history, error) {
	nh := *h
	nh.events = append(slices.Clip(h.events), evs...)
	nh.data = append(slices.Clip(h.data), make([]any, len(evs))...)
	nh.open = slices.Clone(h.open)
	for i := len(h.events); i < len(nh.events); i++ {
		if err := nh.fold(i); err != nil {
			return nil, err
		}
	}
	return &nh, nil
}

// fold applies the i-th event to h's state and keeps its decoded payload
// (the view's messages) in h.data[i].
func (h *history) fold(i int) error {
	ev := h.events[i]
	switch ev.Type {
	case event.SessionStart:
		d, err := event.DataOf[StartData](ev)
		if err != nil {
			return err
		}
		if h.forkedOf == nil || h.model == "" {
			h.model, h.workspace, h.depth = d.Model, d.WorkingDirectory, d.Depth
		}
		if d.Parent != "" && h.forkedOf == nil {
			h.parent = d.Parent
		}
	case event.SessionFork:
		d, err := event.DataOf[ForkData](ev)
		if err != nil {
			return err
		}
		if h.forkedOf == nil {
			h.forkedOf = &d
			h.model, h.workspace, h.depth = d.Model, d.WorkingDirectory, d.Depth
		}
	case event.SessionEnd:
		h.deleted = true
	case event.SessionStatus:
		d, _ := event.DataOf[StatusData](ev)
		if d.Model != "" {
			h.model = d.Model
		}
		if d.Status == "idle" {
			h.busy = false
		}
	case event.MessageUser:
		d, _ := event.DataOf[UserData](ev)
		h.data[i] = d
		h.turns++
		h.busy = true
	case event.MessageAssistant:
		d, err := event.DataOf[AssistantData](ev)
		if err != nil {
			return err
		}
		h.data[i] = d
		h.usage = h.usage.Add(d.TokenUsage)
		if d.TokenUsage.InputTokens > 0 {
			h.lastInput = d.TokenUsage.InputTokens
		}
		h.open = append(h.open, provider.Message{Parts: d.Parts}.ToolCalls()...)
	case event.ToolResult:
		d, _ := event.DataOf[ResultData](ev)
		h.data[i] = d
		if d.CallID != "" {
			// a result closes its call (every open one of that id)
			h.open = slices.DeleteFunc(h.open, func(c provider.ToolCall) bool { return c.ID == d.CallID })
		}
	case event.SubagentComplete:
		d, _ := event.DataOf[SubagentData](ev)
		if d.ParentSessionID == h.id && d.TokenUsage != nil {
			h.usage = h.usage.Add(*d.TokenUsage)
		}
	case event.ContextCompaction:
		d, err := event.DataOf[CompactionData](ev)
		if err == nil {
			h.compaction = &d
		}
	}
	return nil
}

// dataAt returns the payload of h's i-th event as fold decoded it (or
// decodes it, for a history built otherwise).
func dataAt[T any](h *history, i int) T {
	if i < len(h.data) {
		if d, ok := h.data[i].(T); ok {
			return d
		}
	}
	d, _ := event.DataOf[T](h.events[i])
	return d
}

// lastSeq is the seq of the session's newest event.
func (h *history) lastSeq() int64 {
	if len(h.events) == 0 {
		return 0
	}
	return h.events[len(h.events)-1].Seq
}

// errIs reports whether err is one of targets.
func errIs(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}
