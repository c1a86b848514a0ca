package domains

import (
	"slices"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/domains/known"
)

// TestListMatchesKnown checks that every known domain has a loader and
// every loader a known name, in the same order.
func TestListMatchesKnown(t *testing.T) {
	var got []string
	for _, e := range list {
		got = append(got, e.name)
	}
	if want := known.Names(); !slices.Equal(got, want) {
		t.Errorf("loaders %v; want the known domains %v", got, want)
	}
}

func TestBasesAndVariants(t *testing.T) {
	for _, d := range known.All() {
		if !d.IsVariant() {
			continue
		}
		base, ok := known.Lookup(d.Base)
		if !ok || base.IsVariant() {
			t.Errorf("%s: base %q is not a known base domain", d.Name, d.Base)
		}
		if slices.Contains(Bases(), d.Name) {
			t.Errorf("Bases() = %v; holds the variant %s", Bases(), d.Name)
		}
	}
}

func TestLoadUnknown(t *testing.T) {
	if _, err := Load("bogus", t.TempDir()); err == nil {
		t.Fatal("Load(bogus) = nil error; want unknown domain")
	}
	if _, err := LoadSolo("airline", t.TempDir()); err == nil {
		t.Fatal("LoadSolo(airline) = nil error; want no solo mode")
	}
}
