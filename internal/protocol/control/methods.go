package control

import (
	"context"
	"sort"
)

// method handles one JSON-RPC method.
type method func(ctx context.Context, c *call) (any, error)

// methodTable is every method the door serves, by name.
func methodTable() map[string]method {
	t := map[string]method{}
	for _, part := range []map[string]method{
		fsMethods(), editorMethods(), stateMethods(), commandMethods(), serviceMethods(),
	} {
		for name, m := range part {
			t[name] = m
		}
	}
	return t
}

// MethodNames lists every method the door serves, sorted.
func MethodNames() []string {
	t := methodTable()
	out := make([]string, 0, len(t))
	for n := range t {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// success is the spec's { success: true }.
type success struct {
	Success bool `json:"success"`
}

var ok = success{Success: true}
