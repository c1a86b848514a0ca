package runplan

import (
	"fmt"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline"
)

// τ²-bench's defaults (src/tau2/config.py at the pinned commit):
// DEFAULT_LLM_USER and DEFAULT_LLM_NL_ASSERTIONS are this model at
// temperature 0, which `tau2 run` uses when no user or judge LLM is named.
const (
	UpstreamDefaultModel       = "gpt-4.1-2025-04-14"
	UpstreamDefaultTemperature = 0.0
)

// IsOffline reports whether a backbone needs no model (gold, sim,
// replay:FILE): its user simulator is the scripted one, not a model.
func IsOffline(b string) bool {
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
		if isUpstreamDefault(cfg, name) {
			return name, true
		}
	}
	return "", false
}

func isUpstreamDefault(cfg *llm.Config, name string) bool {
	b, err := cfg.Backbone(name)
	return err == nil && b.Model == UpstreamDefaultModel && b.Temperature != nil && *b.Temperature == UpstreamDefaultTemperature
}

// applyUpstreamDefaults fills the user simulator and the judge backbones as
// `tau2 run` does when none is named, and returns the defaults it applied,
// for the run header and the manifest. A continued run keeps its own.
func applyUpstreamDefaults(opts *Options, cfg *llm.Config, existing *results.Run, needsJudge bool) ([]string, error) {
	if existing != nil && opts.Inherit("user-backbone") {
		return existing.Manifest.Defaults, nil // resuming: the run's own
	}
	var out []string
	d, err := defaultUser(opts, cfg)
	if err != nil {
		return nil, err
	}
	if d != "" {
		out = append(out, d)
	}
	if d := defaultJudge(opts, cfg, needsJudge); d != "" {
		out = append(out, d)
	}
	return out, nil
}

// defaultUser: a model agent without --user-backbone gets τ²-bench's
// default user simulator. Offline agent backbones keep their scripted
// user. A backbones file without τ²-bench's default model leaves the
// agent's backbone as the user's, said as such (never silently): a
// researcher without access to gpt-4.1 still gets a run, labelled.
//
// A person playing the agent gets τ²-bench's default user too (as upstream's
// manual mode), and a usage error when the file lacks it: the person's side
// cannot lend its backbone.
func defaultUser(opts *Options, cfg *llm.Config) (string, error) {
	if opts.UserBackbone != "" || opts.Solo || IsOffline(opts.Backbone) || opts.Backbone == "" {
		return "", nil
	}
	name, ok := upstreamBackbone(cfg)
	if !ok && human(opts.Backbone) {
		where := "no backbones file was found"
		if cfg != nil {
			where = fmt.Sprintf("it is not in %s", opts.BackbonesFile)
		}
		return "", errext.Usagef("the user simulator defaults to τ²-bench's (%s at temperature 0), but %s: pass --user-backbone NAME, or --user-backbone sim for the offline scripted user", UpstreamDefaultModel, where)
	}
	if !ok {
		opts.UserBackbone = opts.Backbone
		return fmt.Sprintf("user-backbone %s: the agent's, NOT τ²-bench's default (%s at temperature 0 is not in %s; pass --user-backbone to choose)",
			opts.Backbone, UpstreamDefaultModel, opts.BackbonesFile), nil
	}
	opts.UserBackbone = name
	return fmt.Sprintf("user-backbone %s (τ²-bench's default user simulator: %s, temperature 0)", name, UpstreamDefaultModel), nil
}

// defaultJudge: without --judge-backbone the judge is judge: of the
// backbones file, whatever the agent's backbone (offline agents included,
// when a selected task needs a judge); without judge: it is τ²-bench's
// default model when the file has it. Either is said in the header.
func defaultJudge(opts *Options, cfg *llm.Config, needsJudge bool) string {
	if opts.JudgeBackbone != "" || opts.NoJudge || cfg == nil || opts.Backbone == "" {
		return ""
	}
	if (IsOffline(opts.Backbone) || human(opts.Backbone)) && !needsJudge {
		return "" // no task of the run calls a judge: no key needed for one
	}
	name := cfg.Judge
	from := "judge: of " + opts.BackbonesFile
	if name == "" {
		var ok bool
		if name, ok = upstreamBackbone(cfg); !ok {
			return "" // no judge: NL tasks are refused with a hint
		}
		from = "no judge: in " + opts.BackbonesFile
	}
	opts.JudgeBackbone = name
	if isUpstreamDefault(cfg, name) {
		return fmt.Sprintf("judge-backbone %s (%s; τ²-bench's default NL-assertion judge: %s, temperature 0)", name, from, UpstreamDefaultModel)
	}
	return fmt.Sprintf("judge-backbone %s (%s; NOT τ²-bench's default judge, %s at temperature 0)", name, from, UpstreamDefaultModel)
}

// DefaultBackbones returns the user simulator and judge backbones New
// would resolve for opts (τ²-bench's defaults, judge: of cfg), for checks
// that do not plan a run (an experiment's dry run); needsJudge says whether
// a selected task has NL assertions (CountNL). An offline agent's scripted
// user is "".
func DefaultBackbones(opts Options, cfg *llm.Config, needsJudge bool) (user, judge string) {
	opts.Inherit = func(string) bool { return false }
	_, _ = applyUpstreamDefaults(&opts, cfg, nil, needsJudge)
	return opts.UserBackbone, opts.JudgeBackbone
}
