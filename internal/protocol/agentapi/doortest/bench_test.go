package doortest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/warden-dev/warden/internal/fakemodel"
	openaifake "github.com/warden-dev/warden/internal/fakemodel/openai"
)

// oneToolCall is the fake's script of a turn with one tool call: a read,
// then the answer.
func oneToolCall(r openaifake.Request) openaifake.Reply {
	if r.HasToolResult() {
		return openaifake.Reply{Text: "It says hello."}
	}
	return openaifake.Reply{Tool: "read", Args: map[string]any{"path": "a.txt"}}
}

// BenchmarkTurn is a turn with one tool call (a read) through warden (the
// Agent API door over WebSocket, the engine, the gate, the durable log)
// against the same exchange driven directly with openai-go against the
// same fake: the same system prompt and tool definitions as warden sends
// (taken from a warden turn run before the timers), the file read with
// os.ReadFile. Each warden turn runs in a fresh session (created outside
// the timer), so the history does not grow.
func BenchmarkTurn(b *testing.B) {
	h := newHarness(b, oneToolCall, harnessOptions{})
	if err := os.WriteFile(filepath.Join(h.root, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	// what warden sends: its system prompt and its tools
	warm := h.dial()
	warm.message(warm.create(h), "what does a.txt say?")
	first := h.fake.Requests()[0]
	system := first.Messages[0].Text()
	var tools []oai.ChatCompletionToolUnionParam
	for _, raw := range first.Tools {
		var t struct {
			Function struct {
				Name        string         `json:"name"`
				Description string         `json:"description"`
				Parameters  map[string]any `json:"parameters"`
			} `json:"function"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			b.Fatal(err)
		}
		tools = append(tools, oai.ChatCompletionFunctionTool(oai.FunctionDefinitionParam{Name: t.Function.Name,
			Description: oai.String(t.Function.Description), Parameters: oai.FunctionParameters(t.Function.Parameters)}))
	}
	b.Run("warden", func(b *testing.B) {
		c := h.dial()
		for b.Loop() {
			b.StopTimer()
			id := c.create(h)
			b.StartTimer()
			if res := c.message(id, "what does a.txt say?"); res.Text != "It says hello." {
				b.Fatalf("turn %+v", res)
			}
		}
	})
	b.Run("sdk", func(b *testing.B) {
		client := oai.NewClient(option.WithBaseURL(h.fake.URL+"/v1"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
		ctx := context.Background()
		for b.Loop() {
			params := oai.ChatCompletionNewParams{Model: "fake-model", Tools: tools,
				StreamOptions: oai.ChatCompletionStreamOptionsParam{IncludeUsage: oai.Bool(true)},
				Messages:      []oai.ChatCompletionMessageParamUnion{oai.SystemMessage(system), oai.UserMessage("what does a.txt say?")}}
			acc := stream(b, ctx, client, params)
			call := acc.Choices[0].Message.ToolCalls[0]
			data, err := os.ReadFile(filepath.Join(h.root, "a.txt"))
			if err != nil {
				b.Fatal(err)
			}
			params.Messages = append(params.Messages, acc.Choices[0].Message.ToParam(), oai.ToolMessage(string(data), call.ID))
			if acc = stream(b, ctx, client, params); acc.Choices[0].Message.Content != "It says hello." {
				b.Fatalf("answer %q", acc.Choices[0].Message.Content)
			}
		}
	})
}

func stream(b *testing.B, ctx context.Context, client oai.Client, params oai.ChatCompletionNewParams) oai.ChatCompletionAccumulator {
	s := client.Chat.Completions.NewStreaming(ctx, params)
	var acc oai.ChatCompletionAccumulator
	for s.Next() {
		acc.AddChunk(s.Current())
	}
	if err := s.Err(); err != nil {
		b.Fatal(err)
	}
	return acc
}

// BenchmarkDeltaLatency is the time from the fake flushing the first piece
// of an answer (its hold gate is reached right after the flush) to the
// client receiving it: through warden (agent.text_delta over the door's
// WebSocket) and directly (the SDK's first chunk). p50 and p99 are
// reported.
//
// The user's message commits while the model is asked, and the answer's
// first delta is announced only once the message is durable. A real
// model's first token comes long after that commit; this fake's would
// come at once and measure the fsync's remainder instead of the relay, so
// here the fake answers once the message is durable (session.status busy
// has been announced). BenchmarkTurn has the whole exchange.
func BenchmarkDeltaLatency(b *testing.B) {
	var mu sync.Mutex
	var gate *fakemodel.Gate
	var durable chan struct{}
	h := newHarness(b, func(openaifake.Request) openaifake.Reply {
		mu.Lock()
		g, d := gate, durable
		mu.Unlock()
		<-d
		return openaifake.Reply{Text: "hello there", ChunkSize: 64, Hold: g}
	}, harnessOptions{})
	arm := func(ready bool) (*fakemodel.Gate, chan struct{}) {
		mu.Lock()
		defer mu.Unlock()
		gate, durable = fakemodel.NewGate(), make(chan struct{})
		if ready {
			close(durable)
		}
		return gate, durable
	}
	report := func(b *testing.B, d []time.Duration) {
		slices.Sort(d)
		b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(d[len(d)*99/100].Microseconds()), "p99-µs")
	}
	b.Run("warden", func(b *testing.B) {
		c := h.dial()
		id := c.create(h)
		var lat []time.Duration
		for b.Loop() {
			g, d := arm(false)
			from := c.notesSnapshot()
			turn := c.start("agent.message", map[string]any{"sessionId": id, "content": "hi"})
			c.waitNote(from, "session.status", func(p map[string]any) bool { return p["status"] == "busy" })
			close(d)
			<-g.Reached()
			t0 := time.Now()
			c.waitNote(from, "agent.text_delta", nil)
			lat = append(lat, time.Since(t0))
			g.Release()
			wait(c.t, turn, "agent.message")
		}
		report(b, lat)
	})
	b.Run("sdk", func(b *testing.B) {
		client := oai.NewClient(option.WithBaseURL(h.fake.URL+"/v1"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
		var lat []time.Duration
		for b.Loop() {
			g, _ := arm(true)
			s := client.Chat.Completions.NewStreaming(context.Background(), oai.ChatCompletionNewParams{Model: "fake-model",
				Messages: []oai.ChatCompletionMessageParamUnion{oai.UserMessage("hi")}})
			got := make(chan time.Time, 1)
			done := make(chan struct{})
			go func() {
				defer close(done)
				sent := false
				for s.Next() {
					if !sent && len(s.Current().Choices) > 0 && s.Current().Choices[0].Delta.Content != "" {
						got <- time.Now()
						sent = true
					}
				}
			}()
			<-g.Reached()
			t0 := time.Now()
			t1 := <-got
			lat = append(lat, t1.Sub(t0))
			g.Release()
			<-done
			s.Close()
		}
		report(b, lat)
	})
}

// BenchmarkTurnLongSession is BenchmarkTurn's turn in a session that
// already holds 200 such turns (about 1,800 events): what a step costs
// beyond the model's own work as a session grows. The model's request
// grows with the session too, in warden as it would with the SDK alone.
func BenchmarkTurnLongSession(b *testing.B) {
	h := newHarness(b, oneToolCall, harnessOptions{})
	if err := os.WriteFile(filepath.Join(h.root, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	c := h.dial()
	id := c.create(h)
	for range 200 {
		c.message(id, "what does a.txt say?")
	}
	for b.Loop() {
		if res := c.message(id, "what does a.txt say?"); res.Text != "It says hello." {
			b.Fatalf("turn %+v", res)
		}
	}
}
