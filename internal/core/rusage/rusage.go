// Package rusage reads the CPU time and peak memory the operating system
// counts for a process, where it counts them (Unix); elsewhere it reports
// that it cannot. Benchmarks and load tests report CPU time beside wall
// time with it: on a shared machine the steadier measure.
package rusage

import (
	"os"
	"time"
)

// Usage is what the system counted for a process.
type Usage struct {
	CPU  time.Duration // user and system time, every thread
	Peak int64         // the largest resident set, in bytes
}

// Self is the calling process's usage so far; ok is false where the
// system does not count it.
func Self() (u Usage, ok bool) { return self() }

// Of is a finished process's usage (os.ProcessState.SysUsage); ok is
// false where the system does not count it.
func Of(ps *os.ProcessState) (u Usage, ok bool) { return of(ps) }

// CPU is the calling process's CPU time so far (Self's), 0 where the
// system does not count it.
func CPU() time.Duration {
	u, _ := self()
	return u.CPU
}
