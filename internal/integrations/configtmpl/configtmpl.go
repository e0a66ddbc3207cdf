// Package configtmpl renders the JSON config templates of warden's agent
// integrations (specs/agent-integrations.md: "template files with
// ${VARIABLE} placeholders"). Substitution is JSON-aware: a value placed
// inside a JSON string literal is escaped as JSON, so a workspace path with
// a quote or a backslash still yields a valid file, and no value can add
// keys to the config. The result is checked with json.Valid.
package configtmpl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/warden-dev/warden/internal/atomicfile"
)

// Errors Render wraps.
var (
	// ErrMissing: a placeholder has no value; the error names it.
	ErrMissing = errors.New("configtmpl: no value for placeholder")
	// ErrTemplate: the template is malformed (an unterminated or empty
	// ${...}, a bad name, or not JSON once filled in).
	ErrTemplate = errors.New("configtmpl: malformed template")
	// ErrValue: a value cannot be placed where its placeholder is.
	ErrValue = errors.New("configtmpl: bad value")
)

// Render fills the JSON template tmpl: every ${NAME} (NAME: a letter or _,
// then letters, digits or _) is replaced by vars[NAME].
//
// Inside a JSON string literal the value is inserted JSON-escaped (it must
// be valid UTF-8). Outside string literals the value is inserted as is and
// must be a JSON number, true, false or null. A "$" not followed by "{" is
// kept. Every placeholder without a value is reported in one error wrapping
// ErrMissing; extra vars are ignored. The result must be valid JSON.
func Render(tmpl []byte, vars map[string]string) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(tmpl))
	var missing []string
	inString := false
	for i := 0; i < len(tmpl); i++ {
		c := tmpl[i]
		if c == '$' && i+1 < len(tmpl) && tmpl[i+1] == '{' {
			end := bytes.IndexByte(tmpl[i+2:], '}')
			if end < 0 {
				return nil, fmt.Errorf("%w: unterminated ${ at byte %d", ErrTemplate, i)
			}
			name := string(tmpl[i+2 : i+2+end])
			if !validName(name) {
				return nil, fmt.Errorf("%w: bad placeholder name %q at byte %d", ErrTemplate, name, i)
			}
			i += 2 + end // the closing brace
			v, ok := vars[name]
			if !ok {
				if !slices.Contains(missing, name) {
					missing = append(missing, name)
				}
				continue
			}
			if err := place(&out, name, v, inString); err != nil {
				return nil, err
			}
			continue
		}
		out.WriteByte(c)
		switch {
		case !inString && c == '"':
			inString = true
		case inString && c == '"':
			inString = false
		case inString && c == '\\' && i+1 < len(tmpl):
			i++
			out.WriteByte(tmpl[i])
		}
	}
	if len(missing) > 0 {
		for i, m := range missing {
			missing[i] = "${" + m + "}"
		}
		return nil, fmt.Errorf("%w: %s", ErrMissing, strings.Join(missing, ", "))
	}
	if !json.Valid(out.Bytes()) {
		return nil, fmt.Errorf("%w: the result is not valid JSON", ErrTemplate)
	}
	return out.Bytes(), nil
}

// place writes value v of placeholder name into out.
func place(out *bytes.Buffer, name, v string, inString bool) error {
	if inString {
		if !utf8.ValidString(v) {
			return fmt.Errorf("%w: ${%s} is not valid UTF-8", ErrValue, name)
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("%w: ${%s}: %w", ErrValue, name, err)
		}
		s := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
		out.Write(s[1 : len(s)-1]) // without the quotes
		return nil
	}
	if !scalar(v) {
		return fmt.Errorf("%w: ${%s} stands outside a JSON string, so its value must be a JSON number, true, false or null, not %q", ErrValue, name, v)
	}
	out.WriteString(v)
	return nil
}

// scalar reports whether v is exactly one JSON number, true, false or null.
func scalar(v string) bool {
	switch v {
	case "true", "false", "null":
		return true
	}
	if v == "" || strings.TrimSpace(v) != v {
		return false
	}
	dec := json.NewDecoder(strings.NewReader(v))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil || dec.More() {
		return false
	}
	n, ok := x.(json.Number)
	return ok && n.String() == v
}

// validName reports whether s is a placeholder name.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', 'A' <= r && r <= 'Z', 'a' <= r && r <= 'z':
		case i > 0 && '0' <= r && r <= '9':
		default:
			return false
		}
	}
	return true
}

// WriteFile renders tmpl with vars and writes the result to target
// atomically with mode 0600 (agent configs hold a scoped agent credential). On any
// error nothing is written.
func WriteFile(target string, tmpl []byte, vars map[string]string) error {
	out, err := Render(tmpl, vars)
	if err != nil {
		return fmt.Errorf("config %s: %w", target, err)
	}
	if err := atomicfile.Write(target, out, 0o600, 0o700); err != nil {
		return fmt.Errorf("config %s: %w", target, err)
	}
	return nil
}
