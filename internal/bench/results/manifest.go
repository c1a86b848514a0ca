package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ledgerbench/ledgerbench/internal/core/atomicfile"
	"github.com/ledgerbench/ledgerbench/internal/core/clip"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
)

// Manifest records everything a run decided, so a result can be traced and
// reproduced, and so a resumed run can check it continues the same
// experiment. It is the run directory's manifest.json.
type Manifest struct {
	HarnessVersion string `json:"harness_version"`
	CreatedAt      string `json:"created_at"`
	// DataHash is the SHA-256 of the pinned data manifest.
	DataHash string `json:"data_hash"`
	// ModifiedData lists the loaded data files that differ from their pins
	// (run with --allow-modified-data): folder/path → the SHA-256 actually
	// loaded.
	ModifiedData map[string]string `json:"modified_data,omitempty"`
	Domain       string            `json:"domain"`
	Split        string            `json:"split"`
	TaskIDs      []string          `json:"task_ids"`
	Agent        string            `json:"agent"`
	// Backbone, UserBackbone and JudgeBackbone name the models; NoJudge
	// records an explicit opt-out of NL-assertion judging.
	Backbone      string `json:"backbone"`
	UserBackbone  string `json:"user_backbone"`
	JudgeBackbone string `json:"judge_backbone,omitempty"`
	NoJudge       bool   `json:"no_judge,omitempty"`
	// Backbones holds the settings of each backbone used (never keys).
	Backbones map[string]json.RawMessage `json:"backbones,omitempty"`
	// PromptHashes names prompts with a hash of each.
	PromptHashes map[string]string `json:"prompt_hashes,omitempty"`
	// Prompts says where the model-facing text of the run came from:
	// PromptsUpstream when every prompt, tool schema and loop rule the agent
	// and the user simulator were shown is upstream's own (the baseline agent
	// on τ²-bench or τ-Trait text extracted from the pinned sources), else
	// PromptsModified (LedgerAgent and its ablations, IRMA, or a changed
	// prompt). Empty in runs written before the field existed.
	Prompts    string  `json:"prompts,omitempty"`
	Seed       int64   `json:"seed"`
	TrialSeeds []int64 `json:"trial_seeds"`
	Trials     int     `json:"trials"`
	MaxSteps   int     `json:"max_steps"`
	MaxErrors  int     `json:"max_errors"`
	// Timeout is the per-simulation wall-clock limit ("" for none).
	Timeout string `json:"timeout,omitempty"`
	// Shard is "i/n" when the run holds one shard of the units.
	Shard string `json:"shard,omitempty"`
	// MergedFrom lists the directories a merged run was joined from.
	MergedFrom []string `json:"merged_from,omitempty"`
	// BackbonesFile is the backbones file the run was started with (a
	// resumed run reads it again unless told otherwise; what matters of it
	// is in Backbones).
	BackbonesFile string `json:"backbones_file,omitempty"`
	// UserStyle, Traits and TraitMode configure the user simulator
	// (τ²-bench or τ-Trait style; τ-Trait traits and how they are applied).
	UserStyle string `json:"user_style,omitempty"`
	Traits    string `json:"traits,omitempty"`
	TraitMode string `json:"trait_mode,omitempty"`
	// LedgerPlacement is where LedgerAgent put its ledger when not the
	// default ("": system, appended to the system message; "tail": a
	// system message after the history).
	LedgerPlacement string `json:"ledger_placement,omitempty"`
	// Solo marks a run in τ²-bench's solo mode (no user; the agent holds
	// the user's tools and works from the ticket). UserBackbone is then
	// DummyUserImplementation.
	Solo bool `json:"solo,omitempty"`
	// Loop is the conversation loop: "tau2" (τ²-bench's orchestrator) or
	// "tau-trait" (τ-Trait's ToolCallingAgent loop). Max steps and max
	// errors bound the tau2 loop only; tau-trait's is 30 agent steps.
	Loop string `json:"loop,omitempty"`
	// RetrievalConfig is banking_knowledge's retrieval variant (upstream's
	// --retrieval-config; the default alltools when none was given) and
	// RetrievalConfigKwargs its overrides as given.
	RetrievalConfig       string          `json:"retrieval_config,omitempty"`
	RetrievalConfigKwargs json.RawMessage `json:"retrieval_config_kwargs,omitempty"`
	// Embeddings holds the settings (never keys) of the embeddings entries
	// the retrieval variant embeds with; RerankerBackbone names the
	// backbone its reranker asks (its settings are in Backbones).
	Embeddings       map[string]json.RawMessage `json:"embeddings,omitempty"`
	RerankerBackbone string                     `json:"reranker_backbone,omitempty"`
	// EnforceProtocol is upstream's --enforce-communication-protocol: a
	// message mixing text and tool calls ended its simulation with
	// agent_error or user_error.
	EnforceProtocol bool `json:"enforce_communication_protocol,omitempty"`
	// Defaults lists the upstream defaults the run applied because no flag
	// named them (e.g. τ²-bench's default user simulator).
	Defaults []string `json:"defaults,omitempty"`
}

// Values of Manifest.Prompts.
const (
	PromptsUpstream = "upstream"
	PromptsModified = "modified"
)

// HashText returns the hex SHA-256 of s.
func HashText(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// File names inside a run directory.
const (
	ManifestFile    = "manifest.json"
	SimulationsFile = "simulations.jsonl"
)

// ReadManifest reads dir's manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("read manifest %s: %w", path, errext.JSON(err))
	}
	return &m, nil
}

// WriteManifest writes dir's manifest.json atomically (package atomicfile).
func WriteManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	b = append(b, '\n')
	if err := atomicfile.Write(filepath.Join(dir, ManifestFile), b); err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	return nil
}

// Fields of a manifest that do not define the experiment: they may differ
// between a run and its resumption.
var volatileFields = []string{"harness_version", "created_at", "merged_from", "backbones_file"}

// Diff lists the differences between m (the recorded manifest) and o (the
// requested one) that matter for continuing a run, as "field: old → new"
// lines. The creation time, harness version and merge sources are ignored,
// as are the fields named in ignore (JSON names, e.g. "shard").
func (m *Manifest) Diff(o *Manifest, ignore ...string) []string {
	a, b := m.fields(), o.fields()
	skip := append(slices.Clone(volatileFields), ignore...)
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		if slices.Contains(skip, k) {
			continue
		}
		va, vb := a[k], b[k]
		if bytes.Equal(va, vb) {
			continue
		}
		if k == "task_ids" {
			out = append(out, diffTaskIDs(m.TaskIDs, o.TaskIDs))
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s → %s", k, short(va), short(vb)))
	}
	return out
}

func (m *Manifest) fields() map[string][]byte {
	b, _ := json.Marshal(m)
	var raw map[string]json.RawMessage
	_ = json.Unmarshal(b, &raw)
	out := make(map[string][]byte, len(raw))
	for k, v := range raw {
		// Re-encode for a canonical form (sorted map keys).
		var x any
		_ = json.Unmarshal(v, &x)
		c, _ := json.Marshal(x)
		out[k] = c
	}
	return out
}

func short(v []byte) string {
	if v == nil {
		return "(none)"
	}
	s := string(v)
	if utf8.RuneCountInString(s) > 120 {
		s = clip.Runes(s, 117, "...")
	}
	return s
}

func diffTaskIDs(old, cur []string) string {
	var added, removed []string
	for _, id := range cur {
		if !slices.Contains(old, id) {
			added = append(added, id)
		}
	}
	for _, id := range old {
		if !slices.Contains(cur, id) {
			removed = append(removed, id)
		}
	}
	var parts []string
	if len(added) > 0 {
		parts = append(parts, fmt.Sprintf("%d added (%s)", len(added), list(added)))
	}
	if len(removed) > 0 {
		parts = append(parts, fmt.Sprintf("%d removed (%s)", len(removed), list(removed)))
	}
	if len(parts) == 0 {
		parts = append(parts, "same tasks in a different order")
	}
	return "task_ids: " + strings.Join(parts, ", ")
}

func list(ids []string) string {
	if len(ids) > 5 {
		return strings.Join(ids[:5], ", ") + fmt.Sprintf(", … %d more", len(ids)-5)
	}
	return strings.Join(ids, ", ")
}
