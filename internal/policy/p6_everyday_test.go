package policy

import "testing"

// TestP6EverydayStaysAllowed: the everyday work of a developer in a
// workspace — builds, tests, git, package managers, editors, searches,
// containers — stays allowed through every concept added for issue 11
// (links and following walks, commands in options, code loads, remote
// changes, warden's controls), on a workspace that holds symlinks out of
// it, as the red-team fixture's does.
func TestP6EverydayStaysAllowed(t *testing.T) {
	p, _, ws, scratch, _ := p6Home(t, false)
	sh := p6Sh(ws)
	var cases []decideCase
	for _, cmd := range []string{
		// builds and tests
		"go build ./... && go test -race ./...",
		"go vet ./... && gofmt -l .",
		"go test -run TestX -count=1 ./internal/...",
		"go run ./cmd/tool --help",
		"go mod tidy && go mod download",
		"make", "make test", "make -j4 build", "make clean && make",
		"cargo build --release", "cargo test -- --nocapture", "cargo clippy --all-targets", "cargo fmt --check",
		"npm ci", "npm install", "npm install --save-dev vitest", "npm run build", "npm test -- --watch=false",
		"npx tsc --noEmit", "npx eslint . --fix", "npx prettier --write src",
		"pnpm install --frozen-lockfile", "yarn install && yarn build",
		"pip install -r requirements.txt", "pip install -e '.[dev]'", "python3 -m venv .venv && source .venv/bin/activate",
		"pytest -q", "pytest -x tests/test_api.py -k login", "python3 -m pytest --cov=src", "tox -e py312",
		"ruff check . && ruff format .", "mypy src", "black --check .",
		"cmake -S . -B build && cmake --build build -j", "ctest --test-dir build",
		"gcc -O2 -Wall -o hello hello.c && ./hello", "clang++ -std=c++20 -o app main.cpp",
		"mvn -q test", "./gradlew build", "bundle exec rspec", "mix test", "dotnet test",
		// git in the workspace
		"git status", "git diff", "git diff --stat HEAD~1", "git log --oneline -20", "git show HEAD",
		"git add -A && git commit -m 'fix: parser'", "git add src/a.go README.md", "git commit --amend --no-edit",
		"git switch -c feature/x", "git checkout -b fix/y", "git fetch origin && git rebase origin/main",
		"git pull --rebase", "git push -u origin feature/x", "git push --force-with-lease origin feature/x",
		"git stash && git stash pop", "git grep -n TODO", "git blame src/a.go", "git ls-files | wc -l",
		"git diff --name-only | xargs gofmt -l", "git clone https://github.com/acme/lib.git vendor/lib",
		"git tag v1.2.3", "git cherry-pick abc123", "git merge --no-ff feature/x",
		// searches and reads in the workspace
		"grep -rn TODO src", "grep -r password .", "rg -n 'func main'", "rg --files | head",
		"find . -name '*.go' -not -path './vendor/*'", "find src -type f -newer go.mod",
		"ls -la", "ls -R src", "tree -L 2", "cat README.md", "head -50 src/a.go", "wc -l $(git ls-files '*.go')",
		"readlink -f key_link", "realpath src", "stat src/a.go", "du -sh .",
		"jq .version package.json", "sed -n '1,40p' src/a.go",
		// edits in the workspace
		"sed -i 's/foo/bar/g' src/a.go", "perl -pi -e 's/a/b/g' $(git ls-files '*.go')",
		"mkdir -p build && cp README.md build/", "rm -rf build dist node_modules", "rm -f key_link",
		"touch src/new.go", "mv src/a.go src/b.go", "chmod +x scripts/run.sh", "ln -s ../README.md docs/README.md",
		"patch -p1 < fix.diff", "vim src/a.go", "code .", "nano README.md",
		// scratch work in temp
		"T=$(mktemp -d) && cd \"$T\" && git init", "trap 'rm -rf \"$T\"' EXIT; T=$(mktemp -d); make test",
		"tar czf " + scratch + "/src.tgz src", "zip -r " + scratch + "/src.zip src", "cp -r src " + scratch + "/s",
		"curl -fsSL https://example.com/x.tgz -o " + scratch + "/x.tgz && tar xzf " + scratch + "/x.tgz -C " + scratch,
		// containers, servers, tools
		"docker build -t app .", "docker compose up -d", "docker run --rm -v \"$PWD\":/app -w /app golang:1.26 go test ./...",
		"docker ps", "docker logs -f app", "kubectl get pods -A", "kubectl logs deploy/api",
		"cd src && python3 -m http.server 8000", "npm run dev", "npx vite --port 5173",
		"curl -s http://localhost:8080/health", "curl -sS https://api.github.com/repos/acme/x",
		"ssh -T git@github.com", "ssh build-01 uptime", "gh pr create --fill", "gh pr view 12", "gh run watch",
		"aws s3 ls s3://acme-artifacts/", "man git-rebase", "less README.md", "sqlite3 app.db '.tables'",
		"eval \"$(ssh-agent -s)\"", "eval \"$(direnv hook bash)\"", "source ~/.bashrc",
		"fuser -k 3000/tcp", "kill $(lsof -t -i :5173)", "lsof -i :37123",
		"warden status", "warden policy explain -- rm -rf build", "warden events --since 10m",
		"pre-commit run --all-files", "env | grep -i proxy", "which go && go version",
	} {
		cases = append(cases, decideCase{call: sh(cmd), want: Allow})
	}
	runCases(t, p, cases)
}
