#!/usr/bin/env bash
# Installs the real tools the control door's tests drive, pinned and
# idempotent: language servers (gopls, pyright), debug adapters (dlv,
# debugpy), ripgrep (the search benchmark's baseline) and universal-ctags
# (the code index's symbols for languages other than Go).
#   Go tools  -> .cache/tools/bin      (go install, pinned)
#   pyright   -> .cache/tools/node     (npm, pinned)
#   MCP inspector CLI -> .cache/tools/inspector (npm, pinned; the MCP door's test)
#   debugpy, ripgrep, universal-ctags -> Debian packages (apt-get, only when missing)
set -euo pipefail
cd "$(dirname "$0")/.."
GOPLS_VERSION=v0.23.0
DLV_VERSION=v1.27.2
PYRIGHT_VERSION=1.1.414
INSPECTOR_VERSION=2.12.0
bin=$PWD/.cache/tools/bin
node=$PWD/.cache/tools/node
inspector=$PWD/.cache/tools/inspector
mkdir -p "$bin" "$node" "$inspector"

stamp() { [ -f "$1.version" ] && [ "$(cat "$1.version")" = "$2" ] && [ -x "$1" ]; }

if stamp "$bin/gopls" "$GOPLS_VERSION"; then
  echo "tools: gopls $GOPLS_VERSION already installed"
else
  echo "tools: installing gopls $GOPLS_VERSION"
  GOBIN=$bin go install "golang.org/x/tools/gopls@$GOPLS_VERSION"
  echo "$GOPLS_VERSION" > "$bin/gopls.version"
fi

if stamp "$bin/dlv" "$DLV_VERSION"; then
  echo "tools: dlv $DLV_VERSION already installed"
else
  echo "tools: installing dlv $DLV_VERSION"
  GOBIN=$bin go install "github.com/go-delve/delve/cmd/dlv@$DLV_VERSION"
  echo "$DLV_VERSION" > "$bin/dlv.version"
fi

want="{\"dependencies\":{\"pyright\":\"$PYRIGHT_VERSION\"}}"
have=""
[ -f "$node/package.json" ] && have=$(tr -d ' \n' < "$node/package.json")
if [ "$have" = "$want" ] && [ -x "$node/node_modules/.bin/pyright-langserver" ]; then
  echo "tools: pyright $PYRIGHT_VERSION already installed"
else
  command -v npm >/dev/null || { echo "tools: npm is required (install Node.js)" >&2; exit 1; }
  echo "$want" > "$node/package.json"
  echo "tools: installing pyright $PYRIGHT_VERSION"
  (cd "$node" && npm install --no-audit --no-fund --save-exact --loglevel=error)
fi
ln -sfr "$node/node_modules/.bin/pyright-langserver" "$bin/pyright-langserver"

want="{\"dependencies\":{\"@modelcontextprotocol/inspector\":\"$INSPECTOR_VERSION\"}}"
have=""
[ -f "$inspector/package.json" ] && have=$(tr -d ' \n' < "$inspector/package.json")
if [ "$have" = "$want" ] && [ -x "$inspector/node_modules/.bin/mcp-inspector" ]; then
  echo "tools: MCP inspector $INSPECTOR_VERSION already installed"
else
  command -v npm >/dev/null || { echo "tools: npm is required (install Node.js)" >&2; exit 1; }
  echo "$want" > "$inspector/package.json"
  echo "tools: installing @modelcontextprotocol/inspector $INSPECTOR_VERSION"
  (cd "$inspector" && npm install --no-audit --no-fund --save-exact --loglevel=error)
fi
ln -sfr "$inspector/node_modules/.bin/mcp-inspector" "$bin/mcp-inspector"

missing=()
/usr/bin/python3 -c 'import debugpy' 2>/dev/null || missing+=(python3-debugpy)
command -v rg >/dev/null || missing+=(ripgrep)
# The index needs universal-ctags' JSON output (exuberant ctags has none).
ctags --version 2>/dev/null | grep -q 'Universal Ctags' || missing+=(universal-ctags)
if [ ${#missing[@]} -gt 0 ]; then
  echo "tools: installing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "tools: debugpy, ripgrep and universal-ctags already installed"
fi
echo "tools: ready in $bin"
