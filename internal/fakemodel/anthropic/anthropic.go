// Package anthropic is a fake Anthropic Messages API server for end-to-end
// tests of real agents (Claude Code): it speaks the streaming wire format
// exactly (server-sent events message_start, content_block_start,
// content_block_delta with text_delta or input_json_delta, content_block_stop,
// message_delta, message_stop) and answers from a script instead of a model.
package anthropic

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Block is one content block of a message.
type Block struct {
	Type string `json:"type"`
	// Text is set for text blocks.
	Text string `json:"text,omitempty"`
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
	Name string `json:"name"`
}

// Request is what an agent sent to POST /v1/messages.
type Request struct {
	Model     string    `json:"model"`
	Stream    bool      `json:"stream"`
	MaxTokens int       `json:"max_tokens"`
	Messages  []Message `json:"messages"`
	Tools     []Tool    `json:"tools,omitempty"`
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

// Reply is the scripted answer: a tool call or text.
type Reply struct {
	// Tool and Input make a tool_use block (Input is JSON-encoded).
	Tool  string
	Input any
	// Text is sent when Tool is empty.
	Text string
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
}

// New starts a fake on loopback. Close it when done.
func New(script Script) *Server {
	s := &Server{script: script}
	mux := http.NewServeMux()
	// Claude Code probes the base URL with HEAD / before it starts.
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("POST /v1/messages", s.messages)
	mux.HandleFunc("POST /v1/messages/count_tokens", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"input_tokens":10}`))
	})
	s.Server = httptest.NewServer(mux)
	return s
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

func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	var req Request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"type":"error","error":{"type":"invalid_request_error","message":"bad request"}}`))
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.calls++
	n := s.calls
	s.mu.Unlock()
	reply := s.script(req)
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
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_fake_%d", n), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
	stop := "end_turn"
	if reply.Tool != "" {
		stop = "tool_use"
		input, _ := json.Marshal(reply.Input)
		send("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{
			"type": "tool_use", "id": fmt.Sprintf("toolu_fake_%d", n), "name": reply.Tool, "input": map[string]any{}}})
		// Stream the input in two chunks, as the real API does.
		half := len(input) / 2
		for _, part := range []string{string(input[:half]), string(input[half:])} {
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
		}
	} else {
		send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": reply.Text}})
	}
	send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// whole answers a non-streaming request with one JSON message.
func (s *Server) whole(w http.ResponseWriter, n int, model string, reply Reply) {
	var content []any
	stop := "end_turn"
	if reply.Tool != "" {
		stop = "tool_use"
		content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_fake_%d", n), "name": reply.Tool, "input": reply.Input})
	} else {
		content = append(content, map[string]any{"type": "text", "text": reply.Text})
	}
	b, _ := json.Marshal(map[string]any{
		"id": fmt.Sprintf("msg_fake_%d", n), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5},
	})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
