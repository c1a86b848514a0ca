// Package domains loads the ported domains: each name of internal/source/known
// paired with its loader, its solo-mode loader and the derived files built
// at pull time. Adding a domain means adding its package, a line in known
// and a line here.
package domains

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/airline"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/banking"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/retail"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tautraittelecom"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/telecom"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/telehealth"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/v1airline"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/v1retail"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/known"
)

type entry struct {
	name string
	load func(root string) (envs.Domain, error)
	// solo loads the domain in τ²-bench's solo mode; nil when upstream has
	// none for the domain.
	solo func(root string) (envs.Domain, error)
	// derive builds the files derived from the pulled data (nil: none).
	derive func(root string) ([]File, error)
	// loadWith loads the domain with Options (nil: the domain takes none).
	loadWith func(root string, o Options) (envs.Domain, error)
}

// Options are the load-time choices a domain takes (banking_knowledge's
// retrieval variant and what its retrieval engines need).
type Options struct {
	Banking banking.Options
}

// Set reports whether any option differs from its default.
func (o Options) Set() bool { return o.Banking.Variant != "" || len(o.Banking.Kwargs) > 0 }

// LoadWith loads a domain with options; a domain that takes none refuses
// options that are set.
func LoadWith(name, root string, o Options) (envs.Domain, error) {
	e, err := lookup(name)
	if err != nil {
		return nil, err
	}
	if e.loadWith == nil {
		if o.Set() {
			return nil, fmt.Errorf("domain %s has no retrieval configurations (only banking_knowledge has)", name)
		}
		return load(name, root, false)
	}
	d, err := e.loadWith(root, o)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("load %s from %s: %w: %w (run `ledgerbench data pull` first, or pass --data)", name, root, ErrNoData, err)
		}
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	return d, nil
}

// list is fixed at compile time; it holds no state. Its names are
// known.Names(), in the same order (TestListMatchesKnown).
var list = []entry{
	{name: "airline", load: func(r string) (envs.Domain, error) { return airline.Load(r) }},
	{name: "retail", load: func(r string) (envs.Domain, error) { return retail.Load(r) }},
	{name: "telecom", load: func(r string) (envs.Domain, error) { return telecom.Load(r) },
		solo: func(r string) (envs.Domain, error) { return telecom.LoadSolo(r, telecom.Manual) }},
	{name: "telecom-workflow", load: func(r string) (envs.Domain, error) { return telecom.LoadWorkflow(r) },
		solo: func(r string) (envs.Domain, error) { return telecom.LoadSolo(r, telecom.Workflow) }},
	{name: "telehealth", load: func(r string) (envs.Domain, error) { return telehealth.Load(r) },
		derive: telehealthTasksJSON},
	{name: "banking_knowledge", load: func(r string) (envs.Domain, error) { return banking.Load(r) },
		loadWith: func(r string, o Options) (envs.Domain, error) { return banking.LoadVariant(r, o.Banking) }},
	{name: v1airline.TauTraitName, load: func(r string) (envs.Domain, error) { return v1airline.LoadTauTrait(r) },
		derive: v1TasksJSON(v1airline.TauTraitName)},
	{name: v1retail.TauTraitName, load: func(r string) (envs.Domain, error) { return v1retail.LoadTauTrait(r) },
		derive: v1TasksJSON(v1retail.TauTraitName)},
	{name: tautraittelecom.Name, load: func(r string) (envs.Domain, error) { return tautraittelecom.Load(r) },
		derive: v1TasksJSON(tautraittelecom.Name)},
	{name: v1airline.TauBenchName, load: func(r string) (envs.Domain, error) { return v1airline.LoadTauBench(r) },
		derive: v1TasksJSON(v1airline.TauBenchName)},
	{name: v1retail.TauBenchName, load: func(r string) (envs.Domain, error) { return v1retail.LoadTauBench(r) },
		derive: v1TasksJSON(v1retail.TauBenchName)},
}

// Names lists the domain names in order.
func Names() []string { return known.Names() }

// Bases lists the base domains (no variants) in order.
func Bases() []string { return known.Bases() }

// ErrNoData is wrapped when a domain's data files are missing.
var ErrNoData = errors.New("data not found")

// Load loads a domain's data from a data directory.
func Load(name, root string) (envs.Domain, error) {
	return load(name, root, false)
}

// LoadSolo loads a domain in τ²-bench's solo mode (the agent holds the
// user's tools and works from the task's ticket; telecom only).
func LoadSolo(name, root string) (envs.Domain, error) {
	return load(name, root, true)
}

// SoloNames lists the domains that have a solo mode.
func SoloNames() []string {
	var out []string
	for _, e := range list {
		if e.solo != nil {
			out = append(out, e.name)
		}
	}
	return out
}

func lookup(name string) (entry, error) {
	for _, e := range list {
		if e.name == name {
			return e, nil
		}
	}
	return entry{}, fmt.Errorf("unknown domain %q (known: %s)", name, strings.Join(Names(), ", "))
}

func load(name, root string, solo bool) (envs.Domain, error) {
	e, err := lookup(name)
	if err != nil {
		return nil, err
	}
	loadFn := e.load
	if solo {
		if e.solo == nil {
			return nil, errext.Usagef("domain %s has no solo mode (upstream's solo mode: %s)", name, strings.Join(SoloNames(), ", "))
		}
		loadFn = e.solo
	}
	d, err := loadFn(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("load %s from %s: %w: %w (run `ledgerbench data pull` first, or pass --data)", name, root, ErrNoData, err)
		}
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	return d, nil
}

// File is a file derived from the pulled data: Path in the data directory
// and its contents.
type File struct {
	Path string
	Data []byte
}

// Derived builds every domain's derived files from the data in root (the
// caller writes them).
func Derived(root string) ([]File, error) {
	var out []File
	for _, e := range list {
		if e.derive == nil {
			continue
		}
		fs, err := e.derive(root)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
		out = append(out, fs...)
	}
	return out, nil
}

// telehealthTasksJSON converts τ-Trait's task lists from Python literals to
// JSON (tasks_<split>.json beside each tasks_<split>.py), for inspection and
// for other tools; ledgerbench itself parses the .py files when it loads
// the domain.
func telehealthTasksJSON(root string) ([]File, error) {
	th := data.Telehealth(root)
	var out []File
	for _, split := range []string{"test", "dev", "train"} {
		src := filepath.Join(th, "tasks_"+split+".py")
		b, err := os.ReadFile(src)
		if err != nil {
			return nil, fmt.Errorf("convert τ-Trait tasks: %w", err)
		}
		j, err := telehealth.ConvertTasks(src, b)
		if err != nil {
			return nil, fmt.Errorf("convert τ-Trait tasks: %w", err)
		}
		out = append(out, File{Path: filepath.Join(th, "tasks_"+split+".json"), Data: j})
	}
	return out, nil
}

// v1TasksJSON converts a τ-bench v1 domain's task splits (the files its
// env.py imports) from Python literals to JSON, tasks_<split>.json beside
// each tasks_<split>.py, for inspection and for other tools; ledgerbench
// itself parses the .py files when it loads the domain.
func v1TasksJSON(name string) func(root string) ([]File, error) {
	return func(root string) ([]File, error) {
		cfg, ok := v1Configs()[name]
		if !ok {
			return nil, fmt.Errorf("no τ-bench v1 configuration for %s", name)
		}
		dir := cfg.Source.Dir(root, cfg.Env)
		var out []File
		for _, sp := range cfg.Splits {
			src := filepath.Join(dir, sp.File)
			b, err := os.ReadFile(src)
			if err != nil {
				return nil, fmt.Errorf("convert %s tasks: %w", cfg.Source.Label, err)
			}
			j, err := tauv1.ConvertTasks(src, b, sp.Symbol)
			if err != nil {
				return nil, fmt.Errorf("convert %s tasks: %w", cfg.Source.Label, err)
			}
			out = append(out, File{Path: filepath.Join(dir, strings.TrimSuffix(sp.File, ".py")+".json"), Data: j})
		}
		return out, nil
	}
}

// v1Configs are the τ-bench v1 domains' configurations by name.
func v1Configs() map[string]tauv1.Config {
	return map[string]tauv1.Config{
		v1airline.TauTraitName: v1airline.Config(v1airline.TauTraitName),
		v1airline.TauBenchName: v1airline.Config(v1airline.TauBenchName),
		v1retail.TauTraitName:  v1retail.Config(v1retail.TauTraitName),
		v1retail.TauBenchName:  v1retail.Config(v1retail.TauBenchName),
		tautraittelecom.Name:   tautraittelecom.Config(nil), // the splits only: no tools are run
	}
}

// RetrievalOptions checks upstream's --retrieval-config and
// --retrieval-config-kwargs for a domain (banking_knowledge only: the
// variant must be one of banking.VariantNames, the kwargs a JSON object of
// valid overrides) and returns the load options. The error names the flag;
// "" for both leaves the domain's default.
func RetrievalOptions(domain, config, kwargs string) (Options, error) {
	var o Options
	if config == "" && kwargs == "" {
		return o, nil
	}
	if domain != banking.Name {
		return o, fmt.Errorf("--retrieval-config applies to %s only, not %s", banking.Name, domain)
	}
	if kwargs != "" && !json.Valid([]byte(kwargs)) {
		return o, fmt.Errorf("--retrieval-config-kwargs %q: not JSON", kwargs)
	}
	name := config
	if name == "" {
		name = banking.DefaultVariant
	}
	if _, err := banking.ResolveVariant(name, json.RawMessage(kwargs)); err != nil {
		flag := "--retrieval-config-kwargs"
		if errors.Is(err, banking.ErrUnknownVariant) {
			flag = "--retrieval-config"
		}
		return o, fmt.Errorf("%s: %w", flag, err)
	}
	o.Banking = banking.Options{Variant: config, Kwargs: json.RawMessage(kwargs)}
	return o, nil
}

// OfflineVariant is the banking_knowledge retrieval variant of offline jobs
// (`make run`, the tests over every domain): BM25 search, no endpoint.
const OfflineVariant = "bm25"

// LoadOffline loads a domain with options that need no model endpoint and
// no sandbox (banking_knowledge with OfflineVariant; the others as Load).
func LoadOffline(name, root string) (envs.Domain, error) {
	if name == banking.Name {
		return LoadWith(name, root, Options{Banking: banking.Options{Variant: OfflineVariant}})
	}
	return Load(name, root)
}
