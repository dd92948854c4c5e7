package s3

import "syscall"

// procAttr starts the server in a process group of its own, so Stop ends
// whatever it started, and has the kernel end it if the test process dies
// first (a test binary killed by its timeout).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func killGroup(pid int, sig syscall.Signal) { syscall.Kill(-pid, sig) }
