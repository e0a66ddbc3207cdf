package shell

import (
	"path"
	"strings"
)

// A dataTask is one way an application framework or a data CLI destroys
// the data of a database or a store: a run of operand words (in order,
// next to each other; "*" stands for any one word) and, when given, one of
// the flags that must be present too (knex migrate:rollback only destroys
// everything with --all).
type dataTask struct {
	words []string
	flags []string
}

// task makes a dataTask from its words.
func task(words ...string) dataTask { return dataTask{words: words} }

// taskWith makes a dataTask that also needs one of flags.
func taskWith(flags []string, words ...string) dataTask { return dataTask{words: words, flags: flags} }

// appDataTasks are the destructive tasks of application frameworks and
// data CLIs, by program: the concept "drops or resets a database" is
// known at the SQL level (programs_db.go) and here at the level of the
// tools web projects drive their databases with. Each is tagged db.destroy.
var appDataTasks = map[string][]dataTask{
	"prisma":    {task("migrate", "reset"), taskWith([]string{"--force-reset"}, "db", "push")},
	"rails":     {task("db:drop"), task("db:reset"), task("db:purge"), task("db:migrate:reset"), task("db:schema:load"), task("db:truncate_all"), task("db:seed:replant")},
	"knex":      {taskWith([]string{"--all"}, "migrate:rollback"), task("migrate:down")},
	"alembic":   {task("downgrade", "base")},
	"flask":     {task("db", "downgrade", "base")},
	"sequelize": {task("db:drop"), task("db:migrate:undo:all"), task("db:seed:undo:all")},
	"mix":       {task("ecto.drop"), task("ecto.reset"), taskWith([]string{"--all"}, "ecto.rollback")},
	"supabase":  {task("db", "reset")},
	"typeorm":   {task("schema:drop")},
	"flyway":    {task("clean")},
	"liquibase": {task("drop-all"), task("dropAll")},
	"dbmate":    {task("drop")},
	"goose":     {task("reset"), task("down-to", "0")},
	"diesel":    {task("database", "reset")},
	"sqlx":      {task("database", "drop"), task("database", "reset")},
	"etcdctl":   {taskWith([]string{"--prefix", "--from-key"}, "del"), taskWith([]string{"--prefix", "--from-key"}, "delete")},
	"bq":        {task("rm")},
	"manage.py": {task("flush"), task("reset_db"), task("migrate", "*", "zero")},
	"artisan":   {task("migrate:fresh"), task("migrate:reset"), task("migrate:refresh"), task("db:wipe")},
	"cbt":       {task("deletetable"), task("deleteinstance")},
	"influx":    {task("bucket", "delete"), task("delete")},
}

// appDataAlias maps other names of the same tool to its tasks.
var appDataAlias = map[string]string{"rake": "rails", "sequelize-cli": "sequelize", "typeorm-ts-node-commonjs": "typeorm", "typeorm-ts-node-esm": "typeorm"}

// appDataPrograms declares application frameworks and data CLIs whose
// tasks destroy data (prisma migrate reset, rails db:drop, etcdctl del
// --prefix, bq rm, python manage.py flush and php artisan migrate:fresh
// through their scripts).
func appDataPrograms() []program {
	var names []string
	for n := range appDataTasks {
		names = append(names, n)
	}
	for n := range appDataAlias {
		names = append(names, n)
	}
	return []program{
		{names: names, model: func(k *call) { k.appData(k.name, k.args) },
			examples: []example{
				ex("npx prisma migrate reset --skip-seed", "tag db.destroy"),
				ex("npx prisma migrate dev", "!tag db.destroy"),
				ex("rake db:drop db:create", "tag db.destroy"),
				ex("bin/rails db:schema:load", "tag db.destroy"),
				ex("bin/rails db:migrate", "!tag db.destroy"),
				ex("pnpm exec knex migrate:rollback --all --env staging", "tag db.destroy"),
				ex("knex migrate:rollback", "!tag db.destroy"),
				ex("alembic -c alembic.ini downgrade base", "tag db.destroy"),
				ex("alembic downgrade -1", "!tag db.destroy"),
				ex("sequelize-cli db:migrate:undo:all", "tag db.destroy"),
				ex("MIX_ENV=test mix ecto.reset", "tag db.destroy"),
				ex("mix ecto.migrate", "!tag db.destroy"),
				ex("supabase db reset", "tag db.destroy"),
				ex("flyway -url=jdbc:x clean", "tag db.destroy"),
				ex("etcdctl del --from-key a", "tag db.destroy"),
				ex("etcdctl del /app/one", "!tag db.destroy"),
				ex("bq rm -t ds.events", "tag db.destroy"),
				ex("bq ls", "!tag db.destroy"),
				ex("goose -dir db postgres x down-to 0", "tag db.destroy"),
				ex("python3 manage.py flush --noinput", "tag db.destroy"),
				ex("python manage.py migrate shop zero", "tag db.destroy"),
				ex("python manage.py migrate", "!tag db.destroy"),
				ex("./manage.py reset_db", "tag db.destroy"),
				ex("php artisan db:wipe --force", "tag db.destroy"),
				ex("php artisan migrate", "!tag db.destroy")}},
	}
}

// appScript judges a framework's task runner run as a script of its
// interpreter (python manage.py flush, php artisan db:wipe).
func (k *call) appScript(script field, rest []field) {
	if !script.known {
		return
	}
	if b := path.Base(script.val); b == "manage.py" || b == "artisan" {
		k.appData(b, rest)
	}
}

// appData tags db.destroy when the operands of a call of tool (its
// arguments args) spell one of the tool's destructive tasks.
func (k *call) appData(tool string, args []field) {
	if a, ok := appDataAlias[tool]; ok {
		tool = a
	}
	var ops []string
	var flags []string
	for _, f := range args {
		if !f.known {
			ops = append(ops, "\x00")
			continue
		}
		if strings.HasPrefix(f.val, "-") && len(f.val) > 1 {
			name, _, _ := strings.Cut(f.val, "=")
			flags = append(flags, name)
			continue
		}
		ops = append(ops, f.val)
	}
	for _, t := range appDataTasks[tool] {
		if len(t.flags) > 0 && !anyIn(flags, t.flags) {
			continue
		}
		if hasRun(ops, t.words) {
			k.dbDestroy(tool + " " + strings.Join(t.words, " "))
			return
		}
	}
}

// hasRun reports whether words occur in ops next to each other, in order
// ("*" matches any one word).
func hasRun(ops, words []string) bool {
	for i := 0; i+len(words) <= len(ops); i++ {
		ok := true
		for j, w := range words {
			if w != "*" && ops[i+j] != w {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// anyIn reports whether any of want is in have.
func anyIn(have, want []string) bool {
	for _, w := range want {
		if contains(have, w) {
			return true
		}
	}
	return false
}
