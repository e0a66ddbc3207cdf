package debug

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/go-dap"
)

// session is one DAP client connection to an adapter.
type session struct {
	id, name, typ, request string
	m                      *Manager
	log                    *slog.Logger
	a                      *adapter
	br                     *bufio.Reader

	ctx    context.Context // cancelled when the session ends
	cancel context.CancelFunc

	wmu sync.Mutex // serialises writes (and seq numbers)
	seq int

	mu            sync.Mutex
	pending       map[int]chan dap.Message
	ended         bool
	stopping      bool
	stopReason    string
	stopDeadline  time.Time // when the adapter gets killed if still running
	sawTerminated bool
	lastThread    int
	debuggee      int             // launched debuggee's pid, from the process event
	debuggeeStart string          // its processStart
	started       bool            // configure succeeded
	startOutput   strings.Builder // output before then, for start errors

	initialized chan struct{} // closed on the adapter's initialized event
	initOnce    sync.Once

	bpMu       sync.Mutex // serialises breakpoint updates; guards configured
	configured bool       // initial breakpoints sent: later changes go out directly

	queue      eventQueue
	readerDone chan struct{} // closed when the reader has finished the session
	wg         sync.WaitGroup
}

func newSession(m *Manager, id, name, typ, request string, a *adapter) *session {
	ctx, cancel := context.WithCancel(context.Background())
	return &session{
		id: id, name: name, typ: typ, request: request,
		m: m, a: a, br: bufio.NewReader(a.r),
		log:         m.log.With("session", id, "type", typ),
		ctx:         ctx,
		cancel:      cancel,
		pending:     make(map[int]chan dap.Message),
		initialized: make(chan struct{}),
		readerDone:  make(chan struct{}),
	}
}

// run starts the session's reader and event dispatcher.
func (s *session) run() {
	s.queue.init()
	s.wg.Go(s.readLoop)
	s.wg.Go(s.dispatch)
}

func newRequest(command string) dap.Request {
	return dap.Request{ProtocolMessage: dap.ProtocolMessage{Type: "request"}, Command: command}
}

// send writes req and returns the channel its response will arrive on (it
// is closed without a value if the session ends first).
func (s *session) send(req dap.RequestMessage) (chan dap.Message, error) {
	ch := make(chan dap.Message, 1)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	r := req.GetRequest()
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return nil, ErrSessionEnded
	}
	s.seq++
	r.Seq, r.Type = s.seq, "request"
	s.pending[r.Seq] = ch
	s.mu.Unlock()
	if err := dap.WriteProtocolMessage(s.a.w, req); err != nil {
		s.mu.Lock()
		delete(s.pending, r.Seq)
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: write %s: %v", ErrSessionEnded, r.Command, err)
	}
	return ch, nil
}

// await waits for a response on ch and turns failures into errors.
func (s *session) await(ctx context.Context, command string, ch chan dap.Message) (dap.Message, error) {
	select {
	case msg, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%w: no response to %s", ErrSessionEnded, command)
		}
		if err := responseError(msg); err != nil {
			return nil, fmt.Errorf("%s: %w", command, err)
		}
		return msg, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", command, ctx.Err())
	}
}

// call sends req and waits for its response.
func (s *session) call(ctx context.Context, req dap.RequestMessage) (dap.Message, error) {
	command := req.GetRequest().Command
	ch, err := s.send(req)
	if err != nil {
		return nil, err
	}
	return s.await(ctx, command, ch)
}

// responseError returns the adapter's error for an unsuccessful response.
func responseError(msg dap.Message) error {
	r, ok := msg.(dap.ResponseMessage)
	if !ok {
		return fmt.Errorf("unexpected message %T", msg)
	}
	resp := r.GetResponse()
	if resp.Success {
		return nil
	}
	text := resp.Message
	if er, ok := msg.(*dap.ErrorResponse); ok && er.Body.Error != nil {
		detail := er.Body.Error.Format
		for k, v := range er.Body.Error.Variables {
			detail = strings.ReplaceAll(detail, "{"+k+"}", v)
		}
		switch {
		case detail == "" || detail == text:
		case strings.HasPrefix(detail, text):
			text = detail
		case text != "":
			text += ": " + detail
		default:
			text = detail
		}
	}
	if text == "" {
		text = "request failed"
	}
	return fmt.Errorf("adapter error: %s", text)
}

// readLoop reads the adapter's messages until the stream ends, then
// finishes the session.
func (s *session) readLoop() {
	var readErr error
	defer func() { s.finish(readErr) }()
	for {
		content, err := dap.ReadBaseMessage(s.br)
		if err != nil {
			readErr = err
			return
		}
		msg, err := dap.DecodeProtocolMessage(content)
		if err != nil {
			// A message go-dap does not know (a custom event, a response
			// to a request it has no type for) or one it cannot fully
			// decode: fall back to the generic fields.
			s.handleRaw(content, msg, err)
			continue
		}
		s.handle(msg)
	}
}

func (s *session) handle(msg dap.Message) {
	switch m := msg.(type) {
	case dap.ResponseMessage:
		s.deliver(m.GetResponse().RequestSeq, msg)
	case dap.EventMessage:
		switch e := m.(type) {
		case *dap.InitializedEvent:
			s.initOnce.Do(func() { close(s.initialized) })
			return
		case *dap.TerminatedEvent:
			s.mu.Lock()
			s.sawTerminated = true
			s.mu.Unlock()
		case *dap.ProcessEvent:
			if s.request == "launch" && e.Body.SystemProcessId > 0 {
				start := processStart(e.Body.SystemProcessId)
				s.mu.Lock()
				s.debuggee, s.debuggeeStart = e.Body.SystemProcessId, start
				s.mu.Unlock()
			}
		case *dap.OutputEvent:
			s.mu.Lock()
			if !s.started && s.startOutput.Len() < 8<<10 && e.Body.Category != "telemetry" {
				s.startOutput.WriteString(e.Body.Output)
			}
			s.mu.Unlock()
		}
		s.queue.push(msg)
	case dap.RequestMessage:
		r := m.GetRequest()
		s.refuse(r.Seq, r.Command)
	default:
		s.log.Debug("debug: ignoring message", "type", fmt.Sprintf("%T", msg))
	}
}

// handleRaw deals with a message DecodeProtocolMessage rejected.
func (s *session) handleRaw(content []byte, partial dap.Message, decodeErr error) {
	if _, ok := partial.(dap.ResponseMessage); ok {
		// Known response whose body did not fit go-dap's types: the
		// generic fields are what matters.
		s.handle(partial)
		return
	}
	var raw struct {
		Seq        int    `json:"seq"`
		Type       string `json:"type"`
		Command    string `json:"command"`
		Event      string `json:"event"`
		RequestSeq int    `json:"request_seq"`
		Success    bool   `json:"success"`
		Message    string `json:"message"`
	}
	if err := json.Unmarshal(content, &raw); err != nil {
		s.log.Warn("debug: undecodable message from adapter", "err", decodeErr)
		return
	}
	switch raw.Type {
	case "response":
		s.deliver(raw.RequestSeq, &dap.Response{
			ProtocolMessage: dap.ProtocolMessage{Seq: raw.Seq, Type: "response"},
			Command:         raw.Command, RequestSeq: raw.RequestSeq, Success: raw.Success, Message: raw.Message,
		})
	case "request":
		s.refuse(raw.Seq, raw.Command)
	case "event":
		s.log.Debug("debug: ignoring event", "event", raw.Event)
	default:
		s.log.Warn("debug: unexpected message from adapter", "err", decodeErr)
	}
}

func (s *session) deliver(requestSeq int, msg dap.Message) {
	s.mu.Lock()
	ch, ok := s.pending[requestSeq]
	delete(s.pending, requestSeq)
	s.mu.Unlock()
	if !ok {
		s.log.Debug("debug: response to no pending request", "request_seq", requestSeq)
		return
	}
	ch <- msg
}

// refuse answers a reverse request (runInTerminal, startDebugging) with an
// error: warden runs debuggees in the adapter's own console only.
func (s *session) refuse(seq int, command string) {
	s.log.Debug("debug: refusing reverse request", "command", command)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	s.seq++
	resp := &dap.ErrorResponse{Response: dap.Response{
		ProtocolMessage: dap.ProtocolMessage{Seq: s.seq, Type: "response"},
		Command:         command, RequestSeq: seq, Success: false,
		Message: "not supported by warden",
	}}
	s.mu.Unlock()
	_ = dap.WriteProtocolMessage(s.a.w, resp)
}

// finish runs once the adapter stream has ended: it fails pending requests,
// reaps the adapter, forgets the session and queues the final event.
func (s *session) finish(readErr error) {
	s.mu.Lock()
	s.ended = true
	for seq, ch := range s.pending {
		close(ch)
		delete(s.pending, seq)
	}
	stopping, reason, terminated := s.stopping, s.stopReason, s.sawTerminated
	s.mu.Unlock()
	s.cancel()
	grace := time.Duration(0)
	if stopping {
		grace = max(time.Until(s.stopDeadline), 0)
	}
	s.a.shutdown(grace)
	s.mu.Lock()
	pid, start := s.debuggee, s.debuggeeStart
	s.mu.Unlock()
	if killDebuggee(pid, start) {
		s.log.Info("debug: killed the debuggee the adapter left behind", "pid", pid)
	}
	s.m.remove(s)
	switch {
	case stopping && reason != "":
	case terminated:
		reason = "program terminated"
	default:
		why := s.a.exitStatus()
		if why == "" && readErr != nil {
			why = readErr.Error()
		}
		reason = "adapter exited unexpectedly: " + why
		s.log.Warn("debug: adapter went away", "reason", why)
	}
	s.queue.push(Event{Kind: EventEnded, Reason: reason})
	s.queue.close()
	close(s.readerDone)
}

// stop disconnects (terminating a launched debuggee), lets the adapter exit
// and waits until the session is over.
func (s *session) stop(ctx context.Context, reason string) error {
	s.mu.Lock()
	first := !s.stopping
	if first {
		s.stopping, s.stopReason = true, reason
		s.stopDeadline = time.Now().Add(s.m.stopTimeout)
	}
	deadline := s.stopDeadline
	s.mu.Unlock()
	if first {
		dctx, cancel := context.WithDeadline(ctx, deadline)
		_, err := s.call(dctx, &dap.DisconnectRequest{
			Request:   newRequest("disconnect"),
			Arguments: &dap.DisconnectArguments{TerminateDebuggee: s.request == "launch"},
		})
		cancel()
		if err != nil && !errors.Is(err, ErrSessionEnded) {
			s.log.Debug("debug: disconnect failed", "err", err)
		}
		// Closing the stream ends the reader, whose finish gives the
		// adapter the rest of StopTimeout to exit before killing it.
		s.a.closeTransport()
	}
	s.wg.Wait()
	s.log.Info("debug: session ended", "reason", reason)
	return nil
}

// configure runs the start sequence: initialize, launch or attach,
// breakpoints, configurationDone.
func (s *session) configure(ctx context.Context, request string, args json.RawMessage) error {
	err := s.configureSteps(ctx, request, args)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if out := strings.TrimSpace(s.startOutput.String()); out != "" {
			err = fmt.Errorf("%w\nadapter output:\n%s", err, out)
		}
		return err
	}
	s.started = true
	s.startOutput.Reset()
	return nil
}

func (s *session) configureSteps(ctx context.Context, request string, args json.RawMessage) error {
	adapterID := "go"
	if s.typ == typePython {
		adapterID = "debugpy"
	}
	msg, err := s.call(ctx, &dap.InitializeRequest{
		Request: newRequest("initialize"),
		Arguments: dap.InitializeRequestArguments{
			ClientID: "warden", ClientName: "warden", AdapterID: adapterID, Locale: "en-us",
			LinesStartAt1: true, ColumnsStartAt1: true, PathFormat: "path",
			SupportsVariableType: true,
		},
	})
	if err != nil {
		return err
	}
	configDone := true
	if ir, ok := msg.(*dap.InitializeResponse); ok {
		configDone = ir.Body.SupportsConfigurationDoneRequest
	}

	// Send launch/attach without waiting: debugpy answers it only after
	// configurationDone, delve before its initialized event.
	var req dap.RequestMessage
	if request == "launch" {
		req = &dap.LaunchRequest{Request: newRequest("launch"), Arguments: args}
	} else {
		req = &dap.AttachRequest{Request: newRequest("attach"), Arguments: args}
	}
	startCh, err := s.send(req)
	if err != nil {
		return err
	}
	answered := false
	select {
	case <-s.initialized:
	case msg, ok := <-startCh:
		answered = true
		if !ok {
			return fmt.Errorf("%w: no response to %s", ErrSessionEnded, request)
		}
		if err := responseError(msg); err != nil {
			return fmt.Errorf("%s: %w", request, err)
		}
		select {
		case <-s.initialized:
		case <-s.readerDone:
			return fmt.Errorf("%w before initialized", ErrSessionEnded)
		case <-ctx.Done():
			return fmt.Errorf("waiting for initialized: %w", ctx.Err())
		}
	case <-s.readerDone:
		return fmt.Errorf("%w during %s", ErrSessionEnded, request)
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", request, ctx.Err())
	}

	s.bpMu.Lock()
	for _, path := range s.m.breakpointFiles() {
		if _, _, err := s.sendFile(ctx, path); err != nil {
			s.log.Warn("debug: setBreakpoints failed", "path", path, "err", err)
		}
	}
	s.configured = true
	s.bpMu.Unlock()

	if configDone {
		if _, err := s.call(ctx, &dap.ConfigurationDoneRequest{Request: newRequest("configurationDone")}); err != nil {
			return err
		}
	}
	if !answered {
		if _, err := s.await(ctx, request, startCh); err != nil {
			return err
		}
	}
	return nil
}

// syncFile sends the manager's breakpoints of path to the adapter if the
// session is configured (otherwise configure will send them). It returns
// what was sent and the adapter's answer, index for index.
func (s *session) syncFile(ctx context.Context, path string) ([]storedBP, []dap.Breakpoint, error) {
	s.bpMu.Lock()
	defer s.bpMu.Unlock()
	if !s.configured {
		return nil, nil, nil
	}
	return s.sendFile(ctx, path)
}

// sendFile sends setBreakpoints for path; the caller holds bpMu.
func (s *session) sendFile(ctx context.Context, path string) ([]storedBP, []dap.Breakpoint, error) {
	bps := s.m.fileBreakpoints(path)
	sbs := make([]dap.SourceBreakpoint, len(bps))
	lines := make([]int, len(bps))
	for i, b := range bps {
		sbs[i] = dap.SourceBreakpoint{
			Line: b.bp.Line, Condition: b.bp.Condition,
			HitCondition: b.bp.HitCondition, LogMessage: b.bp.LogMessage,
		}
		lines[i] = b.bp.Line
	}
	msg, err := s.call(ctx, &dap.SetBreakpointsRequest{
		Request: newRequest("setBreakpoints"),
		Arguments: dap.SetBreakpointsArguments{
			Source:      dap.Source{Name: filepath.Base(path), Path: path},
			Breakpoints: sbs,
			Lines:       lines,
		},
	})
	if err != nil {
		return nil, nil, err
	}
	var got []dap.Breakpoint
	if r, ok := msg.(*dap.SetBreakpointsResponse); ok {
		got = r.Body.Breakpoints
	}
	return bps, got, nil
}

// resume sends continue for threadID (0: the last stopped thread).
func (s *session) resume(ctx context.Context, threadID int) error {
	if threadID == 0 {
		s.mu.Lock()
		threadID = s.lastThread
		s.mu.Unlock()
	}
	_, err := s.call(ctx, &dap.ContinueRequest{
		Request:   newRequest("continue"),
		Arguments: dap.ContinueArguments{ThreadId: threadID},
	})
	if err != nil {
		return fmt.Errorf("debug: continue session %s: %w", s.id, err)
	}
	return nil
}

// dispatch turns queued adapter events into Events, in order.
func (s *session) dispatch() {
	for {
		item, ok := s.queue.pop()
		if !ok {
			return
		}
		switch ev := item.(type) {
		case Event:
			s.m.emit(s.id, ev)
		case *dap.StoppedEvent:
			s.m.emit(s.id, s.stopped(ev))
		case *dap.ContinuedEvent:
			s.m.emit(s.id, Event{Kind: EventContinued, ThreadID: ev.Body.ThreadId})
		case *dap.OutputEvent:
			cat := ev.Body.Category
			if cat == "" {
				cat = "console"
			}
			s.m.emit(s.id, Event{Kind: EventOutput, Category: cat, Output: ev.Body.Output})
		case *dap.ExitedEvent:
			s.m.emit(s.id, Event{Kind: EventExited, ExitCode: ev.Body.ExitCode})
		case *dap.TerminatedEvent:
			s.m.emit(s.id, Event{Kind: EventTerminated})
			s.m.sessionTerminated(s)
		default:
			s.log.Debug("debug: event", "event", fmt.Sprintf("%T", item))
		}
	}
}

// stopped builds the stopped Event, asking the adapter for the top frame.
func (s *session) stopped(ev *dap.StoppedEvent) Event {
	out := Event{Kind: EventStopped, Reason: ev.Body.Reason, ThreadID: ev.Body.ThreadId, Description: ev.Body.Description}
	if out.Description == "" {
		out.Description = ev.Body.Text
	}
	s.mu.Lock()
	if ev.Body.ThreadId != 0 {
		s.lastThread = ev.Body.ThreadId
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
	defer cancel()
	msg, err := s.call(ctx, &dap.StackTraceRequest{
		Request:   newRequest("stackTrace"),
		Arguments: dap.StackTraceArguments{ThreadId: ev.Body.ThreadId, Levels: 1},
	})
	if err != nil {
		s.log.Debug("debug: stackTrace after stop failed", "err", err)
		return out
	}
	if r, ok := msg.(*dap.StackTraceResponse); ok && len(r.Body.StackFrames) > 0 {
		f := r.Body.StackFrames[0]
		out.Line, out.Function = f.Line, f.Name
		if f.Source != nil {
			out.File = f.Source.Path
		}
	}
	return out
}

// eventQueue is an unbounded FIFO between the reader (which must never
// block, or responses the dispatcher waits for would not be read) and the
// dispatcher.
type eventQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  []any
	closed bool
}

func (q *eventQueue) init() { q.cond = sync.NewCond(&q.mu) }

func (q *eventQueue) push(item any) {
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, item)
	}
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *eventQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// pop returns the next item, or false once the queue is closed and empty.
func (q *eventQueue) pop() (any, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.items) == 0 {
		return nil, false
	}
	item := q.items[0]
	q.items[0] = nil
	q.items = q.items[1:]
	return item, true
}
