package event

import (
	"errors"
	"fmt"
)

// MaxDepth is how deeply the JSON of a stored payload may nest (objects and
// arrays). Deeper bodies are refused at every door that stores a payload,
// and by the core as the last line: encoding/json refuses to decode
// beyond 10,000 levels, so a deeper stored event would break every reader
// of the log (`warden events --json`, sessions, exports). Tool inputs of
// real agents nest a few levels.
const MaxDepth = 64

// ErrTooDeep is returned (wrapped) by CheckDepth.
var ErrTooDeep = errors.New("JSON nested too deeply")

// CheckDepth reports whether data, taken as JSON, nests objects and arrays
// more than max levels deep. It does not validate the JSON: it counts
// brackets outside strings, so it is cheap enough for every body, before
// any decoding.
func CheckDepth(data []byte, max int) error {
	depth := 0
	inString, escaped := false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > max {
				return fmt.Errorf("%w: more than %d levels of objects and arrays", ErrTooDeep, max)
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}
