package data

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

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
	u := s.BaseURL + "/" + f.Folder + "/" + f.Path
	if s.BaseURL == "" {
		u = fmt.Sprintf("https://raw.githubusercontent.com/%s/%s/%s", f.Repo, f.Commit, f.Path)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
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
		if resp.StatusCode == http.StatusNotFound {
			return nil, os.ErrNotExist
		}
		return nil, statusError{resp.Status}
	}
	return resp.Body, nil
}

// Status is what pull did with one file.
type Status struct {
	File   File
	Action string // "ok" (already present), "fetched", "failed"
	Err    error
}

// Progress counts what a running pull has done; Snapshot may be called from
// another goroutine while it runs.
type Progress struct {
	files, bytes atomic.Int64
	current      atomic.Pointer[string]
}

// ProgressSnapshot is a pull's progress at one moment.
type ProgressSnapshot struct {
	Files int   // files done (kept, fetched or failed)
	Bytes int64 // bytes of pinned files done or being copied
	// Current is the file being fetched (folder/path), "" between files.
	Current string
}

// Snapshot reads the counters (a nil Progress reads zero).
func (p *Progress) Snapshot() ProgressSnapshot {
	if p == nil {
		return ProgressSnapshot{}
	}
	s := ProgressSnapshot{Files: int(p.files.Load()), Bytes: p.bytes.Load()}
	if c := p.current.Load(); c != nil {
		s.Current = *c
	}
	return s
}

// Write counts copied bytes (io.Writer for the copy).
func (p *Progress) Write(b []byte) (int, error) {
	p.bytes.Add(int64(len(b)))
	return len(b), nil
}

// TotalSize is the size of every manifest file, in bytes.
func (m *Manifest) TotalSize() int64 {
	var n int64
	for _, f := range m.Files {
		n += f.Size
	}
	return n
}

// Pull fetches every manifest file into dir, checking sizes and sha256. A
// file already present with the right hash is kept. Files are written to a
// temporary name and renamed, so an interrupted or failed pull leaves no
// partial file. It returns every file's status and, when any failed, an
// error of one line: the failures grouped by cause (a few files named per
// cause) and how to pull from elsewhere. A source folder that does not exist
// fails before any file, and so does the rest of a remote pull once its host
// cannot be reached. progress, when not nil, counts files and bytes.
func Pull(ctx context.Context, m *Manifest, src Source, dir string, progress *Progress) ([]Status, error) {
	if src.Dir != "" {
		if fi, err := os.Stat(src.Dir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("data pull: --from %s is not a folder; %s", src.Dir, src.hint())
		}
	}
	if progress == nil {
		progress = &Progress{}
	}
	var out []Status
	var fails []failure
	for i, f := range m.Files {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		st := Status{File: f}
		key := f.Folder + "/" + f.Path
		progress.current.Store(&key)
		before := progress.bytes.Load()
		dst := filepath.Join(dir, f.Folder, filepath.FromSlash(f.Path))
		if ok, _ := hasHash(dst, f.SHA256); ok {
			st.Action = "ok"
		} else if err := fetch(ctx, src, f, dst, progress); err != nil {
			st.Action, st.Err = "failed", err
			fails = append(fails, failure{key, err})
		} else {
			st.Action = "fetched"
		}
		progress.bytes.Store(before + f.Size)
		progress.files.Add(1)
		out = append(out, st)
		if unreachable(st.Err) {
			// The host cannot be reached: every other file would fail alike.
			for _, rest := range m.Files[i+1:] {
				out = append(out, Status{File: rest, Action: "failed", Err: st.Err})
				fails = append(fails, failure{rest.Folder + "/" + rest.Path, st.Err})
			}
			break
		}
	}
	progress.current.Store(nil)
	if len(fails) > 0 {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		return out, fmt.Errorf("data pull from %s: %d of %d files failed: %s; %s", src.describe(), len(fails), len(m.Files), summarize(fails), src.hint())
	}
	return out, nil
}

// hint says how to pull from elsewhere.
func (s Source) hint() string {
	const layout = "one folder per upstream repository (tau2-bench/, tau-trait/), each laid out like the repository at its pinned commit"
	switch {
	case s.Dir != "":
		return "--from DIR wants " + layout
	case s.BaseURL != "":
		return "--from URL must serve URL/<folder>/<path>; --from DIR reads a local copy: " + layout
	}
	return "without network, pull from a local copy with --from DIR: " + layout
}

type failure struct {
	file string
	err  error
}

// summarize groups failures by cause: "missing from the source
// (tau2-bench/LICENSE, tau2-bench/data/… and 82 more)".
func summarize(fails []failure) string {
	var causes []string
	files := map[string][]string{}
	for _, f := range fails {
		if unreachable(f.err) {
			return causeOf(f.err) // every file, and no file named
		}
		c := causeOf(f.err)
		if _, ok := files[c]; !ok {
			causes = append(causes, c)
		}
		files[c] = append(files[c], f.file)
	}
	parts := make([]string, len(causes))
	for i, c := range causes {
		fs := files[c]
		names := strings.Join(fs[:min(2, len(fs))], ", ")
		if len(fs) > 2 {
			names += fmt.Sprintf(" and %d more", len(fs)-2)
		}
		parts[i] = fmt.Sprintf("%s (%s)", c, names)
	}
	return strings.Join(parts, "; ")
}

// errMissing is a file the source does not have.
var errMissing = errors.New("missing from the source")

// statusError is an HTTP status other than 200.
type statusError struct{ status string }

func (e statusError) Error() string { return "HTTP " + e.status }

// causeOf names the cause of a failure without the file it concerns.
func causeOf(err error) string {
	var se statusError
	var ue *url.Error
	switch {
	case errors.Is(err, errMissing):
		return errMissing.Error()
	case errors.As(err, &se):
		return se.Error()
	case unreachable(err) && errors.As(err, &ue):
		host := ue.URL
		if u, perr := url.Parse(ue.URL); perr == nil {
			host = u.Host
		}
		return fmt.Sprintf("cannot reach %s (%v)", host, errors.Unwrap(ue))
	}
	return err.Error()
}

// unreachable reports whether err says the source's host cannot be reached
// (a name that does not resolve, a refused or failed connection).
func unreachable(err error) bool {
	if err == nil {
		return false
	}
	var dns *net.DNSError
	var op *net.OpError
	return errors.As(err, &dns) || errors.As(err, &op) && op.Op == "dial"
}

func fetch(ctx context.Context, src Source, f File, dst string, progress io.Writer) error {
	r, err := src.open(ctx, f)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return errMissing
		}
		return err
	}
	defer r.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFunc(dst, func(w io.Writer) error {
		h := sha256.New()
		n, err := io.Copy(io.MultiWriter(w, h, progress), io.LimitReader(r, f.Size+1))
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
// Its error names the missing files and the modified ones (present with
// another hash), at most 10 of each.
func Check(m *Manifest, dir string) error {
	mods, err := CheckFiles(dir, m.Files)
	if err != nil {
		return err
	}
	if len(mods) == 0 {
		return nil
	}
	var missing, modified []string
	for _, md := range mods {
		p := filepath.Join(dir, md.File.Folder, filepath.FromSlash(md.File.Path))
		if md.Got == "" {
			missing = append(missing, "\n  "+p+": missing")
		} else {
			modified = append(modified, fmt.Sprintf("\n  %s: modified (sha256 %s, pinned %s)", p, md.Got, md.File.SHA256))
		}
	}
	var what []string
	if len(modified) > 0 {
		what = append(what, fmt.Sprintf("%d modified", len(modified)))
	}
	if len(missing) > 0 {
		what = append(what, fmt.Sprintf("%d missing", len(missing)))
	}
	return fmt.Errorf("data in %s differs from the manifest: %s (of %d pinned files; run `ledgerbench data pull` to restore them):%s%s",
		dir, strings.Join(what, ", "), len(m.Files), first10(modified), first10(missing))
}

func first10(lines []string) string {
	if len(lines) > 10 {
		return strings.Join(lines[:10], "") + fmt.Sprintf("\n  … and %d more", len(lines)-10)
	}
	return strings.Join(lines, "")
}
