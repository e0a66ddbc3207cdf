// Package openai is a fake OpenAI-compatible chat-completions server for
// end-to-end tests of real agents (OpenCode) and of warden's own provider
// adapter: it speaks the streaming wire format exactly (SSE "data:" chunks
// of chat.completion.chunk objects, several tool calls by index, the usage
// chunk, `data: {"error":…}` chunks, ending with "data: [DONE]") and answers
// from a script (a func, or a Queue of replies) instead of a model. It
// records every request, and a Reply's Hold gate stops a stream mid-answer.
package openai

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/warden-dev/warden/internal/fakemodel"
)

// Message is one chat message of a request.
type Message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	ToolCalls  []ToolCall      `json:"tool_calls,omitempty"`
}

// ToolCall is a tool call of an assistant message sent back to the model.
type ToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Text returns the message content as text (string or parts).
func (m Message) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return string(m.Content)
}

// Request is what an agent sent.
type Request struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Messages []Message         `json:"messages"`
	Tools    []json.RawMessage `json:"tools,omitempty"`
	// StreamOptions is what the client asked of the stream.
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options,omitempty"`
	MaxTokens           int      `json:"max_tokens,omitempty"`
	MaxCompletionTokens int      `json:"max_completion_tokens,omitempty"`
	Temperature         *float64 `json:"temperature,omitempty"`
	// Header is the request's HTTP header (Authorization and all).
	Header http.Header `json:"-"`
	// Body is the request body as received.
	Body json.RawMessage `json:"-"`
}

// ToolNames returns the names of the tools offered.
func (r Request) ToolNames() []string {
	var out []string
	for _, t := range r.Tools {
		var f struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		_ = json.Unmarshal(t, &f) // a tool without a name has none
		out = append(out, f.Function.Name)
	}
	return out
}

// HasToolResult reports whether the request already carries a tool result.
func (r Request) HasToolResult() bool {
	for _, m := range r.Messages {
		if m.Role == "tool" {
			return true
		}
	}
	return false
}

// ToolResults returns the text of every tool message.
func (r Request) ToolResults() []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "tool" {
			out = append(out, m.Text())
		}
	}
	return out
}

// Reply is the scripted answer. The zero Reply answers "" and stops; Text
// alone is a text answer; Tool (or Calls) alone a tool call; Text with
// tool calls streams the text, then the calls, as models do.
type Reply struct {
	// Tool and Args make a tool call (Args is JSON-encoded).
	Tool string
	Args any
	// Text is the answer's text (streamed in chunks of ChunkSize bytes).
	Text string
	// Calls are tool calls of the same step, after Tool's, streamed one
	// after another with their indexes, as the real API does.
	Calls []Call
	// Reasoning is streamed first as reasoning_content deltas (what
	// OpenAI-compatible reasoning servers send).
	Reasoning string
	// ChunkSize is the text chunk size; 0 means 8 bytes.
	ChunkSize int
	// Usage overrides the usage chunk's figures (default 10 prompt, 5
	// completion); NoUsage leaves the chunk out, as servers that ignore
	// stream_options do.
	Usage   *Usage
	NoUsage bool
	// Finish overrides the finish_reason ("length", "content_filter").
	Finish string
	// Error answers the request with an HTTP error instead of a stream.
	Error *Error
	// StreamError is sent as a `data: {"error":…}` chunk after the first
	// piece of the answer (CutAfter pieces), and the stream ends there.
	StreamError *Error
	// Hold stops the stream at the gate after the first piece of the
	// answer (CutAfter pieces) has been flushed (see fakemodel.Gate).
	Hold *fakemodel.Gate
	// CutAfter is how many pieces (reasoning and text chunks, the opening
	// chunk of each tool call) go out before StreamError or Hold; 0 means
	// 1. A reply with fewer pieces is neither cut nor held.
	CutAfter int
}

// Call is one scripted tool call.
type Call struct {
	// ID defaults to call_<request> (call_<request>_<index> when the step
	// has several).
	ID   string
	Name string
	// Args is JSON-encoded; RawArgs, when set, is sent as is (for invalid
	// JSON).
	Args    any
	RawArgs string
}

// Usage is a usage chunk's figures.
type Usage struct {
	PromptTokens, CompletionTokens, CachedTokens int64
}

// Error is an API error as OpenAI writes it.
type Error struct {
	// Status is the HTTP status (default 500); unused for stream errors.
	Status  int
	Type    string
	Code    string
	Message string
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter string
}

// ContextOverflow is the error OpenAI answers a prompt too long for the
// model with.
func ContextOverflow() *Error {
	return &Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Code: "context_length_exceeded",
		Message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages."}
}

func (e *Error) body() map[string]any {
	var code any
	if e.Code != "" {
		code = e.Code
	}
	typ := e.Type
	if typ == "" {
		typ = "server_error"
	}
	return map[string]any{"error": map[string]any{"message": e.Message, "type": typ, "param": nil, "code": code}}
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

// Script decides the reply to a request.
type Script func(Request) Reply

// ToolOnce is the usual script: requests without tools (titles) get a
// title; the first request with tools gets the tool call; once a tool result
// is in the conversation, the answer is text.
func ToolOnce(tool string, args any) Script {
	return func(r Request) Reply {
		switch {
		case len(r.Tools) == 0:
			return Reply{Text: "Test session"}
		case r.HasToolResult():
			return Reply{Text: "Done."}
		default:
			return Reply{Tool: tool, Args: args}
		}
	}
}

// Server is a running fake.
type Server struct {
	*httptest.Server
	script Script

	mu       sync.Mutex
	requests []Request
	calls    int
	models   []string
}

// New starts a fake on loopback. Close it when done.
func New(script Script) *Server {
	s := &Server{script: script, models: []string{"fake-model"}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.complete)
	mux.HandleFunc("GET /v1/models", s.listModels)
	s.Server = httptest.NewServer(mux)
	return s
}

// SetModels sets the models GET /v1/models reports.
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append([]string(nil), ids...)
}

func (s *Server) listModels(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	data := make([]any, 0, len(s.models))
	for _, id := range s.models {
		data = append(data, map[string]any{"id": id, "object": "model", "created": 0, "owned_by": "fake"})
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

// Requests returns every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
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

func (s *Server) complete(w http.ResponseWriter, r *http.Request) {
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
	id := fmt.Sprintf("chatcmpl-%d", n)
	s.mu.Unlock()
	reply := s.script(req)
	if reply.Error != nil {
		writeError(w, reply.Error)
		return
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	created := time.Now().Unix()
	write := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send := func(delta map[string]any, finish any) {
		write(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"system_fingerprint": "fp_fake",
			"choices":            []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		})
	}
	// first is called after each piece of the answer; after the first it
	// sends the scripted stream error or holds at the gate.
	pieces := 0
	first := func() bool {
		pieces++
		if pieces != max(1, reply.CutAfter) {
			return true
		}
		if reply.StreamError != nil {
			write(reply.StreamError.body())
			return false
		}
		return reply.Hold.Wait(r.Context()) == nil
	}

	send(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil)
	for _, c := range fakemodel.Chunks(reply.Reasoning, reply.ChunkSize) {
		send(map[string]any{"reasoning_content": c}, nil)
		if !first() {
			return
		}
	}
	for _, c := range fakemodel.Chunks(reply.Text, reply.ChunkSize) {
		send(map[string]any{"content": c}, nil)
		if !first() {
			return
		}
	}
	calls := reply.Calls
	if reply.Tool != "" {
		calls = append([]Call{{Name: reply.Tool, Args: reply.Args}}, calls...)
	}
	for i, c := range calls {
		args := c.RawArgs
		if args == "" {
			b, _ := json.Marshal(c.Args)
			args = string(b)
		}
		callID := c.ID
		if callID == "" {
			callID = fmt.Sprintf("call_%d_%d", n, i)
		}
		if c.ID == "" && len(calls) == 1 {
			callID = fmt.Sprintf("call_%d", n)
		}
		send(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": callID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil)
		if !first() {
			return
		}
		// The arguments arrive in pieces, as the real API sends them.
		for _, part := range fakemodel.Chunks(args, max(1, len(args)/2+1)) {
			send(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": part}}}}, nil)
		}
	}
	finish := reply.Finish
	if finish == "" {
		finish = "stop"
		if len(calls) > 0 {
			finish = "tool_calls"
		}
	}
	if pieces == 0 && !first() {
		return
	}
	send(map[string]any{}, finish)
	if !reply.NoUsage {
		u := Usage{PromptTokens: 10, CompletionTokens: 5}
		if reply.Usage != nil {
			u = *reply.Usage
		}
		write(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model, "choices": []any{},
			"usage": map[string]any{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens,
				"total_tokens":          u.PromptTokens + u.CompletionTokens,
				"prompt_tokens_details": map[string]any{"cached_tokens": u.CachedTokens}},
		})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}
