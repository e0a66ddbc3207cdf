package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/warden-dev/warden/internal/approval"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/protocol/admin"
)

// approvalWatch is `warden approvals --watch`: it redraws the queue on every
// change, rings the bell and sends a desktop notification when a call
// starts waiting, and, in a terminal, answers the oldest waiting call with
// one key (y approve, n deny, a approve always).
type approvalWatch struct {
	o      *options
	c      *admin.Client
	asJSON bool
	tty    bool // stdout is a terminal: redraw in place, ring the bell
	keys   bool // stdin is a terminal too: the y/n/a prompt
	now    func() time.Time
	// notify sends a desktop notification (nil: none on this machine).
	notify func(title, body string)
	list   []approval.Request
	status string // the last thing the prompt did
}

// approvalLine is one change as printed when stdout is not a terminal.
func approvalLine(a approval.Request, now time.Time) string {
	return fmt.Sprintf("%s %s %s: %s (%s left; warden approve %s | warden deny %s)",
		now.Local().Format("15:04:05"), a.ID, a.Call.Tool, clip(callText(a), 80), timeLeft(a, now), a.ID, a.ID)
}

// callText is what a waiting call would do: its command, path or URL.
func callText(a approval.Request) string {
	for _, k := range []string{"command", "filePath", "file_path", "path", "url"} {
		if v, ok := a.Call.Args[k].(string); ok {
			return v
		}
	}
	return a.Call.Tool
}

func timeLeft(a approval.Request, now time.Time) string {
	d := a.Deadline.Sub(now).Round(time.Second)
	if d < 0 {
		d = 0
	}
	return d.String()
}

// desktopNotifier returns how to send a desktop notification here, or nil
// where there is no desktop session: notify-send under a D-Bus session on
// Linux, osascript on macOS.
func desktopNotifier(getenv func(string) string) func(title, body string) {
	switch runtime.GOOS {
	case "linux":
		if getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
			return nil
		}
		bin, err := exec.LookPath("notify-send")
		if err != nil {
			return nil
		}
		return func(title, body string) {
			// best effort: a notification that fails changes nothing
			_ = exec.Command(bin, "--app-name=warden", "--urgency=critical", title, body).Run()
		}
	case "darwin":
		bin, err := exec.LookPath("osascript")
		if err != nil {
			return nil
		}
		return func(title, body string) {
			script := fmt.Sprintf("display notification %q with title %q", body, title)
			_ = exec.Command(bin, "-e", script).Run()
		}
	}
	return nil
}

// run watches until ctx ends.
func (w *approvalWatch) run(ctx context.Context) error {
	st, err := w.c.Status(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := make(chan event.Event, 64)
	evErr := make(chan error, 1)
	go func() {
		evErr <- w.c.Events(ctx, admin.EventsQuery{Since: st.LastEventID, Types: []string{"approval.*"}, Follow: true}, func(e event.Event) error {
			select {
			case events <- e:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	var keys <-chan byte
	if w.keys {
		f := w.o.stdin.(*os.File)
		restore, err := keysMode(int(f.Fd()))
		if err != nil {
			return err
		}
		defer restore()
		k := make(chan byte)
		keys = k
		go func() {
			buf := make([]byte, 1)
			for {
				n, err := f.Read(buf)
				if err != nil {
					return
				}
				if n == 1 {
					select {
					case k <- buf[0]:
					case <-ctx.Done():
						return
					}
				}
			}
		}()
	}
	if w.list, err = w.c.Approvals(ctx); err != nil {
		return err
	}
	if err := w.draw(); err != nil {
		return err
	}
	if !w.tty && !w.asJSON {
		for _, a := range w.list {
			fmt.Fprintln(w.o.stdout, "waiting", approvalLine(a, w.now()))
		}
	}
	var tick <-chan time.Time
	if w.tty {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-evErr:
			if ctx.Err() != nil {
				return nil
			}
			if err == nil {
				return fmt.Errorf("the daemon ended the event stream (is it stopping? warden status)")
			}
			return err
		case e := <-events:
			if err := w.changed(ctx, e); err != nil {
				return err
			}
		case k := <-keys:
			if err := w.key(ctx, k); err != nil {
				return err
			}
		case <-tick:
			if err := w.draw(); err != nil {
				return err
			}
		}
	}
}

// changed takes in an approval event: a new waiting call rings and
// notifies; every change redraws.
func (w *approvalWatch) changed(ctx context.Context, e event.Event) error {
	list, err := w.c.Approvals(ctx)
	if err != nil {
		return err
	}
	w.list = list
	d, _ := event.DataOf[event.ApprovalData](e) // unreadable: matches no approval
	switch e.Type {
	case event.ApprovalRequested:
		for _, a := range list {
			if a.ID != d.ApprovalID {
				continue
			}
			if w.tty {
				fmt.Fprint(w.o.stdout, "\a")
			}
			if w.notify != nil {
				w.notify("warden: "+a.Call.Tool+" waits for you",
					fmt.Sprintf("%s\n%s left: warden approve %s", clip(callText(a), 120), timeLeft(a, w.now()), a.ID))
			}
			if !w.tty && !w.asJSON {
				fmt.Fprintln(w.o.stdout, "waiting", approvalLine(a, w.now()))
			}
		}
	case event.ApprovalResolved:
		if !w.tty && !w.asJSON {
			fmt.Fprintf(w.o.stdout, "resolved %s %s: %s by %s\n", w.now().Local().Format("15:04:05"), d.ApprovalID, d.Outcome, orNone(d.By))
		}
	}
	return w.draw()
}

func orNone(s string) string {
	if s == "" {
		return "nobody"
	}
	return s
}

// key answers the oldest waiting call.
func (w *approvalWatch) key(ctx context.Context, k byte) error {
	if len(w.list) == 0 {
		return nil
	}
	a := w.list[0]
	var req admin.ResolveRequest
	switch k {
	case 'y', 'Y':
		req = admin.ResolveRequest{Decision: "approve"}
	case 'n', 'N':
		req = admin.ResolveRequest{Decision: "deny", Reason: "denied by a person at the terminal"}
	case 'a', 'A':
		req = admin.ResolveRequest{Decision: "approve", Always: true}
	default:
		return nil
	}
	res, err := w.c.Resolve(ctx, a.ID, req)
	switch {
	case err != nil:
		w.status = fmt.Sprintf("%s: %v", a.ID, err)
	case req.Always:
		w.status = fmt.Sprintf("approved %s always (a standing rule: warden policy rules)", a.ID)
	case req.Decision == "approve":
		w.status = "approved " + a.ID
	default:
		w.status = "denied " + a.ID
	}
	if err == nil && res.Warning != "" {
		w.status += " (warning: " + res.Warning + ")"
	}
	if w.list, err = w.c.Approvals(ctx); err != nil {
		return err
	}
	return w.draw()
}

// draw shows the queue: in place in a terminal, one JSON line per change
// with --json; otherwise nothing (the lines are printed as things happen).
func (w *approvalWatch) draw() error {
	if w.asJSON {
		if w.list == nil {
			w.list = []approval.Request{}
		}
		return json.NewEncoder(w.o.stdout).Encode(w.list)
	}
	if !w.tty {
		return nil
	}
	var b strings.Builder
	b.WriteString("\x1b[H\x1b[2J")
	now := w.now()
	fmt.Fprintf(&b, "warden approvals: %d waiting  (%s; Ctrl-C to stop)\n\n", len(w.list), now.Local().Format("15:04:05"))
	if len(w.list) == 0 {
		b.WriteString("nothing waits for you\n")
	} else {
		fmt.Fprintf(&b, "%-16s %-24s %-8s %-10s %s\n", "ID", "SESSION", "TOOL", "TIME LEFT", "CALL")
		for _, a := range w.list {
			fmt.Fprintf(&b, "%-16s %-24s %-8s %-10s %s\n", a.ID, fit(a.Session, 24), fit(a.Call.Tool, 8), timeLeft(a, now), clip(callText(a), 70))
		}
	}
	if w.status != "" {
		b.WriteString("\n" + w.status + "\n")
	}
	if w.keys && len(w.list) > 0 {
		a := w.list[0]
		fmt.Fprintf(&b, "\n%s %s: %s\n  reason: %s\n[y] approve  [n] deny  [a] approve always  (%s left) ",
			a.ID, a.Call.Tool, clip(callText(a), 100), clip(a.Decision.Reason, 100), timeLeft(a, now))
	}
	_, err := fmt.Fprint(w.o.stdout, b.String())
	return err
}
