package sandbox

import (
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a process group of its own, killed whole when the
// command's context ends and when ledgerbench dies.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
