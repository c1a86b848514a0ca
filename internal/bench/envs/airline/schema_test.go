package airline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/pyschema/schematest"
)

// TestSchemas compares the loaded tools, generated from upstream's source,
// with the schemas upstream's own code sends.
func TestSchemas(t *testing.T) {
	t.Parallel()
	d := testDomain(t)
	root := datatest.Root(t)
	schematest.Check(t, root, Name, "assistant", d.AgentTools())
	schematest.Check(t, root, Name, "user", d.UserTools())
}

// TestLoadSourceErrors: a missing or changed upstream source file is a load
// error naming the file and the symbol.
func TestLoadSourceErrors(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	toolsPy, err := os.ReadFile(data.Tau2Source(root, "domains/airline/tools.py"))
	if err != nil {
		t.Skipf("upstream source not available: %v", err)
	}
	for _, tc := range []struct {
		name  string
		tools func() []byte // nil: no tools.py
		want  []string
	}{
		{"missing file", nil, []string{"tools.py", "no such file"}},
		{"missing function", func() []byte {
			return bytes.Replace(toolsPy, []byte("def get_flight_status("), []byte("def get_flight_state("), 1)
		}, []string{"tools.py", "AirlineTools.get_flight_status"}},
		{"missing parameter", func() []byte {
			return bytes.Replace(toolsPy, []byte("def send_certificate(self, user_id: str, amount: int)"), []byte("def send_certificate(self, user_id: str)"), 1)
		}, []string{"tools.py", "AirlineTools.send_certificate", "parameters"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			if err := os.MkdirAll(filepath.Join(tmp, data.Tau2), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(root, data.Tau2, "data"), filepath.Join(tmp, data.Tau2, "data")); err != nil {
				t.Fatal(err)
			}
			src := data.Tau2Source(tmp, "domains/airline")
			if err := os.MkdirAll(src, 0o755); err != nil {
				t.Fatal(err)
			}
			model, err := os.ReadFile(data.Tau2Source(root, "domains/airline/data_model.py"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(src, "data_model.py"), model, 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.tools != nil {
				changed := tc.tools()
				if bytes.Equal(changed, toolsPy) {
					t.Fatal("the test's edit of tools.py did not apply")
				}
				if err := os.WriteFile(filepath.Join(src, "tools.py"), changed, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err = Load(tmp)
			if err == nil {
				t.Fatal("Load succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
