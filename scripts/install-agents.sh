#!/usr/bin/env bash
# Installs the real agent binaries the end-to-end tests drive, pinned, into
# .cache/agents (idempotent: does nothing when the pinned versions are there).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.cache/agents
mkdir -p "$dir"
want='{"dependencies":{"@anthropic-ai/claude-code":"2.1.197","@opencode-ai/plugin":"1.18.33","opencode-ai":"1.18.33"}}'
have=""
[ -f "$dir/package.json" ] && have=$(tr -d ' \n' < "$dir/package.json")
if [ "$have" = "$want" ] && [ -x "$dir/node_modules/.bin/claude" ] && [ -e "$dir/node_modules/opencode-ai/package.json" ]; then
  echo "agents: already installed in $dir"
  exit 0
fi
command -v npm >/dev/null || { echo "agents: npm is required (install Node.js)" >&2; exit 1; }
echo "$want" > "$dir/package.json"
echo "agents: installing opencode-ai@1.18.33 and @anthropic-ai/claude-code@2.1.197 into $dir (first run only)"
(cd "$dir" && npm install --no-audit --no-fund --save-exact --loglevel=error)
echo "agents: installed"
