package shell

import (
	"path"
	"strings"
)

// Caches named by their tool. A package manager or build tool asked where
// its cache is (go env GOCACHE, npm config get cache, pip cache dir, yarn
// cache dir, …) prints that directory, so $(go env GOCACHE) is the cache
// as ~/.cache/go-build is: rm -rf "$(go env GOCACHE)" is judged as the
// literal path (a cache delete, allowed), and "$(go env GOCACHE)/../.."
// where it lands. Where the tool looks is its variables first: one the
// line sets is used when known and makes the answer unknown otherwise; a
// query not in the table stays a substitution not known at check time.

// cacheQuery is one way to ask a tool for its cache directory.
type cacheQuery struct {
	argv []string // the query's argv, program first
	vars []string // variables that move the cache, in the order the tool reads them; "X/sub" is $X/sub
	home string   // the default, below the home directory
	mac  string   // the default on macOS, when it differs
}

// cacheQueries are the queries known.
var cacheQueries = []cacheQuery{
	{argv: []string{"go", "env", "GOCACHE"}, vars: []string{"GOCACHE", "XDG_CACHE_HOME/go-build"}, home: ".cache/go-build", mac: "Library/Caches/go-build"},
	{argv: []string{"go", "env", "GOMODCACHE"}, vars: []string{"GOMODCACHE", "GOPATH/pkg/mod"}, home: "go/pkg/mod"},
	{argv: []string{"npm", "config", "get", "cache"}, vars: []string{"npm_config_cache", "NPM_CONFIG_CACHE"}, home: ".npm"},
	{argv: []string{"npm", "get", "cache"}, vars: []string{"npm_config_cache", "NPM_CONFIG_CACHE"}, home: ".npm"},
	{argv: []string{"pip", "cache", "dir"}, vars: []string{"PIP_CACHE_DIR", "XDG_CACHE_HOME/pip"}, home: ".cache/pip", mac: "Library/Caches/pip"},
	{argv: []string{"pip3", "cache", "dir"}, vars: []string{"PIP_CACHE_DIR", "XDG_CACHE_HOME/pip"}, home: ".cache/pip", mac: "Library/Caches/pip"},
	{argv: []string{"python", "-m", "pip", "cache", "dir"}, vars: []string{"PIP_CACHE_DIR", "XDG_CACHE_HOME/pip"}, home: ".cache/pip", mac: "Library/Caches/pip"},
	{argv: []string{"python3", "-m", "pip", "cache", "dir"}, vars: []string{"PIP_CACHE_DIR", "XDG_CACHE_HOME/pip"}, home: ".cache/pip", mac: "Library/Caches/pip"},
	{argv: []string{"uv", "cache", "dir"}, vars: []string{"UV_CACHE_DIR", "XDG_CACHE_HOME/uv"}, home: ".cache/uv", mac: "Library/Caches/uv"},
	{argv: []string{"yarn", "cache", "dir"}, vars: []string{"YARN_CACHE_FOLDER", "XDG_CACHE_HOME/yarn"}, home: ".cache/yarn", mac: "Library/Caches/Yarn"},
	{argv: []string{"pnpm", "store", "path"}, vars: []string{"PNPM_HOME", "XDG_DATA_HOME/pnpm/store"}, home: ".local/share/pnpm/store", mac: "Library/pnpm/store"},
	{argv: []string{"poetry", "config", "cache-dir"}, vars: []string{"POETRY_CACHE_DIR", "XDG_CACHE_HOME/pypoetry"}, home: ".cache/pypoetry", mac: "Library/Caches/pypoetry"},
	{argv: []string{"composer", "config", "cache-dir"}, vars: []string{"COMPOSER_CACHE_DIR", "COMPOSER_HOME/cache", "XDG_CACHE_HOME/composer"}, home: ".cache/composer"},
	{argv: []string{"brew", "--cache"}, vars: []string{"HOMEBREW_CACHE", "XDG_CACHE_HOME/Homebrew"}, home: ".cache/Homebrew", mac: "Library/Caches/Homebrew"},
	{argv: []string{"ccache", "--get-config", "cache_dir"}, vars: []string{"CCACHE_DIR", "XDG_CACHE_HOME/ccache"}, home: ".cache/ccache", mac: "Library/Caches/ccache"},
}

// cacheDir is the directory a cache query prints, as a field: the cache's
// path when it is known, a value not known at check time when the line
// moved it somewhere not known. ok is false for any other command.
func (a *analyzer) cacheDir(st *state, argv []string) (field, bool) {
	if a.opts.Home == "" || st.ctr != nil || st.remote != "" {
		return field{}, false
	}
	for _, q := range cacheQueries {
		if len(argv) != len(q.argv) {
			continue
		}
		same := true
		for i, w := range q.argv {
			if argv[i] != w {
				same = false
				break
			}
		}
		if !same {
			continue
		}
		for _, v := range q.vars {
			name, rest, _ := strings.Cut(v, "/")
			_, set := st.vars[name]
			if _, env := a.opts.Env[name]; !set && !env {
				continue
			}
			f := a.lookup(st, name)
			if !f.known || f.val == "" || !strings.HasPrefix(f.val, "/") {
				return unknownField(name + ", which moves " + q.argv[0] + "'s cache, is not known at check time"), true
			}
			return field{val: path.Join(f.val, rest), known: true, subst: true}, true
		}
		def := q.home
		if q.mac != "" && strings.HasPrefix(a.opts.Home, "/Users/") {
			def = q.mac
		}
		return field{val: path.Join(a.opts.Home, def), known: true, subst: true}, true
	}
	return field{}, false
}
