package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/provider"
)

// Stop reasons of a turn.
const (
	StopEnd          = "end"              // the model answered without tool calls
	StopStepLimit    = "step_limit"       // Options.MaxSteps steps ran
	StopRepeated     = "repeated_call"    // the model repeated the previous step's calls
	StopOverflow     = "context_overflow" // the view does not fit and cannot be compacted
	StopAborted      = "aborted"          // agent.abort (or warden shutting down)
	StopError        = "error"            // the provider failed
	StopOutputLimit  = "max_tokens"       // the output limit cut the answer
	errAbortedReason = "aborted"
)

// errAborted is the cause of a turn's context when it is aborted.
var errAborted = errors.New("aborted")

// TurnResult is how a turn ended.
type TurnResult struct {
	SessionID  string         `json:"sessionId"`
	Turn       int            `json:"turn"`
	StopReason string         `json:"stopReason"`
	Steps      int            `json:"steps"`
	TokenUsage provider.Usage `json:"tokenUsage"`
	// Text is the final answer's text.
	Text  string `json:"text"`
	Error string `json:"error,omitempty"`
}

// Message runs a turn of session id with the user's content and returns
// once it has ended (its events and notices come as it runs). A session
// running a turn answers ErrBusy. The turn goes on when ctx ends (the
// client went away); only Abort (or Close) stops it.
func (e *Engine) Message(ctx context.Context, id, content string, attachments []Attachment) (TurnResult, error) {
	return e.message(ctx, id, UserData{Content: content, Attachments: attachments})
}

// Respond is the person's answer to what the assistant asked at the end
// of its last turn: a turn like Message, recorded as a message.user of
// kind "respond".
func (e *Engine) Respond(ctx context.Context, id, response string) (TurnResult, error) {
	return e.message(ctx, id, UserData{Content: response, Kind: "respond"})
}

func (e *Engine) message(ctx context.Context, id string, u UserData) (TurnResult, error) {
	if strings.TrimSpace(u.Content) == "" {
		return TurnResult{}, fmt.Errorf("%w: the message is empty", ErrInvalid)
	}
	r, h, err := e.begin(ctx, id, e.ctx)
	if err != nil {
		return TurnResult{}, err
	}
	if err := checkAttachments(h.workspace, u.Attachments); err != nil {
		e.release(r, id)
		return TurnResult{}, err
	}
	if err := e.fits(r.ctx, h, u); err != nil {
		// refused before anything is recorded: the session is as it was
		e.release(r, id)
		return TurnResult{}, err
	}
	u.Turn = h.turns + 1
	e.wg.Go(func() { e.turn(r, h, u) })
	select {
	case <-r.done:
		return r.result, r.err
	case <-ctx.Done():
		return TurnResult{}, ctx.Err()
	}
}

// checkAttachments refuses (ErrInvalid) an attachment that names nothing
// (neither a path nor content) or a path outside workspace root: the
// model is told a path is a workspace file to read, which must be true.
// Relative paths are relative to root.
func checkAttachments(root string, as []Attachment) error {
	for i, a := range as {
		if a.Path == "" && a.Content == "" {
			return fmt.Errorf("%w: attachment %d has neither a path nor content", ErrInvalid, i)
		}
		if a.Path == "" {
			continue
		}
		p := a.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		rel, err := filepath.Rel(root, filepath.Clean(p))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("%w: attachment %d: %s is outside the workspace %s", ErrInvalid, i, a.Path, root)
		}
	}
	return nil
}

// begin claims session id for a turn: ErrBusy when one runs.
func (e *Engine) begin(ctx context.Context, id string, parent context.Context) (*run, *history, error) {
	h, err := e.current(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, nil, errors.New("warden is shutting down")
	}
	if _, busy := e.runs[id]; busy {
		return nil, nil, ErrBusy
	}
	rctx, cancel := context.WithCancelCause(parent)
	r := &run{cancel: cancel, done: make(chan struct{}), started: time.Now()}
	e.runs[id] = r
	r.ctx = rctx
	return r, h, nil
}

// release ends a claim of begin that ran no turn.
func (e *Engine) release(r *run, id string) {
	e.mu.Lock()
	delete(e.runs, id)
	e.mu.Unlock()
	r.cancel(nil)
	close(r.done)
}

// fits refuses a message that could never fit the model's window: the
// system prompt, the tools and the message alone pass the budget, which no
// compaction can help (compaction keeps the last turn word for word).
func (e *Engine) fits(ctx context.Context, h *history, u UserData) error {
	p, model, err := e.opts.Models.Resolve(h.model)
	if err != nil {
		return err
	}
	window, reserve := e.window(ctx, p, model, h.model)
	v := e.buildView(&history{workspace: h.workspace}, nil)
	v.Messages = []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: userText(u)}}}}
	if n := estimate(v, e.toolDefs(h.depth)); n > window-reserve {
		return fmt.Errorf("%w: the message alone needs about %d tokens; %s takes %d (window %d, %d reserved for the answer)", ErrContextOverflow, n, h.model, window-reserve, window, reserve)
	}
	return nil
}

// Abort stops the turn session id is running and returns once its
// teardown is done (every call has its result, the stream and the
// processes have ended); false when no turn was running.
func (e *Engine) Abort(ctx context.Context, id string) bool {
	e.mu.Lock()
	r := e.runs[id]
	e.mu.Unlock()
	if r == nil {
		return false
	}
	r.cancel(errAborted)
	select {
	case <-r.done:
	case <-ctx.Done():
	}
	return true
}

// turn runs one turn to its end and releases the session.
func (e *Engine) turn(r *run, h *history, u UserData) {
	defer func() {
		e.mu.Lock()
		delete(e.runs, h.id)
		e.mu.Unlock()
		r.cancel(nil)
		close(r.done)
	}()
	ctx := r.ctx
	res := TurnResult{SessionID: h.id, Turn: u.Turn}
	// the user's message commits while the model is asked (see ahead)
	l := &ahead{}
	user := e.later(ctx, l, func() {
		e.notify(h.id, "session.status", map[string]any{"sessionId": h.id, "status": "busy"})
	}, ev(h.id, h.workspace, event.MessageUser, u), ev(h.id, h.workspace, event.SessionStatus, StatusData{Status: "busy", Turn: u.Turn}))
	var final []event.Event
	stop, err := e.steps(ctx, h, u.Turn, &res, &final, l)
	if lerr := l.wait(); user.err != nil {
		// the message is not in the log: the turn did not happen, and
		// nothing of it was recorded or announced
		r.err = user.err
		return
	} else if lerr != nil && err == nil {
		stop, err = StopError, lerr
	}
	if err != nil && stop == "" {
		stop = StopError
	}
	if context.Cause(ctx) == errAborted || (e.ctx.Err() != nil && ctx.Err() != nil) {
		stop, err = StopAborted, nil
	}
	res.StopReason = stop
	st := StatusData{Status: "idle", StopReason: stop, Turn: u.Turn, TokenUsage: &res.TokenUsage}
	if err != nil {
		res.Error = err.Error()
		st.Error = res.Error
	}
	// the last answer and the turn's end in one durable batch
	evs := append(final, ev(h.id, h.workspace, event.SessionStatus, st))
	if err != nil && !errors.Is(err, ErrContextOverflow) {
		evs = append(evs, ev(h.id, h.workspace, event.SessionError, map[string]string{"error": err.Error()}))
	}
	if _, rerr := e.record(ctx, evs...); rerr != nil {
		e.log.Error("could not record the end of a turn", "session", h.id, "err", rerr)
	}
	e.notify(h.id, "agent.turn_complete", map[string]any{"sessionId": h.id, "tokenUsage": res.TokenUsage, "stopReason": stop, "turn": u.Turn})
	e.notify(h.id, "session.status", map[string]any{"sessionId": h.id, "status": "idle"})
	r.result = res
	if errors.Is(err, ErrContextOverflow) {
		r.err = err
	}
}

// steps runs the step loop of one turn; it returns the stop reason.
// A last answer (no tool calls) is not recorded here but handed back in
// final, for turn to record with the turn's end in one batch. h is the
// session as the turn began (read from the log by begin); each later step
// brings it up to date with the log (reading only the events after those
// it holds), so the view is always the log's.
//
// l holds the records still committing (see ahead): the user's message at
// the first step, the previous step's last results after; they are in
// the step's view, and the step waits for them before it announces or
// records anything.
func (e *Engine) steps(ctx context.Context, h *history, turn int, res *TurnResult, final *[]event.Event, l *ahead) (string, error) {
	id := h.id
	var lastSig string
	for step := 1; ; step++ {
		if ctx.Err() != nil {
			return StopAborted, nil
		}
		if step > e.opts.MaxSteps {
			return StopStepLimit, nil
		}
		var err error
		// the first step goes on from the log as begin read it just now
		// (and the user's message, in l); each later one reads what the
		// step before it added
		if step > 1 {
			if h, err = e.refresh(ctx, h); err != nil {
				return "", err
			}
		}
		p, model, err := e.opts.Models.Resolve(h.model)
		if err != nil {
			return "", err
		}
		tools, tdefs := e.toolSet(h.depth), e.toolDefs(h.depth)
		v := e.buildView(l.view(h), nil)
		window, reserve := e.window(ctx, p, model, h.model)
		if estimate(v, tdefs) > window-reserve {
			// compaction reads and records the log: everything first
			if err := l.wait(); err != nil {
				return StopError, err
			}
			if h, err = e.refresh(ctx, h); err != nil {
				return "", err
			}
			if _, err := e.compact(ctx, h, p, model, window-reserve, false); err != nil {
				return StopOverflow, err
			}
			if h, err = e.refresh(ctx, h); err != nil {
				return "", err
			}
			v = e.buildView(h, nil)
		}
		req := provider.Request{Model: model, System: v.System, Messages: v.Messages, Tools: tdefs, MaxTokens: reserve}
		var sofar partial
		// the answer's deltas are announced once what it answers is
		// durable: the first one waits for l's commits
		waited, durable := false, false
		announce := func() bool {
			if !waited {
				waited, durable = true, l.wait() == nil
			}
			return durable
		}
		resp, err := p.Stream(ctx, req, func(d provider.Delta) {
			sofar.add(d)
			switch d.Kind {
			case provider.DeltaText:
				if announce() {
					e.notify(id, "agent.text_delta", map[string]any{"sessionId": id, "delta": d.Text})
				}
			case provider.DeltaThinking:
				if announce() {
					e.notify(id, "agent.thinking_delta", map[string]any{"sessionId": id, "delta": d.Text})
				}
			}
		})
		if lerr := l.wait(); lerr != nil {
			// what the model answered is not in the log: its answer is
			// neither recorded nor announced further
			return StopError, lerr
		}
		if err != nil {
			aborted := ctx.Err() != nil
			stop := StopError
			if aborted {
				stop = StopAborted
			}
			if e.recordPartial(ctx, h, turn, step, &sofar, stop) {
				// the turn's answer is what the log now holds of it: the
				// text the clients were shown, in this step
				res.Steps = step
				res.Text = sofar.text.String()
			}
			if aborted {
				return StopAborted, nil
			}
			if errors.Is(err, provider.ErrContextOverflow) {
				return StopOverflow, fmt.Errorf("%w: %w", ErrContextOverflow, err)
			}
			return StopError, fmt.Errorf("model %s: %w", h.model, err)
		}
		res.Steps = step
		res.TokenUsage = res.TokenUsage.Add(resp.Usage)
		res.Text = resp.Message.Text()
		parts := resp.Message.Parts
		if parts == nil {
			parts = []provider.Part{}
		}
		answer := ev(id, h.workspace, event.MessageAssistant, AssistantData{
			Content: res.Text, Parts: parts, TokenUsage: resp.Usage, StopReason: string(resp.StopReason),
			Model: h.model, Turn: turn, Step: step, Warning: resp.Warning,
		})
		calls := resp.Message.ToolCalls()
		var pend *pending
		switch {
		case len(calls) == 0 && h.parent == "":
			*final = []event.Event{answer}
		case len(calls) > 0 && firstAlone(tools, calls):
			// recorded with the first call's first record (its gate's
			// tool.call and decision, or its result)
			pend = &pending{evs: []event.Event{answer}}
		default:
			if _, err := e.record(ctx, answer); err != nil {
				return StopError, err
			}
		}
		if h.parent != "" {
			e.progress(ctx, h, turn, step)
		}
		if len(calls) == 0 {
			if resp.StopReason == provider.StopMaxTokens {
				return StopOutputLimit, nil
			}
			return StopEnd, nil
		}
		sig := signature(calls)
		if sig == lastSig {
			e.refuseAll(ctx, h, calls, pend, "not run: the same call(s) as the previous step; warden stopped the turn so it does not loop")
			return StopRepeated, nil
		}
		lastSig = sig
		var sub provider.Usage
		e.runCalls(ctx, h, tools, calls, &sub, pend, l)
		res.TokenUsage = res.TokenUsage.Add(sub)
		if ctx.Err() != nil {
			return StopAborted, nil
		}
	}
}

// partial is what a step's stream delivered so far: the text the clients
// were shown and the tool calls it announced. Deltas come from the
// goroutine that called Stream, one at a time.
type partial struct {
	text  strings.Builder
	calls []provider.ToolCall
}

func (p *partial) add(d provider.Delta) {
	switch d.Kind {
	case provider.DeltaText:
		p.text.WriteString(d.Text)
	case provider.DeltaToolStart:
		if d.ToolCallID != "" {
			p.calls = append(p.calls, provider.ToolCall{ID: d.ToolCallID, Name: d.ToolName, Arguments: json.RawMessage("{}")})
		}
	}
}

// recordPartial records the answer a stream that was cut short (abort, or
// the provider failing after its first delta) had delivered: a
// message.assistant marked partial with the text streamed so far, so the
// model's next view shows what it had said, and a "not run" tool.result
// for each tool call it had begun, so every call has exactly one result.
// One batch: the answer is never durable without its calls' results.
// Thinking is left out (a provider wants it back only whole and signed).
// It reports whether the answer was recorded.
func (e *Engine) recordPartial(ctx context.Context, h *history, turn, step int, p *partial, stop string) bool {
	text := p.text.String()
	if text == "" && len(p.calls) == 0 {
		return false
	}
	var parts []provider.Part
	if text != "" {
		parts = append(parts, provider.Part{Type: provider.PartText, Text: text})
	}
	for _, c := range p.calls {
		parts = append(parts, provider.Part{Type: provider.PartToolCall, ToolCall: &c})
	}
	evs := []event.Event{ev(h.id, h.workspace, event.MessageAssistant, AssistantData{
		Content: text, Parts: parts, StopReason: stop, Model: h.model, Turn: turn, Step: step, Partial: true,
	})}
	why := "not run: the answer was aborted while the model was still writing this call"
	if stop != StopAborted {
		why = "not run: the model's answer failed while it was still writing this call"
	}
	for _, c := range p.calls {
		evs = append(evs, ev(h.id, h.workspace, event.ToolResult, ResultData{
			CallID: c.ID, ToolID: c.ID, Tool: c.Name, Content: why, IsError: true, Outcome: "not_executed",
		}))
	}
	if _, err := e.record(ctx, evs...); err != nil {
		e.log.Error("could not record the partial answer of a step cut short", "session", h.id, "step", step, "err", err)
		return false
	}
	return true
}

// window returns the model's window and the output reserved in it.
func (e *Engine) window(ctx context.Context, p provider.Provider, model, id string) (window, reserve int) {
	reserve = e.opts.MaxOutput
	if e.opts.ContextWindow != nil {
		window = e.opts.ContextWindow(id)
	}
	if window == 0 {
		if info, err := p.Info(ctx, model); err == nil {
			window = info.ContextWindow
			if info.MaxOutput > 0 && info.MaxOutput < reserve {
				reserve = info.MaxOutput
			}
		}
	}
	if window == 0 {
		window = DefaultContextWindow
	}
	if reserve > window/2 {
		reserve = window / 2
	}
	return window, reserve
}

func signature(calls []provider.ToolCall) string {
	var b strings.Builder
	for _, c := range calls {
		b.WriteString(c.Name + "\x00" + string(c.Arguments) + "\x00")
	}
	return b.String()
}

// pending holds a step's message.assistant until the first record of its
// first call, which carries it in the same transaction: the answer is
// durable no later than anything its calls record, and costs no commit of
// its own. Only a first call that runs alone takes it (firstAlone), so no
// other call of the step can record before it.
type pending struct {
	mu  sync.Mutex
	evs []event.Event
}

// take returns the held events once; nil after that (and on a nil p).
func (p *pending) take() []event.Event {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	evs := p.evs
	p.evs = nil
	return evs
}

// group returns the end of the group of calls that starts at i:
// consecutive read-only calls run side by side, any other call alone.
func group(tools map[string]tool, calls []provider.ToolCall, i int) int {
	j := i + 1
	if tools[calls[i].Name].readOnly {
		for j < len(calls) && tools[calls[j].Name].readOnly {
			j++
		}
	}
	return j
}

// firstAlone reports whether a step's first call runs alone.
func firstAlone(tools map[string]tool, calls []provider.ToolCall) bool {
	return group(tools, calls, 0) == 1
}

// refuseAll gives every call a result without running it.
func (e *Engine) refuseAll(ctx context.Context, h *history, calls []provider.ToolCall, pend *pending, why string) {
	for _, c := range calls {
		e.result(ctx, nil, h, c, pend, why, true, "not_executed", time.Now())
	}
}

// runCalls runs one step's tool calls: consecutive read-only calls side by
// side, every other call alone, in the model's order. Every call gets
// exactly one tool.result. pend, when set, goes with the first call's
// first record. The results of the last group are recorded through l
// (they commit while the model is asked the next step); the others before
// the next group runs.
func (e *Engine) runCalls(ctx context.Context, h *history, tools map[string]tool, calls []provider.ToolCall, usage *provider.Usage, pend *pending, l *ahead) {
	var mu sync.Mutex
	for i := 0; i < len(calls); {
		j := group(tools, calls, i)
		var later *ahead
		if j == len(calls) {
			later = l
		}
		var wg sync.WaitGroup
		for _, c := range calls[i:j] {
			wg.Go(func() {
				var u provider.Usage
				e.runCall(ctx, h, tools, c, &u, pend, later)
				mu.Lock()
				*usage = usage.Add(u)
				mu.Unlock()
			})
		}
		wg.Wait()
		i = j
	}
}

// runCall gates and runs one call and records its one result (through l
// when set).
func (e *Engine) runCall(ctx context.Context, h *history, tools map[string]tool, c provider.ToolCall, usage *provider.Usage, pend *pending, l *ahead) {
	start := time.Now()
	if ctx.Err() != nil {
		// arrived after the abort: never runs
		e.result(ctx, l, h, c, pend, "aborted before it ran", true, "aborted", start)
		return
	}
	e.notify(h.id, "agent.tool_start", map[string]any{"sessionId": h.id, "toolName": c.Name, "toolId": c.ID})
	ws, err := e.opts.Ops.Workspace(h.workspace)
	if err != nil {
		e.result(ctx, l, h, c, pend, "warden cannot serve this workspace: "+err.Error(), true, "error", start)
		return
	}
	caller := ops.Caller{Source: Source, Session: h.id, CallID: c.ID, OwnResult: true,
		Extra: map[string]any{"toolId": c.ID, "name": c.Name, "arguments": string(c.Arguments)}}
	if pend != nil {
		caller.Before = pend.take
	}
	t, known := tools[c.Name]
	args, aerr := argsMap(c.Arguments)
	switch {
	case !known:
		err = ws.Refuse(ctx, caller, "", c.Name, map[string]any{"arguments": string(c.Arguments)}, "warden.agent-unknown-tool",
			fmt.Errorf("unknown tool %q (the tools are: %s)", c.Name, strings.Join(toolNames(tools), ", ")))
	case aerr != nil:
		err = ws.Refuse(ctx, caller, "", c.Name, map[string]any{"arguments": string(c.Arguments)}, "warden.agent-bad-arguments", aerr)
	}
	if err != nil {
		e.result(ctx, l, h, c, pend, err.Error(), true, "error", start)
		return
	}
	tc := &toolCtx{e: e, ws: ws, caller: caller, h: h, call: c, usage: usage}
	out, err := t.run(ctx, tc, args)
	var denied *ops.DeniedError
	var pre *preGateError
	switch {
	case ctx.Err() != nil:
		e.result(ctx, l, h, c, pend, fmt.Sprintf("aborted after %s; side effects may have happened", since(start)), true, "aborted", start)
	case errors.As(err, &denied):
		e.result(ctx, l, h, c, pend, "denied by warden: "+denied.Verdict.Reason, true, "denied", start)
	case errors.As(err, &pre):
		// refused before the gate saw it: still in the log as a refusal
		_ = ws.Refuse(ctx, caller, "", c.Name, args, pre.Rule, pre.Err)
		e.result(ctx, l, h, c, pend, "refused by warden: "+err.Error(), true, "denied", start)
	case err != nil:
		e.result(ctx, l, h, c, pend, err.Error(), true, "error", start)
	default:
		e.result(ctx, l, h, c, pend, out, false, "ok", start)
	}
}

func toolNames(ts map[string]tool) []string {
	var out []string
	for n := range ts {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// result records a call's one tool.result (after what pend still holds,
// in the same transaction) and announces it once it is durable. With l
// set, the record commits in the background (see ahead) and result
// returns at once.
func (e *Engine) result(ctx context.Context, l *ahead, h *history, c provider.ToolCall, pend *pending, content string, isErr bool, outcome string, start time.Time) {
	d := ResultData{CallID: c.ID, ToolID: c.ID, Tool: c.Name, Content: content, IsError: isErr, Outcome: outcome, Duration: time.Since(start).Milliseconds()}
	evs := append(pend.take(), ev(h.id, h.workspace, event.ToolResult, d))
	announce := func() {
		e.notify(h.id, "agent.tool_end", map[string]any{"sessionId": h.id, "toolId": c.ID, "toolName": c.Name,
			"result": map[string]any{"content": content, "isError": isErr, "outcome": outcome, "duration": d.Duration}})
	}
	if l != nil {
		e.later(ctx, l, announce, evs...)
		return
	}
	if _, err := e.record(ctx, evs...); err != nil {
		e.log.Error("could not record a tool result", "session", h.id, "call", c.ID, "err", err)
		return
	}
	announce()
}
