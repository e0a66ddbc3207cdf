package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/coder/websocket"
	"github.com/spf13/cobra"

	"github.com/warden-dev/warden/internal/credential"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/protocol/admin"
)

func newChatCmd(o *options) *cobra.Command {
	var workspace, model, sessionID string
	cmd := &cobra.Command{
		Use:   "chat",
		Short: "Talk to warden's own agent in a workspace (a terminal client of the Agent API door)",
		Long: `Start (or continue, with --session) a session of warden's own agent and talk to it.
The answer streams as it comes; each tool call shows with warden's decision. When the
policy asks about a call, answer it here: y (approve), n (deny), a (always).

Commands: /abort (or Ctrl-C during a turn), /fork [EVENT-ID], /model [MODEL], /compact,
/sessions, /quit (or Ctrl-D).`,
		Example: `  warden chat --model openai/gpt-4.1
  warden chat -w ~/src/app --model anthropic/claude-sonnet-4-5
  warden chat --session ag_1f2e3d4c5b6a7980`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := o.loadConfig()
			if err != nil {
				return err
			}
			dataDir, err := o.resolveDataDir(cfg)
			if err != nil {
				return err
			}
			addr, _, err := doorOf(dataDir, "agent")
			if err != nil {
				return err
			}
			adm, err := admin.Dial(dataDir)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			// The Agent API door takes the workspace's scoped credential,
			// never the admin token, which stays on the admin socket
			// (approvals are answered there).
			var dir string
			if sessionID == "" {
				if dir, err = o.workspacePath(ctx, workspace); err != nil {
					return err
				}
			} else {
				s, err := adm.Session(ctx, sessionID)
				if err != nil {
					return fmt.Errorf("session %s: %w", sessionID, err)
				}
				dir = s.Workspace
			}
			cred, err := adm.MintCredential(ctx, dir, credential.AgentAPIClient)
			if err != nil {
				return fmt.Errorf("get the Agent API credential of %s: %w", dir, err)
			}
			c, err := dialChat(ctx, addr, cred.Token, o.stdout)
			if err != nil {
				return err
			}
			defer c.close()
			if sessionID == "" {
				if model == "" {
					if model, err = c.firstModel(ctx); err != nil {
						return err
					}
				}
				var r struct {
					SessionID string `json:"sessionId"`
				}
				if err := c.call(ctx, "session.create", map[string]any{"workingDirectory": dir, "model": model}, &r); err != nil {
					return err
				}
				sessionID = r.SessionID
				fmt.Fprintf(o.stdout, "session %s (%s) in %s\n", sessionID, model, dir)
			} else {
				var r struct {
					Session struct {
						Model            string `json:"model"`
						WorkingDirectory string `json:"workingDirectory"`
						Turns            int    `json:"turns"`
					} `json:"session"`
				}
				if err := c.call(ctx, "session.get", map[string]any{"sessionId": sessionID}, &r); err != nil {
					return err
				}
				fmt.Fprintf(o.stdout, "session %s (%s) in %s, %d turn(s) so far\n", sessionID, r.Session.Model, r.Session.WorkingDirectory, r.Session.Turns)
			}
			c.mu.Lock()
			c.main = sessionID
			c.mu.Unlock()
			c.follow(sessionID)
			return c.repl(ctx, o.stdin, adm, sessionID)
		},
	}
	cmd.Flags().StringVarP(&workspace, "workspace", "w", "", "workspace: a directory in it, or its name (default: the current directory)")
	cmd.Flags().StringVar(&model, "model", "", `model as provider/model (default: the first "warden chat" finds with model.list)`)
	cmd.Flags().StringVar(&sessionID, "session", "", "continue this session")
	return cmd
}

// chatClient is a JSON-RPC client of the Agent API door that prints the
// notifications of the sessions it follows.
type chatClient struct {
	ws  *websocket.Conn
	out io.Writer

	mu       sync.Mutex
	next     int
	waiting  map[string]chan chatResponse
	sessions map[string]bool // followed: the chat's session and its subagents
	pending  []string        // approval ids asked about, oldest first
	main     string          // the chat's session (set before it talks)
	ended    bool            // agent.turn_complete of main's running turn came
	done     chan struct{}
}

// turnEnded reports whether the running turn's agent.turn_complete came.
func (c *chatClient) turnEnded() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ended
}

type chatResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func dialChat(ctx context.Context, addr, token string, out io.Writer) (*chatClient, error) {
	ws, resp, err := websocket.Dial(ctx, "ws://"+addr, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}})
	if err != nil {
		if resp != nil && resp.Body != nil {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			return nil, fmt.Errorf("the agent door at %s refused the connection (%s): %s", addr, resp.Status, strings.TrimSpace(string(b)))
		}
		return nil, fmt.Errorf("connect to the agent door at %s: %w", addr, err)
	}
	ws.SetReadLimit(64 << 20)
	c := &chatClient{ws: ws, out: &lockedWriter{w: out}, waiting: map[string]chan chatResponse{}, sessions: map[string]bool{}, done: make(chan struct{})}
	go c.read()
	return c, nil
}

func (c *chatClient) close() {
	c.ws.Close(websocket.StatusNormalClosure, "")
	<-c.done
}

func (c *chatClient) follow(id string) {
	c.mu.Lock()
	c.sessions[id] = true
	c.mu.Unlock()
}

func (c *chatClient) read() {
	defer close(c.done)
	for {
		_, b, err := c.ws.Read(context.Background())
		if err != nil {
			c.mu.Lock()
			for _, ch := range c.waiting {
				close(ch)
			}
			c.waiting = map[string]chan chatResponse{}
			c.mu.Unlock()
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params map[string]any  `json:"params"`
		}
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		if m.Method != "" {
			c.show(m.Method, m.Params)
			continue
		}
		var r chatResponse
		_ = json.Unmarshal(b, &r)
		c.mu.Lock()
		if ch, ok := c.waiting[string(m.ID)]; ok {
			ch <- r
			delete(c.waiting, string(m.ID))
		}
		c.mu.Unlock()
	}
}

// show prints one notification.
func (c *chatClient) show(method string, p map[string]any) {
	s := func(k string) string { v, _ := p[k].(string); return v }
	switch method {
	case "agent.text_delta":
		fmt.Fprint(c.out, s("delta"))
	case "agent.tool_start":
		fmt.Fprintf(c.out, "\n→ %s\n", s("toolName"))
	case "agent.tool_end":
		r, _ := p["result"].(map[string]any)
		outcome, _ := r["outcome"].(string)
		content, _ := r["content"].(string)
		first, _, _ := strings.Cut(strings.TrimSpace(content), "\n")
		mark := "✓"
		if isErr, _ := r["isError"].(bool); isErr {
			mark = "✗"
		}
		fmt.Fprintf(c.out, "  %s %s %s: %s\n", mark, s("toolName"), outcome, clip(first, 160))
	case "agent.turn_complete":
		c.mu.Lock()
		if s("sessionId") == c.main {
			c.ended = true
		}
		c.mu.Unlock()
		u, _ := p["tokenUsage"].(map[string]any)
		fmt.Fprintf(c.out, "\n[%s; tokens in %v, out %v]\n", s("stopReason"), u["inputTokens"], u["outputTokens"])
	case "subagent.spawn":
		c.follow(s("subagentSessionId"))
		fmt.Fprintf(c.out, "\n⇢ subagent %s: %s\n", s("subagentSessionId"), clip(s("task"), 120))
	case "subagent.complete":
		fmt.Fprintf(c.out, "⇠ subagent %s done\n", s("subagentSessionId"))
	case "context.compaction":
		fmt.Fprintf(c.out, "[context compacted: %v tokens saved]\n", p["tokensSaved"])
	}
}

func (c *chatClient) start(ctx context.Context, method string, params any) (<-chan chatResponse, error) {
	c.mu.Lock()
	c.next++
	id := strconv.Itoa(c.next)
	ch := make(chan chatResponse, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	if err := c.ws.Write(ctx, websocket.MessageText, b); err != nil {
		return nil, fmt.Errorf("send %s: %w", method, err)
	}
	return ch, nil
}

func (c *chatClient) wait(ctx context.Context, method string, ch <-chan chatResponse, out any) error {
	select {
	case r, ok := <-ch:
		if !ok {
			return errors.New("the agent door closed the connection")
		}
		if r.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, r.Error.Message, r.Error.Code)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *chatClient) call(ctx context.Context, method string, params, out any) error {
	ch, err := c.start(ctx, method, params)
	if err != nil {
		return err
	}
	return c.wait(ctx, method, ch, out)
}

func (c *chatClient) firstModel(ctx context.Context) (string, error) {
	var r struct {
		Models []struct {
			ID string `json:"id"`
		} `json:"models"`
		Errors []struct {
			Provider string `json:"provider"`
			Error    string `json:"error"`
		} `json:"errors"`
	}
	if err := c.call(ctx, "model.list", map[string]any{}, &r); err != nil {
		return "", err
	}
	if len(r.Models) == 0 && len(r.Errors) > 0 {
		// providers are configured but none answered: say why
		var why []string
		for _, e := range r.Errors {
			why = append(why, strings.TrimSpace(e.Error))
		}
		return "", fmt.Errorf("no provider listed a model (%s): check that the servers run and the keys are right, or pass --model provider/model", strings.Join(why, "; "))
	}
	if len(r.Models) == 0 {
		return "", errors.New("no model is configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY or OLLAMA_HOST (or providers: in the config) and restart warden, or pass --model")
	}
	return r.Models[0].ID, nil
}

// approvals follows the approval requests of the chat's sessions (through
// the admin API: only the admin credential answers them) and asks the
// person.
func (c *chatClient) approvals(ctx context.Context, adm *admin.Client) {
	types := []string{string(event.ApprovalRequested), string(event.ApprovalResolved)}
	err := adm.Events(ctx, admin.EventsQuery{Types: types, Follow: true, After: time.Now()}, func(e event.Event) error {
		c.approvalEvent(e)
		return nil
	})
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(c.out, "(approvals are not followed: %v)\n", err)
	}
}

// approvalEvent takes one approval event of the log: a request about a
// call of the chat's sessions is asked and queued for y/n/a; a resolution
// of a queued one that came from elsewhere (warden approve in another
// terminal, the deadline, an abort) leaves the queue, so the next y answers
// the question on screen, not one already settled.
func (c *chatClient) approvalEvent(e event.Event) {
	d, _ := event.DataOf[event.ApprovalData](e)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch e.Type {
	case event.ApprovalRequested:
		if !c.sessions[e.Session] {
			return
		}
		c.pending = append(c.pending, d.ApprovalID)
		args, _ := json.Marshal(d.Args)
		fmt.Fprintf(c.out, "\n? warden asks about %s %s\n  %s\n  approve? y (yes) / n (no) / a (always) [%s]\n", d.Tool, clip(string(args), 200), d.Reason, d.ApprovalID)
	case event.ApprovalResolved:
		i := slices.Index(c.pending, d.ApprovalID)
		if i < 0 {
			return // not asked here, or answered here
		}
		c.pending = slices.Delete(c.pending, i, i+1)
		how := d.Outcome
		if d.By != "" {
			how += " by " + d.By
		}
		fmt.Fprintf(c.out, "  (%s was answered elsewhere: %s)\n", d.ApprovalID, how)
	}
}

// repl reads the person's lines until /quit or the end of input.
func (c *chatClient) repl(ctx context.Context, in io.Reader, adm *admin.Client, id string) error {
	actx, stopApprovals := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { c.approvals(actx, adm) })
	defer func() { stopApprovals(); wg.Wait() }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT)
	defer signal.Stop(sig)
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	var turn <-chan chatResponse // a running turn's (or compaction's) answer
	compacting := false          // turn is a context.compact
	abort := func() {
		var r struct {
			Aborted bool `json:"aborted"`
		}
		if err := c.call(ctx, "agent.abort", map[string]any{"sessionId": id}, &r); err != nil {
			fmt.Fprintln(c.out, err)
		} else if !r.Aborted {
			fmt.Fprintln(c.out, "(no turn is running)")
		}
	}
	// finish takes the answer of the running turn (or compaction)
	finish := func(r chatResponse, ok bool) error {
		turn = nil
		if !ok {
			return errors.New("the agent door closed the connection")
		}
		switch {
		case r.Error != nil:
			fmt.Fprintf(c.out, "\n%s (%d)\n", r.Error.Message, r.Error.Code)
		case compacting:
			c.compacted(r.Result)
		default:
			// a turn that failed says why (turn_complete shows only
			// its stop reason)
			var res struct {
				Error string `json:"error"`
			}
			if json.Unmarshal(r.Result, &res) == nil && res.Error != "" {
				fmt.Fprintf(c.out, "error: %s\n", res.Error)
			}
		}
		compacting = false
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-sig:
			if turn == nil {
				return nil
			}
			abort()
		case r, ok := <-turn:
			if err := finish(r, ok); err != nil {
				return err
			}
		case line, ok := <-lines:
			if !ok {
				if turn != nil {
					// input ended: let the turn finish
					r, ok := <-turn
					return finish(r, ok)
				}
				return nil
			}
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			if turn != nil && c.turnEnded() {
				// the turn's end is on screen and its answer follows it at
				// once: a line typed in between is for the next turn
				r, ok := <-turn
				if err := finish(r, ok); err != nil {
					return err
				}
			}
			if c.answer(ctx, adm, line) {
				continue
			}
			if name, _, _ := strings.Cut(line, " "); name == "/compact" {
				// runs like a turn: the prompt stays live, so /abort
				// (Ctrl-C) reaches it while the model summarises
				if turn != nil {
					fmt.Fprintln(c.out, "(a turn is running: wait, or /abort)")
					continue
				}
				ch, err := c.start(ctx, "context.compact", map[string]any{"sessionId": id})
				if err != nil {
					return err
				}
				fmt.Fprintln(c.out, "compacting... (/abort or Ctrl-C stops it)")
				turn, compacting = ch, true
				continue
			}
			if strings.HasPrefix(line, "/") {
				if quit := c.command(ctx, id, line, abort); quit {
					return nil
				}
				continue
			}
			if turn != nil {
				fmt.Fprintln(c.out, "(a turn is running: wait, or /abort)")
				continue
			}
			c.mu.Lock()
			c.ended = false
			c.mu.Unlock()
			ch, err := c.start(ctx, "agent.message", map[string]any{"sessionId": id, "content": line})
			if err != nil {
				return err
			}
			turn = ch
		}
	}
}

// answer resolves the oldest pending approval when line is y, n or a.
func (c *chatClient) answer(ctx context.Context, adm *admin.Client, line string) bool {
	c.mu.Lock()
	if len(c.pending) == 0 {
		c.mu.Unlock()
		return false
	}
	var req admin.ResolveRequest
	switch strings.ToLower(line) {
	case "y", "yes":
		req.Decision = "approve"
	case "n", "no":
		req.Decision = "deny"
	case "a", "always":
		req.Decision, req.Always = "approve", true
	default:
		c.mu.Unlock()
		return false
	}
	id := c.pending[0]
	c.pending = c.pending[1:]
	c.mu.Unlock()
	if _, err := adm.Resolve(ctx, id, req); err != nil {
		fmt.Fprintf(c.out, "could not answer %s: %v\n", id, err)
	} else {
		fmt.Fprintf(c.out, "  %sd %s\n", req.Decision, id)
	}
	return true
}

// command runs a slash command; it reports whether to quit.
func (c *chatClient) command(ctx context.Context, id, line string, abort func()) bool {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "/quit", "/exit":
		return true
	case "/abort":
		abort()
	case "/fork":
		p := map[string]any{"sessionId": id}
		if arg != "" {
			n, err := strconv.ParseInt(arg, 10, 64)
			if err != nil {
				fmt.Fprintln(c.out, "usage: /fork [EVENT-ID]")
				return false
			}
			p["eventId"] = n
		}
		var r struct {
			NewSessionID string `json:"newSessionId"`
		}
		if err := c.call(ctx, "session.fork", p, &r); err != nil {
			fmt.Fprintln(c.out, err)
			return false
		}
		fmt.Fprintf(c.out, "forked: %s (continue it with: warden chat --session %s)\n", r.NewSessionID, r.NewSessionID)
	case "/model":
		if arg == "" {
			var r struct {
				Models []struct {
					ID string `json:"id"`
				} `json:"models"`
			}
			if err := c.call(ctx, "model.list", map[string]any{}, &r); err != nil {
				fmt.Fprintln(c.out, err)
				return false
			}
			for _, m := range r.Models {
				fmt.Fprintln(c.out, m.ID)
			}
			return false
		}
		if err := c.call(ctx, "model.switch", map[string]any{"sessionId": id, "model": arg}, nil); err != nil {
			fmt.Fprintln(c.out, err)
			return false
		}
		fmt.Fprintf(c.out, "model: %s\n", arg)
	case "/sessions":
		var r struct {
			Sessions []struct {
				ID               string `json:"id"`
				Model            string `json:"model"`
				Status           string `json:"status"`
				Turns            int    `json:"turns"`
				WorkingDirectory string `json:"workingDirectory"`
			} `json:"sessions"`
		}
		if err := c.call(ctx, "session.list", map[string]any{}, &r); err != nil {
			fmt.Fprintln(c.out, err)
			return false
		}
		for _, s := range r.Sessions {
			fmt.Fprintf(c.out, "%s  %-8s %3d turn(s)  %s  %s\n", s.ID, s.Status, s.Turns, s.Model, s.WorkingDirectory)
		}
	default:
		fmt.Fprintln(c.out, "commands: /abort /fork [EVENT-ID] /model [MODEL] /compact /sessions /quit")
	}
	return false
}

// compacted prints context.compact's answer when nothing was compacted
// (a compaction done is shown by its context.compaction notification).
func (c *chatClient) compacted(result json.RawMessage) {
	var r struct {
		Compacted bool   `json:"compacted"`
		Reason    string `json:"reason"`
	}
	if json.Unmarshal(result, &r) == nil && !r.Compacted {
		fmt.Fprintf(c.out, "not compacted (%s)\n", r.Reason)
	}
}

// lockedWriter serialises the chat's writers (notifications, approvals,
// the prompt loop).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
