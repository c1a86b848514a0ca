// Package submit prepares and validates τ-bench leaderboard submissions the
// way τ²-bench's `tau2 submit prepare` and `tau2 submit validate` do
// (src/tau2/scripts/leaderboard/prepare_submission.py): a directory
// {model}_{organization}_{date}/ holding submission.json (metadata and the
// pass^k metrics per domain) and trajectories/ (one τ²-bench results JSON
// per domain).
package submit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// File and directory names of a submission (upstream's SUBMISSION_FILE_NAME
// and TRAJECTORY_FILES_DIR_NAME).
const (
	SubmissionFile  = "submission.json"
	TrajectoriesDir = "trajectories"
)

// Domains are the text domains the leaderboard ranks, in the order of
// upstream's Results model.
func Domains() []string { return []string{"retail", "airline", "telecom", "banking_knowledge"} }

// Submission is upstream's Submission model (text modality), fields in its
// order; nil fields are left out as upstream's exclude_none dump does.
type Submission struct {
	ModelName              string            `json:"model_name"`
	ModelOrganization      string            `json:"model_organization"`
	SubmittingOrganization string            `json:"submitting_organization"`
	SubmissionDate         string            `json:"submission_date"`
	SubmissionType         string            `json:"submission_type"`
	Modality               string            `json:"modality"`
	ContactInfo            ContactInfo       `json:"contact_info"`
	Results                Results           `json:"results"`
	IsNew                  bool              `json:"is_new"`
	TrajectoriesAvailable  bool              `json:"trajectories_available"`
	TrajectoryFiles        map[string]string `json:"trajectory_files,omitempty"`
	References             []Reference       `json:"references,omitempty"`
	Methodology            *Methodology      `json:"methodology,omitempty"`
	VoiceConfig            json.RawMessage   `json:"voice_config,omitempty"`
	InteractionMetrics     json.RawMessage   `json:"interaction_metrics,omitempty"`
	ModelRelease           json.RawMessage   `json:"model_release,omitempty"`
	ReasoningEffort        *string           `json:"reasoning_effort,omitempty"`
}

// ContactInfo is upstream's ContactInfo.
type ContactInfo struct {
	Email  *string `json:"email,omitempty"`
	Name   *string `json:"name,omitempty"`
	GitHub *string `json:"github,omitempty"`
}

// Results holds one DomainResults per domain.
type Results struct {
	Retail           *DomainResults `json:"retail,omitempty"`
	Airline          *DomainResults `json:"airline,omitempty"`
	Telecom          *DomainResults `json:"telecom,omitempty"`
	BankingKnowledge *DomainResults `json:"banking_knowledge,omitempty"`
}

// Domain returns the results slot of a domain (nil for an unknown domain).
func (r *Results) Domain(name string) **DomainResults {
	switch name {
	case "retail":
		return &r.Retail
	case "airline":
		return &r.Airline
	case "telecom":
		return &r.Telecom
	case "banking_knowledge":
		return &r.BankingKnowledge
	}
	return nil
}

// DomainResults is upstream's DomainResults: pass^1…pass^4 in percent (nil
// where the trials do not support k) and the mean agent cost per
// simulation in USD.
type DomainResults struct {
	Pass1           *float64 `json:"pass_1,omitempty"`
	Pass2           *float64 `json:"pass_2,omitempty"`
	Pass3           *float64 `json:"pass_3,omitempty"`
	Pass4           *float64 `json:"pass_4,omitempty"`
	Cost            *float64 `json:"cost,omitempty"`
	RetrievalConfig *string  `json:"retrieval_config,omitempty"`
}

// PassK returns pass^k for k = 1…4.
func (d *DomainResults) PassK(k int) *float64 {
	switch k {
	case 1:
		return d.Pass1
	case 2:
		return d.Pass2
	case 3:
		return d.Pass3
	case 4:
		return d.Pass4
	}
	return nil
}

// Reference is upstream's Reference.
type Reference struct {
	Title string  `json:"title"`
	URL   string  `json:"url"`
	Type  *string `json:"type,omitempty"`
}

// Methodology is upstream's Methodology.
type Methodology struct {
	EvaluationDate   *string       `json:"evaluation_date,omitempty"`
	Tau2BenchVersion *string       `json:"tau2_bench_version,omitempty"`
	UserSimulator    *string       `json:"user_simulator,omitempty"`
	Notes            *string       `json:"notes,omitempty"`
	Verification     *Verification `json:"verification,omitempty"`
}

// Verification is upstream's Verification.
type Verification struct {
	ModifiedPrompts  *bool   `json:"modified_prompts,omitempty"`
	OmittedQuestions *bool   `json:"omitted_questions,omitempty"`
	Details          *string `json:"details,omitempty"`
}

// Encode writes the submission as upstream does (two-space indent, no
// ASCII escaping, a final newline).
func (s *Submission) Encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("encode submission: %w", err)
	}
	return buf.Bytes(), nil
}

// ReadSubmission reads a submission.json strictly (unknown keys are errors,
// as upstream's models forbid extra fields).
func ReadSubmission(path string) (*Submission, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read submission: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var s Submission
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var errs []string
	if s.ModelName == "" || s.ModelOrganization == "" || s.SubmittingOrganization == "" || s.SubmissionDate == "" {
		errs = append(errs, "model_name, model_organization, submitting_organization and submission_date are required")
	}
	if s.SubmissionType != "standard" && s.SubmissionType != "custom" {
		errs = append(errs, fmt.Sprintf("submission_type %q is neither standard nor custom", s.SubmissionType))
	}
	if s.Modality != "text" && s.Modality != "voice" {
		errs = append(errs, fmt.Sprintf("modality %q is neither text nor voice", s.Modality))
	}
	for _, d := range Domains() {
		r := *s.Results.Domain(d)
		if r == nil {
			continue
		}
		for k := 1; k <= 4; k++ {
			if p := r.PassK(k); p != nil && (*p < 0 || *p > 100) {
				errs = append(errs, fmt.Sprintf("%s pass_%d = %v is not within 0…100", d, k, *p))
			}
		}
		if r.Cost != nil && *r.Cost < 0 {
			errs = append(errs, fmt.Sprintf("%s cost %v is negative", d, *r.Cost))
		}
	}
	if s.Results.BankingKnowledge != nil && s.Results.BankingKnowledge.RetrievalConfig == nil {
		errs = append(errs, "banking_knowledge results require retrieval_config")
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: %v", path, errs)
	}
	return &s, nil
}
