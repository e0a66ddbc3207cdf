package policy_test

import (
	"fmt"
	"strings"

	"github.com/warden-dev/warden/internal/policy"
)

func ExamplePolicy_Decide() {
	env := policy.Env{Home: "/home/dev", TempDirs: []string{"/tmp"}}
	p, err := policy.Default(env)
	if err != nil {
		panic(err)
	}
	for _, cmd := range []string{"rm -rf ./build", "rm -rf ~/Documents", "git reset --hard HEAD~1"} {
		d := p.Decide(policy.Call{
			Tool:      "bash",
			Args:      map[string]any{"command": cmd},
			Workspace: "/home/dev/proj",
		})
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%-24s %s %s", cmd, d.Action, d.Rule)))
	}
	// Output:
	// rm -rf ./build           allow
	// rm -rf ~/Documents       deny delete-outside-workspace
	// git reset --hard HEAD~1  ask git-reset-hard
}
