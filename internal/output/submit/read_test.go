package submit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadSubmissionAsUpstream: upstream's Submission.load ignores unknown
// top-level keys, forbids them inside, and defaults submission_type and
// modality.
func TestReadSubmissionAsUpstream(t *testing.T) {
	t.Parallel()
	head := `"model_name": "M", "model_organization": "O", "submitting_organization": "O", "submission_date": "2026-01-02", "contact_info": {}`
	for _, tc := range []struct {
		name, body, err string
		typ, modality   string
	}{
		{name: "defaults", body: `{` + head + `, "results": {}}`, typ: "standard", modality: "text"},
		{name: "given", body: `{` + head + `, "submission_type": "custom", "modality": "voice", "results": {}}`, typ: "custom", modality: "voice"},
		{name: "unknown top-level key ignored", body: `{` + head + `, "notes": "x", "results": {}}`, typ: "standard", modality: "text"},
		{name: "unknown nested key refused", body: `{` + head + `, "results": {"retail": {"pass_9": 1}}}`, err: "pass_9"},
		{name: "unknown domain refused", body: `{` + head + `, "results": {"mock": {}}}`, err: "mock"},
		{name: "bad type", body: `{` + head + `, "submission_type": "", "results": {}}`, err: "neither standard nor custom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), SubmissionFile)
			if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := ReadSubmission(p)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("ReadSubmission err = %v; want one naming %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.SubmissionType != tc.typ || s.Modality != tc.modality {
				t.Errorf("type %q modality %q; want %q %q", s.SubmissionType, s.Modality, tc.typ, tc.modality)
			}
		})
	}
}
