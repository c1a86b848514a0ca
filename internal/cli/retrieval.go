package cli

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/banking"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
)

// retrievalOptions are upstream's --retrieval-config and
// --retrieval-config-kwargs (banking_knowledge only).
type retrievalOptions struct {
	Config string
	Kwargs string
}

const (
	retrievalConfigUsage = "banking_knowledge retrieval variant (default " + banking.DefaultVariant + "): "
	retrievalKwargsUsage = `the variant's overrides as JSON, e.g. '{"top_k": 5}' (top_k, grep_top_k, case_sensitive, reranker_min_score)`
)

func addRetrievalFlags(f *pflag.FlagSet, o *retrievalOptions) {
	f.StringVar(&o.Config, "retrieval-config", "", retrievalConfigUsage+strings.Join(banking.VariantNames(), ", "))
	f.StringVar(&o.Kwargs, "retrieval-config-kwargs", "", retrievalKwargsUsage)
}

// check refuses retrieval flags for a domain other than banking_knowledge,
// an unknown variant (listing the valid ones) and bad kwargs, as usage
// errors.
func (o retrievalOptions) check(names ...string) error {
	for _, n := range names {
		if _, err := domains.RetrievalOptions(n, o.Config, o.Kwargs); err != nil {
			return errext.Usage(err)
		}
	}
	return nil
}

// loader is domains.Load with the flags' options.
func (o retrievalOptions) loader() func(name, root string) (envs.Domain, error) {
	return func(name, root string) (envs.Domain, error) {
		opts, err := domains.RetrievalOptions(name, o.Config, o.Kwargs)
		if err != nil {
			return nil, errext.Usage(err)
		}
		return domains.LoadWith(name, root, opts)
	}
}

// manifestLoader loads a domain with the retrieval variant a run's manifest
// records.
func manifestLoader(m *results.Manifest) func(name, root string) (envs.Domain, error) {
	return retrievalOptions{Config: m.RetrievalConfig, Kwargs: string(m.RetrievalConfigKwargs)}.loader()
}
