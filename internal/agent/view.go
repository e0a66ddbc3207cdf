package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/provider"
)

// view is what the model is shown at a step: computed from the log alone.
type view struct {
	System   string             `json:"system"`
	Messages []provider.Message `json:"messages"`
	// Turns counts the user turns in the view.
	Turns int `json:"turns"`
}

// summaryLead starts the message that stands in for compacted events.
const summaryLead = "Summary of the earlier part of this session (compacted by warden; the original task is above, the latest turn below):\n\n"

// buildView computes the model's view of h with the latest compaction
// marker applied (c overrides it when set: to measure a candidate).
func (e *Engine) buildView(h *history, c *CompactionData) view {
	if c == nil {
		c = h.compaction
	}
	v := view{System: e.opts.System + "\n\nWorkspace: " + h.workspace}
	results := map[string]ResultData{}
	for i, x := range h.events {
		if x.Type == event.ToolResult {
			if d := dataAt[ResultData](h, i); d.CallID != "" {
				if _, dup := results[d.CallID]; !dup {
					results[d.CallID] = d
				}
			}
		}
	}
	summarised := false
	for i, x := range h.events {
		in := c != nil && x.Seq >= c.FromSeq && x.Seq <= c.ToSeq
		if in && c.Mode == "summary" {
			if !summarised {
				summarised = true
				v.Messages = append(v.Messages, provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: summaryLead + c.Summary}}})
			}
			continue
		}
		switch x.Type {
		case event.MessageUser:
			d := dataAt[UserData](h, i)
			v.Turns++
			v.Messages = append(v.Messages, provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: userText(d)}}})
		case event.MessageAssistant:
			d := dataAt[AssistantData](h, i)
			if len(d.Parts) == 0 {
				continue
			}
			parts := d.Parts
			if d.Partial {
				parts = cutShort(parts, d.StopReason)
			}
			v.Messages = append(v.Messages, provider.Message{Role: provider.RoleAssistant, Parts: parts})
			// the results follow their calls, in call order, whatever
			// order the log has them in (read-only calls run in parallel)
			for _, call := range (provider.Message{Parts: d.Parts}).ToolCalls() {
				r, ok := results[call.ID]
				content, isErr := r.Content, r.IsError
				if !ok {
					// only a step still running has calls without results;
					// a view is never sent with a call left unanswered
					content, isErr = "interrupted: no result was recorded for this call", true
				}
				if in && c.Mode == "trim" && ok && len(content) > trimKeep {
					content = fmt.Sprintf("[output of %s trimmed by compaction: %d characters]", call.Name, len(content))
				}
				v.Messages = append(v.Messages, provider.Message{Role: provider.RoleTool, Parts: []provider.Part{{
					Type: provider.PartToolResult, ToolResult: &provider.ToolResult{CallID: call.ID, Content: content, IsError: isErr},
				}}})
			}
		}
	}
	return v
}

// cutShort marks the text of an answer that was cut short, so the model
// sees that it stopped mid-answer and why.
func cutShort(parts []provider.Part, stop string) []provider.Part {
	note := "[cut short here: the person aborted this answer]"
	if stop != StopAborted {
		note = "[cut short here: the model's answer failed mid-stream]"
	}
	out := append([]provider.Part(nil), parts...)
	for i := range out {
		if out[i].Type == provider.PartText {
			out[i].Text += "\n" + note
			return out
		}
	}
	return append([]provider.Part{{Type: provider.PartText, Text: note}}, out...)
}

// trimKeep is the longest tool output a trim leaves as it was.
const trimKeep = 200

func userText(d UserData) string {
	if len(d.Attachments) == 0 {
		return d.Content
	}
	var b strings.Builder
	b.WriteString(d.Content)
	for _, a := range d.Attachments {
		b.WriteString("\n\n[attachment")
		if a.Name != "" {
			b.WriteString(" " + a.Name)
		}
		if a.Path != "" {
			b.WriteString(" (workspace file " + a.Path + "; read it with the read tool)")
		}
		b.WriteString("]")
		if a.Content != "" {
			b.WriteString("\n" + a.Content)
		}
	}
	return b.String()
}

// estimate is a rough token count of a request (about four characters a
// token, plus a little per message): what the budget check goes by before
// the provider reports real figures.
func estimate(v view, tools []provider.Tool) int {
	n := len(v.System)
	for _, m := range v.Messages {
		n += 16
		for _, p := range m.Parts {
			n += len(p.Text)
			if p.ToolCall != nil {
				n += len(p.ToolCall.Name) + len(p.ToolCall.Arguments)
			}
			if p.ToolResult != nil {
				n += len(p.ToolResult.Content)
			}
		}
	}
	for _, t := range tools {
		n += len(t.Name) + len(t.Description) + len(t.Schema)
	}
	return n / 4
}

// transcript renders events as text for the summariser.
func transcript(evs []event.Event) string {
	var b strings.Builder
	for _, x := range evs {
		switch x.Type {
		case event.MessageUser:
			d, _ := event.DataOf[UserData](x)
			fmt.Fprintf(&b, "USER: %s\n\n", userText(d))
		case event.MessageAssistant:
			d, _ := event.DataOf[AssistantData](x)
			if d.Content != "" {
				fmt.Fprintf(&b, "ASSISTANT: %s\n\n", d.Content)
			}
			for _, c := range (provider.Message{Parts: d.Parts}).ToolCalls() {
				fmt.Fprintf(&b, "TOOL CALL %s %s\n\n", c.Name, clip(string(c.Arguments), 2000))
			}
		case event.ToolResult:
			d, _ := event.DataOf[ResultData](x)
			fmt.Fprintf(&b, "TOOL RESULT (%s, %s): %s\n\n", d.Tool, d.Outcome, clip(d.Content, 2000))
		case event.ContextCompaction:
			d, _ := event.DataOf[CompactionData](x)
			if d.Summary != "" {
				fmt.Fprintf(&b, "EARLIER SUMMARY: %s\n\n", d.Summary)
			}
		}
	}
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… [%d more characters]", len(s)-n)
}

// argsMap decodes a call's arguments as an object.
func argsMap(raw json.RawMessage) (map[string]any, error) {
	var m map[string]any
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, nil
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("the arguments are not a JSON object: %w", err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}
