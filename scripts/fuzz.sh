#!/usr/bin/env bash
# Runs each fuzz target (PKG:FuzzName:N) for N inputs on top of its seed
# corpus, or for FUZZTIME each when FUZZTIME is set (a longer hunt).
#
# CI counts inputs instead of seconds because Go 1.26's fuzz coordinator can
# fail a run that found nothing with a bare "context deadline exceeded" when a
# duration -fuzztime expires while a worker is busy or starved of CPU
# (golang/go#75804, fixed in Go 1.27). An -fuzztime Nx budget sets no deadline,
# so a slow machine only makes the run longer. For a timed hunt the old guard
# stays: a failure that is only that deadline message, with no input written,
# is run once more; any other failure, or the same flake twice, fails.
set -uo pipefail
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-}
for t in "$@"; do
  IFS=: read -r pkg fn count <<<"$t"
  if [ -z "$pkg" ] || [ -z "$fn" ]; then
    echo "fuzz.sh: bad target $t (want PKG:FuzzName:N)" >&2; exit 2
  fi
  budget=$FUZZTIME
  if [ -z "$budget" ]; then
    if ! [[ "$count" =~ ^[0-9]+$ ]]; then
      echo "fuzz.sh: target $t has no input count; give PKG:FuzzName:N or set FUZZTIME" >&2; exit 2
    fi
    budget=${count}x
  fi
  for attempt in 1 2; do
    echo "-- $fn in $pkg ($budget)"
    out=$("$GO" test -run '^$' -fuzz "^$fn\$" -fuzztime "$budget" "$pkg" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 0 ] && break
    if [ $attempt -eq 1 ] && [[ "$budget" != *x ]] && grep -q 'context deadline exceeded' <<<"$out" \
       && ! grep -Eq 'Failing input written|panic:|_test\.go:[0-9]+:' <<<"$out"; then
      echo "-- $fn: the Go fuzz deadline race (golang/go#75804), no input found; running it again"
      continue
    fi
    exit 1
  done
done
