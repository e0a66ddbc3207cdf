package gitcli

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Change statuses reported in Change.Status.
const (
	StatusModified    = "modified"
	StatusAdded       = "added"
	StatusDeleted     = "deleted"
	StatusRenamed     = "renamed"
	StatusCopied      = "copied"
	StatusTypeChanged = "typechanged" // e.g. a file became a symlink
	StatusUntracked   = "untracked"
	StatusIgnored     = "ignored"
	StatusConflicted  = "conflicted"
)

// Status is the state of a work tree, from git status --porcelain=v2.
type Status struct {
	// Branch is the checked-out branch ("main"), or "(detached)" when HEAD
	// is detached. Before the first commit it is the branch to be born.
	Branch string `json:"branch"`
	// Detached reports a detached HEAD.
	Detached bool `json:"detached,omitempty"`
	// Commit is HEAD's object id; empty before the first commit.
	Commit string `json:"commit,omitempty"`
	// Upstream is the upstream branch ("origin/main"), if any; Ahead and
	// Behind count commits relative to it.
	Upstream string `json:"upstream,omitempty"`
	Ahead    int    `json:"ahead,omitempty"`
	Behind   int    `json:"behind,omitempty"`
	// Changes lists changed paths in git's order (sorted by path).
	Changes []Change `json:"changes"`
}

// Change is one changed path on one side of the index.
//
// A tracked path changed both in the index (staged, against HEAD) and in the
// work tree (unstaged, against the index) yields two Changes with the same
// Path: one with Staged true and one with Staged false, each with its own
// Status. Untracked, ignored and conflicted paths yield one Change with
// Staged false. A path added with "git add -N" (intent to add) is an
// unstaged "added".
type Change struct {
	// Path is relative to the repository root, with '/' separators and no
	// quoting.
	Path string `json:"path"`
	// OrigPath is the source of a rename or copy.
	OrigPath string `json:"origPath,omitempty"`
	// Status is one of the Status* constants.
	Status string `json:"status"`
	// Staged tells an index change (true) from a work-tree change (false).
	Staged bool `json:"staged"`
	// XY is git's two-letter code ("M.", ".M", "R.", "UU", "??", ...), for
	// callers that want the detail.
	XY string `json:"xy"`
}

// errStatusFormat reports output that is not porcelain v2 as expected.
var errStatusFormat = errors.New("unexpected git status output")

// parseStatus parses the output of
// git status --porcelain=v2 --branch -z (with or without --branch and
// --ignored).
func parseStatus(data []byte) (Status, error) {
	st := Status{Changes: []Change{}}
	for len(data) > 0 {
		i := bytes.IndexByte(data, 0)
		if i < 0 {
			return Status{}, fmt.Errorf("%w: unterminated record %q", errStatusFormat, truncate(data))
		}
		rec := string(data[:i])
		data = data[i+1:]
		if rec == "" {
			return Status{}, fmt.Errorf("%w: empty record", errStatusFormat)
		}
		switch rec[0] {
		case '#':
			if err := st.header(rec); err != nil {
				return Status{}, err
			}
		case '1':
			f := strings.SplitN(rec, " ", 9)
			if len(f) != 9 || !validXY(f[1]) || f[8] == "" {
				return Status{}, fmt.Errorf("%w: %q", errStatusFormat, rec)
			}
			st.Changes = appendTracked(st.Changes, f[1], f[8], "")
		case '2':
			f := strings.SplitN(rec, " ", 10)
			if len(f) != 10 || !validXY(f[1]) || f[9] == "" {
				return Status{}, fmt.Errorf("%w: %q", errStatusFormat, rec)
			}
			// With -z the original path follows as its own record.
			j := bytes.IndexByte(data, 0)
			if j < 0 {
				return Status{}, fmt.Errorf("%w: rename without original path: %q", errStatusFormat, rec)
			}
			orig := string(data[:j])
			data = data[j+1:]
			st.Changes = appendTracked(st.Changes, f[1], f[9], orig)
		case 'u':
			f := strings.SplitN(rec, " ", 11)
			if len(f) != 11 || !validXY(f[1]) || f[10] == "" {
				return Status{}, fmt.Errorf("%w: %q", errStatusFormat, rec)
			}
			st.Changes = append(st.Changes, Change{Path: f[10], Status: StatusConflicted, XY: f[1]})
		case '?', '!':
			if len(rec) < 3 || rec[1] != ' ' {
				return Status{}, fmt.Errorf("%w: %q", errStatusFormat, rec)
			}
			c := Change{Path: rec[2:], Status: StatusUntracked, XY: "??"}
			if rec[0] == '!' {
				c.Status, c.XY = StatusIgnored, "!!"
			}
			st.Changes = append(st.Changes, c)
		default:
			return Status{}, fmt.Errorf("%w: %q", errStatusFormat, rec)
		}
	}
	return st, nil
}

func (st *Status) header(rec string) error {
	key, val, ok := strings.Cut(strings.TrimPrefix(rec, "# "), " ")
	if !ok {
		return nil // unknown header shapes are ignored, as git asks
	}
	switch key {
	case "branch.oid":
		if val != "(initial)" {
			st.Commit = val
		}
	case "branch.head":
		st.Branch = val
		st.Detached = val == "(detached)"
	case "branch.upstream":
		st.Upstream = val
	case "branch.ab":
		a, b, ok := strings.Cut(val, " ")
		if !ok || !strings.HasPrefix(a, "+") || !strings.HasPrefix(b, "-") {
			return fmt.Errorf("%w: %q", errStatusFormat, rec)
		}
		var err1, err2 error
		st.Ahead, err1 = strconv.Atoi(a[1:])
		st.Behind, err2 = strconv.Atoi(b[1:])
		if err1 != nil || err2 != nil {
			return fmt.Errorf("%w: %q", errStatusFormat, rec)
		}
	}
	return nil
}

// validXY accepts git's two status letters for tracked entries.
func validXY(xy string) bool {
	if len(xy) != 2 {
		return false
	}
	for i := 0; i < 2; i++ {
		if !strings.ContainsRune(".MTADRCU", rune(xy[i])) {
			return false
		}
	}
	return true
}

// appendTracked adds the staged (X) and unstaged (Y) changes of one
// ordinary or renamed/copied entry.
func appendTracked(cs []Change, xy, path, orig string) []Change {
	if s := letterStatus(xy[0]); s != "" {
		c := Change{Path: path, Status: s, Staged: true, XY: xy}
		if s == StatusRenamed || s == StatusCopied {
			c.OrigPath = orig
		}
		cs = append(cs, c)
	}
	if s := letterStatus(xy[1]); s != "" {
		c := Change{Path: path, Status: s, XY: xy}
		if s == StatusRenamed || s == StatusCopied {
			c.OrigPath = orig
		}
		cs = append(cs, c)
	}
	return cs
}

func letterStatus(c byte) string {
	switch c {
	case 'M':
		return StatusModified
	case 'T':
		return StatusTypeChanged
	case 'A':
		return StatusAdded
	case 'D':
		return StatusDeleted
	case 'R':
		return StatusRenamed
	case 'C':
		return StatusCopied
	case 'U':
		return StatusConflicted
	}
	return ""
}

func truncate(b []byte) []byte {
	if len(b) > 80 {
		return b[:80]
	}
	return b
}
