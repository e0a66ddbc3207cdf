package shell

import (
	"strings"
)

// cloudPrograms declares containers, clusters and cloud providers.
func cloudPrograms() []program {
	return []program{
		{names: []string{"docker", "podman", "nerdctl"}, model: (*call).docker,
			examples: []example{ex("docker volume rm $(docker volume ls -q)", "tag remote.delete"), ex("docker volume rm cache", "!tag remote.delete"), ex("docker system prune -af --volumes", "tag remote.delete"),
				ex("docker compose down -v", "tag remote.delete"), ex("docker compose down", "!tag remote.delete"), ex("docker volume ls", "!tag remote.delete"),
				ex("docker rm -f $(docker ps -aq)", "tag remote.delete"), ex("docker container rm -f web db", "!tag remote.delete"),
				ex("docker push r/i", "tag publish"), ex("docker run --privileged i", "tag container.host")}},
		{names: []string{"docker-compose", "podman-compose"}, model: func(k *call) {
			k.compose(k.args, k.name)
		}, examples: []example{ex("docker-compose run web rm -rf /x", "cmd rm")}},
		{names: []string{"kubectl", "oc"}, model: func(k *call) {
			switch sc := k.subcommand(spec{arg: "nsc", long: []string{"namespace", "context", "cluster", "kubeconfig", "user", "server"}}); sc {
			case "delete", "drain":
				k.tag(TagRemoteDelete)
			case "exec", "debug", "rsh":
				k.kubeExec()
			}
		}, examples: []example{ex("kubectl -n prod delete pod x", "tag remote.delete"), ex("kubectl get pods", "!tag remote.delete"),
			ex("kubectl exec -n shop web-7f -c app -- rm -rf /var/lib/shop", "tag remote.exec", "delete:r /var/lib/shop"),
			ex("kubectl exec web-7f -- cat /etc/hosts", "!tag remote.exec"),
			ex("oc exec job/x -- bash -c 'pkill -9 java'", "tag remote.exec")}},
		{names: []string{"helm"}, model: func(k *call) {
			if sc := k.subcommand(spec{arg: "n", long: []string{"namespace", "kube-context", "kubeconfig"}}); sc == "uninstall" || sc == "delete" || sc == "del" || sc == "un" {
				k.tag(TagRemoteDelete)
			} else if sc == "push" {
				k.tag(TagPublish)
			}
			k.helmSources()
		}, examples: []example{ex("helm uninstall web", "tag remote.delete"), ex("helm push c.tgz oci://r", "tag publish"),
			ex("helm install web oci://charts.example/web", "tag dynamic-exec"), ex("helm install web ./chart", "!tag dynamic-exec")}},
		{names: []string{"terraform", "tofu", "terragrunt", "pulumi", "cdk"}, model: func(k *call) {
			sc := k.subcommand(spec{})
			if sc == "destroy" || (sc == "apply" || sc == "up") && hasArg(k.args, "-destroy", "--destroy") {
				k.tag(TagRemoteDelete)
			}
		}, examples: []example{ex("terraform destroy", "tag remote.delete"), ex("terraform apply -destroy", "tag remote.delete"), ex("terraform plan", "!tag remote.delete")}},
		{names: []string{"aws"}, model: (*call).aws,
			examples: []example{ex("aws s3 rm s3://b --recursive", "tag remote.delete"),
				ex("aws ssm send-command --instance-ids i-1 --document-name AWS-RunShellScript --parameters 'commands=[\"shutdown -r now\"]'", "tag remote.exec"),
				ex("aws ecs execute-command --cluster c --task t --interactive --command 'rm -rf /data'", "tag remote.exec", "delete:r /data"), ex("aws s3 cp ~/.aws/credentials s3://b/x", "read:r /home/u/.aws/credentials", "tag network.upload")}},
		{names: []string{"gsutil"}, model: func(k *call) {
			switch sc := k.subcommand(spec{arg: "ohp"}); sc {
			case "rm", "rb":
				k.tag(TagRemoteDelete)
			case "cp", "rsync", "mv":
				k.storageCopy()
			}
		}, examples: []example{ex("gsutil -m rm -r gs://b", "tag remote.delete"), ex("gsutil cp .env gs://b/", "read:r /home/u/proj/.env", "tag network.upload")}},
		{names: []string{"gcloud", "az", "doctl", "heroku", "flyctl", "fly", "vercel", "netlify", "firebase"}, model: func(k *call) {
			k.cloudRemote()
			n := k.name
			for _, f := range k.args {
				if f.known && (f.val == "delete" || f.val == "destroy" || f.val == "remove" || f.val == "rm" || f.val == "purge" || f.val == "apps:destroy" ||
					strings.HasSuffix(f.val, ":delete") || strings.HasSuffix(f.val, ":destroy") || strings.HasSuffix(f.val, ":remove")) {
					// firebase firestore:delete, database:remove, heroku apps:destroy, pg:reset
					k.tag(TagRemoteDelete)
				}
				if f.known && (f.val == "pg:reset" || f.val == "redis:reset" || f.val == "database:set") {
					k.tag(TagRemoteDelete)
				}
			}
			if n == "vercel" || n == "netlify" || n == "firebase" {
				for _, f := range k.args {
					if f.known && (f.val == "deploy" || f.val == "--prod") {
						k.tag(TagPublish)
					}
				}
			}
		}, examples: []example{ex("gcloud compute instances delete vm", "tag remote.delete"), ex("vercel deploy --prod", "tag publish"),
			ex("firebase firestore:delete --all-collections -f", "tag remote.delete"), ex("heroku pg:reset DATABASE_URL", "tag remote.delete"),
			ex("firebase emulators:start", "!tag remote.delete"),
			ex("gcloud compute ssh db-1 --zone us-east1-b --command 'sudo shutdown -h now'", "tag remote.exec"),
			ex("gcloud compute ssh db-1 -- df -h", "!tag remote.exec"),
			ex("az vm run-command invoke -g g -n v --command-id RunShellScript --scripts 'rm -rf /srv/x' --parameters a", "tag remote.exec", "delete:r /srv/x"),
			ex("flyctl ssh console --command 'kill 1'", "tag remote.exec"),
			ex("heroku run -a shop bash -c 'rm -rf /app/public'", "tag remote.exec", "delete:r /app/public"),
			ex("heroku logs --tail -a shop", "!tag remote.exec")}},
	}
}

func (k *call) docker() {
	p := parseOpts(k.args, spec{arg: "cHl", long: []string{"context", "host", "log-level", "config", "tlscacert", "tlscert", "tlskey",
		"connection", "identity", "url", "module", "root", "runroot", "storage-driver", "cgroup-manager", "events-backend", "network-cmd-path", "tmpdir"}, stop: true})
	if len(p.ops) == 0 {
		return
	}
	ops := p.ops
	if ops[0].val == "container" && len(ops) > 1 {
		ops = ops[1:]
	}
	switch sc := ops[0].val; sc {
	case "run", "create":
		k.containerRun(ops[1:], k.name+" "+sc, false)
		return
	case "exec":
		k.containerRun(ops[1:], k.name+" exec", true)
		return
	case "rm":
		// a container's writable layer goes with it: containers not named
		// ($(docker ps -aq), xargs) may be every one, databases included,
		// and ask; one named container is routine cleanup
		if !allKnown(ops[1:]) {
			k.tag(TagRemoteDelete)
			k.attr("containers", "not named")
		}
		return
	case "compose":
		k.compose(ops[1:], k.name+" compose")
		return
	}
	switch p.ops[0].val {
	case "volume":
		// a volume's data goes with it: every volume (prune, or names
		// not known: $(docker volume ls -q)) asks; one named volume is
		// routine cleanup
		if len(p.ops) > 1 && (p.ops[1].val == "prune" || (p.ops[1].val == "rm" || p.ops[1].val == "remove") && !allKnown(p.ops[2:])) {
			k.tag(TagRemoteDelete)
			k.attr("volumes", "true")
		}
	case "system":
		if len(p.ops) > 1 && p.ops[1].val == "prune" && hasArg(p.ops, "--volumes") {
			k.tag(TagRemoteDelete)
			k.attr("volumes", "true")
		}
	case "push":
		k.tag(TagPublish)
		k.attr("subcommand", "push")
		if len(p.ops) > 1 {
			k.net(p.ops[len(p.ops)-1])
		}
	case "pull":
		if len(p.ops) > 1 {
			k.net(p.ops[len(p.ops)-1])
		}
	}
}

// compose models docker compose / docker-compose: run and exec run a
// command in a service's container, whose own mounts are not known.
func (k *call) compose(args []field, label string) {
	p := parseOpts(args, spec{arg: "fp", long: []string{"file", "project-name", "project-directory", "profile", "env-file", "ansi", "progress", "parallel"}, stop: true})
	if len(p.ops) == 0 || !p.ops[0].known {
		return
	}
	switch sc := p.ops[0].val; sc {
	case "run", "exec":
		k.containerRun(p.ops[1:], label+" "+sc, true)
	case "down", "rm":
		// -v / --volumes deletes the project's volumes: its data
		if hasArg(p.ops[1:], "-v", "--volumes", "-fv", "-vf", "-sfv") {
			k.tag(TagRemoteDelete)
			k.attr("volumes", "true")
		}
	}
}

func (k *call) aws() {
	p := parseOpts(k.args, spec{long: []string{"profile", "region", "output", "endpoint-url", "query"}, stop: true})
	if len(p.ops) < 2 {
		return
	}
	svc, op := p.ops[0].val, p.ops[1].val
	k.awsRemote(svc, op)
	if svc == "s3" && (op == "rm" || op == "rb") || strings.HasPrefix(op, "delete") || strings.HasPrefix(op, "terminate") || op == "remove" {
		k.tag(TagRemoteDelete)
	}
	if svc == "s3" && (op == "cp" || op == "sync" || op == "mv") && len(p.ops) >= 4 {
		src, dst := p.ops[2], p.ops[3]
		if dst.known && strings.HasPrefix(dst.val, "s3://") && !(src.known && strings.HasPrefix(src.val, "s3://")) {
			k.file(Read, src, true)
			k.tag(TagUpload)
			k.net(dst)
		} else if src.known && strings.HasPrefix(src.val, "s3://") {
			k.net(src)
			if !(dst.known && strings.HasPrefix(dst.val, "s3://")) {
				k.file(Write, dst, true)
			}
		}
		if hasArg(k.args, "--delete") {
			k.tag(TagRemoteDelete)
		}
	}
}

// allKnown reports whether every field is known at check time.
func allKnown(fs []field) bool {
	for _, f := range fs {
		if !f.known {
			return false
		}
	}
	return true
}
