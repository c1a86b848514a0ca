package cli

import (
	"fmt"
	"io"
	"slices"

	"github.com/ledgerbench/ledgerbench/envs"
	"github.com/ledgerbench/ledgerbench/internal/data"
	"github.com/ledgerbench/ledgerbench/internal/domains"
)

const allowModifiedUsage = "use data files that differ from their pinned hashes (the hashes actually loaded are recorded)"

// loadDomain checks the pinned hashes of the files a domain loads and
// loads it with load (domains.Load or domains.LoadSolo). A difference is an error unless allow is set; then each modified
// file is reported on errOut and returned as folder/path → the SHA-256
// actually loaded.
func loadDomain(load func(name, root string) (envs.Domain, error), name, root string, allow bool, errOut io.Writer) (envs.Domain, map[string]string, error) {
	if !slices.Contains(domains.Names(), name) {
		_, err := load(name, root) // the loader names the known domains
		return nil, nil, err
	}
	m, err := data.LoadManifest()
	if err != nil {
		return nil, nil, err
	}
	// The check hashes on its own goroutine while the domain loads: both
	// read the same files and a short job is mostly this. Nothing loaded is
	// used (nor its load error reported) before the check has passed.
	type loaded struct {
		dom envs.Domain
		err error
	}
	ch := make(chan loaded, 1)
	go func() {
		dom, err := load(name, root)
		ch <- loaded{dom, err}
	}()
	mods, err := m.CheckDomain(root, name, allow)
	l := <-ch
	if err != nil {
		return nil, nil, err
	}
	var hashes map[string]string
	for _, md := range mods {
		if hashes == nil {
			hashes = map[string]string{}
		}
		hashes[md.Key()] = md.Got
		fmt.Fprintf(errOut, "ledgerbench: --allow-modified-data: %s is not the pinned file (sha256 %s, pinned %s)\n", md.Key(), md.Got, md.File.SHA256)
	}
	if l.err != nil {
		return nil, nil, l.err
	}
	return l.dom, hashes, nil
}
