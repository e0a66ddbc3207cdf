package control

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/warden-dev/warden/internal/jsonrpc"
	"github.com/warden-dev/warden/internal/policy/shell"
	"github.com/warden-dev/warden/internal/wsfs"
)

type pathParams struct {
	Path     string `json:"path"`
	Encoding string `json:"encoding"`
}

type writeParams struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

func fsMethods() map[string]method {
	return map[string]method{
		"fs.readFile":        fsReadFile,
		"fs.writeFile":       fsWriteFile,
		"fs.appendFile":      fsAppendFile,
		"fs.deleteFile":      fsDeleteFile,
		"fs.rename":          fsRename,
		"fs.copy":            fsCopy,
		"fs.createDirectory": fsCreateDirectory,
		"fs.deleteDirectory": fsDeleteDirectory,
		"fs.listDirectory":   fsListDirectory,
		"fs.exists":          fsExists,
		"fs.stat":            fsStat,
		"fs.watchFiles":      fsWatchFiles,
		"fs.unwatchFiles":    fsUnwatchFiles,
	}
}

// path decodes params with a "path" and returns its absolute form.
func (c *call) path() (pathParams, string, error) {
	var p pathParams
	if err := c.params(&p); err != nil {
		return p, "", err
	}
	abs, err := c.abs(p.Path)
	return p, abs, err
}

func fsReadFile(ctx context.Context, c *call) (any, error) {
	p, abs, err := c.path()
	if err != nil {
		return nil, err
	}
	switch p.Encoding {
	case "", "utf-8", "utf8", "base64", "binary", "latin1":
	default:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: encoding %q (want utf-8 or base64)", p.Encoding)
	}
	if err := c.gate(ctx, "read", map[string]any{"filePath": abs}, false, denyFile); err != nil {
		return nil, err
	}
	b, err := c.p.FS().ReadFile(abs)
	if err != nil {
		return nil, fail(err, abs)
	}
	return map[string]string{"content": encode(b, p.Encoding)}, nil
}

// encode renders file content for the wire: text as is, base64 on request
// (and for content that is not UTF-8 when asked for utf-8 it is still sent
// as text with replacement characters, as Node would).
func encode(b []byte, enc string) string {
	switch enc {
	case "base64":
		return base64Encode(b)
	case "latin1", "binary":
		r := make([]rune, len(b))
		for i, c := range b {
			r[i] = rune(c)
		}
		return string(r)
	}
	if utf8.Valid(b) {
		return string(b)
	}
	return string([]rune(string(b)))
}

func (c *call) writeParams() (string, string, error) {
	var p writeParams
	if err := c.params(&p); err != nil {
		return "", "", err
	}
	if p.Content == nil {
		return "", "", jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: content is required")
	}
	abs, err := c.abs(p.Path)
	return abs, *p.Content, err
}

func fsWriteFile(ctx context.Context, c *call) (any, error) {
	abs, content, err := c.writeParams()
	if err != nil {
		return nil, err
	}
	if err := c.gate(ctx, "write", map[string]any{"filePath": abs, "content": content}, false, denyFile); err != nil {
		return nil, err
	}
	err = c.p.FS().WriteFile(abs, []byte(content))
	c.recordResult(ctx, "write", err)
	if err != nil {
		return nil, fail(err, abs)
	}
	return ok, nil
}

func fsAppendFile(ctx context.Context, c *call) (any, error) {
	abs, content, err := c.writeParams()
	if err != nil {
		return nil, err
	}
	if err := c.gate(ctx, "write", map[string]any{"filePath": abs, "content": content, "append": true}, false, denyFile); err != nil {
		return nil, err
	}
	err = c.p.FS().AppendFile(abs, []byte(content))
	c.recordResult(ctx, "write", err)
	if err != nil {
		return nil, fail(err, abs)
	}
	return ok, nil
}

// shellOp gates an operation that is, in effect, a shell command (rm, mv,
// cp, mkdir): the policy judges it with all it knows about those commands.
func (c *call) shellOp(ctx context.Context, destructive bool, argv ...string) error {
	return c.gate(ctx, "bash", map[string]any{"command": shell.Join(argv...), "description": c.req.Method}, destructive, denyFile)
}

func fsDeleteFile(ctx context.Context, c *call) (any, error) {
	_, abs, err := c.path()
	if err != nil {
		return nil, err
	}
	if err := c.shellOp(ctx, true, "rm", "--", abs); err != nil {
		return nil, err
	}
	err = c.p.FS().DeleteFile(abs)
	c.recordResult(ctx, "bash", err)
	if err != nil {
		return nil, fail(err, abs)
	}
	return ok, nil
}

func fsRename(ctx context.Context, c *call) (any, error) {
	var p struct {
		OldPath string `json:"oldPath"`
		NewPath string `json:"newPath"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	from, err := c.absField("oldPath", p.OldPath)
	if err != nil {
		return nil, err
	}
	to, err := c.absField("newPath", p.NewPath)
	if err != nil {
		return nil, err
	}
	if err := c.shellOp(ctx, false, "mv", "--", from, to); err != nil {
		return nil, err
	}
	err = c.p.FS().Rename(from, to)
	c.recordResult(ctx, "bash", err)
	if err != nil {
		return nil, failMove(err, from, to)
	}
	return ok, nil
}

func fsCopy(ctx context.Context, c *call) (any, error) {
	var p struct {
		Source      string `json:"source"`
		Destination string `json:"destination"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	from, err := c.absField("source", p.Source)
	if err != nil {
		return nil, err
	}
	to, err := c.absField("destination", p.Destination)
	if err != nil {
		return nil, err
	}
	if err := c.shellOp(ctx, false, "cp", "-r", "--", from, to); err != nil {
		return nil, err
	}
	err = c.p.FS().Copy(from, to)
	c.recordResult(ctx, "bash", err)
	if err != nil {
		return nil, failMove(err, from, to)
	}
	return ok, nil
}

// failMove is fail for a rename or copy from → to: an existing destination
// names the destination in data.path (it is what the caller has to
// change) and the source in data.source; other errors name the source.
func failMove(err error, from, to string) error {
	if !errors.Is(err, fs.ErrExist) {
		return fail(err, from)
	}
	e := fail(err, to)
	if je, ok := e.(*jsonrpc.Error); ok {
		return je.With("source", from)
	}
	return e
}

func fsCreateDirectory(ctx context.Context, c *call) (any, error) {
	_, abs, err := c.path()
	if err != nil {
		return nil, err
	}
	if err := c.shellOp(ctx, false, "mkdir", "-p", "--", abs); err != nil {
		return nil, err
	}
	err = c.p.FS().MkdirAll(abs)
	c.recordResult(ctx, "bash", err)
	if err != nil {
		return nil, fail(err, abs)
	}
	return ok, nil
}

func fsDeleteDirectory(ctx context.Context, c *call) (any, error) {
	var p struct {
		Path      string `json:"path"`
		Recursive bool   `json:"recursive"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	abs, err := c.abs(p.Path)
	if err != nil {
		return nil, err
	}
	argv := []string{"rmdir", "--", abs}
	if p.Recursive {
		argv = []string{"rm", "-r", "--", abs}
	}
	if err := c.shellOp(ctx, true, argv...); err != nil {
		return nil, err
	}
	err = c.p.FS().RemoveDir(abs, p.Recursive)
	c.recordResult(ctx, "bash", err)
	if err != nil {
		return nil, fail(err, abs)
	}
	return ok, nil
}

type listEntry struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Type  string `json:"type"`
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime"`
}

func fsListDirectory(ctx context.Context, c *call) (any, error) {
	var p struct {
		Path      string `json:"path"`
		Recursive bool   `json:"recursive"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	abs, err := c.abs(p.Path)
	if err != nil {
		return nil, err
	}
	tool := "list"
	if p.Recursive {
		tool = "glob"
	}
	if err := c.gate(ctx, tool, map[string]any{"path": abs}, false, denyFile); err != nil {
		return nil, err
	}
	entries, err := c.p.FS().List(abs, p.Recursive)
	if err != nil && !errors.Is(err, wsfs.ErrListLimit) {
		return nil, fail(err, abs)
	}
	out := make([]listEntry, 0, len(entries))
	for _, e := range entries {
		full := c.ws.abs(e.Path)
		if c.ws.hide(full) {
			continue // restricted paths are not even listed
		}
		out = append(out, listEntry{Name: e.Name, Path: full, Type: e.Type, Size: e.Size, Mtime: e.Mtime})
	}
	res := map[string]any{"entries": out}
	if err != nil {
		res["truncated"] = true
	}
	return res, nil
}

func fsExists(ctx context.Context, c *call) (any, error) {
	_, abs, err := c.path()
	if err != nil {
		return nil, err
	}
	if err := c.gate(ctx, "list", map[string]any{"path": abs}, false, denyFile); err != nil {
		return nil, err
	}
	e, f, d := c.p.FS().Exists(abs)
	return map[string]bool{"exists": e, "isFile": f, "isDirectory": d}, nil
}

func fsStat(ctx context.Context, c *call) (any, error) {
	_, abs, err := c.path()
	if err != nil {
		return nil, err
	}
	if err := c.gate(ctx, "list", map[string]any{"path": abs}, false, denyFile); err != nil {
		return nil, err
	}
	info, err := c.p.FS().Stat(abs)
	if err != nil {
		return nil, fail(err, abs)
	}
	return info, nil
}

func fsWatchFiles(ctx context.Context, c *call) (any, error) {
	var p struct {
		Pattern string `json:"pattern"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Pattern == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: pattern is required")
	}
	if err := c.watchScope(p.Pattern); err != nil {
		return nil, err
	}
	if err := c.gate(ctx, "glob", map[string]any{"path": c.ws.root, "pattern": p.Pattern}, false, denyFile); err != nil {
		return nil, err
	}
	ss := c.ss
	ws := c.ws
	restricted := ws.srv.opts.Settings.Security.RestrictedPaths
	id, err := c.p.FS().Watch(p.Pattern, func(ch wsfs.Change) {
		// the names of restricted paths are not told either
		for _, g := range restricted {
			if ok, _ := doublestar.Match(g, ch.Path); ok {
				return
			}
			if ok, _ := doublestar.Match(g, filepath.ToSlash(ws.abs(ch.Path))); ok {
				return
			}
		}
		ss.notify("file.changed", map[string]string{"path": ws.abs(ch.Path), "type": ch.Kind, "watcherId": ch.Watcher})
	})
	if err != nil {
		return nil, fail(err, "")
	}
	ss.mu.Lock()
	ss.watchers = append(ss.watchers, id)
	ss.mu.Unlock()
	return map[string]string{"watcherId": id}, nil
}

// watchScope refuses a watch pattern that reaches outside the workspace
// (an absolute pattern elsewhere, a ".." segment) as PathRestricted: such
// a watch would never report anything, and a client that asks for one
// means a directory warden does not serve. An absolute pattern's static
// prefix is checked as a path (restrictedPaths included).
func (c *call) watchScope(pattern string) error {
	slash := filepath.ToSlash(pattern)
	for _, seg := range strings.Split(slash, "/") {
		if seg == ".." {
			return jsonrpc.Errorf(CodePathRestricted, "path restricted: the pattern %q climbs out of the workspace %s (patterns are relative to the workspace root)", pattern, c.ws.root).With("path", pattern)
		}
	}
	if !filepath.IsAbs(pattern) {
		return nil
	}
	base, _ := doublestar.SplitPattern(slash)
	_, err := c.absField("pattern", filepath.FromSlash(base))
	return err
}

func fsUnwatchFiles(ctx context.Context, c *call) (any, error) {
	var p struct {
		WatcherID string `json:"watcherId"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.WatcherID == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: watcherId is required (the id fs.watchFiles returned)")
	}
	ss := c.ss
	ss.mu.Lock()
	found := false
	for i, id := range ss.watchers {
		if id == p.WatcherID {
			ss.watchers = append(ss.watchers[:i], ss.watchers[i+1:]...)
			found = true
			break
		}
	}
	ss.mu.Unlock()
	if !found {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: no watcher %q on this connection", p.WatcherID)
	}
	if err := c.ws.ops.Unwatch(p.WatcherID); err != nil {
		return nil, fail(err, "")
	}
	return ok, nil
}

func (w *workspace) unwatch(id string) { _ = w.ops.Unwatch(id) }

// abs is the absolute path of rel, a workspace-relative slash path.
func (w *workspace) abs(rel string) string { return filepath.Join(w.root, filepath.FromSlash(rel)) }
