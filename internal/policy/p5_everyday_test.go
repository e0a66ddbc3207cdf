package policy

import "testing"

// TestP5EverydayStaysAllowed: the day-to-day work of a developer in the
// workspace — builds, tests, formatters, git, package managers, editors'
// helpers, searching, containers, make, scratch work in temp dirs, the
// copies and caches and inline code the P5 concepts now follow — must stay
// allowed. A false block costs the user's trust as surely as a miss costs
// their machine.
func TestP5EverydayStaysAllowed(t *testing.T) {
	p := mustDefault(t)
	var cases []decideCase
	for _, c := range []string{
		// builds and tests
		"go build ./... && go test -race ./...",
		"go vet ./... && gofmt -l .",
		"go test -run TestX -count=1 ./internal/...",
		"go generate ./... && go build -o bin/app ./cmd/app",
		"cargo build --release && cargo test",
		"cargo clippy -- -D warnings",
		"npm ci && npm run build && npm test",
		"npx tsc --noEmit",
		"pnpm install --frozen-lockfile && pnpm -r test",
		"yarn install && yarn lint",
		"python3 -m pytest -q tests/",
		"python3 -m venv .venv && . .venv/bin/activate && pip install -r requirements.txt",
		"pip install -e . && pytest -x",
		"uv sync && uv run pytest",
		"ruff check . && black --check .",
		"mvn -q -DskipTests package",
		"./gradlew build",
		"make && make test",
		"make -j8 clean all",
		"cmake -S . -B build && cmake --build build -j",
		"bundle install && bundle exec rspec",
		"docker build -t app:dev .",
		"docker compose up -d db && docker compose logs --tail=50 db",
		"docker run --rm -v \"$PWD\":/src -w /src golang:1.26 go test ./...",
		// git
		"git status && git diff --stat",
		"git add -A && git commit -m 'fix: handle nil'",
		"git log --oneline -20",
		"git fetch origin && git rebase origin/main",
		"git checkout -b feature/x && git push -u origin feature/x",
		"git stash && git pull --rebase && git stash pop",
		"git diff HEAD~1 -- src/ | less",
		"git blame -L 10,20 src/main.go",
		"git worktree list",
		// search and read in the workspace
		"grep -rn TODO src/",
		"rg -n 'func main' --type go",
		"find . -name '*.go' -newer go.mod | head",
		"find . -name '*.pyc' -delete",
		"cat README.md | head -50",
		"sed -i 's/oldName/newName/g' src/*.go",
		"awk -F, '{ sum += $3 } END { print sum }' data/report.csv",
		"jq '.scripts' package.json",
		"wc -l $(git ls-files '*.go')",
		"ls -la && du -sh node_modules",
		"tree -L 2 src",
		// scratch work, copies, caches
		"tmp=$(mktemp -d) && cp -r src \"$tmp\" && diff -r src \"$tmp/src\"",
		"cp .env.example .env.local.example && ls",
		"cp config/app.yaml /tmp/app.yaml.bak && vim -es -c 'wq' config/app.yaml",
		"mv dist/app.tar.gz /tmp/ && tar tzf /tmp/app.tar.gz | head",
		"rsync -a --delete build/ /tmp/site-preview/",
		"ln -sf ../shared/tsconfig.json tsconfig.base.json",
		"rm -rf build dist node_modules/.cache",
		`rm -rf "$(go env GOCACHE)"`,
		`rm -rf "$(npm config get cache)/_cacache"`,
		"go clean -cache -testcache",
		// inline code
		`python3 -c 'import sys, json; print(json.dumps(json.load(open(sys.argv[1])), indent=2))' package.json`,
		`python3 -c 'import platform; print(platform.python_version())'`,
		`node -e 'console.log(require("./package.json").version)'`,
		`node -p 'process.versions.node'`,
		`ruby -e 'require "json"; puts JSON.parse(File.read("package.json"))["name"]'`,
		`perl -pi -e 's/\r$//' scripts/build.sh`,
		`awk -v FS=: '$3 >= 1000 { print $1 }' /etc/passwd`,
		// network everyday
		"curl -fsSL https://api.github.com/repos/golang/go/releases/latest | jq .tag_name",
		"curl -s http://localhost:8080/healthz",
		"wget -q -O /tmp/go.tgz https://go.dev/dl/go1.26.0.linux-amd64.tar.gz",
		"ssh -T git@github.com",
		"eval \"$(ssh-agent -s)\"",
	} {
		cases = append(cases, decideCase{call: bash(c), want: Allow})
	}
	runCases(t, p, cases)
}
