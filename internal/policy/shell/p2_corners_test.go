package shell

import "testing"

// TestNamerefs: a name reference (declare -n, local -n, typeset -n) is the
// variable it names: its expansions read that variable, its assignments
// write it, and a reference declared without a value names its variable
// at its first assignment, as bash does.
func TestNamerefs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`declare -n h=HOME; rm -r "$h"/Music`, []string{"delete:r /home/u/Music"}},
		{`typeset -n h=HOME; cp x "${h}/.profile"`, []string{"write /home/u/.profile"}},
		{`g(){ local -n p=HOME; shred -u "$p/.netrc"; }; g`, []string{"delete /home/u/.netrc"}},
		{`declare -rn h=HOME; rm -rf $h/src`, []string{"delete:r /home/u/src"}},
		{`declare -n r; r=HOME; rm -rf "$r/notes"`, []string{"delete:r /home/u/notes"}},
		{`declare -n r=D; D=/etc; rm -rf "$r/ssl"`, []string{"delete:r /etc/ssl"}},
		{`declare -n r=D; r=/srv; rm -rf "$D"/www`, []string{"delete:r /srv/www"}},
		{`declare -n a=b; declare -n b=a; rm -rf "$a/x"`, []string{"!delete:r /home/u/x"}},
		{`declare -n r="$1"; rm -rf "$r/x"`, []string{"delete:r ?"}},
		{`declare -n r=PWD; rm -rf "$r/build"`, []string{"delete:r /home/u/proj/build"}},
		{`export -n PATH; rm -rf build`, []string{"delete:r /home/u/proj/build"}},
	} {
		expectAll(t, c.in, c.want)
	}
}

// TestHashP: hash -p FILE NAME makes NAME run FILE later in the shell. A
// file the line wrote is judged by its content; any other file but the
// program's own is code not known at check time.
func TestHashP(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`hash -p /opt/x/helper git; git status`, []string{"tag dynamic-exec", "exec /opt/x/helper"}},
		{`hash -p ./bin/fake make`, []string{"tag dynamic-exec"}},
		{`hash -p /usr/bin/git git`, []string{"!tag dynamic-exec"}},
		{`echo 'rm -rf ~/Music' > /tmp/m; hash -p /tmp/m ls; ls`, []string{"delete:r /home/u/Music"}},
		{`hash -r; hash git`, []string{"!tag dynamic-exec"}},
	} {
		expectAll(t, c.in, c.want)
	}
}

// TestValuesFollowed: values reach commands through more than
// assignments: indirect expansion (${!x}), printf -v, read from a
// here-string, set --, a substring at known offsets, and a function's
// arguments (its positional parameters when it is called).
func TestValuesFollowed(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`v=HOME; rm -r "${!v}/Videos"`, []string{"delete:r /home/u/Videos"}},
		{`v=X; rm -r "${!v}/Videos"`, []string{"delete:r ?"}},
		{`printf -v t '%s/%s' "$HOME" Videos; rm -r "$t"`, []string{"delete:r /home/u/Videos"}},
		{`read -r t <<< "$HOME/Videos"; rm -r "$t"`, []string{"delete:r /home/u/Videos"}},
		{`read -r a b <<< "/srv /opt"; rm -r "$b"`, []string{"delete:r /opt"}},
		{`read -r t; rm -r "$t"`, []string{"delete:r ?"}},
		{`set -- /var/www; rm -r "$1"`, []string{"delete:r /var/www"}},
		{`set -- rm -r ~/Videos; "$@"`, []string{"delete:r /home/u/Videos"}},
		{`set -eu; rm -r "$1"`, []string{"delete:r ?"}},
		{`h=${HOME:0:64}; rm -r "$h/Videos"`, []string{"delete:r /home/u/Videos"}},
		{`p=/x/home/u; rm -r "${p:2}/Videos"`, []string{"delete:r /home/u/Videos"}},
		{`wipe() { rm -r "$1"; }; wipe ~/Videos`, []string{"delete:r /home/u/Videos"}},
		{`wipe() { local d=$1; shred -u "$d"/*.key; }; wipe /etc/ssl`, []string{"delete /etc/ssl"}},
		{`loop() { loop "$@"; }; loop x`, []string{"cmd loop", "!delete"}},
	} {
		expectAll(t, c.in, c.want)
	}
}

// TestArrays: an indexed array assigned a list is its elements: "${a[@]}"
// is one field each, ${a[@]} splits them again, ${a[i]} is one, a+=(…)
// appends; arrays assigned by index or with keys are values not known.
func TestArrays(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`c=(rm -r ~/Videos); "${c[@]}"`, []string{"delete:r /home/u/Videos"}},
		{`c=(shred -u); c+=(/etc/ssl/k.pem); ${c[@]}`, []string{"delete /etc/ssl/k.pem"}},
		{`d=(a ~/Videos b); rm -r "${d[1]}"`, []string{"delete:r /home/u/Videos"}},
		{`d=(a b ~/Videos); rm -r "${d[2]}"`, []string{"delete:r /home/u/Videos"}},
		{`local -a o=(-r "$HOME/Videos"); rm "${o[@]}"`, []string{"delete:r /home/u/Videos"}},
		{`t=(build dist); rm -rf "${t[@]}"`, []string{"delete:r /home/u/proj/build", "delete:r /home/u/proj/dist"}},
		{`n=(x y z); echo ${#n[@]}`, []string{"argv echo 3"}},
		{`c=(); c[0]=rm; "${c[@]}" -r ~`, []string{"tag dynamic-command"}},
		{`declare -A m=([k]=v); rm -r "${m[k]}"`, []string{"delete:r ?"}},
	} {
		expectAll(t, c.in, c.want)
	}
}

// TestKnownOutputs: tr of known text (rot13, case folding, deletion) is a
// re-encoding whose output is known, as base64 -d is; a command
// substitution whose commands print nothing but the last (cd ~ && pwd)
// is what the last prints.
func TestKnownOutputs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`echo 'ez -e ~/Zhfvp' | tr 'A-Za-z' 'N-ZA-Mn-za-m' | sh`, []string{"delete:r /home/u/Music"}},
		{`printf 'RM -R /SRV\n' | tr '[:upper:]' '[:lower:]' | bash`, []string{"delete:r /srv"}},
		{`echo 'r.m -r /o.pt' | tr -d . | sh`, []string{"delete:r /opt"}},
		{`echo 'ls' | tr -s l | sh`, []string{"tag dynamic-exec"}},
		{`rm -r "$(cd ~ && pwd)/Music"`, []string{"delete:r /home/u/Music"}},
		{`d=$(cd /srv; pwd); rm -r "$d/www"`, []string{"delete:r /srv/www"}},
		{`rm -r "$(cd /srv; echo www)"`, []string{"delete:r /home/u/proj/www"}},
		{`rm -r "$(cd /srv | pwd)/x"`, []string{"delete:r ?"}},
	} {
		expectAll(t, c.in, c.want)
	}
}
