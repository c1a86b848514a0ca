package report

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
)

// LoadDomains loads from dataDir the ported domains the sources' records
// name, and their catalog; a domain that is not ported or cannot be loaded
// is reported once through note and left out.
func LoadDomains(dataDir string, sources []*Source, note func(string)) (metrics.Catalog, []envs.Domain) {
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
		d, err := domains.Load(n, dataDir)
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
		if src.Kind == V1 {
			// τ-bench v1 tool outputs have another schema: the ported
			// domain's gate cannot judge them.
			continue
		}
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
