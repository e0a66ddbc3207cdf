package cli

import (
	"errors"
	"fmt"
	"net"
	"sort"
	"syscall"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/daemon"
)

// portChecks says, for each door's listener address this data dir and
// config give `warden serve`, whether it is free, held by this warden, or
// held by something else (which would keep warden serve from starting).
func portChecks(cfg config.Config, dataDir string) []check {
	listeners, err := daemon.Listeners(cfg, nil)
	if err != nil {
		return []check{{Name: "ports", Status: statusFail, Detail: err.Error(), Fix: "fix listeners: in the config file"}}
	}
	var held map[string]string
	pid := 0
	if rt, err := daemon.ReadRuntime(dataDir); err == nil && rt.PID > 0 && syscall.Kill(rt.PID, 0) == nil {
		held, pid = rt.Listeners, rt.PID
	}
	names := make([]string, 0, len(listeners))
	for n := range listeners {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]check, 0, len(names))
	for _, name := range names {
		out = append(out, portCheck(name, listeners[name], held[name], pid))
	}
	return out
}

// portCheck checks one door's address; running is the address this data
// dir's daemon (pid) listens on for that door, "" when none.
func portCheck(name, addr, running string, pid int) check {
	c := check{Name: "port " + name}
	switch {
	case addr == "":
		c.Status, c.Detail = statusOK, "off (no address configured)"
		return c
	case running != "" && sameAddr(addr, running):
		c.Status, c.Detail = statusOK, fmt.Sprintf("%s held by this warden (pid %d)", running, pid)
		return c
	}
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		ln.Close()
		c.Status, c.Detail = statusOK, addr+" free"
		if running != "" {
			c.Detail += fmt.Sprintf(" (the running warden, pid %d, listens on %s: it started with other settings)", pid, running)
		}
		return c
	}
	flag := fmt.Sprintf("--%s-addr", name)
	if errors.Is(err, syscall.EADDRINUSE) {
		c.Status = statusFail
		c.Detail = addr + " is held by another process (perhaps a warden with another data dir)"
		c.Fix = fmt.Sprintf("find it (ss -ltnp 'sport = :%s'; warden status --data-dir DIR), stop it, or give warden another address: warden serve %s 127.0.0.1:PORT, or listeners: {%s: ...} in the config (\"\" switches the door off)", port(addr), flag, name)
		return c
	}
	c.Status, c.Detail = statusFail, fmt.Sprintf("%s cannot be listened on: %v", addr, err)
	c.Fix = fmt.Sprintf("give warden an address it may use: warden serve %s 127.0.0.1:PORT, or listeners: {%s: ...} in the config", flag, name)
	return c
}

// sameAddr reports whether two listener addresses are the same port on
// the same host (":0" and a resolved port never are).
func sameAddr(a, b string) bool {
	ha, pa, err1 := net.SplitHostPort(a)
	hb, pb, err2 := net.SplitHostPort(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	norm := func(h string) string {
		if h == "localhost" {
			return "127.0.0.1"
		}
		return h
	}
	return pa == pb && (norm(ha) == norm(hb) || ha == "" || hb == "")
}

func port(addr string) string {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return p
}
