package shell

import "regexp"

// Credential stores are read through libraries as well as through their
// command-line tools (secret-tool lookup, security find-generic-password
// -w, keyring get): Python's keyring and secretstorage, libsecret through
// GObject (Secret.password_lookup_sync), Windows' credential manager
// (win32cred.CredRead), Node's keytar and @napi-rs/keyring, Go's
// go-keyring, Ruby's and Perl's keyring bindings. Inline code that uses
// such a library to read a secret prints the secret to what the agent
// reads: it is tagged secret.print, as the tools are.

// credStoreLib names a credential-store library in code.
var credStoreLib = regexp.MustCompile(`\b(?:keyring|secretstorage|keytar|libsecret|win32cred|wincred|keychain|Keychain|SecKeychain|go-keyring|kwallet|KWallet|pykeepass|gi\.repository\s+import\s+Secret|Secret\.(?:password_lookup|Service))\b`)

// credStoreRead names a call of such a library that reads a secret.
var credStoreRead = regexp.MustCompile(`\b(?:get_password|get_credential|get_secret|getPassword|findCredentials|findPassword|getCredentials|password_lookup(?:_sync)?|CredRead|CredEnumerate|get_all_items|search_items|find_generic_password|find_internet_password|readPassword|entries|Get|GetPassword)\s*\(|\b(?:generic_passwords|internet_passwords)\b|\bfrom\s+keyring\s+import\s+[^\n;]*\bget_`)

// codeCredStores tags inline code that reads a credential store through
// a library.
func (k *call) codeCredStores(src string) {
	lib := credStoreLib.FindString(src)
	if lib == "" || !credStoreRead.MatchString(src) {
		return
	}
	k.secretPrinted("a credential store read through " + lib)
}
