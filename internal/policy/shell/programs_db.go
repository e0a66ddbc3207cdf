package shell

import (
	"path"
	"regexp"
	"strings"
)

// dbPrograms declares database clients: the statements they are given
// (inline, on stdin, in a file written earlier in the line) are read as
// SQL (or the shell's JavaScript for MongoDB, commands for Redis), however
// spelled, and the destructive ones are tagged db.destroy.
func dbPrograms() []program {
	return []program{
		{names: []string{"psql"}, model: func(k *call) {
			k.sqlClient(spec{arg: "cdfhpUvoLPTFRAX", long: []string{"command", "dbname", "file", "host", "port", "username", "set", "variable", "output", "log-file", "pset"}}, []string{"c", "command"}, []string{"f", "file"})
		}, examples: []example{
			ex("psql -c 'drop   table users'", "tag db.destroy"),
			ex("psql -c \"DELETE FROM users WHERE id = 3\"", "!tag db.destroy"),
			ex("echo 'DROP TABLE users;' | psql prod", "tag db.destroy", "attr statement=DROP TABLE USERS"),
			ex("psql mydb <<< 'TRUNCATE logs'", "tag db.destroy"),
			ex("psql -c 'SELECT 1; /* x */ drop/**/table t'", "tag db.destroy"),
			ex("printf 'select 1' > q.sql && psql -f q.sql", "!tag db.destroy"),
			ex("printf 'delete from t' > q.sql && psql -f q.sql", "tag db.destroy"),
			ex("psql -c 'select count(*) from users'", "!tag db.destroy")}},
		{names: []string{"mysql", "mariadb"}, model: func(k *call) {
			k.sqlClient(spec{arg: "eDhPuSpo", long: []string{"execute", "database", "host", "port", "user", "socket", "init-command", "defaults-file"}}, []string{"e", "execute", "init-command"}, nil)
		}, examples: []example{
			ex("mysql -e 'DELETE FROM users'", "tag db.destroy"),
			ex("mysql -e 'delete from users where id=1'", "!tag db.destroy"),
			ex("mysql app -e \"update users set admin=1\"", "tag db.destroy"),
			ex("mysql -e 'show tables'", "!tag db.destroy")}},
		{names: []string{"sqlite3", "duckdb"}, model: (*call).sqliteClient, examples: []example{
			ex("sqlite3 app.db 'DROP TABLE users'", "tag db.destroy"),
			ex("sqlite3 app.db .tables", "!tag db.destroy", "read /home/u/proj/app.db"),
			ex("duckdb x.duckdb -c 'truncate t'", "tag db.destroy")}},
		{names: []string{"sqlcmd", "clickhouse-client", "clickhouse", "cqlsh", "snowsql", "usql", "trino", "presto"}, model: func(k *call) {
			k.sqlClient(spec{arg: "QqiedSUPfhu", long: []string{"query", "execute", "file", "database", "server", "host", "user", "password", "keyspace"}}, []string{"Q", "q", "query", "e", "execute"}, []string{"i", "f", "file"})
		}, examples: []example{ex("sqlcmd -S db -Q 'DROP DATABASE shop'", "tag db.destroy"), ex("clickhouse-client --query='TRUNCATE TABLE hits'", "tag db.destroy"),
			ex("cqlsh -e 'DROP KEYSPACE app'", "tag db.destroy")}},
		{names: []string{"mongosh", "mongo"}, model: (*call).mongoClient, examples: []example{
			ex("mongosh app --eval 'db.dropDatabase()'", "tag db.destroy"),
			ex("mongosh --eval 'db.users.deleteMany({})'", "tag db.destroy"),
			ex("mongosh --eval 'db.users.find().count()'", "!tag db.destroy")}},
		{names: []string{"redis-cli"}, model: (*call).redisClient, examples: []example{
			ex("redis-cli -h cache FLUSHALL", "tag db.destroy"), ex("redis-cli flushdb async", "tag db.destroy"), ex("redis-cli GET k", "!tag db.destroy")}},
		{names: []string{"mysqladmin"}, model: func(k *call) {
			for _, f := range k.args {
				if f.known && (strings.EqualFold(f.val, "drop") || strings.EqualFold(f.val, "purge")) {
					k.dbDestroy("mysqladmin " + strings.ToLower(f.val))
				}
			}
		}, examples: []example{ex("mysqladmin -f drop shop", "tag db.destroy"), ex("mysqladmin status", "!tag db.destroy")}},
		{names: []string{"dropdb", "dropuser"}, model: func(k *call) { k.dbDestroy(k.name) },
			examples: []example{ex("dropdb -h db1 shop", "tag db.destroy")}},
	}
}

// sqlClient reads the SQL a client is given: the values of codeOpts, the
// files of fileOpts (when written earlier in the line), and its stdin.
func (k *call) sqlClient(s spec, codeOpts, fileOpts []string) {
	p := parseOpts(k.args, s)
	var code []string
	for _, f := range p.all(codeOpts...) {
		if f.known {
			code = append(code, f.val)
		}
	}
	for _, f := range p.all(fileOpts...) {
		k.file(Read, f, false)
		if txt, ok := k.writtenText(f); ok {
			code = append(code, txt)
		}
	}
	code = append(code, k.stdinText()...)
	k.sqlFiles(code)
	for _, c := range code {
		if st, ok := sqlDestroys(c); ok {
			k.dbDestroy(st)
			return
		}
	}
}

// sqliteClient models sqlite3 and duckdb: DB [SQL...], -cmd and -c SQL.
func (k *call) sqliteClient() {
	p := parseOpts(k.args, spec{arg: "cs", long: []string{"cmd", "separator", "nullvalue", "newline", "init"}})
	var code []string
	for _, f := range append(p.all("c", "cmd"), p.ops[min(1, len(p.ops)):]...) {
		if f.known {
			code = append(code, f.val)
		}
	}
	if len(p.ops) > 0 {
		k.file(Read, p.ops[0], false)
	}
	code = append(code, k.stdinText()...)
	k.sqlFiles(code)
	for _, c := range code {
		if st, ok := sqlDestroys(c); ok {
			k.dbDestroy(st)
			return
		}
	}
}

// mongoClient reads the shell code mongosh is given (--eval, stdin).
func (k *call) mongoClient() {
	p := parseOpts(k.args, spec{arg: "uph", long: []string{"eval", "file", "host", "port", "username", "password", "authenticationDatabase"}})
	code := k.stdinText()
	for _, f := range p.all("eval") {
		if f.known {
			code = append(code, f.val)
		}
	}
	for _, c := range code {
		if m := mongoDestroy.FindString(c); m != "" {
			k.dbDestroy(m)
			return
		}
	}
}

var mongoDestroy = regexp.MustCompile(`\.\s*(dropDatabase|drop|dropCollection|dropIndexes)\s*\(|\.\s*(deleteMany|remove)\s*\(\s*\{\s*\}\s*\)`)

// redisClient tags the commands that empty a Redis database.
func (k *call) redisClient() {
	p := parseOpts(k.args, spec{arg: "hpansuc", long: []string{"user", "pass", "tls", "cacert"}})
	code := k.stdinText()
	if len(p.ops) > 0 && p.ops[0].known {
		code = append(code, p.ops[0].val)
	}
	for _, c := range code {
		for _, w := range strings.Fields(c) {
			if u := strings.ToUpper(w); u == "FLUSHALL" || u == "FLUSHDB" {
				k.dbDestroy(u)
				return
			}
		}
	}
}

// stdinText is the client's standard input when it is known text (a
// here-document, a here-string, echo piped in, a file written earlier).
func (k *call) stdinText() []string {
	var out []string
	if in := k.c.stdin; in.literal {
		out = append(out, in.text)
	}
	for _, e := range k.ro.effs {
		if e.Kind == Read && !e.Unknown && e.Target != "" {
			if txt, ok := k.a.written[e.Target]; ok {
				out = append(out, txt)
			}
		}
	}
	return out
}

// writtenText is the content of file f when it was written earlier in the
// line with known content.
func (k *call) writtenText(f field) (string, bool) {
	if !f.known || k.st.dir == "" && !strings.HasPrefix(f.val, "/") {
		return "", false
	}
	p := f.val
	if !strings.HasPrefix(p, "/") {
		p = path.Join(k.st.dir, p)
	}
	txt, ok := k.a.written[path.Clean(p)]
	return txt, ok
}

// dbDestroy tags a statement that destroys data.
func (k *call) dbDestroy(stmt string) {
	k.tag(TagDBDestroy)
	if len(stmt) > 120 {
		stmt = stmt[:120]
	}
	k.attr("statement", stmt)
}

var (
	sqlComment = regexp.MustCompile(`(?s)/\*.*?\*/|--[^\n]*|#[^\n]*`)
	sqlSpace   = regexp.MustCompile(`\s+`)
	sqlDrop    = regexp.MustCompile(`^(DROP\s+(TABLE|DATABASE|SCHEMA|USER|ROLE|VIEW|MATERIALIZED\s+VIEW|COLLECTION|KEYSPACE|OWNED|SEQUENCE|TABLESPACE)\b|TRUNCATE\b|ALTER\s+TABLE\s+.*\bDROP\b)`)
	sqlDelete  = regexp.MustCompile(`^(DELETE\s+(FROM\s+)?|UPDATE\s+.*\bSET\b)`)
	sqlWhere   = regexp.MustCompile(`\bWHERE\b`)
	sqlTrivial = regexp.MustCompile(`\bWHERE\s+(1\s*=\s*1|TRUE|1|'1'\s*=\s*'1'|NOT\s+FALSE)\s*$`)
)

// sqlDestroys reports the first statement of sql that destroys data: DROP
// of a table, database, schema, user...; TRUNCATE; ALTER TABLE ... DROP;
// DELETE or UPDATE with no WHERE (or a WHERE that always holds). Case,
// spacing and comments do not matter (/**/ between words is a space).
func sqlDestroys(sql string) (string, bool) {
	if len(sql) > maxLiteral {
		sql = sql[:maxLiteral]
	}
	sql = strings.ReplaceAll(sql, "/*!", " ") // MySQL's executable comments run
	sql = sqlComment.ReplaceAllString(sql, " ")
	for _, st := range strings.Split(sql, ";") {
		st = strings.TrimSpace(sqlSpace.ReplaceAllString(strings.ToUpper(st), " "))
		st = strings.Trim(st, "\"'`() ")
		switch {
		case st == "":
		case sqlDrop.MatchString(st):
			return st, true
		case sqlDelete.MatchString(st) && (!sqlWhere.MatchString(st) || sqlTrivial.MatchString(st)):
			return st, true
		}
	}
	return "", false
}
