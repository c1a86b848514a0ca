package telecom

import (
	"reflect"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestPinnedDBDecodesAsChecked: the pinned db.toml, decoded without the
// required-keys check LoadDB skips for it, is the database the full decode
// gives.
func TestPinnedDBDecodesAsChecked(t *testing.T) {
	t.Parallel()
	raw := datatest.Tau2File(t, Name, "db.toml")
	if !data.Pinned(data.Tau2, data.Tau2DomainPath(Name)+"/db.toml", raw) {
		t.Skip("db.toml in the test data is not the pinned file")
	}
	lazy, err := parsePinnedDB(raw)
	if err != nil {
		t.Fatal(err)
	}
	full, err := ParseDB(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(lazy, full) {
		t.Error("pinned db.toml decodes differently without the required-keys check")
	}
}
