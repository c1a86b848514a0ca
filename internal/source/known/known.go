// Package known names the ported domains and what each is: the one list
// every other package derives its domain lists from. It imports nothing of
// the domains themselves, so low-level packages (results, internal/output/report,
// internal/engine/agents) can use it; internal/bench/domains pairs each name with its
// loader.
package known

// Benchmark is the upstream benchmark a domain is ported from. It decides
// the defaults a run takes from upstream: τ-Trait's domains run τ-Trait's
// user simulator and loop, τ²-bench's domains τ²-bench's.
type Benchmark string

const (
	Tau2     Benchmark = "tau2-bench"
	TauTrait Benchmark = "tau-trait"
	TauBench Benchmark = "tau-bench" // τ-bench v1 (sierra-research/tau-bench)
)

// V1 reports whether the benchmark's domains are τ-bench v1 environments
// run on v1's ToolCallingAgent loop (τ-Trait's and τ-bench v1's).
func (b Benchmark) V1() bool { return b == TauTrait || b == TauBench }

// Domain describes one ported domain.
type Domain struct {
	Name string
	// Base is the domain a variant shares its data, policy predicates and
	// gate with (telecom for telecom-workflow); empty for a base domain.
	Base      string
	Benchmark Benchmark
	// Env is the upstream environment a τ-bench v1 style domain ports
	// (tau_bench/envs/<env>, tau_trait/envs/<env>): "airline" for both
	// tautrait-airline and taubench-airline, whose results lists name it
	// alike; "telecom" for tautrait-telecom (τ-Trait's own, not τ²-bench's).
	// Empty for τ²-bench's domains.
	Env string
}

// BaseName is the domain's base domain: Base for a variant, else Name.
func (d Domain) BaseName() string {
	if d.Base != "" {
		return d.Base
	}
	return d.Name
}

// IsVariant reports whether the domain is a variant of another.
func (d Domain) IsVariant() bool { return d.Base != "" }

// list is fixed at compile time; it holds no state. Adding a domain means a
// line here and its loader in internal/bench/domains.
var list = []Domain{
	{Name: "airline", Benchmark: Tau2},
	{Name: "retail", Benchmark: Tau2},
	{Name: "telecom", Benchmark: Tau2},
	{Name: "telecom-workflow", Base: "telecom", Benchmark: Tau2},
	{Name: "telehealth", Benchmark: TauTrait, Env: "telehealth"},
	{Name: "banking_knowledge", Benchmark: Tau2},
	{Name: "tautrait-airline", Benchmark: TauTrait, Env: "airline"},
	{Name: "tautrait-retail", Benchmark: TauTrait, Env: "retail"},
	// τ-Trait's own single-control telecom, unrelated to τ²-bench's telecom.
	{Name: "tautrait-telecom", Benchmark: TauTrait, Env: "telecom"},
	{Name: "taubench-airline", Benchmark: TauBench, Env: "airline"},
	{Name: "taubench-retail", Benchmark: TauBench, Env: "retail"},
}

// All returns every domain in order.
func All() []Domain {
	return append([]Domain(nil), list...)
}

// Names lists every domain name in order, variants included.
func Names() []string {
	out := make([]string, len(list))
	for i, d := range list {
		out[i] = d.Name
	}
	return out
}

// Bases lists the base domains in order (no variants).
func Bases() []string {
	var out []string
	for _, d := range list {
		if !d.IsVariant() {
			out = append(out, d.Name)
		}
	}
	return out
}

// Lookup returns the domain called name.
func Lookup(name string) (Domain, bool) {
	for _, d := range list {
		if d.Name == name {
			return d, true
		}
	}
	return Domain{}, false
}

// WithEnv lists the domains porting a τ-bench v1 environment (Env), in
// order.
func WithEnv(env string) []Domain {
	var out []Domain
	for _, d := range list {
		if d.Env == env {
			out = append(out, d)
		}
	}
	return out
}

// BenchmarkOf is the benchmark a domain comes from; τ²-bench for a name
// that is not a ported domain (τ²-bench is the harness's frame).
func BenchmarkOf(name string) Benchmark {
	if d, ok := Lookup(name); ok {
		return d.Benchmark
	}
	return Tau2
}

// Traits are τ-Trait's user trait names, in the order its example trait
// files use (the τ-Trait user simulator's keys; recorded files are named
// after them, e.g. confusion_telehealth.json).
func Traits() []string { return []string{"impatience", "confusion", "skeptical", "incoherence"} }
