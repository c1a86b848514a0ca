// Package gateaudit measures LedgerAgent's policy gate offline, as the
// gate-audit command reports it: per domain the gold writes through the
// gate (false positives) and the gold writes mutated into named violations
// (recall); per recorded τ²-bench run every write judged in shadow mode.
package gateaudit

import (
	"context"
	"fmt"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Options choose what is audited.
type Options struct {
	DataDir string
	// Domains for the gold and mutation audits (empty: every base domain;
	// variants share their base domain's gate).
	Domains []string
	// Split is the task split of those audits (empty: each domain's default).
	Split string
	// Recorded are τ²-bench results files to audit in shadow mode.
	Recorded []string
	// Skipped is told of a domain without gate predicates (nil: not told).
	Skipped func(domain string)
}

// Result is what the audit measured, in the order it was measured.
type Result struct {
	Domains []Domain
	Files   []File
}

// Domain is one domain's gold and mutation audit.
type Domain struct {
	Gold      ledgeragent.GoldReport
	Mutations []ledgeragent.MutationReport
}

// File is one recorded file's shadow audit: its reports (per outcome) and
// one verdict per write the gate would have stopped.
type File struct {
	Reports  []ledgeragent.RecordedReport
	Verdicts []ledgeragent.RecordedVerdict
}

// FalsePositives counts the gold writes the gate did not allow.
func (r *Result) FalsePositives() int {
	n := 0
	for _, d := range r.Domains {
		n += d.Gold.FalsePositives
	}
	return n
}

// Verdicts are every recorded file's stopped writes, in order.
func (r *Result) Verdicts() []ledgeragent.RecordedVerdict {
	var out []ledgeragent.RecordedVerdict
	for _, f := range r.Files {
		out = append(out, f.Verdicts...)
	}
	return out
}

// Run audits the gold writes and their mutations of each domain, then
// each recorded file.
func Run(ctx context.Context, opts Options) (*Result, error) {
	names := opts.Domains
	if len(names) == 0 {
		names = domains.Bases()
	}
	res := &Result{}
	loaded := map[string]envs.Domain{}
	for _, name := range names {
		dom, err := domains.Load(name, opts.DataDir)
		if err != nil {
			return nil, err
		}
		loaded[name] = dom
		if _, ok := ledgeragent.PolicyOf(dom); !ok {
			if opts.Skipped != nil {
				opts.Skipped(name)
			}
			continue
		}
		d, err := auditDomain(ctx, dom, opts.Split)
		if err != nil {
			return nil, err
		}
		res.Domains = append(res.Domains, d)
	}
	// Recorded files load their domain once per mode, beside the ones
	// above.
	load := func(name string, solo bool) (envs.Domain, error) {
		key, loadFn := name, domains.Load
		if solo {
			key, loadFn = name+" (solo)", domains.LoadSolo
		}
		if d, ok := loaded[key]; ok {
			return d, nil
		}
		d, err := loadFn(name, opts.DataDir)
		if err == nil {
			loaded[key] = d
		}
		return d, err
	}
	for _, file := range opts.Recorded {
		reps, vs, err := RecordedFile(ctx, file, load)
		if err != nil {
			return nil, err
		}
		res.Files = append(res.Files, File{reps, vs})
	}
	return res, nil
}

// auditDomain runs a domain's gold writes and their mutations through its
// gate.
func auditDomain(ctx context.Context, dom envs.Domain, split string) (Domain, error) {
	sel, err := dom.Tasks().Select(tasks.Selection{Split: split})
	if err != nil {
		return Domain{}, fmt.Errorf("%s: %w", dom.Name(), err)
	}
	gold, err := ledgeragent.AuditGold(ctx, dom, sel)
	if err != nil {
		return Domain{}, err
	}
	muts, err := ledgeragent.AuditMutations(ctx, dom, sel)
	if err != nil {
		return Domain{}, err
	}
	return Domain{gold, muts}, nil
}
