package datatest

import "testing"

// PinnedDB decodes a τ²-bench domain's pinned db.json both ways its Load
// can: full, with the validating decoder, and lazy, the decoder Load trusts
// for the pinned file. Tests compare the two; it skips as Tau2File does and
// fails the test when either decoder fails.
func PinnedDB[DB any](tb testing.TB, domain string, full, lazy func([]byte) (DB, error)) (eager, lazily DB) {
	tb.Helper()
	raw := Tau2File(tb, domain, "db.json")
	eager, err := full(raw)
	if err != nil {
		tb.Fatalf("decode %s db.json in full: %v", domain, err)
	}
	lazily, err = lazy(raw)
	if err != nil {
		tb.Fatalf("decode %s db.json lazily: %v", domain, err)
	}
	return eager, lazily
}

// BenchmarkDB times the two decoders of PinnedDB on the pinned db.json:
// "pinned" (lazy, what Load does) and "full".
func BenchmarkDB[DB any](b *testing.B, domain string, full, lazy func([]byte) (DB, error)) {
	raw := Tau2File(b, domain, "db.json")
	for _, bc := range []struct {
		name   string
		decode func([]byte) (DB, error)
	}{{"pinned", lazy}, {"full", full}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := bc.decode(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
