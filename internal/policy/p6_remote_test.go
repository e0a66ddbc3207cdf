package policy

import "testing"

// TestP6RemoteChanges: what a CLI changes on a remote service leaves the
// machine and cannot be undone here: uploads to cloud storage, gists,
// merges, repository settings, secrets, writes through gh api ask; reads
// of the same services stay allowed. Installing git hooks asks. Secrets
// put into git's index are reads of the secret.
func TestP6RemoteChanges(t *testing.T) {
	p, _, ws, _, _ := p6Home(t, false)
	sh := p6Sh(ws)
	runCases(t, p, []decideCase{
		{call: sh("gh gist create src/a.go"), want: Ask, rule: "remote-change"},
		{call: sh("gh gist create --public notes.md"), want: Ask},
		{call: sh("gh pr merge 12 --squash --delete-branch"), want: Ask},
		{call: sh("gh repo create acme/tool --public --source ."), want: Ask},
		{call: sh("gh secret set API_KEY < key.txt"), want: Ask},
		{call: sh("gh api -X DELETE repos/acme/x/hooks/1"), want: Ask},
		{call: sh("gh api repos/acme/x/issues -f title=bug"), want: Ask},
		{call: sh("gh api graphql -f query='mutation { addStar(input:{starrableId:\"x\"}) { clientMutationId } }'"), want: Ask},
		{call: sh("aws s3 cp dist/app.tgz s3://acme-builds/app.tgz"), want: Ask},
		{call: sh("aws s3 sync ./site s3://acme-site --delete"), want: Ask},
		{call: sh("aws --profile ci s3 mv out.csv s3://b/x.csv"), want: Ask},
		{call: sh("gsutil -m cp -r dist gs://acme-builds/"), want: Ask},
		{call: sh("gcloud storage cp a.txt gs://b/a.txt"), want: Ask},
		{call: sh("az storage blob upload --file dist/a --container-name c --name a"), want: Ask},
		{call: sh("rclone sync ./backup gdrive:backup"), want: Ask},
		{call: sh("npx husky init"), want: Ask, rule: "git-hooks-install"},
		{call: sh("pre-commit install"), want: Ask},
		{call: sh("lefthook install"), want: Ask},
		// secrets into git
		{call: sh("git add -f .env"), want: Deny, rule: "secret-read"},
		{call: sh("git add -f .env && git commit -m cfg && git push"), want: Deny},
		{call: sh("git add ~/.ssh/id_ed25519"), want: Deny},
		{call: sh("git diff --no-index /dev/null ~/.ssh/id_ed25519"), want: Deny},
		{call: sh("git hash-object ~/.ssh/id_ed25519"), want: Deny},
		// reads and everyday work
		{call: sh("gh pr create --fill"), want: Allow},
		{call: sh("gh pr view 12 --comments"), want: Allow},
		{call: sh("gh api repos/acme/x/pulls/12/comments"), want: Allow},
		{call: sh("gh api graphql -f query='query { viewer { login } }'"), want: Allow},
		{call: sh("gh run list"), want: Allow},
		{call: sh("aws s3 ls s3://acme-builds/"), want: Allow},
		{call: sh("aws s3 cp s3://acme-data/x.csv data/x.csv"), want: Allow},
		{call: sh("gsutil cp gs://b/a.txt ."), want: Allow},
		{call: sh("rclone copy gdrive:docs ./docs"), want: Allow},
		{call: sh("rclone ls gdrive:"), want: Allow},
		{call: sh("pre-commit run --all-files"), want: Allow},
		{call: sh("git add ."), want: Allow},
		{call: sh("git add -A && git commit -m wip"), want: Allow},
		{call: sh("git add .env.example src/a.go"), want: Allow},
		{call: sh("git diff --no-index a.txt b.txt"), want: Allow},
		{call: sh("ssh build-01 uptime"), want: Allow}, // see docs/policy.md: a report stays allowed
	})
}
