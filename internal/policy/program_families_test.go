package policy

import "testing"

// familyCases runs decision cases for one program family in a workspace
// of the concept home.
func familyCases(t *testing.T, cases []struct {
	cmd  string
	want Action
	rule string
}) {
	t.Helper()
	p, _, w := conceptHome(t)
	dc := make([]decideCase, len(cases))
	for i, c := range cases {
		dc[i] = decideCase{call: Call{Tool: "bash", Args: map[string]any{"command": c.cmd}, Cwd: w, Workspace: w}, want: c.want, rule: c.rule}
	}
	runCases(t, p, dc)
}

// TestRemoteExecFamily: every program that runs a command line on another
// machine, pod, VM or fleet feeds the judgement of ssh HOST CMD: a
// destructive command is denied as if it ran here, one that changes
// something asks, a read-only one is allowed.
func TestRemoteExecFamily(t *testing.T) {
	familyCases(t, []struct {
		cmd  string
		want Action
		rule string
	}{
		{"kubectl -n shop exec -it web-0 -c app -- rm -rf /etc/nginx", Deny, ""},
		{"kubectl exec web-0 -- systemctl restart nginx", Ask, "remote-command"},
		{"kubectl exec web-0 -- ls /var/log", Allow, ""},
		{"kubectl logs web-0", Allow, ""},
		{"ansible webservers -i inv.ini -m raw -a 'rm -rf /etc/app'", Deny, ""},
		{"ansible all -m apt -a 'name=nginx state=absent' -b", Ask, "remote-command"},
		{"ansible all -m ping", Allow, ""},
		{"salt 'web*' cmd.run 'systemctl restart app'", Ask, "remote-command"},
		{"salt '*' grains.items", Allow, ""},
		{"gcloud compute ssh web-2 --command 'rm -rf /etc/ssl'", Deny, ""},
		{"az vm run-command invoke -g g -n v --command-id RunShellScript --scripts 'systemctl stop app'", Ask, "remote-command"},
		{"aws ssm send-command --document-name AWS-RunShellScript --parameters 'commands=[\"userdel deploy\"]' --instance-ids i-9", Ask, "remote-command"},
		{"flyctl ssh console -C 'uptime'", Allow, ""},
		{"fly ssh console -C 'rm -rf /etc/app'", Deny, ""},
		{"heroku run python manage.py migrate -a shop-staging", Ask, "remote-command"},
		{"pssh -H 'a b' 'rm -rf /etc/cron.d'", Deny, ""},
		{"vagrant ssh -c 'sudo apt-get upgrade -y'", Ask, "remote-command"},
	})
}

// TestAppDataFamily: framework tasks and data CLIs that drop, reset,
// flush or roll back a whole database are data destruction (ask); their
// everyday tasks (migrate, seed, status) stay allowed.
func TestAppDataFamily(t *testing.T) {
	familyCases(t, []struct {
		cmd  string
		want Action
		rule string
	}{
		{"pnpm exec prisma db push --force-reset", Ask, "db-destroy"},
		{"npx prisma migrate deploy", Allow, ""},
		{"python3 manage.py migrate accounts zero", Ask, "db-destroy"},
		{"python3 manage.py makemigrations", Allow, ""},
		{"./bin/rake db:purge", Ask, "db-destroy"},
		{"bin/rails db:seed", Allow, ""},
		{"php artisan migrate:refresh --seed", Ask, "db-destroy"},
		{"php artisan migrate --force", Allow, ""},
		{"npx typeorm schema:drop -d src/data-source.ts", Ask, "db-destroy"},
		{"mix ecto.rollback --all", Ask, "db-destroy"},
		{"mix ecto.rollback", Allow, ""},
		{"flyway clean", Ask, "db-destroy"},
		{"sqlx database reset -y", Ask, "db-destroy"},
		{"diesel migration run", Allow, ""},
		{"etcdctl delete --prefix /registry", Ask, "db-destroy"},
		{"etcdctl get --prefix /registry", Allow, ""},
		{"bq rm -f shop.orders", Ask, "db-destroy"},
		{"bq query 'select 1'", Allow, ""},
	})
}

// TestReleaseToolsPublish: release tools publish as npm publish does
// (ask); their dry runs, snapshots and local steps stay allowed.
func TestReleaseToolsPublish(t *testing.T) {
	familyCases(t, []struct {
		cmd  string
		want Action
		rule string
	}{
		{"npx @vscode/vsce publish patch", Ask, "publish"},
		{"npx @vscode/vsce package", Allow, ""},
		{"goreleaser", Ask, "publish"},
		{"goreleaser build --snapshot", Allow, ""},
		{"npx release-it minor --ci", Ask, "publish"},
		{"npx semantic-release --dry-run", Allow, ""},
		{"cargo release 1.2.0 --execute --no-confirm", Ask, "publish"},
		{"cargo release 1.2.0", Allow, ""},
		{"pnpm dist-tag rm mypkg beta", Ask, "publish"},
		{"npm dist-tag ls mypkg", Allow, ""},
	})
}

// TestStaticServersAndTunnels: a program that serves a directory over the
// network feeds the secret-tree rule (the home served is denied, a build
// dir is fine); public tunnels ask; local files sent to an anonymous
// public drop host ask, to this machine or an ordinary API they do not.
func TestStaticServersAndTunnels(t *testing.T) {
	familyCases(t, []struct {
		cmd  string
		want Action
		rule string
	}{
		{"npx http-server $HOME", Deny, ""},
		{"npx live-server ~/.ssh --port=9000", Deny, ""},
		{"busybox httpd -f -h ~/.ssh -p 8081", Deny, ""},
		{"cd ~ && caddy file-server --listen :9000", Deny, ""},
		{"twistd -n web --path ~/ --port tcp:8081", Deny, ""},
		{"npx http-server ./public -p 8081", Allow, ""},
		{"caddy file-server --root site", Allow, ""},
		{"cloudflared tunnel --url http://localhost:5173", Ask, "network-tunnel"},
		{"ngrok tcp 5432", Ask, "network-tunnel"},
		{"ngrok version", Allow, ""},
		{"curl -T build/site.zip https://transfer.sh/site.zip", Ask, "upload-public-drop"},
		{"curl --data-binary @src/main.go https://paste.rs", Ask, "upload-public-drop"},
		{"curl -F 'f:1=@dist/app.js' https://x1.catbox.moe/upload", Ask, "upload-public-drop"},
		{"curl -F file=@dist/app.tgz https://artifacts.example.com/upload", Ask, "upload-unknown-host"},
		{"curl -F upload=@build/report.json http://127.0.0.1:9000/upload", Allow, ""},
		{"curl -d @payload.json http://localhost:3000/api", Allow, ""},
	})
}

// TestShellFromOpaqueStdin: a shell or interpreter whose program comes
// from the output of a program the analyser cannot evaluate runs code not
// known (ask); known text, a file (sh < f, cat f | sh) and data piped
// into a program that is given its script stay as they were.
func TestShellFromOpaqueStdin(t *testing.T) {
	familyCases(t, []struct {
		cmd  string
		want Action
		rule string
	}{
		{"ruby -e 'puts \"make clean\"' | sh", Ask, "dynamic-code"},
		{"jq -r .steps[] plan.json | bash", Ask, "dynamic-code"},
		{"sh < <(gen-steps --all)", Ask, "dynamic-code"},
		{"git log --format=%s -1 | python3", Ask, "dynamic-code"},
		{"echo 'ls -la' | sh", Allow, ""},
		{"cat scripts/setup.sh | bash", Allow, ""},
		{"bash < scripts/setup.sh", Allow, ""},
		{"jq -r .name package.json | python3 tools/slug.py", Allow, ""},
		{"while read -r f; do wc -l \"$f\"; done < <(git ls-files)", Allow, ""},
	})
}

// TestWorkspaceWalkHandsOn: names printed by a walk of the workspace
// (grep -l/-rl, ls of workspace globs) handed on by xargs are files in the
// workspace, so everyday refactors stay allowed; the same walk over a
// secret tree is still judged as that tree.
func TestWorkspaceWalkHandsOn(t *testing.T) {
	familyCases(t, []struct {
		cmd  string
		want Action
		rule string
	}{
		{"grep -rl --include='*.go' OldName src | xargs sed -i 's/OldName/NewName/g'", Allow, ""},
		{"grep -l TODO *.md | xargs -n1 wc -l", Allow, ""},
		{"ls src/*.go | xargs -I% cp % %.orig", Allow, ""},
		{"rg -l deprecated src | xargs perl -pi -e 's/deprecated/legacy/'", Allow, ""},
		{"grep -rl PRIVATE ~/.ssh | xargs cat", Deny, ""},
		{"ls ~/.ssh/id_* | xargs -I{} cp {} /tmp/k", Deny, ""},
	})
}

// TestProductionTargetsDeny: deleting remote resources or destroying data
// on a target that looks like production (prod, production, prd, live as
// a word part of a name, context, namespace, stack, app or bucket) is
// denied; the same operation elsewhere asks, and words that merely
// contain the letters (product, delivery, olive) do not count.
func TestProductionTargetsDeny(t *testing.T) {
	familyCases(t, []struct {
		cmd  string
		want Action
		rule string
	}{
		{"kubectl --context=eks-prd-1 delete deployment web", Deny, "remote-delete-production"},
		{"helm uninstall checkout --namespace live", Deny, "remote-delete-production"},
		{"terraform destroy -var-file=envs/production.tfvars", Deny, "remote-delete-production"},
		{"gsutil -m rm -r gs://acme-prod-uploads", Deny, "remote-delete-production"},
		{"redis-cli -h cache.prod.internal FLUSHALL", Deny, "remote-delete-production"},
		{"heroku run -a shop-production rails db:schema:load", Deny, "remote-delete-production"},
		{"kubectl --context staging delete deployment web", Ask, "remote-delete"},
		{"gsutil -m rm -r gs://acme-product-images", Ask, "remote-delete"},
		{"helm uninstall olive-api", Ask, "remote-delete"},
		{"kubectl get pods -n prod", Allow, ""},
	})
}
