package telehealth

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

func TestEvidenceReads(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	names := func(calls []message.ToolCall) string {
		var s []string
		for _, c := range calls {
			s = append(s, c.Name+string(c.Arguments))
		}
		return strings.Join(s, " ")
	}
	cases := []struct{ tool, args, want string }{
		{toolSchedule, `{"patient_id": "sarah_johnson_1234", "provider_id": "dr_garcia_primary", "date": "2025-09-23", "time": "10:00", "appointment_type": "follow_up"}`,
			`find_patient_by_email{"email":"sarah.johnson@email.com"} list_available_providers{"specialty":"Primary Care"} get_provider_details{"provider_id":"dr_garcia_primary"}`},
		// A child shares the parent's email: located by name and birth date.
		{toolSchedule, `{"patient_id": "sofia_martinez_2019", "provider_id": "dr_nobody", "date": "x", "time": "y", "appointment_type": "z"}`,
			`find_patient_by_name_dob{"first_name":"Sofia","last_name":"Martinez","date_of_birth":"2019-03-12"} get_provider_details{"provider_id":"dr_nobody"}`},
		{toolCancel, `{"appointment_id": "APPT009"}`,
			`find_patient_by_email{"email":"maria.rodriguez@email.com"} list_patient_appointments{"patient_id":"maria_rodriguez_4567"} get_appointment_details{"appointment_id":"APPT009"}`},
		{toolReschedule, `{"appointment_id": "APPT999", "new_date": "2025-01-01", "new_time": "09:00"}`, `get_appointment_details{"appointment_id":"APPT999"}`},
		{toolSupplier, `{"record_id": "REC029", "medication": "Lisinopril", "supplier_company": "Mumbai Cardio Pharma", "brand_name": "Lisipril-M", "price_usd": 2.8}`,
			`find_patient_by_email{"email":"patricia.wong6634@email.com"} list_patient_medical_records{"patient_id":"patricia_wong_6634"} get_medical_record{"record_id":"REC029"} list_medication_suppliers{"medication":"Lisinopril"}`},
		{toolNote, `{"record_id": "REC026", "note": "x"}`,
			`find_patient_by_email{"email":"omar.hassan2156@email.com"} get_medical_record{"record_id":"REC026"}`},
		{toolCancel, `{"appointment_id": 9}`, ``},
		{"get_appointment_details", `{"appointment_id": "APPT009"}`, ``},
	}
	for _, tc := range cases {
		if got := names(d.EvidenceReads(tc.tool, json.RawMessage(tc.args))); got != tc.want {
			t.Errorf("EvidenceReads(%s, %s) =\n%s\nwant\n%s", tc.tool, tc.args, got, tc.want)
		}
	}
}

// allKinds are the mutation kinds the gold writes produce.
var allKinds = []string{MutClosedAppointment, MutForeignAppointment, MutForeignRecord, MutMedicationNotOnRecord, MutOffCatalogOffer,
	MutRepeatWrite, MutSlotTaken, MutUnauthenticatedPatient, MutUncheckedProvider, MutUnofferedSlot}

// TestGateAuditMutations: the gate catches at least 95% of every mutation
// kind (currently all of them).
func TestGateAuditMutations(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	ts, err := d.Tasks().Select(tasks.Selection{Split: "test"})
	if err != nil {
		t.Fatal(err)
	}
	reps, err := ledgeragent.AuditMutations(context.Background(), d, ts)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range reps {
		kinds = append(kinds, r.Kind)
		if r.Total == 0 || float64(r.Caught) < 0.95*float64(r.Total) {
			t.Errorf("%s: caught %d of %d (missed in tasks %v)", r.Kind, r.Caught, r.Total, r.Missed)
		}
		t.Logf("%-26s %3d/%-3d", r.Kind, r.Caught, r.Total)
	}
	if !slices.Equal(kinds, allKinds) {
		t.Errorf("kinds %v; want %v", kinds, allKinds)
	}
}

// intended names the rules meant to catch each kind (any one of them).
var intended = map[string][]string{
	MutUnauthenticatedPatient: {"own_patient"},
	MutUncheckedProvider:      {"provider_checked"},
	MutUnofferedSlot:          {"slot_offered", "slot_available"},
	MutForeignAppointment:     {"appointment_read", "own_appointment"},
	MutClosedAppointment:      {"status"},
	MutSlotTaken:              {"slot_available"},
	MutForeignRecord:          {"record_read", "own_record"},
	MutMedicationNotOnRecord:  {"prescription_on_record"},
	MutOffCatalogOffer:        {"catalog_offer"},
	MutRepeatWrite:            {"not_double_booked", "not_repeated"},
}

// toolEnforced are the kinds the tools refuse as well: the mutated call must
// leave the database unchanged.
var toolEnforced = map[string]bool{MutUnofferedSlot: true, MutClosedAppointment: true, MutSlotTaken: true, MutMedicationNotOnRecord: true}

// TestMutationsViolate checks, independently of the gate's verdict, that
// every mutation of every gold write really breaks the policy, and that the
// predicate written for its kind is the one that catches it. At the point of
// the gold write, the mutated call is run on an environment with the same
// history: for the kinds the tools enforce it must change nothing; the
// others must act for a patient who is not authenticated, on a provider not
// looked up, with an offer the catalog does not list, or repeat a write that
// already went through.
func TestMutationsViolate(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	gate := ledgeragent.NewGate(d, d)
	ts, err := d.Tasks().Select(tasks.Selection{Split: "test"})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for i := range ts {
		task := &ts[i]
		env := d.Env()
		l := ledger.New()
		var history []message.ToolCall
		run := func(tc message.ToolCall) message.Message {
			res := respond(t, env, tc)
			history = append(history, tc)
			if ti, ok := d.Toolset().Lookup(tc.Name); ok && ti.Kind == "read" && !res.Error {
				l.Absorb(d, tc.Name, tc.Arguments, res.Content)
			}
			return res
		}
		for _, a := range task.GoldActions() {
			tc := message.ToolCall{Name: a.Name, Arguments: a.Arguments}
			if paramsOf(a.Name) == nil {
				run(tc)
				continue
			}
			for _, r := range d.EvidenceReads(a.Name, a.Arguments) {
				run(r)
			}
			for _, m := range d.Mutations(a.Name, a.Arguments, l) {
				counts[m.Kind]++
				v := gate.Judge(l, m.Tool, "", m.Args)
				if !slices.ContainsFunc(intended[m.Kind], func(rule string) bool { return slices.Contains(v.Failed, "telehealth."+m.Tool+"."+rule) }) {
					t.Errorf("task %s %s %s %s: not caught by %v (verdict %s %v)", task.ID, m.Kind, m.Tool, m.Args, intended[m.Kind], v.Decision, v.Failed)
				}
				if why := violates(t, d, history, l, m); why != "" {
					t.Errorf("task %s %s %s %s: %s", task.ID, m.Kind, m.Tool, m.Args, why)
				}
			}
			decoded, _ := d.DecodeArgs(a.Name, a.Arguments)
			idx := l.LogWrite(a.Name, a.Arguments, decoded)
			res := run(tc)
			l.Resolve(idx, !res.Error)
		}
	}
	for _, k := range allKinds {
		if counts[k] == 0 {
			t.Errorf("no %s mutation checked", k)
		}
	}
}

// violates returns why m does not violate the policy ("" when it does).
func violates(t *testing.T, d *Domain, history []message.ToolCall, l *ledger.Ledger, m ledger.Mutation) string {
	a, problem := d.decodeWrite(m.Tool, m.Args)
	if problem != "" {
		return "undecodable: " + problem
	}
	auth := authenticatedIDs(l)
	switch {
	case toolEnforced[m.Kind]:
		env := d.Env()
		for _, tc := range history {
			respond(t, env, tc)
		}
		before := env.DataHash()
		res := respond(t, env, message.ToolCall{Name: m.Tool, Arguments: m.Args})
		if env.DataHash() != before {
			return "the environment accepted it: " + res.Content
		}
		return ""
	case m.Kind == MutUnauthenticatedPatient:
		if d.db.Patients.Has(a.PatientID) && !slices.Contains(auth, a.PatientID) {
			return ""
		}
		return "the patient is authenticated or unknown"
	case m.Kind == MutUncheckedProvider:
		if d.db.Providers.Has(a.ProviderID) && ledgerProvider(l, a.ProviderID) == nil && !providerListed(l, a.ProviderID) {
			return ""
		}
		return "the provider was looked up"
	case m.Kind == MutForeignAppointment:
		if ap, ok := d.db.Appointments.Get(a.AppointmentID); ok && !slices.Contains(auth, ap.PatientID) {
			return ""
		}
		return "the appointment is an authenticated patient's"
	case m.Kind == MutForeignRecord:
		if r, ok := d.db.MedicalRecords.Get(a.RecordID); ok && !slices.Contains(auth, r.PatientID) {
			return ""
		}
		return "the record is an authenticated patient's"
	case m.Kind == MutOffCatalogOffer:
		if !d.catalogHas(a.Medication, a.SupplierCompany, a.BrandName, a.PriceUSD) {
			return ""
		}
		return "the catalog lists the offer"
	case m.Kind == MutRepeatWrite:
		for _, w := range l.Writes() {
			if w.Tool == m.Tool && w.Succeeded && sameJSON(w.Args, m.Args) {
				return ""
			}
		}
		return "no earlier write to repeat"
	}
	return "unknown kind"
}
