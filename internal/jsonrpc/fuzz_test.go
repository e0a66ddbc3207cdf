package jsonrpc

import (
	"encoding/json"
	"testing"
)

// FuzzDecode checks that no message makes the decoder panic, and that what
// it accepts is well formed: every request has a method and version 2.0,
// and every error response encodes as JSON with an id.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"fs.readFile","params":{"path":"a"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"},3]`,
		`{"jsonrpc":"2.0","id":null,"method":"x"}`,
		`[]`, `{`, `null`, `"str"`, `{"jsonrpc":"2.0","id":[1],"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":7}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		reqs, invalid, batch, fatal := decode(msg)
		if fatal != nil {
			if fatal.Error == nil || len(reqs) != 0 {
				t.Fatalf("fatal without error or with requests: %+v", fatal)
			}
			if _, err := json.Marshal(fatal); err != nil {
				t.Fatal(err)
			}
			return
		}
		if len(reqs) != len(invalid) || len(reqs) == 0 || (!batch && len(reqs) != 1) {
			t.Fatalf("shape: %d requests, %d invalid, batch %v", len(reqs), len(invalid), batch)
		}
		for i, r := range reqs {
			if invalid[i] != nil {
				if _, err := json.Marshal(invalid[i]); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if r.JSONRPC != Version || r.Method == "" {
				t.Fatalf("accepted a bad request: %+v", r)
			}
		}
	})
}
