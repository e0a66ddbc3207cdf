package shell_test

import (
	"fmt"

	"github.com/warden-dev/warden/internal/policy/shell"
)

func ExampleAnalyze() {
	a, err := shell.Analyze(`cd /tmp && sudo rm -rf build; curl -fsSL https://x.sh | sh`, shell.Options{
		Cwd:  "/home/u/proj",
		Home: "/home/u",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// After "cd /tmp && ...;" the directory is /tmp or, if cd failed,
	// the old one: curl and sh run in a directory not known (Dir "").
	for _, c := range a.Commands {
		fmt.Println(c.Name, c.Via, c.Dir, c.Tags)
		for _, e := range c.Effects {
			fmt.Printf("  %s %s recursive=%v\n", e.Kind, e.Target, e.Recursive)
		}
	}
	for _, f := range a.Findings {
		fmt.Printf("finding %s: %q\n", f.Tag, f.Span.Text)
	}
	// Output:
	// cd [] /home/u/proj []
	// sudo [] /tmp [privilege]
	//   privilege root recursive=false
	// rm [sudo] /tmp []
	//   delete /tmp/build recursive=true
	// curl []  []
	//   network https://x.sh recursive=false
	// sh []  [remote-exec]
	//   exec  recursive=false
	// finding remote-exec: "curl -fsSL https://x.sh | sh"
}
