// Package ollama is a fake Ollama server for tests of warden's provider
// adapter: it speaks Ollama's native API exactly (POST /api/chat streaming
// NDJSON chunks with message.content, message.thinking and
// message.tool_calls, a last chunk with done, done_reason and the counts,
// and {"error":…} lines; POST /api/show; GET /api/tags) and answers from a
// script (a func, or a Queue of replies) instead of a model. It records
// every request, and a Reply's Hold gate stops a stream mid-answer.
package ollama

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/warden-dev/warden/internal/fakemodel"
)

// ToolCall is a tool call as Ollama writes it.
type ToolCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Index     int             `json:"index"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// Message is one chat message of a request.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Thinking   string     `json:"thinking,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolName   string     `json:"tool_name,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// Request is what a client sent to POST /api/chat.
type Request struct {
	Model    string            `json:"model"`
	Messages []Message         `json:"messages"`
	Stream   *bool             `json:"stream,omitempty"`
	Tools    []json.RawMessage `json:"tools,omitempty"`
	Options  map[string]any    `json:"options,omitempty"`
	Think    json.RawMessage   `json:"think,omitempty"`
	Truncate *bool             `json:"truncate,omitempty"`
	// Header is the request's HTTP header.
	Header http.Header `json:"-"`
	// Body is the request body as received.
	Body json.RawMessage `json:"-"`
}

// NumCtx returns options.num_ctx (0 when not sent).
func (r Request) NumCtx() int {
	f, _ := r.Options["num_ctx"].(float64)
	return int(f)
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

// Reply is the scripted answer: thinking, then text, then tool calls (one
// chunk each), then the done chunk.
type Reply struct {
	Thinking string
	Text     string
	Calls    []Call
	// ChunkSize is the text chunk size; 0 means 8 bytes.
	ChunkSize int
	// PromptEvalCount and EvalCount override the counts of the done chunk
	// (default 10 and 5); a small PromptEvalCount plays Ollama cutting a
	// long prompt.
	PromptEvalCount, EvalCount int
	// DoneReason overrides done_reason ("length").
	DoneReason string
	// Error answers the request with an HTTP error instead of a stream.
	Error *Error
	// StreamError is sent as an {"error":…} line after the first piece
	// of the answer, and the stream ends there.
	StreamError string
	// Hold stops the stream at the gate after the first piece of the
	// answer has been flushed (see fakemodel.Gate).
	Hold *fakemodel.Gate
}

// Call is one scripted tool call.
type Call struct {
	// ID is sent when set (newer Ollama sends one; older none).
	ID   string
	Name string
	Args any
}

// Error is an HTTP error as Ollama writes it: {"error": message}.
type Error struct {
	Status  int
	Message string
}

// Script decides the reply to a request.
type Script func(Request) Reply

// Queue is a queue of scripted replies; pass q.Next to New.
type Queue = fakemodel.Queue[Request, Reply]

// NewQueue returns a queue holding replies; when they run out the fake
// answers 500 "fake: script exhausted".
func NewQueue(replies ...Reply) *Queue {
	q := &Queue{Exhausted: Reply{Error: &Error{Status: http.StatusInternalServerError, Message: "fake: script exhausted"}}}
	q.Push(replies...)
	return q
}

// Model is a model the fake has pulled.
type Model struct {
	Name string
	// ContextLength is the model's trained window (model_info's
	// <arch>.context_length).
	ContextLength int
	// NumCtx, when set, is a num_ctx line of the Modelfile's parameters.
	NumCtx int
}

// Server is a running fake.
type Server struct {
	*httptest.Server
	script Script

	mu       sync.Mutex
	requests []Request
	shows    []string
	models   []Model
}

// New starts a fake on loopback. Close it when done.
func New(script Script) *Server {
	s := &Server{script: script, models: []Model{{Name: "qwen2.5-coder:7b", ContextLength: 32768}}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "Ollama is running") })
	mux.HandleFunc("POST /api/chat", s.chat)
	mux.HandleFunc("POST /api/show", s.show)
	mux.HandleFunc("GET /api/tags", s.tags)
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"version":"0.17.4"}`)
	})
	s.Server = httptest.NewServer(mux)
	return s
}

// SetModels sets the models the fake has.
func (s *Server) SetModels(ms ...Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append([]Model(nil), ms...)
}

// Requests returns every chat request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Shows returns the models /api/show was asked about, in order.
func (s *Server) Shows() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.shows...)
}

func writeError(w http.ResponseWriter, e *Error) {
	status := e.Status
	if status == 0 {
		status = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": e.Message})
}

func (s *Server) model(name string) (Model, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.models {
		if m.Name == name || m.Name == name+":latest" {
			return m, true
		}
	}
	return Model{}, false
}

func (s *Server) show(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string `json:"model"`
		Name  string `json:"name"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, &Error{Status: http.StatusBadRequest, Message: "invalid request: " + err.Error()})
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	s.mu.Lock()
	s.shows = append(s.shows, name)
	s.mu.Unlock()
	m, ok := s.model(name)
	if !ok {
		writeError(w, &Error{Status: http.StatusNotFound, Message: fmt.Sprintf("model '%s' not found", name)})
		return
	}
	params := "stop                           \"<|im_end|>\"\ntemperature                    0.7"
	if m.NumCtx > 0 {
		params = fmt.Sprintf("num_ctx                        %d\n%s", m.NumCtx, params)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"license": "Apache-2.0", "modelfile": "FROM " + m.Name, "parameters": params, "template": "{{ .Prompt }}",
		"details": map[string]any{"format": "gguf", "family": "qwen2", "parameter_size": "7.6B", "quantization_level": "Q4_K_M"},
		"model_info": map[string]any{"general.architecture": "qwen2", "general.parameter_count": 7615616512,
			"qwen2.context_length": m.ContextLength, "qwen2.embedding_length": 3584},
		"capabilities": []string{"completion", "tools"},
		"modified_at":  "2025-01-01T00:00:00Z",
	})
}

func (s *Server) tags(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	ms := make([]any, 0, len(s.models))
	for _, m := range s.models {
		ms = append(ms, map[string]any{"name": m.Name, "model": m.Name, "modified_at": "2025-01-01T00:00:00Z",
			"size": 4683087332, "digest": "sha256:fake",
			"details": map[string]any{"format": "gguf", "family": "qwen2", "parameter_size": "7.6B", "quantization_level": "Q4_K_M"}})
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"models": ms})
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var req Request
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		writeError(w, &Error{Status: http.StatusBadRequest, Message: "invalid request: " + err.Error()})
		return
	}
	req.Header = r.Header.Clone()
	req.Body = body
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	if _, ok := s.model(req.Model); !ok {
		writeError(w, &Error{Status: http.StatusNotFound, Message: fmt.Sprintf("model '%s' not found, try pulling it first", req.Model)})
		return
	}
	reply := s.script(req)
	if reply.Error != nil {
		writeError(w, reply.Error)
		return
	}
	calls := make([]map[string]any, 0, len(reply.Calls))
	for i, c := range reply.Calls {
		args := c.Args
		if args == nil {
			args = map[string]any{}
		}
		fn := map[string]any{"index": i, "name": c.Name, "arguments": args}
		call := map[string]any{"function": fn}
		if c.ID != "" {
			call["id"] = c.ID
		}
		calls = append(calls, call)
	}
	promptN, evalN := reply.PromptEvalCount, reply.EvalCount
	if promptN == 0 {
		promptN = 10
	}
	if evalN == 0 {
		evalN = 5
	}
	reason := reply.DoneReason
	if reason == "" {
		reason = "stop"
	}
	created := time.Now().UTC().Format(time.RFC3339Nano)
	done := map[string]any{"model": req.Model, "created_at": created, "message": map[string]any{"role": "assistant", "content": ""},
		"done": true, "done_reason": reason, "total_duration": 1200000, "load_duration": 100000,
		"prompt_eval_count": promptN, "prompt_eval_duration": 300000, "eval_count": evalN, "eval_duration": 800000}

	if req.Stream != nil && !*req.Stream {
		msg := map[string]any{"role": "assistant", "content": reply.Text}
		if reply.Thinking != "" {
			msg["thinking"] = reply.Thinking
		}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		done["message"] = msg
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_ = json.NewEncoder(w).Encode(done)
		return
	}

	w.Header().Set("Content-Type", "application/x-ndjson")
	flusher, _ := w.(http.Flusher)
	line := func(v any) {
		b, _ := json.Marshal(v)
		_, _ = w.Write(append(b, '\n'))
		if flusher != nil {
			flusher.Flush()
		}
	}
	chunk := func(msg map[string]any) {
		msg["role"] = "assistant"
		if _, ok := msg["content"]; !ok {
			msg["content"] = ""
		}
		line(map[string]any{"model": req.Model, "created_at": created, "message": msg, "done": false})
	}
	pieces := 0
	first := func() bool {
		pieces++
		if pieces != 1 {
			return true
		}
		if reply.StreamError != "" {
			line(map[string]string{"error": reply.StreamError})
			return false
		}
		return reply.Hold.Wait(r.Context()) == nil
	}
	for _, c := range fakemodel.Chunks(reply.Thinking, reply.ChunkSize) {
		chunk(map[string]any{"thinking": c})
		if !first() {
			return
		}
	}
	for _, c := range fakemodel.Chunks(reply.Text, reply.ChunkSize) {
		chunk(map[string]any{"content": c})
		if !first() {
			return
		}
	}
	for _, c := range calls {
		chunk(map[string]any{"tool_calls": []any{c}})
		if !first() {
			return
		}
	}
	if pieces == 0 && !first() {
		return
	}
	line(done)
}
