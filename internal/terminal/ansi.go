package terminal

import "strings"

// StripANSI returns s without ANSI/VT escape sequences, for callers that want
// plain text from Terminal.Output or OnOutput chunks. It removes
//
//   - CSI sequences (ESC [ parameters intermediates final), such as colours,
//     cursor movement and bracketed-paste toggles;
//   - OSC sequences (ESC ] ... terminated by BEL or ESC \), such as window
//     titles and hyperlinks;
//   - DCS, SOS, PM and APC strings (ESC P, ESC X, ESC ^, ESC _ ... ESC \);
//   - other escapes (ESC, optional intermediates 0x20-0x2F, one final byte),
//     such as charset selection (ESC ( B) and keypad modes (ESC =).
//
// Everything else, including '\r', '\b' and other control characters, is
// kept. An escape sequence cut off at the end of s is removed up to the end.
func StripANSI(s string) string {
	i := strings.IndexByte(s, 0x1b)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		s = s[i+escapeLen(s[i:]):]
		i = strings.IndexByte(s, 0x1b)
	}
	b.WriteString(s)
	return b.String()
}

// escapeLen returns the length of the escape sequence at the start of s,
// which begins with ESC.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[': // CSI: parameters 0x30-0x3F, intermediates 0x20-0x2F, final 0x40-0x7E.
		j := 2
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3f {
			j++
		}
		if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
			return j + 1
		}
		return j // malformed or truncated: drop what was consumed
	case ']', 'P', 'X', '^', '_': // string sequences, ended by BEL (OSC) or ST.
		for j := 2; j < len(s); j++ {
			if s[j] == 0x07 && s[1] == ']' {
				return j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
		}
		return len(s)
	default:
		j := 1
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
			return j + 1
		}
		return j
	}
}
