package agent

import (
	"context"
	"fmt"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/provider"
)

// Fork copies session id's events up to and including the event eventID
// (its newest event when 0) into a new session, in one transaction: a
// session.fork first (sourceSessionId, sourceEventId), then the copies with
// new gapless seqs. A tool call the fork point leaves without a result
// gets "not executed (fork point)", and an approval still waiting at the
// fork point is not copied (the new session never waits on the source's
// person). The new session continues with its own turns.
func (e *Engine) Fork(ctx context.Context, id string, eventID int64) (string, error) {
	h, err := e.readHistory(ctx, id)
	if err != nil {
		return "", err
	}
	cut := len(h.events) - 1
	if eventID != 0 {
		cut = -1
		for i, x := range h.events {
			if x.ID == eventID {
				cut = i
				break
			}
		}
		if cut < 0 {
			return "", fmt.Errorf("%w: event %d is not an event of session %s", ErrInvalid, eventID, id)
		}
	}
	src := h.events[:cut+1]
	part, err := foldHistory(id, src)
	if err != nil {
		return "", err
	}
	resolved := map[string]bool{}
	for _, x := range src {
		if x.Type == event.ApprovalResolved {
			d, _ := event.DataOf[event.ApprovalData](x)
			resolved[d.ApprovalID] = true
		}
	}
	nid := newSessionID()
	p := providerOf(part.model)
	out := []event.Event{ev(nid, part.workspace, event.SessionFork, ForkData{
		SourceSessionID: id, SourceEventID: src[cut].ID, SourceSeq: src[cut].Seq,
		WorkingDirectory: part.workspace, Model: part.model, Provider: p, Depth: part.depth,
	})}
	for _, x := range src {
		if x.Type == event.ApprovalRequested {
			d, _ := event.DataOf[event.ApprovalData](x)
			if !resolved[d.ApprovalID] {
				continue
			}
		}
		x.ID, x.Seq, x.Session = 0, 0, nid
		out = append(out, x)
	}
	for _, c := range part.open {
		out = append(out, ev(nid, part.workspace, event.ToolResult, ResultData{
			CallID: c.ID, ToolID: c.ID, Tool: c.Name, IsError: true, Outcome: "not_executed",
			Content: "not executed (fork point)",
		}))
	}
	if part.busy {
		out = append(out, ev(nid, part.workspace, event.SessionStatus, StatusData{Status: "idle", StopReason: "fork point", Turn: part.turns}))
	}
	if _, err := e.core.Record(ctx, out...); err != nil {
		return "", fmt.Errorf("fork %s: %w", id, err)
	}
	return nid, nil
}

func providerOf(model string) string {
	p, _, err := provider.SplitModel(model)
	if err != nil {
		return ""
	}
	return p
}
