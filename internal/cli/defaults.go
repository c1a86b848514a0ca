package cli

import (
	"fmt"

	"github.com/ledgerbench/ledgerbench/internal/llm"
	"github.com/ledgerbench/ledgerbench/internal/offline"
	"github.com/ledgerbench/ledgerbench/results"
)

// τ²-bench's defaults (src/tau2/config.py at the pinned commit):
// DEFAULT_LLM_USER and DEFAULT_LLM_NL_ASSERTIONS are this model at
// temperature 0, which `tau2 run` uses when no user or judge LLM is named.
const (
	upstreamDefaultModel       = "gpt-4.1-2025-04-14"
	upstreamDefaultTemperature = 0.0
)

// isOfflineBackbone reports whether a backbone needs no model (gold, sim,
// replay:FILE): its user simulator is the scripted one, not a model.
func isOfflineBackbone(b string) bool {
	_, ok, _ := offline.Parse(b)
	return ok
}

// upstreamBackbone names the backbones-file entry that is τ²-bench's
// default LLM: the model gpt-4.1-2025-04-14 at temperature 0.
func upstreamBackbone(cfg *llm.Config) (string, bool) {
	if cfg == nil {
		return "", false
	}
	for _, name := range cfg.Names() {
		b, err := cfg.Backbone(name)
		if err == nil && b.Model == upstreamDefaultModel && b.Temperature != nil && *b.Temperature == upstreamDefaultTemperature {
			return name, true
		}
	}
	return "", false
}

// applyUpstreamDefaults fills the user simulator backbone as `tau2 run`
// does when --user-backbone is not given (and the agent's backbone is a
// model), and returns the defaults it applied, for the run header and the
// manifest. Offline agent backbones keep their scripted user. A backbones
// file without τ²-bench's default model leaves the agent's backbone as the
// user's, said as such (never silently).
func applyUpstreamDefaults(opts *runOptions, cfg *llm.Config, existing *results.Run) ([]string, error) {
	if existing != nil && !opts.changed("user-backbone") {
		return existing.Manifest.Defaults, nil // resuming: the run's own
	}
	if opts.UserBackbone != "" || opts.Solo || isOfflineBackbone(opts.Backbone) || opts.Backbone == "" {
		return nil, nil
	}
	name, ok := upstreamBackbone(cfg)
	if !ok {
		opts.UserBackbone = opts.Backbone
		return []string{fmt.Sprintf("user-backbone %s: the agent's, NOT τ²-bench's default (%s at temperature 0 is not in %s; pass --user-backbone to choose)",
			opts.Backbone, upstreamDefaultModel, opts.BackbonesFile)}, nil
	}
	opts.UserBackbone = name
	return []string{fmt.Sprintf("user-backbone %s (τ²-bench's default user simulator: %s, temperature 0)", name, upstreamDefaultModel)}, nil
}
