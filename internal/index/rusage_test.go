package index

import (
	"syscall"
	"time"
)

// syscallRusage is the process's CPU time so far (children included: ctags).
type syscallRusage struct{ self, children syscall.Rusage }

func getRusage(r *syscallRusage) {
	syscall.Getrusage(syscall.RUSAGE_SELF, &r.self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &r.children)
}

func tv(t syscall.Timeval) time.Duration {
	return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
}

func (r syscallRusage) cpu() time.Duration {
	return tv(r.self.Utime) + tv(r.self.Stime) + tv(r.children.Utime) + tv(r.children.Stime)
}
