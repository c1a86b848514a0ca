package report

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
	"github.com/ledgerbench/ledgerbench/internal/score/rescore"
)

// LoadDomains loads from dataDir the ported domains the sources' records
// name, and their catalog; a domain that is not ported or cannot be loaded
// is reported once through note and left out.
//
// A τ-bench v1 list's records name the upstream environment (its policy
// heading); they are relabelled with the domain its recorded tasks point to
// (rescore.DetectV1), whose notes go through note, unless a domain label
// was given.
func LoadDomains(dataDir string, sources []*Source, note func(string)) (metrics.Catalog, []envs.Domain) {
	loaded := map[string]envs.Domain{}
	load := func(name string) (envs.Domain, error) {
		if d, ok := loaded[name]; ok {
			return d, nil
		}
		d, err := domains.Load(name, dataDir)
		if err == nil {
			loaded[name] = d
		}
		return d, err
	}
	for _, src := range sources {
		if src.Kind != V1 || src.Labelled || len(src.Records) == 0 {
			continue
		}
		list, err := results.ReadV1List(src.Path)
		if err != nil {
			note(err.Error())
			continue
		}
		det, dom, err := rescore.DetectV1(context.Background(), src.Path, src.Records[0].Domain, list, load)
		if err != nil {
			note(fmt.Sprintf("%v; using what its records carry", err))
			continue
		}
		for _, n := range det.Notes {
			note(fmt.Sprintf("%s: %s", filepath.Base(src.Path), n))
		}
		for i := range src.Records {
			src.Records[i].Domain = dom.Name()
		}
	}
	var names []string
	for _, src := range sources {
		for i := range src.Records {
			if d := src.Records[i].Domain; d != "" && !slices.Contains(names, d) {
				names = append(names, d)
			}
		}
	}
	var doms []envs.Domain
	for _, n := range names {
		if !slices.Contains(domains.Names(), n) {
			note(fmt.Sprintf("domain %q is not ported; using what its records carry", n))
			continue
		}
		d, err := load(n)
		if err != nil {
			note(fmt.Sprintf("%v; using what its records carry", err))
			continue
		}
		doms = append(doms, d)
	}
	if len(doms) == 0 {
		return nil, nil
	}
	return metrics.NewDomainCatalog(doms...), doms
}

// AddShadowVerdicts gives records whose agent had no gate (baseline runs,
// recorded upstream runs) the verdicts the domain's gate would have given in
// shadow mode, judged against the ledger built from the run's own successful
// reads, so the report can compute their policy adherence.
func AddShadowVerdicts(sources []*Source, doms []envs.Domain) {
	byName := map[string]envs.Domain{}
	for _, d := range doms {
		byName[d.Name()] = d
	}
	for _, src := range sources {
		for i := range src.Records {
			r := &src.Records[i]
			dom := byName[r.Domain]
			if dom == nil {
				continue
			}
			if _, has := metrics.GateVerdicts(r); has {
				continue
			}
			verdicts, err := ledgeragent.ShadowVerdicts(dom, r.Messages)
			if err != nil {
				continue // the domain has no gate
			}
			info := map[string]json.RawMessage{}
			if len(r.AgentInfo) > 0 && json.Unmarshal(r.AgentInfo, &info) != nil {
				continue
			}
			gate, err := json.Marshal(map[string]any{"mode": "shadow", "verdicts": verdicts})
			if err != nil {
				continue
			}
			info["gate"] = gate
			if b, err := json.Marshal(info); err == nil {
				r.AgentInfo = b
			}
		}
	}
}
