package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"
)

// ErrServerExited is returned for requests that were in flight, or are
// sent, when the language server's connection has ended (the process exited
// or crashed). The Manager restarts the server and retries once, so callers
// see it only when the restart failed too.
var ErrServerExited = errors.New("lsp: language server exited")

// JSON-RPC error codes used when answering server-to-client requests.
const (
	codeMethodNotFound   = -32601
	codeInternalError    = -32603
	codeRequestCancelled = -32800
)

// RPCError is a JSON-RPC error returned by a language server in answer to a
// request. Use errors.As to inspect the code.
type RPCError struct {
	// Method is the request method that failed.
	Method string `json:"-"`
	// Code is the JSON-RPC error code (e.g. -32601 method not found).
	Code int64 `json:"code"`
	// Message is the server's human-readable description.
	Message string `json:"message"`
	// Data is optional extra information from the server.
	Data json.RawMessage `json:"data,omitempty"`
}

// Error implements error.
func (e *RPCError) Error() string {
	return fmt.Sprintf("lsp: %s: server error %d: %s", e.Method, e.Code, e.Message)
}

// wireMessage is any JSON-RPC 2.0 message as read from the wire.
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

type outRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

type outNotification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

type outResult struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

type outError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *RPCError       `json:"error"`
}

// handlerFunc answers a server-to-client request. Its result is sent back as
// the JSON-RPC result; an *RPCError is sent as the error.
type handlerFunc func(method string, params json.RawMessage) (any, error)

// notifyFunc receives server-to-client notifications. It runs on the read
// loop and must not block.
type notifyFunc func(method string, params json.RawMessage)

// conn is a JSON-RPC 2.0 connection over a Content-Length framed stream. It
// multiplexes concurrent calls, answers server requests through handle and
// hands notifications to notify.
type conn struct {
	log    *slog.Logger
	r      *bufio.Reader
	w      io.Writer
	handle handlerFunc
	notify notifyFunc

	wmu sync.Mutex // serialises writes

	// stuck, when set, is called when a write times out (the peer stopped
	// reading); it should end the peer so the read loop ends too.
	stuck func()

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan *wireMessage
	err     error // why the read loop ended; set before done is closed

	done    chan struct{} // closed when the read loop ends
	replies sync.WaitGroup
}

func newConn(r io.Reader, w io.Writer, log *slog.Logger, handle handlerFunc, notify notifyFunc) *conn {
	return &conn{
		log:     log,
		r:       bufio.NewReaderSize(r, 64<<10),
		w:       w,
		handle:  handle,
		notify:  notify,
		pending: make(map[int64]chan *wireMessage),
		done:    make(chan struct{}),
	}
}

// run reads messages until the stream ends or is malformed, then fails all
// pending calls with ErrServerExited and waits for in-flight replies. It
// returns nil on a clean EOF.
func (c *conn) run() error {
	var err error
	for {
		var body []byte
		body, err = readMessage(c.r)
		if err != nil {
			break
		}
		c.dispatch(body)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
		err = nil
	}
	c.mu.Lock()
	if err != nil {
		c.err = fmt.Errorf("%w: %w", ErrServerExited, err)
	} else {
		c.err = ErrServerExited
	}
	c.mu.Unlock()
	close(c.done)
	c.replies.Wait()
	return err
}

func (c *conn) dispatch(body []byte) {
	var msg wireMessage
	if err := json.Unmarshal(body, &msg); err != nil {
		c.log.Warn("lsp: dropping undecodable message", "err", err, "len", len(body))
		return
	}
	hasID := len(msg.ID) > 0 && !bytes.Equal(msg.ID, []byte("null"))
	switch {
	case msg.Method != "" && hasID:
		c.replies.Add(1)
		go func() {
			defer c.replies.Done()
			c.answer(&msg)
		}()
	case msg.Method != "":
		if c.notify != nil {
			c.notify(msg.Method, msg.Params)
		}
	case hasID:
		id, err := strconv.ParseInt(string(msg.ID), 10, 64)
		if err != nil {
			c.log.Warn("lsp: response with foreign id", "id", string(msg.ID))
			return
		}
		c.mu.Lock()
		ch, ok := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ok {
			ch <- &msg // buffered
		}
	default:
		c.log.Warn("lsp: dropping message without method or id")
	}
}

// answer runs the handler for a server request and writes the reply. It runs
// on its own goroutine so a slow write never stalls the read loop.
func (c *conn) answer(msg *wireMessage) {
	var result any
	var err error
	if c.handle == nil {
		err = &RPCError{Code: codeMethodNotFound, Message: "method not found: " + msg.Method}
	} else {
		result, err = c.handle(msg.Method, msg.Params)
	}
	var out any
	if err != nil {
		var rpcErr *RPCError
		if !errors.As(err, &rpcErr) {
			rpcErr = &RPCError{Code: codeInternalError, Message: err.Error()}
		}
		out = outError{JSONRPC: "2.0", ID: msg.ID, Error: rpcErr}
	} else {
		out = outResult{JSONRPC: "2.0", ID: msg.ID, Result: result}
	}
	if werr := c.write(out); werr != nil {
		c.log.Debug("lsp: replying to server request", "method", msg.Method, "err", werr)
	}
}

func (c *conn) write(v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding message: %w", err)
	}
	select {
	case <-c.done:
		return c.closedErr()
	default:
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	dl, hasDeadline := c.w.(interface{ SetWriteDeadline(time.Time) error })
	if hasDeadline {
		_ = dl.SetWriteDeadline(time.Now().Add(writeTimeout))
	}
	err = writeMessage(c.w, body)
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) && c.stuck != nil {
			// A partial write has broken the framing anyway.
			c.stuck()
		}
		return fmt.Errorf("%w: %w", ErrServerExited, err)
	}
	return nil
}

// writeTimeout bounds one message write to a server's input.
const writeTimeout = 30 * time.Second

func (c *conn) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	return ErrServerExited
}

// Notify sends a notification.
func (c *conn) Notify(method string, params any) error {
	if err := c.write(outNotification{JSONRPC: "2.0", Method: method, Params: params}); err != nil {
		return fmt.Errorf("lsp: %s: %w", method, err)
	}
	return nil
}

// Call sends a request and decodes its result into result (which may be nil
// to discard it, or a *json.RawMessage). When ctx ends first the request is
// cancelled with $/cancelRequest and ctx's error is returned.
func (c *conn) Call(ctx context.Context, method string, params, result any) error {
	ch := make(chan *wireMessage, 1)
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}
	if err := c.write(outRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params}); err != nil {
		forget()
		return fmt.Errorf("lsp: %s: %w", method, err)
	}
	var msg *wireMessage
	select {
	case msg = <-ch:
	case <-ctx.Done():
		forget()
		_ = c.Notify("$/cancelRequest", map[string]int64{"id": id})
		return fmt.Errorf("lsp: %s: %w", method, ctx.Err())
	case <-c.done:
		select {
		case msg = <-ch:
		default:
			forget()
			return fmt.Errorf("lsp: %s: %w", method, c.closedErr())
		}
	}
	if msg.Error != nil {
		msg.Error.Method = method
		return msg.Error
	}
	if result == nil || len(msg.Result) == 0 {
		return nil
	}
	if raw, ok := result.(*json.RawMessage); ok {
		*raw = msg.Result
		return nil
	}
	if err := json.Unmarshal(msg.Result, result); err != nil {
		return fmt.Errorf("lsp: %s: decoding result: %w", method, err)
	}
	return nil
}
