package sdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/warden-dev/warden/internal/fakemodel"
	"github.com/warden-dev/warden/internal/provider"
	"github.com/warden-dev/warden/internal/provider/sdk"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// step is a provider-neutral scripted answer; each harness turns it into
// its fake's Reply.
type step struct {
	thinking string
	text     string
	calls    []provider.ToolCall
	usage    *provider.Usage
	// hold stops the stream after its first delta.
	hold *fakemodel.Gate
	// retryable answers with a retryable HTTP error (429/503/529) instead.
	retryable bool
	// overflow answers with the provider's context-length error.
	overflow bool
	// streamErr sends the provider's in-stream error: after the first
	// delta when text is set, before any delta otherwise.
	streamErr bool
	// maxTokens ends the answer with the provider's output-limit reason.
	maxTokens bool
}

// harness is one adapter against its fake.
type harness struct {
	p provider.Provider
	// push scripts the next answers.
	push func(...step)
	// requests counts the completion requests the fake received.
	requests func() int
	// sent returns the last request as the fake decoded it, in a neutral
	// form: the roles in order, the tool results' call ids and contents,
	// the assistant's tool call ids.
	sent func() sentRequest
	// model is a model name the fake serves.
	model string
}

type sentRequest struct {
	system      string
	roles       []string
	toolResults map[string]string // call id → content
	callIDs     []string          // tool call ids of assistant messages
	toolNames   []string
	texts       []string // every text sent, in order
}

// testClient is an HTTP client whose idle connections are closed when the
// test ends (goleak).
func testClient(t *testing.T) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func fastRetry() sdk.Retry {
	return sdk.Retry{Attempts: 3, Base: time.Millisecond, Max: 5 * time.Millisecond}
}

var readTool = provider.Tool{Name: "read", Description: "read a file",
	Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}

func collect() (*[]provider.Delta, func(provider.Delta)) {
	var ds []provider.Delta
	return &ds, func(d provider.Delta) { ds = append(ds, d) }
}

func deltaText(ds []provider.Delta, k provider.DeltaKind) string {
	var b strings.Builder
	for _, d := range ds {
		if d.Kind == k {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

// runConformance is what every adapter must do against its fake.
func runConformance(t *testing.T, newHarness func(t *testing.T) harness) {
	t.Run("text", func(t *testing.T) {
		h := newHarness(t)
		h.push(step{text: "Hello there, this streams in pieces.", usage: &provider.Usage{InputTokens: 123, OutputTokens: 45}})
		ds, on := collect()
		resp, err := h.p.Stream(context.Background(), provider.Request{Model: h.model, System: "be brief",
			Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hi"}}}}}, on)
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Message.Text(); got != "Hello there, this streams in pieces." {
			t.Fatalf("text %q", got)
		}
		if deltaText(*ds, provider.DeltaText) != resp.Message.Text() || len(*ds) < 2 {
			t.Fatalf("deltas %v do not stream the text", *ds)
		}
		if resp.StopReason != provider.StopEnd || resp.Message.Role != provider.RoleAssistant {
			t.Fatalf("stop %q role %q", resp.StopReason, resp.Message.Role)
		}
		if resp.Usage.InputTokens != 123 || resp.Usage.OutputTokens != 45 {
			t.Fatalf("usage %+v, want the reported 123/45", resp.Usage)
		}
		sent := h.sent()
		if sent.system != "be brief" || len(sent.texts) == 0 || sent.texts[len(sent.texts)-1] != "hi" {
			t.Fatalf("sent %+v", sent)
		}
	})

	t.Run("text then several tool calls", func(t *testing.T) {
		h := newHarness(t)
		h.push(step{text: "Let me look.", calls: []provider.ToolCall{
			{ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)},
			{ID: "c2", Name: "read", Arguments: json.RawMessage(`{"path":"b.go"}`)},
		}})
		ds, on := collect()
		resp, err := h.p.Stream(context.Background(), provider.Request{Model: h.model, Tools: []provider.Tool{readTool},
			Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "read both"}}}}}, on)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StopReason != provider.StopToolCalls {
			t.Fatalf("stop %q", resp.StopReason)
		}
		parts := resp.Message.Parts
		if len(parts) != 3 || parts[0].Type != provider.PartText || parts[0].Text != "Let me look." ||
			parts[1].Type != provider.PartToolCall || parts[2].Type != provider.PartToolCall {
			t.Fatalf("parts %+v", parts)
		}
		calls := resp.Message.ToolCalls()
		for i, want := range []string{"a.go", "b.go"} {
			var args struct{ Path string }
			if err := json.Unmarshal(calls[i].Arguments, &args); err != nil || args.Path != want || calls[i].Name != "read" || calls[i].ID == "" {
				t.Fatalf("call %d: %+v (%v)", i, calls[i], err)
			}
		}
		if calls[0].ID == calls[1].ID {
			t.Fatalf("calls share id %q", calls[0].ID)
		}
		var starts []string
		for _, d := range *ds {
			if d.Kind == provider.DeltaToolStart {
				starts = append(starts, d.ToolCallID+":"+d.ToolName)
			}
		}
		if len(starts) != 2 || starts[0] != calls[0].ID+":read" || starts[1] != calls[1].ID+":read" {
			t.Fatalf("tool starts %v, calls %v", starts, calls)
		}
		if names := h.sent().toolNames; len(names) != 1 || names[0] != "read" {
			t.Fatalf("tools sent %v", names)
		}
	})

	t.Run("history with tool results goes back", func(t *testing.T) {
		h := newHarness(t)
		h.push(step{text: "Both read."})
		hist := []provider.Message{
			{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "read both"}}},
			{Role: provider.RoleAssistant, Parts: []provider.Part{
				{Type: provider.PartText, Text: "Let me look."},
				{Type: provider.PartToolCall, ToolCall: &provider.ToolCall{ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)}},
				{Type: provider.PartToolCall, ToolCall: &provider.ToolCall{ID: "c2", Name: "read", Arguments: json.RawMessage(`{"path":"b.go"}`)}},
			}},
			{Role: provider.RoleTool, Parts: []provider.Part{
				{Type: provider.PartToolResult, ToolResult: &provider.ToolResult{CallID: "c1", Content: "package a"}},
				{Type: provider.PartToolResult, ToolResult: &provider.ToolResult{CallID: "c2", Content: "denied by policy: secrets", IsError: true}},
			}},
		}
		resp, err := h.p.Stream(context.Background(), provider.Request{Model: h.model, Tools: []provider.Tool{readTool}, Messages: hist}, nil)
		if err != nil || resp.Message.Text() != "Both read." {
			t.Fatalf("%v %v", resp, err)
		}
		sent := h.sent()
		if len(sent.callIDs) != 2 || sent.callIDs[0] != "c1" || sent.callIDs[1] != "c2" {
			t.Fatalf("assistant tool calls sent %v", sent.callIDs)
		}
		if sent.toolResults["c1"] != "package a" || !strings.Contains(sent.toolResults["c2"], "denied by policy: secrets") {
			t.Fatalf("tool results sent %v", sent.toolResults)
		}
	})

	t.Run("context overflow", func(t *testing.T) {
		h := newHarness(t)
		h.push(step{overflow: true})
		_, err := h.p.Stream(context.Background(), provider.Request{Model: h.model,
			Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "long"}}}}}, nil)
		if !errors.Is(err, provider.ErrContextOverflow) {
			t.Fatalf("err %v, want ErrContextOverflow", err)
		}
		if n := h.requests(); n != 1 {
			t.Fatalf("%d requests: an overflow is not retried", n)
		}
	})

	t.Run("retry before the first delta", func(t *testing.T) {
		h := newHarness(t)
		h.push(step{retryable: true}, step{streamErr: true}, step{text: "third time lucky"})
		resp, err := h.p.Stream(context.Background(), provider.Request{Model: h.model,
			Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hi"}}}}}, nil)
		if err != nil || resp.Message.Text() != "third time lucky" {
			t.Fatalf("%v %v", resp, err)
		}
		if n := h.requests(); n != 3 {
			t.Fatalf("%d requests, want 3", n)
		}
	})

	t.Run("retries are bounded", func(t *testing.T) {
		h := newHarness(t)
		h.push(step{retryable: true}, step{retryable: true}, step{retryable: true}, step{text: "never"})
		_, err := h.p.Stream(context.Background(), provider.Request{Model: h.model,
			Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hi"}}}}}, nil)
		if err == nil {
			t.Fatal("no error after three failures")
		}
		if n := h.requests(); n != 3 {
			t.Fatalf("%d requests, want 3 (the bound)", n)
		}
	})

	t.Run("no retry after the first delta", func(t *testing.T) {
		h := newHarness(t)
		h.push(step{text: "partial answer", streamErr: true}, step{text: "must not be asked"})
		ds, on := collect()
		_, err := h.p.Stream(context.Background(), provider.Request{Model: h.model,
			Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hi"}}}}}, on)
		if err == nil {
			t.Fatal("stream error not reported")
		}
		if len(*ds) == 0 {
			t.Fatal("no delta before the error")
		}
		if n := h.requests(); n != 1 {
			t.Fatalf("%d requests: retried after a delta", n)
		}
	})

	t.Run("max tokens", func(t *testing.T) {
		h := newHarness(t)
		h.push(step{text: "cut sh", maxTokens: true})
		resp, err := h.p.Stream(context.Background(), provider.Request{Model: h.model, MaxTokens: 3,
			Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hi"}}}}}, nil)
		if err != nil || resp.StopReason != provider.StopMaxTokens {
			t.Fatalf("%+v %v", resp, err)
		}
	})

	t.Run("cancel mid-stream", func(t *testing.T) {
		h := newHarness(t)
		gate := fakemodel.NewGate()
		defer gate.Release()
		h.push(step{text: "this answer never ends", hold: gate})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		got := make(chan provider.Delta, 16)
		done := make(chan error, 1)
		go func() {
			_, err := h.p.Stream(ctx, provider.Request{Model: h.model,
				Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hi"}}}}},
				func(d provider.Delta) { got <- d })
			done <- err
		}()
		<-gate.Reached()
		<-got // the first delta reached the caller
		cancel()
		err := <-done
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want context.Canceled", err)
		}
		if n := h.requests(); n != 1 {
			t.Fatalf("%d requests: a cancel is not retried", n)
		}
	})
}
