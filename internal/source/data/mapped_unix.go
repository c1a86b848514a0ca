//go:build unix

package data

import (
	"os"
	"syscall"
)

// mapFile maps n bytes of f read-only, populating the pages up front.
func mapFile(f *os.File, n int) ([]byte, func() error, error) {
	b, err := syscall.Mmap(int(f.Fd()), 0, n, syscall.PROT_READ, syscall.MAP_SHARED|mapPopulate)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}
