// Package editor is warden's headless editor: the documents an agent opens
// through the control door, with a version, a dirty state, a selection and
// a visible range, edited in memory until saved. Positions are zero-based
// lines and UTF-16 code-unit characters, as in LSP and VS Code.
package editor

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Position is a zero-based line and UTF-16 character offset.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a span between two positions (end exclusive).
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Edit replaces Range with Text.
type Edit struct {
	Range Range  `json:"range"`
	Text  string `json:"text"`
}

// Errors callers tell apart.
var (
	// ErrNotOpen is returned for a document that is not open.
	ErrNotOpen = errors.New("editor: document is not open")
	// ErrNoActive is returned when no document is active.
	ErrNoActive = errors.New("editor: no active document")
	// ErrBadRange is returned for a position or range outside the document,
	// or overlapping edits.
	ErrBadRange = errors.New("editor: range is outside the document")
)

// Document is an open document. Read it through a Snapshot.
type Document struct {
	Path       string
	LanguageID string
	text       string
	version    int
	saved      string // content on disk as last read or saved
	selection  Range
	visible    Range
	column     int
	// shown is false for a document only loaded for a language feature
	// (Load): open for the language server, but no tab, no view column.
	shown bool
}

// Snapshot is a copy of a document's state.
type Snapshot struct {
	Path       string `json:"path"`
	LanguageID string `json:"languageId"`
	Text       string `json:"-"`
	Version    int    `json:"version"`
	IsDirty    bool   `json:"isDirty"`
	LineCount  int    `json:"lineCount"`
	Selection  Range  `json:"selection"`
	Visible    Range  `json:"visibleRange"`
	ViewColumn int    `json:"viewColumn"`
	// Shown is false for a document Load opened (for a language feature)
	// and no Open has shown yet: it has no tab and is in no view column.
	Shown bool `json:"-"`
}

// Listener hears about document changes, e.g. to keep a language server in
// sync. Calls happen with the editor's lock released, in change order per
// document.
type Listener interface {
	Opened(s Snapshot)
	Changed(s Snapshot)
	Saved(s Snapshot)
	Closed(path string)
}

// Editor holds the open documents of one workspace. It is safe for
// concurrent use.
type Editor struct {
	mu        sync.Mutex
	docs      map[string]*Document
	order     []string // open order, for getOpenFiles
	active    string
	listeners []Listener
	// notify serialises listener calls
	notifyMu sync.Mutex
}

// New returns an empty editor.
func New() *Editor { return &Editor{docs: map[string]*Document{}} }

// Listen adds a listener for document changes.
func (e *Editor) Listen(l Listener) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.listeners = append(e.listeners, l)
}

func (e *Editor) emit(f func(l Listener)) {
	e.mu.Lock()
	ls := slices.Clone(e.listeners)
	e.mu.Unlock()
	e.notifyMu.Lock()
	defer e.notifyMu.Unlock()
	for _, l := range ls {
		f(l)
	}
}

// Open opens path with the given content (read from disk by the caller) and
// makes it active. Opening an open document only makes it active (its
// unsaved edits are kept) and, when column is positive, moves it to that
// view column. column is the view column (1 when 0 for a new document; an
// open document keeps its column when 0).
func (e *Editor) Open(path, languageID, content string, column int) Snapshot {
	return e.open(path, languageID, content, column, true)
}

// Load opens path like Open but shows nothing (for documents opened on
// behalf of a request, as an editor does for a language feature): the
// active document stays as it is, even when there is none, and a document
// Load opened is not Shown (no tab, no view column) until Open shows it.
func (e *Editor) Load(path, languageID, content string) Snapshot {
	return e.open(path, languageID, content, 1, false)
}

func (e *Editor) open(path, languageID, content string, column int, activate bool) Snapshot {
	e.mu.Lock()
	d, ok := e.docs[path]
	switch {
	case !ok:
		d = &Document{Path: path, LanguageID: languageID, text: content, saved: content, version: 1, column: max(column, 1), shown: activate}
		e.docs[path] = d
		e.order = append(e.order, path)
	case activate && column > 0:
		d.column = column
	}
	if activate {
		d.shown = true
		e.active = path
	}
	s := d.snapshot()
	e.mu.Unlock()
	if !ok {
		e.emit(func(l Listener) { l.Opened(s) })
	}
	return s
}

// IsOpen reports whether path is open.
func (e *Editor) IsOpen(path string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.docs[path]
	return ok
}

// Close closes path, dropping unsaved edits. It reports whether it was open.
func (e *Editor) Close(path string) bool {
	e.mu.Lock()
	_, ok := e.docs[path]
	if ok {
		delete(e.docs, path)
		e.order = slices.DeleteFunc(e.order, func(p string) bool { return p == path })
		if e.active == path {
			// the most recently opened document that is shown, if any
			e.active = ""
			for i := len(e.order) - 1; i >= 0; i-- {
				if e.docs[e.order[i]].shown {
					e.active = e.order[i]
					break
				}
			}
		}
	}
	e.mu.Unlock()
	if ok {
		e.emit(func(l Listener) { l.Closed(path) })
	}
	return ok
}

// Get returns a snapshot of an open document.
func (e *Editor) Get(path string) (Snapshot, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.docs[path]
	if !ok {
		return Snapshot{}, fmt.Errorf("%w: %s", ErrNotOpen, path)
	}
	return d.snapshot(), nil
}

// Active returns the active document.
func (e *Editor) Active() (Snapshot, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.docs[e.active]
	if !ok {
		return Snapshot{}, ErrNoActive
	}
	return d.snapshot(), nil
}

// List returns every open document in the order they were opened.
func (e *Editor) List() []Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Snapshot, 0, len(e.order))
	for _, p := range e.order {
		out = append(out, e.docs[p].snapshot())
	}
	return out
}

// Apply applies edits to path atomically: every range is checked against
// the current text first, and they must not overlap; then all are applied
// and the version goes up by one. Nothing changes on error.
func (e *Editor) Apply(path string, edits []Edit) (Snapshot, error) {
	return e.change(path, func(d *Document) error {
		text, err := applyEdits(d.text, edits)
		if err != nil {
			return err
		}
		d.text = text
		d.version++
		return nil
	}, Listener.Changed)
}

// SetContent replaces the whole text of path.
func (e *Editor) SetContent(path, content string) (Snapshot, error) {
	return e.change(path, func(d *Document) error {
		d.text = content
		d.version++
		return nil
	}, Listener.Changed)
}

// MarkSaved records that text is what is on disk for path now. It is
// called by the saver after a successful write; if the document changed
// meanwhile it stays dirty.
func (e *Editor) MarkSaved(path, text string) (Snapshot, error) {
	return e.change(path, func(d *Document) error {
		d.saved = text
		return nil
	}, Listener.Saved)
}

// change runs f on the open document path under the lock and, if it
// succeeds, tells the listeners with notify.
func (e *Editor) change(path string, f func(d *Document) error, notify func(Listener, Snapshot)) (Snapshot, error) {
	e.mu.Lock()
	d, ok := e.docs[path]
	if !ok {
		e.mu.Unlock()
		return Snapshot{}, fmt.Errorf("%w: %s", ErrNotOpen, path)
	}
	if err := f(d); err != nil {
		e.mu.Unlock()
		return Snapshot{}, err
	}
	s := d.snapshot()
	e.mu.Unlock()
	e.emit(func(l Listener) { notify(l, s) })
	return s, nil
}

// SetSelection sets the selection of path and makes it active.
func (e *Editor) SetSelection(path string, r Range) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.docs[path]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotOpen, path)
	}
	if _, err := offset(d.text, r.Start); err != nil {
		return err
	}
	if _, err := offset(d.text, r.End); err != nil {
		return err
	}
	d.selection = r
	e.active = path
	return nil
}

// Selection returns the active document's selection and the selected text.
func (e *Editor) Selection() (Range, string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.docs[e.active]
	if !ok {
		return Range{}, "", ErrNoActive
	}
	txt, err := textIn(d.text, d.selection)
	return d.selection, txt, err
}

// Reveal scrolls path so line is visible: at "top", "center" (default) or
// "bottom" of a window of height lines.
func (e *Editor) Reveal(path string, line int, at string, height int) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.docs[path]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotOpen, path)
	}
	n := lineCount(d.text)
	if line < 0 || line >= n {
		return fmt.Errorf("%w: line %d of %d", ErrBadRange, line, n)
	}
	if height <= 0 {
		height = 40
	}
	start := line - height/2
	switch at {
	case "top":
		start = line
	case "bottom":
		start = line - height + 1
	case "", "center":
	default:
		return fmt.Errorf("%w: at must be top, center or bottom, not %q", ErrBadRange, at)
	}
	start = max(0, min(start, n-1))
	end := min(n-1, start+height-1)
	d.visible = Range{Start: Position{Line: start}, End: Position{Line: end}}
	return nil
}

func (d *Document) snapshot() Snapshot {
	vis := d.visible
	if vis == (Range{}) {
		vis = Range{End: Position{Line: min(lineCount(d.text)-1, 39)}}
	}
	return Snapshot{
		Path: d.Path, LanguageID: d.LanguageID, Text: d.text, Version: d.version,
		IsDirty: d.text != d.saved, LineCount: lineCount(d.text), Selection: d.selection, Visible: vis, ViewColumn: d.column,
		Shown: d.shown,
	}
}

// lineCount counts lines as VS Code does: one more than the newlines.
// CheckPosition returns nil when p lies inside text (a line of it, at most
// at the end of that line), else an error wrapping ErrBadRange that says
// where the text ends.
func CheckPosition(text string, p Position) error {
	_, err := offset(text, p)
	return err
}

// CheckRange is CheckPosition for both ends of r, with r.End not before
// r.Start.
func CheckRange(text string, r Range) error {
	a, err := offset(text, r.Start)
	if err != nil {
		return err
	}
	b, err := offset(text, r.End)
	if err != nil {
		return err
	}
	if b < a {
		return fmt.Errorf("%w: end %d:%d before start %d:%d", ErrBadRange, r.End.Line, r.End.Character, r.Start.Line, r.Start.Character)
	}
	return nil
}

func lineCount(s string) int { return strings.Count(s, "\n") + 1 }

// offset converts a position to a byte offset in s. A character past the
// end of its line is an error, as is a line past the last.
func offset(s string, p Position) (int, error) {
	if p.Line < 0 || p.Character < 0 {
		return 0, fmt.Errorf("%w: negative position %d:%d", ErrBadRange, p.Line, p.Character)
	}
	off := 0
	for l := 0; l < p.Line; l++ {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			return 0, fmt.Errorf("%w: line %d (the document has %d lines)", ErrBadRange, p.Line, lineCount(s))
		}
		off += i + 1
	}
	line := s[off:]
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	units := 0
	for i, r := range line {
		if units == p.Character {
			return off + i, nil
		}
		if units > p.Character {
			return 0, fmt.Errorf("%w: character %d splits a surrogate pair on line %d", ErrBadRange, p.Character, p.Line)
		}
		if r == utf8.RuneError {
			units++
		} else {
			units += len(utf16.Encode([]rune{r}))
		}
	}
	if units == p.Character {
		return off + len(line), nil
	}
	return 0, fmt.Errorf("%w: character %d past the end of line %d (it has %d characters)", ErrBadRange, p.Character, p.Line, units)
}

func textIn(s string, r Range) (string, error) {
	a, err := offset(s, r.Start)
	if err != nil {
		return "", err
	}
	b, err := offset(s, r.End)
	if err != nil {
		return "", err
	}
	if b < a {
		a, b = b, a
	}
	return s[a:b], nil
}

// applyEdits applies non-overlapping edits to s, all or nothing.
func applyEdits(s string, edits []Edit) (string, error) {
	type span struct {
		a, b int
		text string
	}
	spans := make([]span, 0, len(edits))
	for i, ed := range edits {
		a, err := offset(s, ed.Range.Start)
		if err != nil {
			return "", fmt.Errorf("edit %d: %w", i, err)
		}
		b, err := offset(s, ed.Range.End)
		if err != nil {
			return "", fmt.Errorf("edit %d: %w", i, err)
		}
		if b < a {
			return "", fmt.Errorf("edit %d: %w: end before start", i, ErrBadRange)
		}
		spans = append(spans, span{a, b, ed.Text})
	}
	slices.SortStableFunc(spans, func(x, y span) int { return x.a - y.a })
	for i := 1; i < len(spans); i++ {
		if spans[i].a < spans[i-1].b {
			return "", fmt.Errorf("%w: edits overlap", ErrBadRange)
		}
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp.a])
		b.WriteString(sp.text)
		last = sp.b
	}
	b.WriteString(s[last:])
	return b.String(), nil
}

// PositionAt converts a byte offset in s into a Position (for callers that
// search text). Offsets past the end clamp to the end.
func PositionAt(s string, off int) Position {
	off = max(0, min(off, len(s)))
	line := strings.Count(s[:off], "\n")
	start := strings.LastIndexByte(s[:off], '\n') + 1
	return Position{Line: line, Character: len(utf16.Encode([]rune(s[start:off])))}
}
