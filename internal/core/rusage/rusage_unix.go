//go:build unix

package rusage

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

func self() (Usage, bool) {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return Usage{}, false
	}
	return usage(&r), true
}

func of(ps *os.ProcessState) (Usage, bool) {
	r, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || r == nil {
		return Usage{}, false
	}
	return usage(r), true
}

func usage(r *syscall.Rusage) Usage {
	// ru_maxrss is in bytes on Darwin and in kilobytes on the other
	// Unixes.
	peak := int64(r.Maxrss)
	if runtime.GOOS != "darwin" && runtime.GOOS != "ios" {
		peak *= 1024
	}
	return Usage{CPU: time.Duration(r.Utime.Nano() + r.Stime.Nano()), Peak: peak}
}
