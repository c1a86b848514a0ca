package data

import "os"

// mapMin is the size from which ReadMapped maps a file instead of reading
// it: below it a read is as cheap as the mapping.
const mapMin = 1 << 20

// Mapped is a file's content, read-only: memory-mapped when the file is
// large (no copy onto the heap, pages shared with the page cache), else
// read. Bytes must not be written to, nor used after Close.
type Mapped struct {
	Bytes []byte
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
	if st.Mode().IsRegular() && st.Size() >= mapMin && int64(int(st.Size())) == st.Size() {
		if b, unmap, err := mapFile(f, int(st.Size())); err == nil {
			return &Mapped{Bytes: b, unmap: unmap}, nil
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &Mapped{Bytes: b}, nil
}
