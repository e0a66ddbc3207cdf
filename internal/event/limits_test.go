package event

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestCheckDepth(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, tc := range []struct {
		in   string
		deep bool
	}{
		{`{"a":1}`, false},
		{nest(MaxDepth), false},
		{nest(MaxDepth + 1), true},
		{nest(9000), true},
		{`{"a":"` + strings.Repeat("[", 200) + `"}`, false},    // brackets in a string
		{`{"a":"\"` + strings.Repeat("{", 200) + `"}`, false},  // after an escaped quote
		{`{"a":"\\"}` + strings.Repeat("[", MaxDepth+1), true}, // an escaped backslash ends no string
		{`{"k":` + nest(MaxDepth-1) + `,"l":` + nest(MaxDepth-1) + `}`, false},
	} {
		err := CheckDepth([]byte(tc.in), MaxDepth)
		if (err != nil) != tc.deep || (err != nil && !errors.Is(err, ErrTooDeep)) {
			t.Errorf("CheckDepth(%.40q...) = %v, want deep=%v", tc.in, err, tc.deep)
		}
	}
}

func FuzzCheckDepth(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"]"}]}`, `"\"["`, strings.Repeat("[", 70), `[[]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := CheckDepth(data, 8)
		if !json.Valid(data) {
			return
		}
		// for valid JSON the answer is the real nesting depth
		var v any
		if uerr := json.Unmarshal(data, &v); uerr != nil {
			return
		}
		if d := depthOf(v); (d > 8) != (err != nil) {
			t.Fatalf("depth %d, CheckDepth = %v", d, err)
		}
	})
}

func depthOf(v any) int {
	best := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			best = max(best, depthOf(e))
		}
		return best + 1
	case []any:
		for _, e := range x {
			best = max(best, depthOf(e))
		}
		return best + 1
	}
	return 0
}
