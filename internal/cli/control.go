package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/spf13/cobra"

	"github.com/warden-dev/warden/internal/protocol/control"
)

func newControlCmd(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "control",
		Short: "Talk to the control door (specs/control-protocol.md)",
	}
	cmd.AddCommand(newControlCallCmd(o), newControlMethodsCmd(o))
	return cmd
}

func newControlMethodsCmd(o *options) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "methods",
		Short: "List the control door's methods (what warden control call takes)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			names := control.MethodNames()
			if asJSON {
				return o.printJSON(names)
			}
			tw := o.table()
			fmt.Fprintln(tw, "NAMESPACE\tMETHOD")
			for _, n := range names {
				ns, _, _ := strings.Cut(n, ".")
				fmt.Fprintf(tw, "%s\t%s\n", ns, n)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(o.stderr, "%d methods; call one with: warden control call METHOD '{...}' (params: docs/protocols.md, the control door)\n", len(names))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newControlCallCmd(o *options) *cobra.Command {
	var (
		workspace string
		timeout   time.Duration
	)
	cmd := &cobra.Command{
		Use:   "call METHOD [PARAMS-JSON]",
		Short: "Call one control method as a client would (does the auth flow) and print the result",
		Long: `Connect to the running daemon's control door, answer auth.challenge with the daemon's
token, call METHOD with PARAMS (a JSON object, default {}), and print the result as JSON.
A JSON-RPC error is printed on stderr with its code and the command exits 1.`,
		Example: `  warden control call state.getWorkspace
  warden control call fs.readFile '{"path":"README.md"}'
  warden control call git.log '{"maxEntries":3}' --workspace ~/src/app`,
		Args: cobra.RangeArgs(1, 2),
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return control.MethodNames(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			params := json.RawMessage(`{}`)
			if len(args) == 2 {
				if !json.Valid([]byte(args[1])) {
					return fmt.Errorf("PARAMS is not valid JSON: %s", args[1])
				}
				params = json.RawMessage(args[1])
			}
			abs, err := o.workspacePath(cmd.Context(), workspace)
			if err != nil {
				return err
			}
			cfg, err := o.loadConfig()
			if err != nil {
				return err
			}
			dataDir, err := o.resolveDataDir(cfg)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			res, err := controlCall(ctx, dataDir, cfg.Control.Token, abs, args[0], params)
			if err != nil {
				return err
			}
			var v any
			if err := json.Unmarshal(res, &v); err != nil {
				return err
			}
			return o.printJSON(v)
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace to open: a directory in it, or its name (default: the current directory)")
	cmd.Flags().DurationVar(&timeout, "timeout", 150*time.Second, "give up after this long (approvals can take a while)")
	return cmd
}

// controlCall runs the spec's connection flow and one request.
func controlCall(ctx context.Context, dataDir, token, workspace, method string, params json.RawMessage) (json.RawMessage, error) {
	return controlCallNotified(ctx, dataDir, token, workspace, method, params, nil)
}

// controlCallNotified is controlCall that hands the notifications received
// while the request runs (index.progress, ...) to onNotify.
func controlCallNotified(ctx context.Context, dataDir, token, workspace, method string, params json.RawMessage, onNotify func(method string, params json.RawMessage)) (json.RawMessage, error) {
	addr, daemonToken, err := doorOf(dataDir, "control")
	if err != nil {
		return nil, err
	}
	if token == "" {
		token = daemonToken
	}
	ws, resp, err := websocket.Dial(ctx, "ws://"+addr, &websocket.DialOptions{HTTPHeader: http.Header{control.WorkspaceHeader: {workspace}}})
	if err != nil {
		if resp != nil && resp.Body != nil {
			// the door says why it refused (not a registered workspace, ...)
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if reason := strings.TrimSpace(string(b)); reason != "" {
				return nil, fmt.Errorf("the control door at %s refused the connection (%s): %s", addr, resp.Status, reason)
			}
		}
		return nil, fmt.Errorf("connect to the control door at %s: %w", addr, err)
	}
	defer ws.Close(websocket.StatusNormalClosure, "")
	ws.SetReadLimit(256 << 20)
	type msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	read := func(id string) (msg, error) {
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				return msg{}, fmt.Errorf("read from the control door: %w", err)
			}
			var m msg
			if err := json.Unmarshal(b, &m); err != nil {
				return msg{}, fmt.Errorf("the control door sent invalid JSON: %w", err)
			}
			if (id == "" && m.Method == "auth.challenge") || (id != "" && string(m.ID) == id) {
				return m, nil
			}
			if onNotify != nil && m.Method != "" && len(m.ID) == 0 {
				onNotify(m.Method, m.Params)
			}
		}
	}
	send := func(id int, method string, params any) error {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		return ws.Write(ctx, websocket.MessageText, b)
	}
	ch, err := read("")
	if err != nil {
		return nil, err
	}
	var nonce struct {
		Nonce string `json:"nonce"`
	}
	json.Unmarshal(ch.Params, &nonce)
	if err := send(1, "auth.authenticate", map[string]string{"token": token, "nonce": nonce.Nonce}); err != nil {
		return nil, err
	}
	auth, err := read("1")
	if err != nil {
		return nil, err
	}
	var ar struct {
		Authenticated bool   `json:"authenticated"`
		Error         string `json:"error"`
	}
	json.Unmarshal(auth.Result, &ar)
	if !ar.Authenticated {
		return nil, fmt.Errorf("the control door refused the token (%s): check control.token or the data dir", ar.Error)
	}
	if err := send(2, method, params); err != nil {
		return nil, err
	}
	m, err := read("2")
	if err != nil {
		return nil, err
	}
	if m.Error != nil {
		return nil, fmt.Errorf("%s failed: %d %s %s", method, m.Error.Code, m.Error.Message, m.Error.Data)
	}
	return m.Result, nil
}
