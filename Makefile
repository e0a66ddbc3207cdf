# warden: the two commands are `make run` (the daemon on the embedded default)
# and `make test` (everything CI checks, installing what it needs).
GO            ?= go
STATICCHECK   := honnef.co/go/tools/cmd/staticcheck@v0.8.2
FUZZTIME      ?=
PKGS          := ./...
FUZZ_TARGETS  := ./internal/policy/shell:FuzzAnalyze:12000 ./internal/policy/shell:FuzzInlineCode:12000 ./internal/policy/shell:FuzzSQLDestroys:25000 \
                 ./internal/policy:FuzzParse:5000 ./internal/protocol/monitor:FuzzDecode:35000 ./internal/protocol/hooks:FuzzDecode:25000 \
                 ./internal/protocol/hooks:FuzzDecodeSpoolEntry:50000 ./internal/integrations/claudecode:FuzzMerge:75000 ./internal/jsonrpc:FuzzDecode:150000 \
                 ./internal/editor:FuzzApply:800000 ./internal/lsp:FuzzReadMessage:250000 ./internal/gitcli:FuzzParseStatus:500000 \
                 ./internal/search:FuzzCompile:30000 ./internal/search:FuzzLiteral:350000 ./internal/search:FuzzInnerLiteral:35000 \
                 ./internal/wsfs:FuzzRel:500000 ./internal/ops:FuzzResolvePath:50000 ./internal/integrations/configtmpl:FuzzRender:300000 \
                 ./internal/integrations/opencode:FuzzSSE:150000 ./internal/policy:FuzzParseSandbox:8000 ./internal/sandbox:FuzzDecodeProfile:100000 \
                 ./internal/credential:FuzzParse:150000 ./internal/proof:FuzzCheck:150000 ./internal/proof:FuzzParsePublicPEM:150000 \
                 ./internal/protocol/admin:FuzzParseEventMatch:15000 ./internal/protocol/admin:FuzzParseSince:12000 ./internal/policy:FuzzCheck:15000 \
                 ./internal/event:FuzzCheckDepth:300000 ./internal/session:FuzzLoadCheckpoint:300000 ./internal/protocol/admin:FuzzParsePruneBefore:35000 \
                 ./internal/provider/ollamaenv:FuzzParseHost:500000 ./internal/provider/ollamaenv:FuzzNumCtx:700000 ./internal/index:FuzzParseQuery:150000 \
                 ./internal/agent:FuzzToolArguments:30000 ./internal/reaper:FuzzParentOf:700000 ./internal/protocol/agentapi:FuzzParams:15000 \
                 ./internal/config:FuzzVectors:500000 ./internal/policy/shell:FuzzProcPath:250000 ./internal/policy/shell:FuzzEditorScript:20000 ./internal/policy/shell:FuzzSQLFiles:20000 \
                 ./internal/policy:FuzzWrittenCode:30000

.PHONY: run build test agents tools lint unit fuzz bench clean

run:
	$(GO) run ./cmd/warden serve

build:
	$(GO) build -o bin/warden ./cmd/warden

test: agents tools lint unit fuzz

# The real agent binaries the end-to-end tests drive (npm, pinned, cached in
# .cache/agents; a no-op once installed).
agents:
	@bash scripts/install-agents.sh

# The language servers, debug adapters and ripgrep the control door's tests
# drive (pinned; .cache/tools, Debian packages when missing; a no-op once there).
tools:
	@bash scripts/install-tools.sh

lint:
	@echo "== gofmt"; out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@echo "== go vet"; $(GO) vet $(PKGS)
	@echo "== staticcheck"; $(GO) run $(STATICCHECK) $(PKGS)

unit:
	@echo "== go test -race"; $(GO) test -race -count=1 -timeout 15m $(PKGS)

# Short runs of every fuzz target on top of their seed corpora (the seeds
# also run in `unit`). Each target runs a fixed number of inputs (PKG:Fuzz:N,
# about 10 s on 2 cores); FUZZTIME=90s runs each for a time instead, for a
# longer hunt (see scripts/fuzz.sh for why CI counts).
fuzz:
	@echo "== fuzz"
	@GO=$(GO) FUZZTIME=$(FUZZTIME) bash scripts/fuzz.sh $(FUZZ_TARGETS)

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./internal/...

clean:
	rm -rf bin
