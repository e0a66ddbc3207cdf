// Package anthropic is a fake Anthropic Messages API server for end-to-end
// tests of real agents (Claude Code) and of warden's own provider adapter:
// it speaks the streaming wire format exactly (server-sent events
// message_start, ping, content_block_start, content_block_delta with
// thinking_delta, signature_delta, text_delta or input_json_delta,
// content_block_stop, message_delta, message_stop, and `error` events such
// as overloaded_error) with several content blocks per message, and answers
// from a script (a func, or a Queue of replies) instead of a model. It
// records every request, and a Reply's Hold gate stops a stream mid-answer.
package anthropic

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/warden-dev/warden/internal/fakemodel"
)

// Block is one content block of a message.
type Block struct {
	Type string `json:"type"`
	// Text is set for text blocks.
	Text string `json:"text,omitempty"`
	// Thinking and Signature are set for thinking blocks, Data for
	// redacted_thinking blocks.
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
	// ID, Name and Input are set for tool_use blocks.
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// ToolUseID, Content and IsError are set for tool_result blocks.
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

// ContentText returns a tool_result's content as text (string or blocks).
func (b Block) ContentText() string {
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return s
	}
	var parts []Block
	if json.Unmarshal(b.Content, &parts) == nil {
		var sb strings.Builder
		for _, p := range parts {
			sb.WriteString(p.Text)
		}
		return sb.String()
	}
	return string(b.Content)
}

// Message is one message of a request. Content is a string or blocks.
type Message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// Blocks returns the message content as blocks (a string becomes one text
// block).
func (m Message) Blocks() []Block {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []Block{{Type: "text", Text: s}}
	}
	var bs []Block
	_ = json.Unmarshal(m.Content, &bs) // anything else has no blocks
	return bs
}

// Tool is one tool offered in a request.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
}

// Request is what an agent sent to POST /v1/messages.
type Request struct {
	Model     string    `json:"model"`
	Stream    bool      `json:"stream"`
	MaxTokens int       `json:"max_tokens"`
	Messages  []Message `json:"messages"`
	Tools     []Tool    `json:"tools,omitempty"`
	// System is a string or text blocks.
	System json.RawMessage `json:"system,omitempty"`
	// Thinking is the extended thinking configuration, as sent.
	Thinking *struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens,omitempty"`
	} `json:"thinking,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	// Header is the request's HTTP header (x-api-key, anthropic-version).
	Header http.Header `json:"-"`
	// Body is the request body as received.
	Body json.RawMessage `json:"-"`
}

// SystemText returns the system prompt as text.
func (r Request) SystemText() string {
	return Block{Content: r.System}.ContentText()
}

// LastUser returns the last message with role user, if any.
func (r Request) LastUser() (Message, bool) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i], true
		}
	}
	return Message{}, false
}

// HasToolResult reports whether the last user message holds a tool_result.
func (r Request) HasToolResult() bool {
	m, ok := r.LastUser()
	if !ok {
		return false
	}
	for _, b := range m.Blocks() {
		if b.Type == "tool_result" {
			return true
		}
	}
	return false
}

// HasTool reports whether the request offers a tool of that name.
func (r Request) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// ToolResults returns every tool_result block in the conversation.
func (r Request) ToolResults() []Block {
	var out []Block
	for _, m := range r.Messages {
		if m.Role != "user" {
			continue
		}
		for _, b := range m.Blocks() {
			if b.Type == "tool_result" {
				out = append(out, b)
			}
		}
	}
	return out
}

// Reply is the scripted answer, streamed as content blocks in this order:
// a thinking block (Thinking), a redacted_thinking block (Redacted), a text
// block (Text), then one tool_use block per call (Tool, then Calls). The
// zero Reply is an empty text answer.
type Reply struct {
	// Tool and Input make a tool_use block (Input is JSON-encoded).
	Tool  string
	Input any
	// Text is the answer's text (streamed in chunks of ChunkSize bytes).
	Text string
	// Calls are more tool_use blocks of the same message.
	Calls []Call
	// Thinking is a thinking block's text, Signature its signature
	// (default "sig-<request>").
	Thinking  string
	Signature string
	// Redacted is a redacted_thinking block's data.
	Redacted string
	// ChunkSize is the text chunk size; 0 means 8 bytes.
	ChunkSize int
	// Usage overrides the figures (default 10 input, 5 output).
	Usage *Usage
	// Stop overrides the stop_reason ("max_tokens", "refusal").
	Stop string
	// Error answers the request with an HTTP error instead of a stream.
	Error *Error
	// StreamError is sent as an `event: error` after the first piece of
	// the answer (after message_start and ping when there is none), and
	// the stream ends there.
	StreamError *Error
	// Hold stops the stream at the gate after the first piece of the
	// answer has been flushed (see fakemodel.Gate).
	Hold *fakemodel.Gate
}

// Call is one scripted tool_use block.
type Call struct {
	// ID defaults to toolu_fake_<request>_<index>.
	ID    string
	Name  string
	Input any
	// RawInput, when set, is streamed as is (for invalid JSON).
	RawInput string
}

// Usage is a message's figures.
type Usage struct {
	Input, Output, CacheRead, CacheWrite int64
}

// Error is an API error as Anthropic writes it.
type Error struct {
	// Status is the HTTP status (default 500); unused for stream errors.
	Status  int
	Type    string
	Message string
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter string
}

// Overloaded is the error Anthropic sends when it is overloaded (HTTP 529,
// or an `error` event mid-stream).
func Overloaded() *Error {
	return &Error{Status: 529, Type: "overloaded_error", Message: "Overloaded"}
}

// PromptTooLong is the error Anthropic answers a prompt too long for the
// model with.
func PromptTooLong() *Error {
	return &Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: "prompt is too long: 210000 tokens > 200000 maximum"}
}

func (e *Error) body() map[string]any {
	typ := e.Type
	if typ == "" {
		typ = "api_error"
	}
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": e.Message}}
}

// Queue is a queue of scripted replies; pass q.Next to New.
type Queue = fakemodel.Queue[Request, Reply]

// NewQueue returns a queue holding replies; when they run out the fake
// answers 500 "fake: script exhausted".
func NewQueue(replies ...Reply) *Queue {
	q := &Queue{Exhausted: Reply{Error: &Error{Status: http.StatusInternalServerError, Message: "fake: script exhausted"}}}
	q.Push(replies...)
	return q
}

// calls returns the reply's tool calls in order with their ids.
func (r Reply) calls(n int) []Call {
	calls := r.Calls
	if r.Tool != "" {
		calls = append([]Call{{Name: r.Tool, Input: r.Input}}, calls...)
	}
	out := make([]Call, len(calls))
	for i, c := range calls {
		if c.ID == "" {
			c.ID = fmt.Sprintf("toolu_fake_%d_%d", n, i)
			if len(calls) == 1 {
				c.ID = fmt.Sprintf("toolu_fake_%d", n)
			}
		}
		if c.RawInput == "" {
			in := c.Input
			if in == nil {
				in = map[string]any{}
			}
			b, _ := json.Marshal(in)
			c.RawInput = string(b)
		}
		out[i] = c
	}
	return out
}

// Script decides the reply to a request.
type Script func(Request) Reply

// ToolOnce is the usual script: a request that offers the tool and whose
// last user message holds no tool_result gets the tool call; every other
// request (side requests without tools, and the turn after the tool result)
// gets text.
func ToolOnce(tool string, input any) Script {
	return func(r Request) Reply {
		if r.HasTool(tool) && !r.HasToolResult() {
			return Reply{Tool: tool, Input: input}
		}
		return Reply{Text: "Done."}
	}
}

// Server is a running fake.
type Server struct {
	*httptest.Server
	script Script

	mu       sync.Mutex
	requests []Request
	calls    int
	models   []Model
	gets     int
}

// Model is a model GET /v1/models reports.
type Model struct {
	ID                        string
	MaxInputTokens, MaxTokens int
}

// New starts a fake on loopback. Close it when done.
func New(script Script) *Server {
	s := &Server{script: script, models: []Model{{ID: "claude-fake", MaxInputTokens: 200000, MaxTokens: 64000}}}
	mux := http.NewServeMux()
	// Claude Code probes the base URL with HEAD / before it starts.
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("POST /v1/messages", s.messages)
	mux.HandleFunc("POST /v1/messages/count_tokens", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"input_tokens":10}`))
	})
	mux.HandleFunc("GET /v1/models", s.listModels)
	mux.HandleFunc("GET /v1/models/{id}", s.getModel)
	s.Server = httptest.NewServer(mux)
	return s
}

// SetModels sets the models GET /v1/models reports.
func (s *Server) SetModels(ms ...Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append([]Model(nil), ms...)
}

// ModelGets returns how many GET /v1/models/{id} requests were served.
func (s *Server) ModelGets() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets
}

func modelJSON(m Model) map[string]any {
	return map[string]any{"type": "model", "id": m.ID, "display_name": m.ID,
		"created_at": "2025-01-01T00:00:00Z", "max_input_tokens": m.MaxInputTokens, "max_tokens": m.MaxTokens}
}

// getModel answers GET /v1/models/{id} as the API does (404 for a model
// it does not report).
func (s *Server) getModel(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.gets++
	var found *Model
	for i := range s.models {
		if s.models[i].ID == r.PathValue("id") {
			found = &s.models[i]
		}
	}
	var body map[string]any
	if found != nil {
		body = modelJSON(*found)
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if body == nil {
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": "not_found_error", "message": "model: " + r.PathValue("id")}})
		return
	}
	_ = json.NewEncoder(w).Encode(body)
}

func (s *Server) listModels(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	data := make([]any, 0, len(s.models))
	for _, m := range s.models {
		data = append(data, modelJSON(m))
	}
	s.mu.Unlock()
	first, last := "", ""
	if len(data) > 0 {
		first, last = data[0].(map[string]any)["id"].(string), data[len(data)-1].(map[string]any)["id"].(string)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"data": data, "has_more": false, "first_id": first, "last_id": last})
}

// Requests returns every messages request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ToolResults returns the tool_result blocks of every request received, in
// order (a result appears again in each later request of the conversation).
func (s *Server) ToolResults() []Block {
	var out []Block
	for _, r := range s.Requests() {
		out = append(out, r.ToolResults()...)
	}
	return out
}

func writeError(w http.ResponseWriter, e *Error) {
	status := e.Status
	if status == 0 {
		status = http.StatusInternalServerError
	}
	if e.RetryAfter != "" {
		w.Header().Set("Retry-After", e.RetryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(e.body())
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var req Request
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		writeError(w, &Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: "bad request: " + err.Error()})
		return
	}
	req.Header = r.Header.Clone()
	req.Body = body
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.calls++
	n := s.calls
	s.mu.Unlock()
	reply := s.script(req)
	if reply.Error != nil {
		writeError(w, reply.Error)
		return
	}
	model := req.Model
	if model == "" {
		model = "claude-fake"
	}
	if !req.Stream {
		s.whole(w, n, model, reply)
		return
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	send := func(name string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	// first is called after each piece of the answer; after the first it
	// sends the scripted stream error or holds at the gate.
	pieces := 0
	first := func() bool {
		pieces++
		if pieces != 1 {
			return true
		}
		if reply.StreamError != nil {
			send("error", reply.StreamError.body())
			return false
		}
		return reply.Hold.Wait(r.Context()) == nil
	}
	u := Usage{Input: 10, Output: 5}
	if reply.Usage != nil {
		u = *reply.Usage
	}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_fake_%d", n), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": u.Input, "output_tokens": 1, "cache_creation_input_tokens": u.CacheWrite, "cache_read_input_tokens": u.CacheRead},
	}})
	send("ping", map[string]any{"type": "ping"})
	index := 0
	delta := func(d map[string]any) {
		send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": d})
	}
	start := func(b map[string]any) {
		send("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": b})
	}
	stopBlock := func() {
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	if reply.Thinking != "" {
		sig := reply.Signature
		if sig == "" {
			sig = fmt.Sprintf("sig-%d", n)
		}
		start(map[string]any{"type": "thinking", "thinking": "", "signature": ""})
		for _, c := range fakemodel.Chunks(reply.Thinking, reply.ChunkSize) {
			delta(map[string]any{"type": "thinking_delta", "thinking": c})
			if !first() {
				return
			}
		}
		delta(map[string]any{"type": "signature_delta", "signature": sig})
		stopBlock()
	}
	if reply.Redacted != "" {
		start(map[string]any{"type": "redacted_thinking", "data": reply.Redacted})
		if !first() {
			return
		}
		stopBlock()
	}
	calls := reply.calls(n)
	if reply.Text != "" || len(calls) == 0 {
		start(map[string]any{"type": "text", "text": ""})
		for _, c := range fakemodel.Chunks(reply.Text, reply.ChunkSize) {
			delta(map[string]any{"type": "text_delta", "text": c})
			if !first() {
				return
			}
		}
		stopBlock()
	}
	for _, c := range calls {
		start(map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}})
		if !first() {
			return
		}
		// The input arrives in pieces, as the real API sends it.
		for _, part := range fakemodel.Chunks(c.RawInput, max(1, len(c.RawInput)/2+1)) {
			delta(map[string]any{"type": "input_json_delta", "partial_json": part})
		}
		stopBlock()
	}
	if pieces == 0 && !first() {
		return
	}
	stop := reply.Stop
	if stop == "" {
		stop = "end_turn"
		if len(calls) > 0 {
			stop = "tool_use"
		}
	}
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": u.Output}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// whole answers a non-streaming request with one JSON message.
func (s *Server) whole(w http.ResponseWriter, n int, model string, reply Reply) {
	var content []any
	if reply.Thinking != "" {
		sig := reply.Signature
		if sig == "" {
			sig = fmt.Sprintf("sig-%d", n)
		}
		content = append(content, map[string]any{"type": "thinking", "thinking": reply.Thinking, "signature": sig})
	}
	calls := reply.calls(n)
	if reply.Text != "" || len(calls) == 0 {
		content = append(content, map[string]any{"type": "text", "text": reply.Text})
	}
	for _, c := range calls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(c.RawInput)})
	}
	stop := reply.Stop
	if stop == "" {
		stop = "end_turn"
		if len(calls) > 0 {
			stop = "tool_use"
		}
	}
	u := Usage{Input: 10, Output: 5}
	if reply.Usage != nil {
		u = *reply.Usage
	}
	b, _ := json.Marshal(map[string]any{
		"id": fmt.Sprintf("msg_fake_%d", n), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": u.Input, "output_tokens": u.Output},
	})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
