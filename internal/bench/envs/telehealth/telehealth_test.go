package telehealth

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/goldentest"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

var _ envs.Domain = (*Domain)(nil)
var _ envs.Env = (*Env)(nil)
var _ envs.Terminator = (*Domain)(nil)

// initialHash is upstream's get_data_hash() right after load_data(),
// printed by CPython over the pinned data files.
const initialHash = "e41fc7eb8b5dd5d83532f8d0d88898842ea3c0aa647e535b3dde47637e6b3b65"

func TestLoad(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	db := d.DB()
	counts := []struct {
		name      string
		got, want int
	}{
		{"patients", db.Patients.Len(), 27},
		{"providers", db.Providers.Len(), 26},
		{"appointments", db.Appointments.Len(), 49},
		{"medical_records", db.MedicalRecords.Len(), 27},
		{"medication_suppliers", db.MedicationSuppliers.Len(), 24},
		{"drug_interactions", db.DrugInteractions.Len(), 5},
		{"telemetry_inventory", len(db.TelemetryInventory), 20},
		{"telemetry_uploads", len(db.TelemetryUploads), 7},
		{"regimen_plans", db.RegimenPlans.Len(), 1},
		{"tools", len(d.AgentTools()), 23},
		{"test tasks", len(d.Tasks().Extra["test"]), 20},
		{"dev tasks", len(d.Tasks().Extra["dev"]), 1},
		{"train tasks", len(d.Tasks().Extra["train"]), 1},
	}
	for _, c := range counts {
		if c.got != c.want {
			t.Errorf("%s: %d; want %d", c.name, c.got, c.want)
		}
	}
	if d.Name() != "telehealth" || !strings.HasPrefix(d.Policy(), "# Telehealth Agent Policy") || d.UserTools() != nil {
		t.Errorf("Name %q, policy %.30q, user tools %v", d.Name(), d.Policy(), d.UserTools())
	}
	if got := d.Env().DataHash(); got != initialHash {
		t.Errorf("initial data hash %s; want %s", got, initialHash)
	}
	writes := map[string]bool{}
	for _, info := range d.AgentTools() {
		if info.Mutates() {
			writes[info.Name] = true
		}
	}
	want := []string{"schedule_appointment", "cancel_appointment", "reschedule_appointment", "update_prescription_supplier", "update_medical_record_note"}
	if len(writes) != len(want) {
		t.Errorf("write tools %v; want %v", writes, want)
	}
	for _, w := range want {
		if !writes[w] {
			t.Errorf("%s is not a write tool", w)
		}
	}
	if !d.Terminates("transfer_to_human_support") || d.Terminates("think") {
		t.Error("Terminates: only transfer_to_human_support ends the episode")
	}
}

// TestDumpDBMatchesFiles checks that the typed database writes each table
// back as the file it was read from (same keys, order and values).
func TestDumpDBMatchesFiles(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	agent, user := d.NewEnv().DumpDB()
	if user != nil {
		t.Errorf("user DB = %v; want nil", user)
	}
	tree, err := decodedTree(agent)
	if err != nil {
		t.Fatal(err)
	}
	std, err := json.Marshal(agent)
	if err != nil {
		t.Fatal(err)
	}
	if fromStd, err := pyjson.Decode(std); err != nil || pyjson.String(fromStd) != pyjson.String(tree) {
		t.Errorf("encoding/json dump differs from pyjson's (%v)", err)
	}
	dir := filepath.Join(data.Telehealth(datatest.Root(t)), "data")
	dump := tree.(*pyjson.Dict)
	for i, key := range dump.Keys {
		raw, err := os.ReadFile(filepath.Join(dir, key+".json"))
		if err != nil {
			t.Fatal(err)
		}
		file, err := pyjson.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := pyjson.String(dump.Values[i]), pyjson.String(file); got != want {
			t.Errorf("%s: dump differs from the file", key)
		}
	}
}

func TestMissingFiles(t *testing.T) {
	t.Parallel()
	src := filepath.Join(data.Telehealth(datatest.Root(t)), "data")
	dir := t.TempDir()
	for _, f := range []string{"patients.json", "providers.json", "appointments.json", "medical_records.json", "medication_suppliers.json", "drug_interactions.json"} {
		raw, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db, err := LoadDB(dir)
	if err != nil {
		t.Fatalf("optional files missing: %v", err)
	}
	d := New(db, "policy", &tasks.Set{})
	env := d.Env()
	for _, c := range []struct{ name, args, want string }{
		{"list_telemetry_devices", `{}`, "Telemetry inventory is empty."},
		{"get_regimen_options", `{"patient_id": "sarah_johnson_1234"}`, "No regimen optimization data available for patient sarah_johnson_1234."},
		{"list_telemetry_uploads", `{"device_id": "VC-449"}`, "No telemetry uploads found for device VC-449 in the specified window."},
	} {
		res, err := env.Call(context.Background(), message.ByAssistant, c.name, json.RawMessage(c.args))
		if err != nil || res != c.want {
			t.Errorf("%s = %v, %v; want %q", c.name, res, err, c.want)
		}
	}
	if err := os.Remove(filepath.Join(dir, "providers.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDB(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("required file missing: err = %v; want fs.ErrNotExist", err)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, file, body, want string }{
		{"unknown field", "patients.json", `{"p": {"patient_id": "p", "nickname": "x"}}`, `unknown field "nickname"`},
		{"missing field", "appointments.json", `{"A": {"appointment_id": "A"}}`, `missing field "patient_id"`},
		{"int for float", "medication_suppliers.json", `{"X": [{"company": "c", "price_usd": 3}]}`, `want a float literal`},
		{"not json", "drug_interactions.json", `{`, `drug_interactions.json`},
	}
	src := filepath.Join(data.Telehealth(datatest.Root(t)), "data")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			entries, _ := os.ReadDir(src)
			for _, e := range entries {
				raw, _ := os.ReadFile(filepath.Join(src, e.Name()))
				if e.Name() == c.file {
					raw = []byte(c.body)
				}
				if err := os.WriteFile(filepath.Join(dir, e.Name()), raw, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := LoadDB(dir); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("LoadDB error = %v; want it to mention %q", err, c.want)
			}
		})
	}
}

// TestSchemas checks that the tool schemas sent to the model (names and
// order, descriptions, parameter schemas) are JSON-equal to the derived
// upstream file, which was dumped from upstream's own get_info() calls.
func TestSchemas(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	raw, err := os.ReadFile(filepath.Join(datatest.Root(t), "tau-trait", "derived", "telehealth", "tool_schemas.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want []json.RawMessage
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	got := d.AgentTools()
	if len(got) != len(want) {
		t.Fatalf("%d tools; want %d", len(got), len(want))
	}
	equal := 0
	for i, w := range want {
		var gv, wv any
		if err := json.Unmarshal(got[i].OpenAISchema(), &gv); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(w, &wv); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gv, wv) {
			t.Errorf("tool %d (%s): schema\n%s\nwant\n%s", i, got[i].Name, got[i].OpenAISchema(), w)
			continue
		}
		equal++
	}
	t.Logf("schemas JSON-equal to upstream's: %d/%d", equal, len(want))
	// Binding follows the Go argument types: their parameters must be the
	// schema's, with the same required ones.
	for _, g := range got {
		var ps struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(g.Parameters, &ps); err != nil {
			t.Fatal(err)
		}
		var names, req []string
		for _, p := range g.Params {
			names = append(names, p.Name)
			if p.Required {
				req = append(req, p.Name)
			}
		}
		props := propOrder(t, g.Parameters)
		if strings.Join(names, ",") != strings.Join(props, ",") || strings.Join(req, ",") != strings.Join(ps.Required, ",") {
			t.Errorf("%s: argument type binds %v (required %v); schema has %v (required %v)", g.Name, names, req, props, ps.Required)
		}
	}
}

func propOrder(t *testing.T, params json.RawMessage) []string {
	t.Helper()
	v, err := pyjson.Decode(params)
	if err != nil {
		t.Fatal(err)
	}
	props, _ := v.(*pyjson.Dict).Get("properties")
	return props.(*pyjson.Dict).Keys
}

// TestSchemaErrors: a tool module whose get_info is missing or misshapen is
// a load error naming the file and the symbol.
func TestSchemaErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, src, want string }{
		{"no get_info", "class A:\n    def invoke():\n        return 1\n", "no such function"},
		{"not a dict", "def get_info():\n    return make()\n", "want a dict"},
		{"not a literal", "def get_info():\n    return x\n", "not a literal"},
		{"wrong name", `def get_info():
    return {"type": "function", "function": {"name": "other", "description": "d", "parameters": {}}}
`, `function name "other"`},
		{"missing description", `def get_info():
    return {"type": "function", "function": {"name": "think", "parameters": {}}}
`, "keys name, description, parameters"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseSchema([]byte(tc.src), "think")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want one containing %q", err, tc.want)
			}
		})
	}
	dir := t.TempDir()
	if _, err := LoadSchemas(dir); err == nil || !strings.Contains(err.Error(), "find_patient_by_email") {
		t.Errorf("LoadSchemas of an empty folder: %v; want an error naming the first tool", err)
	}
}

// TestGoldGolden replays every task's gold actions (all splits) and checks
// outputs and data hashes against testdata/gold.golden, which equals what
// testdata/upstream_tools.py prints for the same calls with upstream's code.
func TestGoldGolden(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	var b strings.Builder
	for _, split := range []string{"test", "dev", "train"} {
		for _, task := range d.Tasks().Extra[split] {
			env := d.Env()
			b.WriteString("=== " + split + " " + task.ID + "\n")
			for _, a := range task.GoldActions() {
				msg := envs.Respond(context.Background(), env, message.ToolCall{Name: a.Name, Arguments: a.Arguments})
				kind := "result"
				if msg.Error {
					kind = "exception"
				}
				b.WriteString("> " + a.Name + " " + string(a.Arguments) + "\n< " + kind + "\n")
				for _, line := range strings.Split(msg.Content, "\n") {
					b.WriteString("| " + line + "\n")
				}
				b.WriteString("# " + env.DataHash() + "\n")
			}
		}
	}
	goldentest.Check(t, *update, "gold.golden", b.String())
}

// TestGoldReplay checks what upstream's gold actions do: which tasks write, which gold calls raise, and that the final
// database differs from the initial one exactly for the 19 writing tasks.
func TestGoldReplay(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	wantErrors := map[string][]string{
		"12": {"think"}, "13": {"think", "think"}, "14": {"think", "think"}, "18": {"list_available_providers"},
	}
	changed := 0
	for _, task := range d.Tasks().Extra["test"] {
		env := d.Env()
		var errs []string
		for _, a := range task.GoldActions() {
			if d.Terminates(a.Name) {
				continue
			}
			if m := envs.Respond(context.Background(), env, message.ToolCall{Name: a.Name, Arguments: a.Arguments}); m.Error {
				errs = append(errs, a.Name)
			}
		}
		if strings.Join(errs, ",") != strings.Join(wantErrors[task.ID], ",") {
			t.Errorf("task %s: gold calls raising %v; want %v", task.ID, errs, wantErrors[task.ID])
		}
		if agent, _ := env.SameDB(d.NewEnv()); !agent {
			changed++
		} else if task.ID != "2" {
			t.Errorf("task %s: gold replay leaves the database unchanged", task.ID)
		}
	}
	if changed != 19 {
		t.Errorf("%d test tasks change the database; want 19", changed)
	}
}

func TestCallDispatch(t *testing.T) {
	t.Parallel()
	env := loadDomain(t).Env()
	ctx := context.Background()
	cases := []struct {
		name      string
		requestor message.Requestor
		tool      string
		args      string
		want      string
		wantErr   string
	}{
		{"unknown tool is an observation", message.ByAssistant, "respond", `{"content": "hi"}`, "Unknown action respond", ""},
		{"user has no tools", message.ByUser, "think", `{"thought": "x"}`, "", "User tools not available"},
		{"data keyword", message.ByAssistant, "think", `{"thought": "x", "data": 1}`, "", "tau_trait.envs.telehealth.tools.think.Think.invoke() got multiple values for keyword argument 'data'"},
		{"data inside a value is fine", message.ByAssistant, "think", `{"thought": {"data": 1}}`, "", ""},
		{"unexpected keyword", message.ByAssistant, "think", `{"note": "x"}`, "", "Think.invoke() got an unexpected keyword argument 'note'"},
		{"missing one", message.ByAssistant, "cancel_appointment", `{}`, "", "CancelAppointment.invoke() missing 1 required positional argument: 'appointment_id'"},
		{"missing two", message.ByAssistant, "reschedule_appointment", `{"appointment_id": "APPT001"}`, "", "RescheduleAppointment.invoke() missing 2 required positional arguments: 'new_date' and 'new_time'"},
		{"missing three", message.ByAssistant, "find_patient_by_name_dob", ``, "", "FindPatientByNameDOB.invoke() missing 3 required positional arguments: 'first_name', 'last_name', and 'date_of_birth'"},
		{"not an object", message.ByAssistant, "think", `["x"]`, "", "Think.invoke() argument after ** must be a mapping, not list"},
		{"empty requestor is the agent", "", "think", `{"thought": "x"}`, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := env.Call(ctx, c.requestor, c.tool, json.RawMessage(c.args))
			switch {
			case c.wantErr != "":
				if err == nil || err.Error() != c.wantErr {
					t.Errorf("Call error = %v; want %q", err, c.wantErr)
				}
			case err != nil:
				t.Errorf("Call error = %v", err)
			case res != c.want:
				t.Errorf("Call = %q; want %q", res, c.want)
			}
		})
	}
	// Respond turns errors into "Error: " observations.
	m := envs.Respond(ctx, env, message.ToolCall{ID: "c1", Name: "get_provider_details", Arguments: json.RawMessage(`{"provider_id": "pt_james_chen"}`)})
	if m.Content != "Error: 'license_number'" || !m.Error || m.ToolCallID != "c1" {
		t.Errorf("Respond = %+v", m)
	}
	if got, _ := env.RunFunction(ctx, message.ByAssistant, "find_patient_by_email", json.RawMessage(`{"email": "sarah.johnson@email.com"}`)); got != "sarah_johnson_1234" {
		t.Errorf("RunFunction = %v", got)
	}
}

// TestEnvIsolation checks that simulations share nothing they change.
func TestEnvIsolation(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	ctx := context.Background()
	a, b := d.Env(), d.Env()
	call := func(e *Env, name, args string) {
		t.Helper()
		if _, err := e.Call(ctx, message.ByAssistant, name, json.RawMessage(args)); err != nil {
			t.Fatal(err)
		}
	}
	call(a, "cancel_appointment", `{"appointment_id": "APPT001"}`)
	call(a, "update_prescription_supplier", `{"record_id": "REC001", "medication": "Sertraline", "supplier_company": "X", "brand_name": "Y", "price_usd": 1.5}`)
	call(a, "update_medical_record_note", `{"record_id": "REC001", "note": "n"}`)
	call(a, "schedule_appointment", `{"patient_id": "sarah_johnson_1234", "provider_id": "dr_garcia_primary", "date": "2025-09-23", "time": "10:00", "appointment_type": "follow_up"}`)
	if b.DataHash() != initialHash || d.Env().DataHash() != initialHash {
		t.Fatal("a change leaked into another simulation or the shared data")
	}
	if ag, us := a.SameDB(b); ag || !us {
		t.Errorf("SameDB after changes = %v, %v; want false, true", ag, us)
	}
	// The same calls in the same order give the same database.
	call(b, "cancel_appointment", `{"appointment_id": "APPT001"}`)
	call(b, "update_prescription_supplier", `{"record_id": "REC001", "medication": "Sertraline", "supplier_company": "X", "brand_name": "Y", "price_usd": 1.5}`)
	call(b, "update_medical_record_note", `{"record_id": "REC001", "note": "n"}`)
	if ag, _ := a.SameDB(b); ag {
		t.Error("SameDB = true before b scheduled")
	}
	call(b, "schedule_appointment", `{"patient_id": "sarah_johnson_1234", "provider_id": "dr_garcia_primary", "date": "2025-09-23", "time": "10:00", "appointment_type": "follow_up"}`)
	if ag, _ := a.SameDB(b); !ag || a.DataHash() != b.DataHash() {
		t.Error("SameDB = false after the same calls")
	}
	// Reads and refused writes change nothing.
	c := d.Env()
	call(c, "cancel_appointment", `{"appointment_id": "APPT002"}`)
	call(c, "get_patient_details", `{"patient_id": "sarah_johnson_1234"}`)
	if ag, _ := c.SameDB(d.Env()); !ag {
		t.Error("a refused write changed the database")
	}
}

func TestClock(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	d, err := Load(root, WithClock(func() time.Time { return time.Date(2030, 1, 2, 23, 59, 0, 0, time.UTC) }))
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Env().Call(context.Background(), message.ByAssistant, "cancel_appointment", json.RawMessage(`{"appointment_id": "APPT001"}`))
	if err != nil || !strings.Contains(res.(string), "Cancellation Date: 2030-01-02") {
		t.Errorf("cancel with a custom clock = %v, %v", res, err)
	}
	if got := BenchmarkDate().Format("2006-01-02"); got != "2025-10-28" {
		t.Errorf("BenchmarkDate = %s", got)
	}
}

// FuzzToolArgs calls random tools with random arguments: never a panic.
func FuzzToolArgs(f *testing.F) {
	d := loadDomain(f)
	names := make([]string, 0, len(d.AgentTools()))
	for _, info := range d.AgentTools() {
		names = append(names, info.Name)
	}
	for _, c := range readToolCases(f) {
		for _, call := range c.Calls {
			for i, n := range names {
				if n == call[0] {
					f.Add(uint8(i), []byte(call[1]))
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		env := d.Env()
		name := names[int(which)%len(names)]
		res, err := env.Call(context.Background(), message.ByAssistant, name, json.RawMessage(args))
		if err == nil {
			_ = tool.Content(res)
		}
		env.SameDB(d.NewEnv())
	})
}

func BenchmarkToolCall(b *testing.B) {
	d := loadDomain(b)
	env := d.Env()
	ctx := context.Background()
	for _, c := range []struct{ name, args string }{
		{"get_patient_details", `{"patient_id": "sarah_johnson_1234"}`},
		{"list_patient_appointments", `{"patient_id": "maya_chen_3318"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			args := json.RawMessage(c.args)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := env.Call(ctx, message.ByAssistant, c.name, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// A write on a fresh simulation: the record is copied on first change
	// and dumped as JSON.
	b.Run("update_medical_record_note", func(b *testing.B) {
		args := json.RawMessage(`{"record_id": "REC021", "note": "n"}`)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := d.Env().Call(ctx, message.ByAssistant, "update_medical_record_note", args); err != nil {
				b.Fatal(err)
			}
		}
	})
}

var envSink envs.Env

func BenchmarkNewEnv(b *testing.B) {
	d := loadDomain(b)
	b.ReportAllocs()
	for b.Loop() {
		envSink = d.NewEnv()
	}
}

func BenchmarkLoad(b *testing.B) {
	root := datatest.Root(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(root); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDataHash(b *testing.B) {
	env := loadDomain(b).Env()
	b.ReportAllocs()
	for b.Loop() {
		_ = env.DataHash()
	}
}
