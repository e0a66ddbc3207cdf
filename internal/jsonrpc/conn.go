package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Handler answers the requests of one connection. A notification's result
// is discarded. An error that is (or wraps) an *Error is sent as is; any
// other error is an InternalError.
type Handler interface {
	Handle(ctx context.Context, req *Request) (result any, err error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

// Options tune a connection. The zero value is usable.
type Options struct {
	// Logger receives protocol problems and internal errors (default: discard).
	Logger *slog.Logger
	// Now stamps error data (default time.Now).
	Now func() time.Time
	// Debug adds data.stack (the chain of internal errors) to error objects,
	// as the spec does when its log level is "debug".
	Debug bool
	// ReadLimit is the largest message accepted, in bytes (default 16 MiB).
	// A larger message closes the connection with status 1009.
	ReadLimit int64
	// Detached reports methods that may wait a long time (for a person's
	// approval, say): they run alongside later messages instead of before
	// them. All other messages are handled one at a time, in order, so a
	// client may pipeline edits and reads.
	Detached func(method string) bool
	// MaxDetached caps detached requests in flight (default 16); past it
	// they run in order like the rest.
	MaxDetached int
	// Check, if set, judges each whole message before it is decoded (a
	// door's limits, such as how deeply its JSON may nest); an error is
	// answered with -32600 and its text, with a null id, and the message
	// goes no further.
	Check func(msg []byte) error
	// CodeName names the door's own error codes for data.errorType
	// ("FileNotFound" for the control door's -32002); nil or "" means
	// "unknown".
	CodeName func(code int) string
}

// Conn is one JSON-RPC peer on a WebSocket.
type Conn struct {
	ws      *websocket.Conn
	h       Handler
	opts    Options
	writeMu sync.Mutex
	wg      sync.WaitGroup
	sem     chan struct{}
}

// NewConn wraps an accepted WebSocket. Call Run to serve it.
func NewConn(ws *websocket.Conn, h Handler, opts Options) *Conn {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ReadLimit <= 0 {
		opts.ReadLimit = 16 << 20
	}
	if opts.MaxDetached <= 0 {
		opts.MaxDetached = 16
	}
	ws.SetReadLimit(opts.ReadLimit)
	return &Conn{ws: ws, h: h, opts: opts, sem: make(chan struct{}, opts.MaxDetached)}
}

// Notify sends a server notification.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	b, err := json.Marshal(Notification{JSONRPC: Version, Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("jsonrpc: encode notification %s: %w", method, err)
	}
	return c.write(ctx, b)
}

func (c *Conn) write(ctx context.Context, b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := c.ws.Write(ctx, websocket.MessageText, b); err != nil {
		return fmt.Errorf("jsonrpc: write: %w", err)
	}
	return nil
}

// Run reads and answers messages until the peer goes away or ctx ends, then
// waits for requests still running. It returns nil on a normal close.
func (c *Conn) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		c.wg.Wait()
	}()
	for {
		typ, msg, err := c.ws.Read(ctx)
		if err != nil {
			switch {
			case websocket.CloseStatus(err) == websocket.StatusNormalClosure,
				websocket.CloseStatus(err) == websocket.StatusGoingAway,
				errors.Is(err, context.Canceled):
				return nil
			}
			return fmt.Errorf("jsonrpc: read: %w", err)
		}
		if typ != websocket.MessageText && typ != websocket.MessageBinary {
			continue
		}
		c.dispatch(ctx, msg)
	}
}

// dispatch handles one message: in order, or alongside when detached.
func (c *Conn) dispatch(ctx context.Context, msg []byte) {
	if c.opts.Check != nil {
		if err := c.opts.Check(msg); err != nil {
			c.send(ctx, errorResponse(nullID, Errorf(CodeInvalidRequest, "invalid request: %v", err)))
			return
		}
	}
	reqs, invalid, batch, fatal := decode(msg)
	if fatal != nil {
		c.send(ctx, fatal)
		return
	}
	if !batch && invalid[0] == nil && c.opts.Detached != nil && c.opts.Detached(reqs[0].Method) {
		select {
		case c.sem <- struct{}{}:
			c.wg.Add(1)
			go func() {
				defer c.wg.Done()
				defer func() { <-c.sem }()
				c.answer(ctx, reqs, invalid, batch)
			}()
			return
		default:
		}
	}
	c.answer(ctx, reqs, invalid, batch)
}

// answer runs requests in order and sends their responses: one object, or
// an array for a batch (nothing when every element was a notification).
func (c *Conn) answer(ctx context.Context, reqs []Request, invalid []*Response, batch bool) {
	var out []*Response
	for i := range reqs {
		if invalid[i] != nil {
			out = append(out, c.finish(invalid[i]))
			continue
		}
		if r := c.call(ctx, &reqs[i]); r != nil {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return
	}
	if !batch {
		c.send(ctx, out[0])
		return
	}
	b, err := json.Marshal(out)
	if err != nil {
		c.opts.Logger.Error("jsonrpc: encode batch response", "err", err)
		return
	}
	if err := c.write(ctx, b); err != nil {
		c.opts.Logger.Debug("jsonrpc: send", "err", err)
	}
}

// call runs one request; it returns nil for notifications.
func (c *Conn) call(ctx context.Context, req *Request) (resp *Response) {
	defer func() {
		if r := recover(); r != nil {
			c.opts.Logger.Error("jsonrpc: handler panic", "method", req.Method, "panic", r)
			if req.IsNotification() {
				resp = nil
				return
			}
			resp = c.finish(errorResponse(req.ID, Wrap(CodeInternalError, fmt.Errorf("panic: %v", r), "internal error")))
		}
	}()
	result, err := c.h.Handle(ctx, req)
	if req.IsNotification() {
		if err != nil {
			c.opts.Logger.Debug("jsonrpc: notification failed", "method", req.Method, "err", err)
		}
		return nil
	}
	if err != nil {
		e := AsError(err)
		if e.Code == CodeInternalError {
			c.opts.Logger.Error("jsonrpc: internal error", "method", req.Method, "err", err)
		}
		return c.finish(errorResponse(req.ID, e))
	}
	b, err := json.Marshal(result)
	if err != nil {
		return c.finish(errorResponse(req.ID, Wrap(CodeInternalError, err, "internal error: cannot encode the result")))
	}
	return &Response{JSONRPC: Version, ID: req.ID, Result: b}
}

// finish fills the spec's error data: timestamp, errorType, and stack at
// debug level.
func (c *Conn) finish(r *Response) *Response {
	if r.Error == nil {
		return r
	}
	e := *r.Error
	data := make(map[string]any, len(e.Data)+3)
	for k, v := range e.Data {
		data[k] = v
	}
	if _, ok := data["timestamp"]; !ok {
		data["timestamp"] = c.opts.Now().UTC().Format(time.RFC3339Nano)
	}
	if _, ok := data["errorType"]; !ok {
		data["errorType"] = c.errorType(&e)
	}
	if c.opts.Debug && e.cause != nil {
		data["stack"] = chain(e.cause)
	}
	e.Data = data
	r.Error = &e
	return r
}

// errorType is "protocol" for errors about the message itself, the spec's
// name for the others, and "unknown" for unexpected failures.
func (c *Conn) errorType(e *Error) string {
	switch e.Code {
	case CodeParseError, CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams:
		return "protocol"
	case CodeInternalError:
		return "unknown"
	}
	if c.opts.CodeName != nil {
		if n := c.opts.CodeName(e.Code); n != "" {
			return n
		}
	}
	return "unknown"
}

// chain renders an error and the errors it wraps, one per line: Go errors
// carry no stack, so the chain is the most useful trace there is.
func chain(err error) string {
	var lines []string
	for err != nil {
		lines = append(lines, fmt.Sprintf("%T: %v", err, err))
		err = errors.Unwrap(err)
	}
	return strings.Join(lines, "\n")
}

func (c *Conn) send(ctx context.Context, r *Response) {
	b, err := json.Marshal(c.finish(r))
	if err != nil {
		c.opts.Logger.Error("jsonrpc: encode response", "err", err)
		return
	}
	if err := c.write(ctx, b); err != nil {
		c.opts.Logger.Debug("jsonrpc: send", "err", err)
	}
}

// Close closes the connection with a status and reason.
func (c *Conn) Close(code websocket.StatusCode, reason string) error {
	return c.ws.Close(code, reason)
}
