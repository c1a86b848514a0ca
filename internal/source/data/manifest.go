package data

import (
	"bufio"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

//go:embed manifest.tsv
var manifestTSV string

// File is one pinned upstream file.
type File struct {
	Folder string // subfolder of the data directory (e.g. "tau2-bench")
	Repo   string // GitHub owner/name
	Commit string
	Path   string // path inside the repository
	SHA256 string
	Size   int64
}

// Manifest lists every upstream file ledgerbench uses.
type Manifest struct {
	Files []File
}

// LoadManifest parses the embedded manifest.
func LoadManifest() (*Manifest, error) {
	return ParseManifest(manifestTSV)
}

// ParseManifest parses manifest text (tab-separated, # comments).
func ParseManifest(text string) (*Manifest, error) {
	m := &Manifest{}
	sc := bufio.NewScanner(strings.NewReader(text))
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		cols := strings.Split(t, "\t")
		if len(cols) != 6 {
			return nil, fmt.Errorf("manifest line %d: want 6 tab-separated columns, got %d", line, len(cols))
		}
		size, err := strconv.ParseInt(cols[5], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("manifest line %d: size: %w", line, err)
		}
		if len(cols[4]) != 64 {
			return nil, fmt.Errorf("manifest line %d: sha256 %q is not 64 hex digits", line, cols[4])
		}
		m.Files = append(m.Files, File{Folder: cols[0], Repo: cols[1], Commit: cols[2], Path: cols[3], SHA256: cols[4], Size: size})
	}
	return m, sc.Err()
}

// Text returns the embedded manifest text (its hash identifies the data
// version in run manifests).
func Text() string { return manifestTSV }
