// Package index is a workspace's code index: one per registered
// workspace, shared by every door and by warden's own agent, and never
// stale.
//
// # Views
//
// The same files are seen three ways:
//
//   - exact: a trigram index (case-folded, file-level postings) narrows a
//     literal or regular-expression query to the files that can match,
//     and internal/search's own matcher checks them, so [Index.Find]
//     answers exactly what search.Find (the control door's
//     search.findInFiles) answers, with the same options, and
//     [ModeLiteral] / [ModeRegex] queries give one hit per matching
//     line, the lines ripgrep prints;
//   - ranked: BM25 over chunks bounded by symbols (a definition when it
//     fits [MaxChunkLines] lines, otherwise its members and windows; a
//     class is cut at its methods), each chunk's terms being its text's,
//     its path's and its scope's, with identifiers split (camelCase,
//     snake_case: "parse header" finds parseHeader) and lightly stemmed;
//   - symbols: definitions with kinds and line ranges, from go/parser for
//     Go and universal-ctags for other languages; exact, then prefix,
//     lookup.
//
// [ModeRanked] fuses the BM25 ranking and the symbol-name ranking by
// reciprocal rank, then boosts definitions, files open in the editor,
// files with diagnostics and files changed in git ([Boosts]).
//
// # The catalog
//
// The catalog (catalog.go) is the on-disk memory: per workspace, in
// warden's data dir, the content hash ("sha256:<hex>"), size,
// modification time and symbols of each file, written file by file, so an
// interrupted build loses nothing; identical content is parsed once; a
// rebuild writes a new generation and swaps it in. The in-memory views
// are rebuilt from it at [Open] (files whose size and modification time
// match are not hashed or parsed again, only read).
//
// # Freshness
//
// [Index.Update] applies changes now (a small segment over the changed
// files; segments merge as they pile up), [Index.Refresh] walks the
// workspace comparing sizes and modification times, and
// [Index.SetOverlay] makes an editor's unsaved buffer the indexed text
// of its file until cleared. Queries read an immutable snapshot and never
// wait for a build or an update.
//
// # What is never indexed
//
// Paths .gitignore'd (and .git), files over search.MaxFileSize, binary
// files (a NUL byte in the first 8 KiB), secret files (.env, private
// keys; see secretFile) and every file Options.Exclude refuses (the
// daemon passes the policy's judgement of a read). Files over
// [MaxIndexSize] and minified files are in the exact view only (the
// former read from disk when a query needs them: only the blocks of the
// file that hold every trigram the query requires, bigfile.go).
package index
