package policy

import "testing"

func TestDefaultLoads(t *testing.T) {
	p, err := Default(Env{Home: "/home/dev", TempDirs: []string{"/tmp", "/var/tmp"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tests()) < 50 {
		t.Fatalf("only %d tests", len(p.Tests()))
	}
}
