package control

// serviceMethods are the methods backed by external programs: terminals,
// git, search and debuggers.
func serviceMethods() map[string]method {
	t := map[string]method{}
	for _, part := range []map[string]method{terminalMethods(), gitMethods(), searchMethods(), indexMethods(), debugMethods()} {
		for k, v := range part {
			t[k] = v
		}
	}
	return t
}
