//go:build unix && !linux

package s3

import "syscall"

// procAttr starts the server in a process group of its own, so Stop ends
// whatever it started.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func killGroup(pid int, sig syscall.Signal) { syscall.Kill(-pid, sig) }
