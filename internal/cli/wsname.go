package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// workspacePath turns what a person typed where a workspace goes into an
// absolute path: a path (anything that exists, or has a slash, or starts
// with "." or "~") is made absolute; otherwise it is a registered
// workspace's name (`warden workspace remove fix-login`), found through
// the daemon. "" is the current directory.
func (o *options) workspacePath(ctx context.Context, arg string) (string, error) {
	if arg == "" {
		arg = "."
	}
	if strings.HasPrefix(arg, "~/") || arg == "~" {
		arg = filepath.Join(home(), strings.TrimPrefix(arg, "~"))
	}
	if looksLikePath(arg) {
		return filepath.Abs(arg)
	}
	c, err := o.dial()
	if err != nil {
		// No daemon to ask: the word may still be a directory to come.
		return filepath.Abs(arg)
	}
	list, err := c.Workspaces(ctx)
	if err != nil {
		return "", err
	}
	var found []string
	for _, w := range list {
		if w.Name == arg {
			found = append(found, w.Path)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		names := make([]string, 0, len(list))
		for _, w := range list {
			names = append(names, w.Name)
		}
		known := "none is registered yet (warden workspace add DIR)"
		if len(names) > 0 {
			known = "registered: " + strings.Join(names, ", ")
		}
		return "", fmt.Errorf("no workspace named %q and no directory %s; %s (warden workspace list shows them)", arg, arg, known)
	}
	return "", fmt.Errorf("%d workspaces are named %q (%s): give the path", len(found), arg, strings.Join(found, ", "))
}

// looksLikePath reports whether arg is meant as a path rather than a name.
func looksLikePath(arg string) bool {
	if strings.ContainsRune(arg, filepath.Separator) || strings.HasPrefix(arg, ".") {
		return true
	}
	_, err := os.Stat(arg)
	return err == nil
}
