// Package mcp is warden's MCP door: the Model Context Protocol over
// streamable HTTP (the official SDK, github.com/modelcontextprotocol/go-sdk),
// so any MCP client (Claude Code, OpenCode, the MCP inspector, an agent loop)
// reaches a workspace's files, search, git and language servers through the
// same policy and event log as every other door.
//
// # Transport and security
//
// The daemon mounts a Server (an http.Handler) on its own listener; the door
// answers on /mcp (and /). Before the SDK sees a request the door checks, in
// this order:
//
//   - the Host header names the loopback interface and a browser's Origin,
//     when present, is loopback too (DNS rebinding, cross-site requests):
//     otherwise 403 with a JSON body {"error": "..."};
//   - "Authorization: Bearer <credential>" carries a warden credential,
//     checked by Options.Credentials (package credential, constant time):
//     the admin token opens every registered workspace; a scoped agent
//     credential (what generated agent configs carry) only the workspace
//     X-Workspace-Path resolves to, which must be its own. A missing,
//     unknown or revoked credential is 401 with {"error": "..."}; a scoped
//     one used elsewhere, or without the header, 403. Every request is
//     checked, so a revocation holds on an open session's next call;
//   - the body is at most MaxBodyBytes (4 MiB; 413) and its JSON nests no
//     deeper than event.MaxDepth (400).
//
// # Workspaces
//
// Every request names its workspace with the X-Workspace-Path header (an
// absolute path; Workspaces.Lookup resolves it to a registered root). The
// every request naming a root calls Workspaces.MarkActive (not only the first:
// an agent stopped and started again gets a new provider). A tool call without
// the header, or naming a path that is not a registered workspace, is answered
// with a tool error (isError) saying what to send or to run
// `warden workspace add PATH`. Paths in tool arguments are relative to the
// workspace or absolute inside it; files are reached only through the
// os.Root sandbox of internal/wsfs, so "..", absolute paths and symlinks
// cannot leave the workspace.
//
// # Gating
//
// Every tool call is handed to core.Gate before it acts, with source "mcp"
// and the MCP session ("mcp-" + the SDK's session id) as the policy's
// session. The call the policy judges is what the tool amounts to: fs.readFile
// and the lsp.* tools are a read of the file, fs.writeFile a write,
// fs.editFile an edit, fs.listDirectory a list, search.text, search.code and search.symbols a grep,
// git.status/diff/log the git command line, workspace.delete the shell
// command `rm -rf -- ROOT` (so the policy's delete-workspace-root rule asks a
// person), workspace.executeCommand the tool "command", and the other
// workspace.* tools calls of a tool with their own name. A denial (or a
// person's refusal) is a tool error whose text carries the policy's reason and
// rule. Tools that change something record a tool.result event.
package mcp
