# warden: the two commands are `make run` (the daemon on the embedded default)
# and `make test` (everything CI checks, installing what it needs).
GO            ?= go
STATICCHECK   := honnef.co/go/tools/cmd/staticcheck@v0.8.2
FUZZTIME      ?= 10s
PKGS          := ./...
FUZZ_TARGETS  := ./internal/policy/shell:FuzzAnalyze ./internal/policy/shell:FuzzInlineCode ./internal/policy/shell:FuzzSQLDestroys ./internal/policy:FuzzParse ./internal/protocol/monitor:FuzzDecode \
                 ./internal/protocol/hooks:FuzzDecode ./internal/protocol/hooks:FuzzDecodeSpoolEntry ./internal/integrations/claudecode:FuzzMerge \
                 ./internal/jsonrpc:FuzzDecode ./internal/editor:FuzzApply ./internal/lsp:FuzzReadMessage \
                 ./internal/gitcli:FuzzParseStatus ./internal/search:FuzzCompile ./internal/search:FuzzLiteral ./internal/search:FuzzInnerLiteral ./internal/wsfs:FuzzRel \
                 ./internal/ops:FuzzResolvePath ./internal/integrations/configtmpl:FuzzRender \
                 ./internal/integrations/opencode:FuzzSSE ./internal/policy:FuzzParseSandbox ./internal/sandbox:FuzzDecodeProfile \
                 ./internal/credential:FuzzParse ./internal/proof:FuzzCheck ./internal/proof:FuzzParsePublicPEM \
                 ./internal/protocol/admin:FuzzParseEventMatch ./internal/protocol/admin:FuzzParseSince ./internal/policy:FuzzCheck \
                 ./internal/event:FuzzCheckDepth \
                 ./internal/session:FuzzLoadCheckpoint ./internal/protocol/admin:FuzzParsePruneBefore \
                 ./internal/provider/ollamaenv:FuzzParseHost ./internal/provider/ollamaenv:FuzzNumCtx \
                 ./internal/index:FuzzParseQuery ./internal/agent:FuzzToolArguments ./internal/reaper:FuzzParentOf ./internal/protocol/agentapi:FuzzParams \
                 ./internal/config:FuzzVectors ./internal/policy/shell:FuzzProcPath

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
# also run in `unit`). Raise FUZZTIME for a longer hunt.
fuzz:
	@echo "== fuzz ($(FUZZTIME) each)"
	@GO=$(GO) FUZZTIME=$(FUZZTIME) bash scripts/fuzz.sh $(FUZZ_TARGETS)

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./internal/...

clean:
	rm -rf bin
