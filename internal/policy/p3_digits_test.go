package policy

import "testing"

// TestDigitParameters: $$, $PPID, $RANDOM, $BASHPID and their kin always
// expand to a non-empty string of digits, so a path built from one stays
// in the directory it is written under: scratch files in temp dirs are
// allowed, the same names under home are judged as home's, and $! (empty
// before any background job) stays unknown.
func TestDigitParameters(t *testing.T) {
	p := mustDefault(t)
	runCases(t, p, []decideCase{
		{call: bash("trap 'rm -f /tmp/out.$$.txt' EXIT; ls -la > /tmp/out.$$.txt; wc -l /tmp/out.$$.txt"), want: Allow},
		{call: bash("f=/tmp/merge-$BASHPID.diff; git diff > \"$f\"; rm -f \"$f\""), want: Allow},
		{call: bash("mkdir -p /tmp/job$RANDOM && rm -rf /tmp/job$RANDOM"), want: Allow},
		{call: bash("exec 3>/tmp/lock.$PPID; flock 3 true"), want: Allow},
		{call: bash("rm -rf \"${TMPDIR:-/tmp}/x.$$\""), want: Allow},
		{call: bash("echo $SECONDS > /tmp/elapsed.$SRANDOM"), want: Allow},
		// substitutions that print only digits: date +FORMAT of numeric fields, id -u, nproc
		{call: bash("OUT=/tmp/bench-$(date +%Y%m%dT%H%M%S).txt; go test -bench . > $OUT; cat $OUT"), want: Allow},
		{call: bash("rm -rf /tmp/cache-$(id -u)/old"), want: Allow},
		{call: bash("rm -rf \"/tmp/run.$(date +%s)\""), want: Allow},
		{call: bash("rm -rf /tmp/$(date +%D)"), want: Ask},
		// the same digits under home are judged as home's
		{call: bash("rm -rf ~/backup.$$"), want: Deny},
		{call: bash("rm -rf /var/tmp/../lib/x$RANDOM"), want: Deny},
		// $! is empty before a background job: not a digit string
		{call: bash("rm -rf /tmp/$!"), want: Ask},
		// assigning RANDOM only seeds it: still digits
		{call: bash("RANDOM=../etc; rm -rf /tmp/$RANDOM"), want: Allow},
	})
}
