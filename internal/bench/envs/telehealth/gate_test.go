package telehealth

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
)

// Reads of the predicate tests: Yumi Tanaka (pending APPT029 with Dr. Saito,
// scheduled APPT030 with Dr. Thompson and APPT031 with RN Ito; records
// REC012-REC014), David Martinez (completed APPT002, cancelled APPT005,
// record REC001) and Maya Chen (therapy sessions with OT Sullivan).
var (
	authYumi     = ledger.ToolCall("find_patient_by_email", "email", "yumi.tanaka7410@pacificcare.org")
	authDavid    = ledger.ToolCall("find_patient_by_email", "email", "david.martinez@email.com")
	authMaya     = ledger.ToolCall("find_patient_by_name_dob", "first_name", "Maya", "last_name", "Chen", "date_of_birth", "2018-07-22")
	listYumi     = ledger.ToolCall("list_patient_appointments", "patient_id", "yumi_tanaka_7410")
	listDavid    = ledger.ToolCall("list_patient_appointments", "patient_id", "david_martinez_5678")
	listMaya     = ledger.ToolCall("list_patient_appointments", "patient_id", "maya_chen_3318")
	appt029      = ledger.ToolCall("get_appointment_details", "appointment_id", "APPT029")
	appt002      = ledger.ToolCall("get_appointment_details", "appointment_id", "APPT002")
	saito        = ledger.ToolCall("get_provider_details", "provider_id", "dr_saito_cardiology")
	thompson     = ledger.ToolCall("get_provider_details", "provider_id", "dr_thompson_cardiology")
	cardiology   = ledger.ToolCall("list_available_providers", "specialty", "Cardiology")
	recordsYumi  = ledger.ToolCall("list_patient_medical_records", "patient_id", "yumi_tanaka_7410")
	rec012       = ledger.ToolCall("get_medical_record", "record_id", "REC012")
	rec001       = ledger.ToolCall("get_medical_record", "record_id", "REC001")
	warfarin     = ledger.ToolCall("list_medication_suppliers", "medication", "Warfarin")
	rosuvastatin = ledger.ToolCall("list_medication_suppliers", "medication", "Rosuvastatin")
)

// yumi is a careful agent's reads for Yumi Tanaka.
var yumi = []message.ToolCall{authYumi, listYumi, appt029, saito, thompson, recordsYumi, rec012, warfarin}

// logged is a write in the ledger's log: done and ok as Resolve sets them.
type logged struct {
	tool, args string
	done, ok   bool
}

type gateCase struct {
	name   string
	reads  []message.ToolCall
	writes []logged
	tool   string
	args   string
	want   ledger.Decision
	failed []string // rules that did not allow, in predicate order
}

func runGateCases(t *testing.T, cases []gateCase) {
	t.Helper()
	d := loadDomain(t)
	gate := ledgeragent.NewGate(d, d)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := ledger.New()
			readInto(t, d, d.NewEnv(), l, tc.reads...)
			for _, w := range tc.writes {
				i := l.LogWrite(w.tool, json.RawMessage(w.args), gate.Decode(w.tool, json.RawMessage(w.args)))
				if w.done {
					l.Resolve(i, w.ok)
				}
			}
			v := gate.Judge(l, tc.tool, "", json.RawMessage(tc.args))
			var rules []string
			for _, id := range v.Failed {
				rules = append(rules, strings.TrimPrefix(id, "telehealth."+tc.tool+"."))
			}
			if v.Decision != tc.want || !slices.Equal(rules, tc.failed) {
				t.Errorf("%s %s:\n got %s %v: %s\nwant %s %v", tc.tool, tc.args, v.Decision, rules, v.Reason, tc.want, tc.failed)
			}
			if v.Decision != ledger.Allow && (v.Reason == "" || v.Clause == "") {
				t.Errorf("verdict without reason or clause: %+v", v)
			}
		})
	}
}

const (
	allow  = ledger.Allow
	revise = ledger.Revise
	block  = ledger.Block
)

func TestSchedulePredicates(t *testing.T) {
	t.Parallel()
	const ok = `{"patient_id": "yumi_tanaka_7410", "provider_id": "dr_saito_cardiology", "date": "2025-05-22", "time": "08:30", "appointment_type": "specialist_consultation"}`
	booked := logged{toolSchedule, ok, true, true}
	runGateCases(t, []gateCase{
		{"allowed", yumi, nil, toolSchedule, ok, allow, nil},
		{"self pay with voucher", yumi, nil, toolSchedule, `{"patient_id": "yumi_tanaka_7410", "provider_id": "dr_saito_cardiology", "date": "2025-05-22", "time": "08:30", "appointment_type": "follow_up", "bill_insurance": false, "voucher_id": "THV-1", "payment_notes": null}`, allow, nil},
		{"bill_insurance as a string", yumi, nil, toolSchedule, `{"patient_id": "yumi_tanaka_7410", "provider_id": "dr_saito_cardiology", "date": "2025-05-22", "time": "08:30", "appointment_type": "follow_up", "bill_insurance": "false"}`, revise, []string{"arguments"}},
		{"missing time", yumi, nil, toolSchedule, `{"patient_id": "yumi_tanaka_7410", "provider_id": "dr_saito_cardiology", "date": "2025-05-22", "appointment_type": "follow_up"}`, revise, []string{"arguments"}},
		{"unknown argument", yumi, nil, toolSchedule, `{"patient_id": "yumi_tanaka_7410", "provider_id": "dr_saito_cardiology", "date": "2025-05-22", "time": "08:30", "appointment_type": "follow_up", "min_years": 3}`, revise, []string{"arguments"}},
		{"not authenticated", []message.ToolCall{saito}, nil, toolSchedule, ok, revise, []string{"authenticated"}},
		{"another patient", yumi, nil, toolSchedule, strings.Replace(ok, "yumi_tanaka_7410", "david_martinez_5678", 1), revise, []string{"own_patient"}},
		{"provider not looked up", yumi, nil, toolSchedule, strings.Replace(ok, "dr_saito_cardiology", "dr_smith_cardiology", 1), revise, []string{"provider_checked"}},
		{"provider from a listing", append([]message.ToolCall{cardiology}, yumi...), nil, toolSchedule, strings.Replace(ok, "dr_saito_cardiology", "dr_smith_cardiology", 1), allow, nil},
		{"time not offered that day", yumi, nil, toolSchedule, strings.Replace(ok, "08:30", "09:30", 1), revise, []string{"slot_offered"}},
		{"day off", yumi, nil, toolSchedule, strings.Replace(ok, "2025-05-22", "2025-05-24", 1), revise, []string{"slot_offered"}},
		{"not a date", yumi, nil, toolSchedule, strings.Replace(ok, "2025-05-22", "05/22/2025", 1), revise, []string{"slot_offered"}},
		{"one-digit month", yumi, nil, toolSchedule, strings.Replace(ok, "2025-05-22", "2025-5-22", 1), allow, nil},
		{"slot already booked", yumi, []logged{booked}, toolSchedule, ok, block, []string{"not_double_booked"}},
		{"slot already booked, other spelling", yumi, []logged{booked}, toolSchedule, strings.Replace(ok, "2025-05-22", "2025-5-22", 1), block, []string{"not_double_booked"}},
		{"booking in flight", yumi, []logged{{toolSchedule, ok, false, false}}, toolSchedule, ok, revise, []string{"not_double_booked"}},
		{"earlier booking failed", yumi, []logged{{toolSchedule, ok, true, false}}, toolSchedule, ok, allow, nil},
		{"slot an appointment was moved into", yumi, []logged{{toolReschedule, `{"appointment_id": "APPT029", "new_date": "2025-05-22", "new_time": "08:30"}`, true, true}}, toolSchedule, ok, block, []string{"not_double_booked"}},
		{"another slot", yumi, []logged{booked}, toolSchedule, strings.Replace(ok, "08:30", "10:00", 1), allow, nil},
	})
}

func TestCancelPredicates(t *testing.T) {
	t.Parallel()
	const ok = `{"appointment_id": "APPT029"}`
	runGateCases(t, []gateCase{
		{"allowed (pending)", yumi, nil, toolCancel, ok, allow, nil},
		{"allowed (scheduled, from the listing)", yumi, nil, toolCancel, `{"appointment_id": "APPT030"}`, allow, nil},
		{"number id", yumi, nil, toolCancel, `{"appointment_id": 29}`, revise, []string{"arguments"}},
		{"not an object", yumi, nil, toolCancel, `["APPT029"]`, revise, []string{"arguments"}},
		{"not authenticated", []message.ToolCall{appt029}, nil, toolCancel, ok, revise, []string{"authenticated"}},
		{"appointment not read", []message.ToolCall{authYumi, appt029}, nil, toolCancel, `{"appointment_id": "APPT030"}`, revise, []string{"appointment_read"}},
		{"another patient's appointment", []message.ToolCall{authYumi, appt002}, nil, toolCancel, `{"appointment_id": "APPT002"}`, revise, []string{"own_appointment"}},
		{"completed", []message.ToolCall{authDavid, listDavid}, nil, toolCancel, `{"appointment_id": "APPT002"}`, block, []string{"status"}},
		{"already cancelled", []message.ToolCall{authDavid, listDavid}, nil, toolCancel, `{"appointment_id": "APPT005"}`, block, []string{"status"}},
		{"cancelled before in this conversation", yumi, []logged{{toolCancel, ok, true, true}}, toolCancel, ok, block, []string{"not_repeated"}},
		{"cancel in flight", yumi, []logged{{toolCancel, ok, false, false}}, toolCancel, ok, revise, []string{"not_repeated"}},
		{"earlier cancel failed", yumi, []logged{{toolCancel, ok, true, false}}, toolCancel, ok, allow, nil},
	})
}

func TestReschedulePredicates(t *testing.T) {
	t.Parallel()
	const ok = `{"appointment_id": "APPT030", "new_date": "2025-05-20", "new_time": "14:00"}`
	runGateCases(t, []gateCase{
		{"allowed", yumi, nil, toolReschedule, ok, allow, nil},
		{"not authenticated", []message.ToolCall{listYumi}, nil, toolReschedule, ok, revise, []string{"authenticated"}},
		{"appointment not read", []message.ToolCall{authYumi}, nil, toolReschedule, ok, revise, []string{"appointment_read"}},
		{"completed", []message.ToolCall{authDavid, listDavid}, nil, toolReschedule, `{"appointment_id": "APPT002", "new_date": "2025-05-20", "new_time": "14:00"}`, block, []string{"status"}},
		{"cancelled in this conversation", yumi, []logged{{toolCancel, `{"appointment_id": "APPT029"}`, true, true}}, toolReschedule, `{"appointment_id": "APPT029", "new_date": "2025-05-22", "new_time": "08:30"}`, block, []string{"status"}},
		{"time not offered", yumi, nil, toolReschedule, strings.Replace(ok, "14:00", "16:00", 1), revise, []string{"slot_available"}},
		{"not a date", yumi, nil, toolReschedule, strings.Replace(ok, "2025-05-20", "tomorrow", 1), revise, []string{"slot_available"}},
		{"provider schedule not read: the tool checks it", yumi, nil, toolReschedule, `{"appointment_id": "APPT031", "new_date": "2025-05-07", "new_time": "07:00"}`, allow, nil},
		{"conflict with a listed appointment", []message.ToolCall{authMaya, listMaya}, nil, toolReschedule, `{"appointment_id": "APPT045", "new_date": "2025-10-24", "new_time": "09:00"}`, revise, []string{"slot_available"}},
		{"free slot of the same provider", []message.ToolCall{authMaya, listMaya}, nil, toolReschedule, `{"appointment_id": "APPT045", "new_date": "2025-10-24", "new_time": "10:00"}`, allow, nil},
		{"conflict with a booking of this conversation", yumi, []logged{{toolSchedule, `{"patient_id": "yumi_tanaka_7410", "provider_id": "dr_saito_cardiology", "date": "2025-05-22", "time": "08:30", "appointment_type": "follow_up"}`, true, true}},
			toolReschedule, `{"appointment_id": "APPT029", "new_date": "2025-05-22", "new_time": "08:30"}`, revise, []string{"slot_available"}},
		{"already moved there", yumi, []logged{{toolReschedule, ok, true, true}}, toolReschedule, ok, block, []string{"not_repeated"}},
		{"move in flight", yumi, []logged{{toolReschedule, ok, false, false}}, toolReschedule, ok, revise, []string{"not_repeated"}},
		{"moved again elsewhere", yumi, []logged{{toolReschedule, ok, true, true}}, toolReschedule, strings.Replace(ok, "14:00", "11:00", 1), allow, nil},
	})
}

func TestSupplierPredicates(t *testing.T) {
	t.Parallel()
	const ok = `{"record_id": "REC012", "medication": "Warfarin", "supplier_company": "VedaRx Labs", "brand_name": "Vedarin", "price_usd": 4.28}`
	runGateCases(t, []gateCase{
		{"allowed", yumi, nil, toolSupplier, ok, allow, nil},
		{"listing's company text, lower-case medication", yumi, nil, toolSupplier, `{"record_id": "REC012", "medication": "warfarin", "supplier_company": "VedaRx Labs (India)", "brand_name": "Vedarin", "price_usd": 4.28, "currency": "USD"}`, allow, nil},
		{"price as a string", yumi, nil, toolSupplier, strings.Replace(ok, "4.28", `"4.28"`, 1), revise, []string{"arguments"}},
		{"not authenticated", []message.ToolCall{recordsYumi, rec012, warfarin}, nil, toolSupplier, ok, revise, []string{"authenticated"}},
		{"record not read", []message.ToolCall{authYumi, warfarin}, nil, toolSupplier, ok, revise, []string{"record_read"}},
		{"another patient's record", []message.ToolCall{authYumi, rec001, ledger.ToolCall("list_medication_suppliers", "medication", "Sertraline")}, nil, toolSupplier,
			`{"record_id": "REC001", "medication": "Sertraline", "supplier_company": "Triveni Pharma", "brand_name": "Setrina", "price_usd": 4.55}`, revise, []string{"own_record"}},
		{"prescriptions not read", []message.ToolCall{authYumi, rec012, warfarin}, nil, toolSupplier, ok, revise, []string{"prescription_on_record"}},
		{"not prescribed in the record", append(slices.Clone(yumi), rosuvastatin), nil, toolSupplier,
			`{"record_id": "REC012", "medication": "Rosuvastatin", "supplier_company": "Aurora Heart Labs", "brand_name": "RosuPrime", "price_usd": 5.95}`, revise, []string{"prescription_on_record"}},
		{"partial name", yumi, nil, toolSupplier, strings.Replace(ok, `"Warfarin"`, `"Warf"`, 1), revise, []string{"prescription_on_record", "catalog_offer"}},
		{"catalog not read", yumi, nil, toolSupplier, `{"record_id": "REC012", "medication": "Sertraline", "supplier_company": "Triveni Pharma", "brand_name": "Setrina", "price_usd": 4.55}`, revise, []string{"catalog_offer"}},
		{"price not listed", yumi, nil, toolSupplier, strings.Replace(ok, "4.28", "4.35", 1), revise, []string{"catalog_offer"}},
		{"brand of another offer", yumi, nil, toolSupplier, strings.Replace(ok, "Vedarin", "Warfast", 1), revise, []string{"catalog_offer"}},
		{"other currency", yumi, nil, toolSupplier, strings.Replace(ok, "}", `, "currency": "EUR"}`, 1), revise, []string{"catalog_offer"}},
		{"already applied", yumi, []logged{{toolSupplier, ok, true, true}}, toolSupplier, ok, block, []string{"not_repeated"}},
		{"update in flight", yumi, []logged{{toolSupplier, ok, false, false}}, toolSupplier, ok, revise, []string{"not_repeated"}},
		{"another offer after an update", yumi, []logged{{toolSupplier, ok, true, true}}, toolSupplier,
			`{"record_id": "REC012", "medication": "Warfarin", "supplier_company": "Sunrise Biotech", "brand_name": "Warfast", "price_usd": 4.35}`, allow, nil},
	})
}

func TestNotePredicates(t *testing.T) {
	t.Parallel()
	const ok = `{"record_id": "REC012", "note": "Patient confirmed the ablation date."}`
	runGateCases(t, []gateCase{
		{"allowed", yumi, nil, toolNote, ok, allow, nil},
		{"allowed from the listing, with metadata", []message.ToolCall{authYumi, recordsYumi}, nil, toolNote, `{"record_id": "REC013", "note": "x", "metadata": {"source": "portal"}}`, allow, nil},
		{"metadata not an object", yumi, nil, toolNote, `{"record_id": "REC012", "note": "x", "metadata": "portal"}`, revise, []string{"arguments"}},
		{"not authenticated", []message.ToolCall{rec012}, nil, toolNote, ok, revise, []string{"authenticated"}},
		{"record not read", []message.ToolCall{authYumi}, nil, toolNote, ok, revise, []string{"record_read"}},
		{"another patient's record", []message.ToolCall{authYumi, rec001}, nil, toolNote, `{"record_id": "REC001", "note": "x"}`, revise, []string{"own_record"}},
		{"kid authenticated too", []message.ToolCall{authYumi, authDavid, rec001}, nil, toolNote, `{"record_id": "REC001", "note": "x"}`, allow, nil},
		{"same note again", yumi, []logged{{toolNote, ok, true, true}}, toolNote, ok, block, []string{"not_repeated"}},
		{"note in flight", yumi, []logged{{toolNote, ok, false, false}}, toolNote, ok, revise, []string{"not_repeated"}},
		{"another note", yumi, []logged{{toolNote, ok, true, true}}, toolNote, `{"record_id": "REC012", "note": "Second note."}`, allow, nil},
	})
}

// TestPredicateCatalog: ids name their tool, every write tool is guarded,
// and every clause is a heading of wiki.md (or the loop-prevention rule).
func TestPredicateCatalog(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	headings := map[string]bool{clauseLoop: true}
	for _, line := range strings.Split(d.Policy(), "\n") {
		if h := strings.TrimLeft(line, "#"); h != line {
			headings[strings.TrimSpace(h)] = true
		}
	}
	seen := map[string]bool{}
	tools := map[string]int{}
	for _, p := range d.GatePredicates() {
		if seen[p.ID] || !strings.HasPrefix(p.ID, "telehealth."+p.Tool+".") {
			t.Errorf("bad or repeated id %s (tool %s)", p.ID, p.Tool)
		}
		seen[p.ID] = true
		if !headings[p.Clause] {
			t.Errorf("%s cites %q, not a heading of wiki.md", p.ID, p.Clause)
		}
		tools[p.Tool]++
	}
	for _, ti := range d.AgentTools() {
		if ti.Mutates() && tools[ti.Name] < 3 {
			t.Errorf("write tool %s has %d predicates", ti.Name, tools[ti.Name])
		}
		if !ti.Mutates() && tools[ti.Name] > 0 {
			t.Errorf("%s is not a write tool", ti.Name)
		}
	}
	if len(tools) != 5 {
		t.Errorf("predicates guard %d tools; want 5", len(tools))
	}
}

// FuzzPredicates: no predicate panics on any arguments, whatever the ledger
// holds (predicates run without the gate's recover here).
func FuzzPredicates(f *testing.F) {
	d := loadDomain(f)
	l := ledger.New()
	readInto(f, d, d.NewEnv(), l, append(slices.Clone(yumi), authDavid, listDavid, rec001)...)
	cancel, _ := d.DecodeArgs(toolCancel, json.RawMessage(`{"appointment_id": "APPT029"}`))
	l.Resolve(l.LogWrite(toolCancel, json.RawMessage(`{"appointment_id": "APPT029"}`), cancel), true)
	l.LogWrite(toolSchedule, json.RawMessage(`{"patient_id": 5}`), nil)
	for _, s := range []string{`{}`, `null`, `[]`, `{"appointment_id": "APPT029", "new_date": "2025-5-2", "new_time": 9}`,
		`{"record_id": "REC012", "medication": "", "supplier_company": "", "brand_name": "", "price_usd": 1e308}`,
		`{"patient_id": "yumi_tanaka_7410", "provider_id": "dr_saito_cardiology", "date": "2025-02-30", "time": "08:30", "appointment_type": "x"}`} {
		f.Add(s)
	}
	preds := d.GatePredicates()
	f.Fuzz(func(t *testing.T, args string) {
		for _, p := range preds {
			if decoded, fail := d.DecodeArgs(p.Tool, json.RawMessage(args)); fail == nil {
				_ = p.Check(l, decoded)
			}
		}
	})
}

// FuzzDecodeWrite checks the gate's reading of the tools' decoded arguments
// against encoding/json: the same problems (present or not) and the same
// values.
func FuzzDecodeWrite(f *testing.F) {
	d := loadDomain(f)
	tools := []string{toolSchedule, toolCancel, toolReschedule, toolSupplier, toolNote}
	for _, s := range []string{`{"appointment_id": "APPT029"}`, `{"appointment_id":"A\u0041\"x", "appointment_id": "B"}`, ` { } `, `null`, `[1]`,
		`{"patient_id": "p", "provider_id": "d", "date": "2025-05-22", "time": "08:30", "appointment_type": "x", "bill_insurance": false, "voucher_id": null}`,
		`{"record_id": "R", "medication": "M", "supplier_company": "C", "brand_name": "B", "price_usd": -1.5e2, "currency": "USD"}`,
		`{"record_id": "R", "note": "n", "metadata": {"a": [1, {"b": "}"}]}}`, `{"record_id": "R", "note": 5, "x\"y": true}`, `{"a":1}x`} {
		for i := range tools {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, raw string) {
		tool := tools[int(which)%len(tools)]
		a, problem := d.decodeWrite(tool, json.RawMessage(raw))
		trimmed := strings.TrimLeft(raw, " \t\r\n")
		if !json.Valid([]byte(raw)) || !strings.HasPrefix(trimmed, "{") {
			if problem == "" {
				t.Fatalf("%s %q: no problem reported for a non-object", tool, raw)
			}
			return
		}
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		want := false // a problem
		for k := range m {
			want = want || !slices.ContainsFunc(paramsOf(tool), func(p param) bool { return p.name == k })
		}
		for _, p := range paramsOf(tool) {
			v, ok := m[p.name]
			if !ok || v == nil {
				want = want || p.required
				continue
			}
			switch p.kind {
			case kindStr:
				s, isStr := v.(string)
				if !isStr {
					want = true
				} else if a.field(p.name) != s && problem == "" {
					t.Fatalf("%s %q: %s = %q; want %q", tool, raw, p.name, a.field(p.name), s)
				}
			case kindBool:
				b, isBool := v.(bool)
				want = want || !isBool
				if isBool && problem == "" && (a.BillInsurance == nil || *a.BillInsurance != b) {
					t.Fatalf("%s %q: bill_insurance %v; want %v", tool, raw, a.BillInsurance, b)
				}
			case kindNum:
				n, isNum := v.(json.Number)
				want = want || !isNum
				if isNum && problem == "" {
					if x, _ := strconv.ParseFloat(string(n), 64); x != a.PriceUSD {
						t.Fatalf("%s %q: price %v; want %v", tool, raw, a.PriceUSD, x)
					}
				}
			case kindObj:
				_, isObj := v.(map[string]any)
				want = want || !isObj
			}
		}
		if want != (problem != "") {
			t.Fatalf("%s %q: problem %q; encoding/json says problem=%v", tool, raw, problem, want)
		}
	})
}

// field reads a decoded string argument by name.
func (a *writeArgs) field(name string) string {
	switch name {
	case "patient_id":
		return a.PatientID
	case "provider_id":
		return a.ProviderID
	case "date", "new_date":
		return a.Date
	case "time", "new_time":
		return a.Time
	case "appointment_type":
		return a.AppointmentType
	case "voucher_id":
		return a.VoucherID
	case "payment_notes":
		return a.PaymentNotes
	case "appointment_id":
		return a.AppointmentID
	case "record_id":
		return a.RecordID
	case "medication":
		return a.Medication
	case "supplier_company":
		return a.SupplierCompany
	case "brand_name":
		return a.BrandName
	case "currency":
		return a.Currency
	case "note":
		return a.Note
	}
	return ""
}
