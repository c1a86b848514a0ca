package airline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/table"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

var update = flag.Bool("update", false, "regenerate golden files (tool_cases.golden.json runs testdata/oracle.py on upstream's sources in $LEDGERBENCH_AIRLINE_SRC)")

type toolCase struct {
	Name  string `json:"name"`
	Calls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"calls"`
}

type caseResult struct {
	Name    string `json:"name"`
	Results []struct {
		Content string `json:"content"`
		Error   bool   `json:"error"`
	} `json:"results"`
	DBHash string `json:"db_hash"`
}

// dbHash is upstream's database hash: sha256 of
// json.dumps(db.model_dump(), sort_keys=True, default=str). It is
// canonicalDB(e.Snapshot()) with the untouched records' JSON cached.
func dbHash(e *Env) string {
	base := baseCanonical(e.d)
	h := sha256.New()
	h.Write([]byte(`{"flights": `))
	hashTable(h, &e.flights, base.flights)
	h.Write([]byte(`, "reservations": `))
	hashTable(h, &e.reservations, base.reservations)
	h.Write([]byte(`, "users": `))
	hashTable(h, &e.users, base.users)
	h.Write([]byte("}"))
	return hex.EncodeToString(h.Sum(nil))
}

// recordJSON caches canonical() of the shared database's records.
type recordJSON struct {
	once                         sync.Once
	flights, users, reservations map[string]string
}

var baseCache recordJSON

func baseCanonical(d *Domain) *recordJSON {
	baseCache.once.Do(func() {
		baseCache.flights = canonicalRecords(&d.db.Flights)
		baseCache.users = canonicalRecords(&d.db.Users)
		baseCache.reservations = canonicalRecords(&d.db.Reservations)
	})
	return &baseCache
}

func canonicalRecords[V any](m *omap.Map[*V]) map[string]string {
	out := make(map[string]string, m.Len())
	for k, v := range m.All() {
		out[k] = canonical(v)
	}
	return out
}

func hashTable[V any](h io.Writer, t *table.Table[V], base map[string]string) {
	touched := map[string]bool{}
	for _, k := range t.Touched() {
		touched[k] = true
	}
	var keys []string
	for k := range t.All() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	io.WriteString(h, "{")
	for i, k := range keys {
		if i > 0 {
			io.WriteString(h, ", ")
		}
		h.Write(pyjson.AppendString(nil, k, true))
		io.WriteString(h, ": ")
		if touched[k] {
			v, _ := t.Get(k)
			io.WriteString(h, canonical(v))
		} else {
			io.WriteString(h, base[k])
		}
	}
	io.WriteString(h, "}")
}

// TestDBHashMatchesCanonicalDB checks the cached hash against the plain one.
func TestDBHashMatchesCanonicalDB(t *testing.T) {
	t.Parallel()
	d := testDomain(t)
	e := d.Env()
	ctx := context.Background()
	for _, c := range []struct{ name, args string }{
		{"send_certificate", `{"user_id": "mia_li_3668", "amount": 100}`},
		{"cancel_reservation", `{"reservation_id": "NO6JO3"}`},
	} {
		if _, err := e.Call(ctx, message.ByAssistant, c.name, json.RawMessage(c.args)); err != nil {
			t.Fatal(err)
		}
	}
	sum := sha256.Sum256([]byte(canonicalDB(e.Snapshot())))
	if got, want := dbHash(e), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("dbHash = %s; canonicalDB hash %s", got, want)
	}
}

// TestToolCases runs every case of the cases files (sequences of calls) on a
// fresh environment and compares each tool message and the final database
// hash with the outputs of upstream's own toolkit, recorded in the golden
// files by testdata/oracle.py:
//
//   - testdata/tool_cases.json: each tool, its error paths and upstream's
//     quirks, written by hand;
//   - testdata/random_cases.json: calls with odd arguments drawn by
//     testdata/random_cases.py.
//
// $LEDGERBENCH_AIRLINE_CASES adds another cases file (its golden file is the
// same path ending in .golden.json), for larger differential runs.
func TestToolCases(t *testing.T) {
	t.Parallel()
	d := testDomain(t)
	files := []string{filepath.Join("testdata", "tool_cases.json"), filepath.Join("testdata", "random_cases.json")}
	if p := os.Getenv("LEDGERBENCH_AIRLINE_CASES"); p != "" {
		files = append(files, p)
	}
	for _, casesPath := range files {
		t.Run(filepath.Base(casesPath), func(t *testing.T) { runCaseFile(t, d, casesPath) })
	}
}

func runCaseFile(t *testing.T, d *Domain, casesPath string) {
	goldenPath := strings.TrimSuffix(casesPath, ".json") + ".golden.json"
	if *update {
		regenerateOracle(t, casesPath, goldenPath)
	}
	var cases []toolCase
	readJSON(t, casesPath, &cases)
	var golden []caseResult
	readJSON(t, goldenPath, &golden)
	if len(golden) != len(cases) {
		t.Fatalf("%d golden results for %d cases: run with -update", len(golden), len(cases))
	}
	ctx := context.Background()
	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			want := golden[i]
			if want.Name != c.Name || len(want.Results) != len(c.Calls) {
				t.Fatalf("golden entry %q does not match the case: run with -update", want.Name)
			}
			env := d.Env()
			for j, call := range c.Calls {
				got := envs.Respond(ctx, env, message.ToolCall{ID: fmt.Sprint(j), Name: call.Name, Arguments: call.Arguments, Requestor: message.ByAssistant})
				w := want.Results[j]
				if got.Content != w.Content || got.Error != w.Error {
					t.Errorf("call %d %s(%s):\n got (error=%v): %s\nwant (error=%v): %s", j, call.Name, call.Arguments, got.Error, got.Content, w.Error, w.Content)
				}
			}
			if got := dbHash(env); got != want.DBHash {
				t.Errorf("final database hash %s; upstream %s", got, want.DBHash)
			}
		})
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// pydanticVersion normalises the error URL to upstream's locked pydantic
// (the oracle may run a newer release).
var pydanticVersion = regexp.MustCompile(`errors\.pydantic\.dev/[0-9]+\.[0-9]+/`)

func regenerateOracle(t *testing.T, casesPath, goldenPath string) {
	t.Helper()
	src := os.Getenv("LEDGERBENCH_AIRLINE_SRC")
	if src == "" {
		t.Fatal("-update needs LEDGERBENCH_AIRLINE_SRC: a directory holding upstream's airline data_model.py and tools.py")
	}
	db := filepath.Join(data.Tau2Domain(datatest.Root(t), Name), "db.json")
	in, err := os.Open(casesPath)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out, stderr bytes.Buffer
	cmd := exec.Command("python3", filepath.Join("testdata", "oracle.py"), src, db)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("oracle: %v\n%s", err, stderr.String())
	}
	var res []json.RawMessage
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("oracle output: %v", err)
	}
	var buf bytes.Buffer
	buf.WriteString("[\n")
	for i, r := range res {
		buf.Write(pydanticVersion.ReplaceAll(r, []byte("errors.pydantic.dev/2.12/")))
		if i < len(res)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("]\n")
	if err := os.WriteFile(goldenPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
