package data

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Modified is a pinned file whose content in the data directory is not the
// pinned one.
type Modified struct {
	File File
	// Got is the SHA-256 of the file actually there ("" when it is missing).
	Got string
}

// Key is the file's path inside the data directory (folder/path).
func (m Modified) Key() string { return m.File.Folder + "/" + m.File.Path }

// ErrModified is wrapped by CheckDomain's error when loaded files differ
// from their pins.
var ErrModified = errors.New("data: files differ from their pinned hashes")

// DomainFiles returns the pinned files a domain loads: for a τ²-bench
// domain the files of the tau2-bench folder except the other domains' data
// and source folders; for a τ-Trait domain (telehealth, tautrait-<env>) the
// tau-trait folder and for a τ-bench v1 domain (taubench-<env>) the
// tau-bench folder, each without the other environments' folders
// (tau_trait/envs/<other>/). Unknown domains get every file.
func (m *Manifest) DomainFiles(domain string) []File {
	folder, env := v1Folder(domain)
	base, _, _ := strings.Cut(domain, "-") // telecom-workflow loads telecom
	var out []File
	for _, f := range m.Files {
		switch {
		case folder != "":
			if f.Folder != folder || otherEnv(f.Path, env) {
				continue
			}
		case slices.Contains([]string{"airline", "retail", "telecom", "banking_knowledge"}, base):
			if f.Folder != Tau2 || otherDomain(f.Path, base) {
				continue
			}
		}
		out = append(out, f)
	}
	return out
}

// v1Folder is the data folder and environment of a τ-Trait or τ-bench v1
// domain ("", "" for the others).
func v1Folder(domain string) (folder, env string) {
	if domain == "telehealth" {
		return TauTrait, domain
	}
	if env, ok := strings.CutPrefix(domain, "tautrait-"); ok {
		return TauTrait, env
	}
	if env, ok := strings.CutPrefix(domain, "taubench-"); ok {
		return TauBench, env
	}
	return "", ""
}

// otherEnv reports whether a tau_trait/ or tau_bench/ path lies in another
// environment's folder than env.
func otherEnv(path, env string) bool {
	for _, prefix := range []string{"tau_trait/envs/", "tau_bench/envs/"} {
		if rest, ok := strings.CutPrefix(path, prefix); ok {
			dir, _, nested := strings.Cut(rest, "/")
			return nested && dir != env
		}
	}
	return false
}

// otherDomain reports whether a tau2-bench path belongs to another domain
// than d (the retrieval engines of src/tau2/knowledge are banking_knowledge's).
func otherDomain(path, d string) bool {
	if strings.HasPrefix(path, "src/tau2/knowledge/") {
		return d != "banking_knowledge"
	}
	for _, prefix := range []string{"data/tau2/domains/", "src/tau2/domains/"} {
		if rest, ok := strings.CutPrefix(path, prefix); ok {
			dom, _, _ := strings.Cut(rest, "/")
			return dom != d
		}
	}
	return false
}

// CheckFiles hashes files in the data directory root and returns those
// whose content is not the pinned one. It hashes on two goroutines (the
// large databases dominate); the error is for files that cannot be read
// (a missing file is Modified with Got "").
func CheckFiles(root string, files []File) ([]Modified, error) {
	got := make([]string, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 2 {
		wg.Go(func() {
			for i := range next {
				got[i], errs[i] = hashFile(filepath.Join(root, files[i].Folder, filepath.FromSlash(files[i].Path)))
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	var out []Modified
	for i, f := range files {
		switch {
		case errors.Is(errs[i], os.ErrNotExist):
			out = append(out, Modified{File: f})
		case errs[i] != nil:
			return nil, fmt.Errorf("check %s: %w", f.Path, errs[i])
		case got[i] != f.SHA256:
			out = append(out, Modified{File: f, Got: got[i]})
		}
	}
	return out, nil
}

// hashFile is the sha256 of a file, read through a buffer of hashBuffer:
// mapping it instead costs a page fault per 4 KB (telecom's 14 MB
// tasks.json hashed in about twice the time on a virtual machine).
func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	buf := hashBuffers.Get().(*[]byte)
	defer hashBuffers.Put(buf)
	if _, err := io.CopyBuffer(h, struct{ io.Reader }{f}, *buf); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

const hashBuffer = 256 << 10

var hashBuffers = sync.Pool{New: func() any { b := make([]byte, hashBuffer); return &b }}

// CheckDomain checks the pinned files a domain loads (DomainFiles) that are
// present (a missing one is left to the loader, which names it). With
// allow false, any difference is an error wrapping ErrModified that names
// each file; with allow true the differences are returned for the caller to
// record.
func (m *Manifest) CheckDomain(root, domain string, allow bool) ([]Modified, error) {
	all, err := CheckFiles(root, m.DomainFiles(domain))
	if err != nil {
		return nil, err
	}
	// A missing file is the loader's to report (it says how to get the
	// data); only files that are there and differ count.
	var mods []Modified
	for _, md := range all {
		if md.Got != "" {
			mods = append(mods, md)
		}
	}
	if len(mods) == 0 || allow {
		return mods, nil
	}
	var b strings.Builder
	for _, md := range mods {
		fmt.Fprintf(&b, "\n  %s: sha256 %s, pinned %s", filepath.Join(root, md.File.Folder, md.File.Path), md.Got, md.File.SHA256)
	}
	return nil, fmt.Errorf("%w (%s): restore them with `ledgerbench data pull`, or pass --allow-modified-data to use them (their hashes are then recorded):%s", ErrModified, domain, b.String())
}
