package policy

import "testing"

// TestCDPATHAsBashDoes: a relative cd that does not start with ./ or ../
// searches the entries of CDPATH first (set for the one command, exported
// or assigned earlier), the first holding a directory of that name wins,
// and the current directory is the fallback; the commands after it run in
// the directory found. The file system answers which entry holds the
// name, so these cases use directories every system has.
func TestCDPATHAsBashDoes(t *testing.T) {
	p := mustDefault(t)
	runCases(t, p, []decideCase{
		{call: bash(`CDPATH=/ cd etc && rm -rf ssl`), want: Deny},
		{call: bash(`export CDPATH=/usr; cd share; rm -rf doc`), want: Deny},
		{call: bash(`CDPATH=/nonexistent-p3:/usr:. cd lib && rm -rf ./*`), want: Deny},
		{call: bash(`CDPATH=:/ cd etc; echo x > hosts`), want: Deny},
		// not found through CDPATH: the current directory's
		{call: bash(`CDPATH=/ cd no-such-dir-p3 && rm -rf out`), want: Allow},
		// ./ and ../ are never searched
		{call: bash(`CDPATH=/ cd ./etc && rm -rf cache`), want: Allow},
	})
}
