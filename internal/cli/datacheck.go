package cli

import (
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

const allowModifiedUsage = "use data files that differ from their pinned hashes (the hashes actually loaded are recorded)"

// loadDomain checks the pinned hashes of the files a domain loads and
// loads it with load (domains.Load or domains.LoadSolo). A difference is an error unless allow is set; then each modified
// file is reported on errOut and returned as folder/path → the SHA-256
// actually loaded.
func loadDomain(load func(name, root string) (envs.Domain, error), name, root string, allow bool, errOut io.Writer) (envs.Domain, map[string]string, error) {
	dom, verified, err := startDomain(load, name, root, allow, errOut)
	if err != nil {
		return nil, nil, err
	}
	hashes, err := verified()
	if err != nil {
		return nil, nil, err
	}
	return dom, hashes, nil
}

// startDomain loads a domain while the pinned hashes of its files are
// checked on another goroutine, and returns the domain with verified, which
// waits for the check and returns what loadDomain returns. Work on the
// domain may start at once (a short job is mostly the check), but nothing it
// computed may be shown or written before verified has returned nil. A load
// error is reported only after the check, which explains it when a file
// differs from its pin.
func startDomain(load func(name, root string) (envs.Domain, error), name, root string, allow bool, errOut io.Writer) (envs.Domain, func() (map[string]string, error), error) {
	if !slices.Contains(domains.Names(), name) {
		_, err := load(name, root) // the loader names the known domains
		return nil, nil, err
	}
	m, err := data.LoadManifest()
	if err != nil {
		return nil, nil, err
	}
	type checked struct {
		mods []data.Modified
		err  error
	}
	ch := make(chan checked, 1)
	go func() {
		mods, err := m.CheckDomain(root, name, allow)
		ch <- checked{mods, err}
	}()
	verified := sync.OnceValues(func() (map[string]string, error) {
		c := <-ch
		if c.err != nil {
			return nil, c.err
		}
		var hashes map[string]string
		for _, md := range c.mods {
			if hashes == nil {
				hashes = map[string]string{}
			}
			hashes[md.Key()] = md.Got
			fmt.Fprintf(errOut, "ledgerbench: --allow-modified-data: %s is not the pinned file (sha256 %s, pinned %s)\n", md.Key(), md.Got, md.File.SHA256)
		}
		return hashes, nil
	})
	dom, err := load(name, root)
	if err != nil {
		if _, cerr := verified(); cerr != nil {
			return nil, nil, cerr
		}
		return nil, nil, err
	}
	return dom, verified, nil
}
