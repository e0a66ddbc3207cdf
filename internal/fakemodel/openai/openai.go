// Package openai is a fake OpenAI-compatible chat-completions server for
// end-to-end tests of real agents (OpenCode): it speaks the streaming wire
// format exactly (SSE "data:" chunks of chat.completion.chunk objects ending
// with "data: [DONE]") and answers from a script instead of a model.
package openai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Message is one chat message of a request.
type Message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
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

// Reply is the scripted answer: a tool call or text.
type Reply struct {
	// Tool and Args make a tool call (Args is JSON-encoded).
	Tool string
	Args any
	// Text is sent when Tool is empty.
	Text string
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
}

// New starts a fake on loopback.
func New(script Script) *Server {
	s := &Server{script: script}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.complete)
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"fake-model","object":"model","created":0,"owned_by":"fake"}]}`))
	})
	s.Server = httptest.NewServer(mux)
	return s
}

// Requests returns every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) complete(w http.ResponseWriter, r *http.Request) {
	var req Request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.calls++
	id := fmt.Sprintf("chatcmpl-%d", s.calls)
	s.mu.Unlock()
	reply := s.script(req)

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	created := time.Now().Unix()
	send := func(delta map[string]any, finish any, usage any) {
		chunk := map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}
		if usage != nil {
			chunk["choices"] = []any{}
			chunk["usage"] = usage
		}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	if reply.Tool != "" {
		args, _ := json.Marshal(reply.Args)
		callID := fmt.Sprintf("call_%d", s.calls)
		send(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"index": 0, "id": callID, "type": "function", "function": map[string]any{"name": reply.Tool, "arguments": ""}}}}, nil, nil)
		send(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": string(args)}}}}, nil, nil)
		send(map[string]any{}, "tool_calls", nil)
	} else {
		send(map[string]any{"role": "assistant", "content": ""}, nil, nil)
		send(map[string]any{"content": reply.Text}, nil, nil)
		send(map[string]any{}, "stop", nil)
	}
	send(nil, nil, usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}
