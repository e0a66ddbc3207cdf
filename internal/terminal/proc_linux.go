package terminal

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// blockUntilExited waits until the child pid has exited, without reaping it
// (waitid with WNOWAIT), so its id cannot be reused while we may signal it.
func blockUntilExited(pid int) {
	const pPID = 1 // P_PID
	var siginfo [128]byte
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&siginfo)), syscall.WEXITED|0x1000000 /* WNOWAIT */, 0, 0)
		if e != syscall.EINTR {
			return
		}
	}
}

// sessionMembers lists the processes whose session id is sid, from /proc.
func sessionMembers(sid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session ...; comm may hold spaces and ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) < 4 {
			continue
		}
		if s, err := strconv.Atoi(string(f[3])); err == nil && s == sid {
			pids = append(pids, pid)
		}
	}
	return pids
}
