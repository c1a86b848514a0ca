// Package atomicfile writes files atomically: readers of a path see either
// its old content or the complete new one, never a partial write, even when
// the process dies half-way.
//
// A write goes to a temporary file in the destination's directory (so the
// rename stays on one file system), which is synced, given Mode and renamed
// over the destination; the directory is then synced where the platform
// supports it, so the rename itself survives a crash. On failure the
// temporary file is removed and the destination is left as it was.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// Mode is the permission of every file written here. It is set explicitly,
// so the umask does not change it.
const Mode fs.FileMode = 0o644

// Write replaces path's content with b.
func Write(path string, b []byte) error {
	return WriteFunc(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// WriteFunc replaces path's content with what fill writes. When fill returns
// an error, path is left untouched and that error is returned as it is (fill
// may verify what it wrote, e.g. a size or a checksum, and refuse it).
// Errors of the write itself name the path.
func WriteFunc(path string, fill func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	defer func() {
		if err != nil {
			os.Remove(name)
		}
	}()
	if err := fill(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := errors.Join(tmp.Chmod(Mode), tmp.Sync(), tmp.Close()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("write %s: sync directory: %w", path, err)
	}
	return nil
}

// syncDir makes a rename in dir durable. Windows cannot open a directory
// for syncing; there the rename is as durable as the file system makes it.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	serr := d.Sync()
	cerr := d.Close()
	// Some file systems answer fsync on a directory with EINVAL: syncing
	// it is not supported there.
	if serr != nil && !errors.Is(serr, errors.ErrUnsupported) && !errors.Is(serr, syscall.EINVAL) {
		return serr
	}
	return cerr
}
