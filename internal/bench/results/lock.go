package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LockFile is the file in a run directory that the process writing the run
// holds an exclusive lock on (and whose content is its pid).
const LockFile = "run.lock"

// ErrLocked is wrapped by Lock's error when another process holds the run
// directory.
var ErrLocked = errors.New("run directory in use")

// DirLock is an exclusive lock on a run directory, held until Unlock or the
// end of the process (the operating system releases it then, also after a
// crash or SIGKILL).
type DirLock struct {
	f *os.File
}

// Lock takes the exclusive lock on run directory dir, creating the directory
// when it does not exist. When another process holds it, the error wraps
// ErrLocked and names that process's pid: two processes appending to one
// simulations.jsonl (a run resumed twice, a requeued array task) would
// interleave their records.
func Lock(dir string) (*DirLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock run directory: %w", err)
	}
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock run directory: %w", err)
	}
	ok, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock run directory %s: %w", dir, err)
	}
	if !ok {
		b, _ := os.ReadFile(path)
		f.Close()
		holder := "another process"
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			holder = "process " + strconv.Itoa(pid)
		}
		return nil, fmt.Errorf("%w: %s is being written by %s (ledgerbench); wait for it to end, or stop it, before running into it again", ErrLocked, dir, holder)
	}
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock run directory %s: %w", dir, err)
		}
	}
	return &DirLock{f: f}, nil
}

// Unlock releases the lock (nil-safe; a second call does nothing).
func (l *DirLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the descriptor releases the lock
	l.f = nil
	return err
}
