package data_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

func TestPinned(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	const path = "data/tau2/domains/airline/split_tasks.json"
	b, err := os.ReadFile(filepath.Join(root, data.Tau2, filepath.FromSlash(path)))
	if err != nil {
		t.Skipf("no upstream data: %v", err)
	}
	if !data.Pinned(data.Tau2, path, b) {
		t.Errorf("Pinned(%s) = false for the pinned file", path)
	}
	changed := append([]byte(nil), b...)
	changed[len(changed)/2] ^= 1
	for _, tc := range []struct {
		name, folder, path string
		content            []byte
	}{
		{"one bit changed", data.Tau2, path, changed},
		{"truncated", data.Tau2, path, b[:len(b)-1]},
		{"other folder", data.TauTrait, path, b},
		{"not in the manifest", data.Tau2, "data/tau2/domains/airline/other.json", b},
	} {
		if data.Pinned(tc.folder, tc.path, tc.content) {
			t.Errorf("%s: Pinned = true; want false", tc.name)
		}
	}
}

func TestDecodePinned(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	const path = "data/tau2/domains/airline/split_tasks.json"
	b, err := os.ReadFile(filepath.Join(root, data.Tau2, filepath.FromSlash(path)))
	if err != nil {
		t.Skipf("no upstream data: %v", err)
	}
	lazy := func([]byte) (string, error) { return "lazy", nil }
	full := func([]byte) (string, error) { return "full", nil }
	failing := func([]byte) (string, error) { return "", errors.New("no") }
	for _, tc := range []struct {
		name    string
		content []byte
		lazy    func([]byte) (string, error)
		want    string
	}{
		{"pinned", b, lazy, "lazy"},
		{"changed", append(append([]byte(nil), b...), ' '), lazy, "full"},
		{"lazy failed", b, failing, "full"},
	} {
		if got, _ := data.DecodePinned(data.Tau2, path, tc.content, tc.lazy, full); got != tc.want {
			t.Errorf("%s: DecodePinned used %s; want %s", tc.name, got, tc.want)
		}
	}
}
