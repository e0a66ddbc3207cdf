package configtmpl

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	tests := []struct {
		name    string
		tmpl    string
		vars    map[string]string
		want    string
		wantErr error
		errHas  []string
	}{
		{name: "plain", tmpl: `{"u":"http://127.0.0.1:${PORT}/mcp"}`, vars: map[string]string{"PORT": "4000"}, want: `{"u":"http://127.0.0.1:4000/mcp"}`},
		{name: "no placeholders", tmpl: `{"a":[1,2,"$x","$"]}`, want: `{"a":[1,2,"$x","$"]}`},
		{name: "several and repeated", tmpl: `{"a":"${A}${B}","b":"${A}"}`, vars: map[string]string{"A": "x", "B": "y", "EXTRA": "z"}, want: `{"a":"xy","b":"x"}`},
		{name: "quote and backslash escaped", tmpl: `{"p":"${P}"}`, vars: map[string]string{"P": `C:\dir "q"`}, want: `{"p":"C:\\dir \"q\""}`},
		{name: "control characters escaped", tmpl: `{"p":"${P}"}`, vars: map[string]string{"P": "a\nb\tc\x01"}, want: `{"p":"a\nb\tc\u0001"}`},
		{name: "html kept readable", tmpl: `{"p":"${P}"}`, vars: map[string]string{"P": "<a&b>"}, want: `{"p":"<a&b>"}`},
		{name: "unicode kept", tmpl: `{"p":"${P}"}`, vars: map[string]string{"P": "/home/jürgen/プロジェクト"}, want: `{"p":"/home/jürgen/プロジェクト"}`},
		{name: "escaped quote in template keeps string state", tmpl: `{"a":"x\"${V}","b":${N}}`, vars: map[string]string{"V": `"`, "N": "3"}, want: `{"a":"x\"\"","b":3}`},
		{name: "escaped backslash before closing quote", tmpl: `{"a":"x\\","b":${N}}`, vars: map[string]string{"N": "true"}, want: `{"a":"x\\","b":true}`},
		{name: "placeholder in key", tmpl: `{"${K}":1}`, vars: map[string]string{"K": `a"b`}, want: `{"a\"b":1}`},
		{name: "number outside string", tmpl: `{"port":${PORT}}`, vars: map[string]string{"PORT": "-1.5e3"}, want: `{"port":-1.5e3}`},
		{name: "null outside string", tmpl: `{"x":${X}}`, vars: map[string]string{"X": "null"}, want: `{"x":null}`},
		{name: "injection outside string refused", tmpl: `{"port":${PORT}}`, vars: map[string]string{"PORT": `1,"evil":true`}, wantErr: ErrValue, errHas: []string{"${PORT}"}},
		{name: "string value outside string refused", tmpl: `{"port":${PORT}}`, vars: map[string]string{"PORT": `"1"`}, wantErr: ErrValue},
		{name: "empty value outside string refused", tmpl: `{"port":${PORT}}`, vars: map[string]string{"PORT": ""}, wantErr: ErrValue},
		{name: "padded number outside string refused", tmpl: `{"port":${PORT}}`, vars: map[string]string{"PORT": " 1"}, wantErr: ErrValue},
		{name: "invalid UTF-8 refused", tmpl: `{"p":"${P}"}`, vars: map[string]string{"P": "a\xffb"}, wantErr: ErrValue},
		{name: "missing named", tmpl: `{"a":"${A}","b":"${B}","c":"${A}","d":"${C}"}`, vars: map[string]string{"B": "1"}, wantErr: ErrMissing, errHas: []string{"${A}", "${C}"}},
		{name: "empty value is a value", tmpl: `{"a":"${A}"}`, vars: map[string]string{"A": ""}, want: `{"a":""}`},
		{name: "unterminated", tmpl: `{"a":"${A"}`, vars: map[string]string{"A": "1"}, wantErr: ErrTemplate},
		{name: "empty name", tmpl: `{"a":"${}"}`, wantErr: ErrTemplate},
		{name: "bad name", tmpl: `{"a":"${1A}"}`, wantErr: ErrTemplate},
		{name: "bad name with space", tmpl: `{"a":"${A B}"}`, wantErr: ErrTemplate},
		{name: "not JSON", tmpl: `{"a":"${A}"`, vars: map[string]string{"A": "1"}, wantErr: ErrTemplate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Render([]byte(tc.tmpl), tc.vars)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || got != nil {
					t.Fatalf("Render = %q, %v; want error %v", got, err, tc.wantErr)
				}
				for _, s := range tc.errHas {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not name %s", err, s)
					}
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("Render = %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

func TestRenderMissingInOrderOfFirstUse(t *testing.T) {
	_, err := Render([]byte(`{"a":"${Z}${A}${Z}"}`), nil)
	if err == nil || !strings.HasSuffix(err.Error(), "${Z}, ${A}") {
		t.Fatalf("err = %v", err)
	}
}

// FuzzRender checks that a value placed in a string literal always yields
// valid JSON that decodes back to exactly the value, and that Render never
// panics and never returns invalid JSON for any template.
func FuzzRender(f *testing.F) {
	f.Add(`{"a":"pre${V}post","n":${N}}`, `C:\x "y"`, "1")
	f.Add(`{"a":"${V}"}`, "\x00\u2028</script>", "null")
	f.Add(`{"${V}":${N}}`, `"`, `1,"x":2`)
	f.Add(`["\"${V}\\", ${N}]`, "$", "-0.5E+2")
	f.Add(`${`, "", "")
	f.Fuzz(func(t *testing.T, tmpl, v, n string) {
		vars := map[string]string{"V": v, "N": n}
		out, err := Render([]byte(tmpl), vars)
		if err == nil && !json.Valid(out) {
			t.Fatalf("Render(%q) = %q: not valid JSON", tmpl, out)
		}
		// The fixed template: the value must round-trip exactly.
		out, err = Render([]byte(`{"k":"pre${V}post"}`), vars)
		if err != nil {
			if !errors.Is(err, ErrValue) {
				t.Fatalf("unexpected error for %q: %v", v, err)
			}
			return
		}
		var got map[string]string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("output %q: %v", out, err)
		}
		if len(got) != 1 || got["k"] != "pre"+v+"post" {
			t.Fatalf("value %q came back as %q (output %q)", v, got, out)
		}
	})
}
