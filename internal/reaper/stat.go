package reaper

import (
	"bytes"
	"strconv"
)

// parentOf reads the parent's pid from the text of /proc/PID/stat:
// "pid (comm) state ppid ...", where comm may hold spaces and parentheses
// (so the fields start after the last ')').
func parentOf(stat []byte) (int, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	if err != nil || ppid < 0 {
		return 0, false
	}
	return ppid, true
}
