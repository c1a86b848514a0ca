// Package gateaudit measures LedgerAgent's policy gate offline, as the
// gate-audit command reports it: per domain every task played live by the
// gold backbone through LedgerAgent, as `run` plays it (false positives and
// tasks lost), and the gold writes mutated into named violations (recall);
// per recorded τ²-bench run every write judged in shadow mode.
package gateaudit

import (
	"context"
	"fmt"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Options choose what is audited.
type Options struct {
	DataDir string
	// Domains for the gold and mutation audits (empty: every base domain;
	// variants share their base domain's gate). A domain with a solo mode
	// is audited in it too (gold only: its own predicates).
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

// Domain is one domain's gold and mutation audit (a solo mode's has no
// mutations).
type Domain struct {
	Gold      GoldReport
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

// Lost counts the tasks the live gold runs did not pass.
func (r *Result) Lost() int {
	n := 0
	for _, d := range r.Domains {
		n += len(d.Gold.Lost)
	}
	return n
}

// HarnessErrors counts what the audits could not judge because the harness
// failed (a gate predicate panicked): gold simulations, mutations and
// recorded writes.
func (r *Result) HarnessErrors() int {
	n := 0
	for _, d := range r.Domains {
		n += d.Gold.HarnessErrors
		for _, m := range d.Mutations {
			n += m.HarnessErrors
		}
	}
	for _, f := range r.Files {
		for _, rep := range f.Reports {
			n += rep.HarnessErrors
		}
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
		// The live gold runs need no model endpoint: banking_knowledge's
		// offline retrieval variant (the gate guards its banking writes
		// only, whatever the retrieval tools).
		dom, err := domains.LoadOffline(name, opts.DataDir)
		if err != nil {
			return nil, err
		}
		// (recorded files load their domain as recorded: not this one)
		if _, ok := ledgeragent.PolicyOf(dom); !ok {
			if opts.Skipped != nil {
				opts.Skipped(name)
			}
			continue
		}
		d, err := auditDomain(ctx, opts.DataDir, dom, opts.Split)
		if err != nil {
			return nil, err
		}
		res.Domains = append(res.Domains, d)
		if slices.Contains(domains.SoloNames(), name) {
			solo, err := domains.LoadSolo(name, opts.DataDir)
			if err != nil {
				return nil, err
			}
			loaded[name+" (solo)"] = solo
			sel, err := solo.Tasks().Select(tasks.Selection{Split: opts.Split})
			if err != nil {
				return nil, fmt.Errorf("%s (solo): %w", name, err)
			}
			gold, err := AuditGold(ctx, opts.DataDir, solo, sel)
			if err != nil {
				return nil, err
			}
			res.Domains = append(res.Domains, Domain{Gold: gold})
		}
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

// auditDomain plays a domain's tasks live with the gold backbone and runs
// their gold writes' mutations through its gate.
func auditDomain(ctx context.Context, dataDir string, dom envs.Domain, split string) (Domain, error) {
	sel, err := dom.Tasks().Select(tasks.Selection{Split: split})
	if err != nil {
		return Domain{}, fmt.Errorf("%s: %w", dom.Name(), err)
	}
	gold, err := AuditGold(ctx, dataDir, dom, sel)
	if err != nil {
		return Domain{}, err
	}
	muts, err := ledgeragent.AuditMutations(ctx, dom, sel)
	if err != nil {
		return Domain{}, err
	}
	return Domain{gold, muts}, nil
}
