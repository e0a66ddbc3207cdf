package agentapi

import (
	"encoding/json"

	"github.com/warden-dev/warden/internal/event"
)

// specEvents returns evs as the spec's clients read them. The spec's
// tool.call carries `name`, `arguments` and `toolId`; warden's gate
// records the call as the policy judged it (`tool` is the policy's tool,
// bash for the shell tool) and keeps the model's call in `extra`. Each
// tool.call whose extra holds the model's call gets those three fields at
// the top of its data as well (arguments as the JSON object the model
// wrote; as the raw text when it is not JSON). Nothing else changes: the
// stored event keeps its form, and every other event is as stored.
func specEvents(evs []event.Event) []event.Event {
	for i, x := range evs {
		if x.Type != event.ToolCall {
			continue
		}
		if d, ok := liftCall(x.Data); ok {
			evs[i].Data = d
		}
	}
	return evs
}

// liftCall adds the spec's name, arguments and toolId to a tool.call's
// data from its extra; ok is false when there is nothing to add.
func liftCall(raw json.RawMessage) (json.RawMessage, bool) {
	var d map[string]json.RawMessage
	if json.Unmarshal(raw, &d) != nil {
		return nil, false
	}
	var extra struct {
		Name      *string `json:"name"`
		ToolID    *string `json:"toolId"`
		Arguments *string `json:"arguments"`
	}
	if json.Unmarshal(d["extra"], &extra) != nil || extra.Name == nil {
		return nil, false
	}
	set := func(k string, v any) {
		if _, taken := d[k]; taken {
			return
		}
		if b, err := json.Marshal(v); err == nil {
			d[k] = b
		}
	}
	set("name", *extra.Name)
	if extra.ToolID != nil {
		set("toolId", *extra.ToolID)
	}
	if extra.Arguments != nil {
		if a := json.RawMessage(*extra.Arguments); json.Valid(a) {
			set("arguments", a)
		} else {
			set("arguments", *extra.Arguments)
		}
	}
	b, err := json.Marshal(d)
	if err != nil {
		return nil, false
	}
	return b, true
}
