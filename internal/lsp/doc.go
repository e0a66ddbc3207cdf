// Package lsp manages real language servers (gopls, pyright-langserver, and
// whatever else Options.Servers lists) spoken to over the Language Server
// Protocol on stdio. It is the back end of the control door's state.*
// methods and of editor.formatDocument / editor.getCompletions.
//
// # Servers
//
// A Manager starts one server process per (workspace root, server) on first
// use — DidOpen starts it in the background, requests wait for it — and
// shares it among all callers. The root of a document is Options.Root's
// answer, else the nearest directory above it holding one of the server's
// RootMarkers (go.mod for gopls), else its own directory. When a process
// exits unexpectedly it is restarted at once: initialize is sent again and
// every open document is re-opened; a request that was in flight is
// retried once on the new process. After MaxStartFailures quick failures
// in a row the Manager stops restarting until the next call. Close sends
// shutdown and exit to every server and kills those that do not exit.
//
// Server-to-client requests are always answered (workspace/configuration
// from ServerConfig.Settings, client/registerCapability,
// window/workDoneProgress/create and the */refresh requests with null,
// workspace/applyEdit with applied=false), so servers never stall.
//
// # Documents
//
// DidOpen, DidChange (full text), DidSave and DidClose mirror an editor's
// buffers. The Manager keeps the latest text of each open document so it
// can replay it to a restarted server.
//
// # Results
//
// Positions are LSP positions: zero-based lines and UTF-16 code units.
// Results use go.lsp.dev/protocol types, normalised so callers handle one
// shape each:
//
//   - Definition and References: []protocol.Location (LocationLinks become
//     their target's selection range). JSON: [{"uri","range"}].
//   - Hover: a markdown (or plain text) string; "" when there is nothing.
//   - DocumentSymbols: []Symbol, a tree ({"name","detail","kind","range",
//     "selectionRange","children"}) with kind in lower case ("function",
//     "struct", "method", ...); flat SymbolInformation results come back
//     as a flat list with "container" set.
//   - CodeActions: []protocol.CodeAction; bare Commands become a
//     CodeAction with only Title and Command. Never nil on success.
//   - Completion: *protocol.CompletionList; bare arrays become a complete
//     list. Items is never nil on success.
//   - Formatting: []protocol.TextEdit; ApplyEdits applies them to a text.
//   - Diagnostics, AllDiagnostics, DiagnosticList: the cache of
//     textDocument/publishDiagnostics; WaitDiagnostics waits for a fresh
//     publication.
//
// Errors wrap their cause with %w; ErrNoServer, ErrNotInstalled,
// ErrNotOpen, ErrBadURI, ErrClosed and ErrServerExited tell the cases
// apart, and *RPCError carries an error a server returned.
package lsp
