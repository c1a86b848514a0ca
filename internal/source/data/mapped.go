package data

import (
	"bytes"
	"os"
)

// mapMin is the size from which ReadMapped maps a file instead of reading
// it: below it a read is as cheap as the mapping.
const mapMin = 1 << 20

// Mapped is a file's content, read-only: memory-mapped when the file is
// large (no copy onto the heap, pages shared with the page cache), else
// read. Bytes must not be written to, nor used after Close.
type Mapped struct {
	Bytes []byte
	// Stamp is the file's stamp, taken on the open file the content is
	// read from.
	Stamp Stamp
	unmap func() error
}

// Close releases a mapping (a no-op for content that was read).
func (m *Mapped) Close() error {
	if m.unmap == nil {
		return nil
	}
	err := m.unmap()
	m.Bytes, m.unmap = nil, nil
	return err
}

// ReadMapped returns a file's content as ReadFile would, mapped when it is
// at least a megabyte (see Mapped). Data pull replaces files by renaming,
// so a mapping never sees a file change under it.
func ReadMapped(path string) (*Mapped, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	stamp := StampOf(st)
	if st.Mode().IsRegular() && st.Size() >= mapMin && int64(int(st.Size())) == st.Size() {
		if b, unmap, err := mapFile(f, int(st.Size())); err == nil {
			return &Mapped{Bytes: b, Stamp: stamp, unmap: unmap}, nil
		}
	}
	var b bytes.Buffer
	b.Grow(int(st.Size()) + bytes.MinRead) // one read for a regular file
	if _, err := b.ReadFrom(f); err != nil {
		return nil, err
	}
	return &Mapped{Bytes: b.Bytes(), Stamp: stamp}, nil
}
