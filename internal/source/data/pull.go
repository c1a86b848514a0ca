package data

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/atomicfile"
)

// Source says where pull reads files from.
type Source struct {
	// Dir, if set, is a local folder with one subfolder per upstream
	// repository (tau2-bench/, tau-trait/), each laid out like the repository.
	Dir string
	// BaseURL, if set, is fetched as BaseURL/<folder>/<path>. When neither is
	// set, files come from GitHub at the pinned commits.
	BaseURL string
	// Client is the HTTP client for remote sources (nil: http.DefaultClient).
	Client *http.Client
}

// ParseSource reads a --from value: an http(s) URL or a folder.
func ParseSource(from string) Source {
	if strings.HasPrefix(from, "http://") || strings.HasPrefix(from, "https://") {
		return Source{BaseURL: strings.TrimSuffix(from, "/")}
	}
	return Source{Dir: from}
}

func (s Source) describe() string {
	switch {
	case s.Dir != "":
		return s.Dir
	case s.BaseURL != "":
		return s.BaseURL
	}
	return "GitHub (pinned commits)"
}

func (s Source) open(ctx context.Context, f File) (io.ReadCloser, error) {
	if s.Dir != "" {
		return os.Open(filepath.Join(s.Dir, f.Folder, filepath.FromSlash(f.Path)))
	}
	url := s.BaseURL + "/" + f.Folder + "/" + f.Path
	if s.BaseURL == "" {
		url = fmt.Sprintf("https://raw.githubusercontent.com/%s/%s/%s", f.Repo, f.Commit, f.Path)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	c := s.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return resp.Body, nil
}

// Status is what pull did with one file.
type Status struct {
	File   File
	Action string // "ok" (already present), "fetched", "failed"
	Err    error
}

// Pull fetches every manifest file into dir, checking sizes and sha256. A
// file already present with the right hash is kept. Files are written to a
// temporary name and renamed, so an interrupted or failed pull leaves no
// partial file. It returns every file's status and an error naming each file
// that failed.
func Pull(ctx context.Context, m *Manifest, src Source, dir string, progress func(Status)) ([]Status, error) {
	var out []Status
	var errs []error
	for _, f := range m.Files {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		st := Status{File: f}
		dst := filepath.Join(dir, f.Folder, filepath.FromSlash(f.Path))
		if ok, _ := hasHash(dst, f.SHA256); ok {
			st.Action = "ok"
		} else if err := fetch(ctx, src, f, dst); err != nil {
			st.Action, st.Err = "failed", err
			errs = append(errs, fmt.Errorf("%s/%s: %w", f.Folder, f.Path, err))
		} else {
			st.Action = "fetched"
		}
		out = append(out, st)
		if progress != nil {
			progress(st)
		}
	}
	if len(errs) > 0 {
		return out, fmt.Errorf("data pull from %s: %d of %d files failed:\n%w", src.describe(), len(errs), len(m.Files), errors.Join(errs...))
	}
	return out, nil
}

func fetch(ctx context.Context, src Source, f File, dst string) error {
	r, err := src.open(ctx, f)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("missing from source %s", src.describe())
		}
		return err
	}
	defer r.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFunc(dst, func(w io.Writer) error {
		h := sha256.New()
		n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(r, f.Size+1))
		if err != nil {
			return fmt.Errorf("copy: %w", err)
		}
		if n != f.Size {
			return fmt.Errorf("size %d, want %d", n, f.Size)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != f.SHA256 {
			return fmt.Errorf("sha256 %s, want %s", got, f.SHA256)
		}
		return nil
	})
}

func hasHash(path, want string) (bool, error) {
	got, err := hashFile(path)
	return got == want, err
}

// Check verifies that every manifest file is present in dir with its hash.
// It returns an error naming each missing or different file.
func Check(m *Manifest, dir string) error {
	var errs []error
	for _, f := range m.Files {
		p := filepath.Join(dir, f.Folder, filepath.FromSlash(f.Path))
		ok, err := hasHash(p, f.SHA256)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", p, err))
		case !ok:
			errs = append(errs, fmt.Errorf("%s: sha256 differs from the manifest", p))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("data in %s is incomplete (run `ledgerbench data pull`):\n%w", dir, errors.Join(errs...))
	}
	return nil
}
