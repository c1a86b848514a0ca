package telehealth

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/goldentest"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

var (
	_ ledgeragent.Policy  = (*Domain)(nil)
	_ ledgeragent.Auditor = (*Domain)(nil)
)

// respond runs one agent call on env.
func respond(t testing.TB, env envs.Env, tc message.ToolCall) message.Message {
	t.Helper()
	tc.ID = "call"
	tc.Requestor = message.ByAssistant
	return envs.Respond(context.Background(), env, tc)
}

// readInto runs agent reads on env and absorbs every successful one into l,
// as LedgerAgent does. A read that errs is a test failure.
func readInto(t testing.TB, d *Domain, env envs.Env, l *ledger.Ledger, calls ...message.ToolCall) {
	t.Helper()
	for _, tc := range calls {
		res := respond(t, env, tc)
		if res.Error {
			t.Fatalf("%s %s: %s", tc.Name, tc.Arguments, res.Content)
		}
		l.Absorb(d, tc.Name, tc.Arguments, res.Content)
	}
}

// routeOne runs a read and routes its output; it returns the entries, or nil
// when the read errs.
func routeOne(t testing.TB, d *Domain, tc message.ToolCall) ([]ledger.Entry, bool) {
	t.Helper()
	res := respond(t, d.NewEnv(), tc)
	if res.Error {
		return nil, false
	}
	return d.Route(tc.Name, tc.Arguments, res.Content), true
}

// only returns the value of the single entry at path.
func only[V any](t *testing.T, es []ledger.Entry, path string) V {
	t.Helper()
	var zero V
	if len(es) != 1 || es[0].Path != path {
		t.Fatalf("entries %v; want one at %s", paths(es), path)
		return zero
	}
	v, ok := es[0].Value.(V)
	if !ok {
		t.Fatalf("%s holds %T", path, es[0].Value)
	}
	return v
}

func paths(es []ledger.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Path)
	}
	return out
}

// TestRouteRoundTrip reads every record of the database through the tools
// and checks that the parsed ledger values hold the database's values.
func TestRouteRoundTrip(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	db := d.DB()

	t.Run("find_patient", func(t *testing.T) {
		es, _ := routeOne(t, d, ledger.ToolCall("find_patient_by_email", "email", "sarah.johnson@email.com"))
		a := only[*Authentication](t, es, "authenticated.sarah_johnson_1234")
		if a.Method != "email" || a.Email != "sarah.johnson@email.com" {
			t.Errorf("%+v", a)
		}
		es, _ = routeOne(t, d, ledger.ToolCall("find_patient_by_name_dob", "first_name", "maya", "last_name", "Chen", "date_of_birth", "2018-07-22"))
		a = only[*Authentication](t, es, "authenticated.maya_chen_3318")
		if a.Method != "name_dob" || a.FirstName != "maya" || a.DateOfBirth != "2018-07-22" {
			t.Errorf("%+v", a)
		}
	})

	t.Run("patients", func(t *testing.T) {
		for id, p := range db.Patients.All() {
			es, _ := routeOne(t, d, ledger.ToolCall("get_patient_details", "patient_id", id))
			v := only[*PatientView](t, es, "patients."+id)
			mh := &p.MedicalHistory
			if v.Name != p.Name.FirstName+" "+p.Name.LastName || v.DateOfBirth != p.Demographics.DateOfBirth || v.Email != p.Demographics.Email ||
				v.CopayPrimary != p.Insurance.Primary.CopayPrimary || v.CopaySpecialist != p.Insurance.Primary.CopaySpecialist ||
				v.PolicyNumber != p.Insurance.Primary.PolicyNumber || !slices.Equal(v.Conditions, shownList(mh.Conditions)) ||
				!slices.Equal(v.Allergies, shownList(mh.Allergies)) || len(v.Medications) != len(mh.Medications) ||
				len(v.Address) != 4 || v.EmergencyPhone != p.EmergencyContact.Phone {
				t.Errorf("%s: %+v", id, v)
			}
		}
	})

	t.Run("appointments", func(t *testing.T) {
		var failed []string
		for id, ap := range db.Appointments.All() {
			es, ok := routeOne(t, d, ledger.ToolCall("get_appointment_details", "appointment_id", id))
			if !ok {
				failed = append(failed, id) // a record without meeting_link or chief_complaint: KeyError
				continue
			}
			v := only[*AppointmentView](t, es, "appointments."+id)
			pr, _ := db.Providers.Get(ap.ProviderID)
			if v.PatientID != ap.PatientID || v.ProviderID != ap.ProviderID || v.Date != ap.Date || v.Time != ap.Time ||
				v.Status != ap.Status || v.Type != ap.Type || v.DurationMinutes == nil || *v.DurationMinutes != ap.DurationMinutes ||
				v.CopayAmount == nil || *v.CopayAmount != ap.CopayAmount || v.MeetingLink != ap.MeetingLink ||
				v.ChiefComplaint != ap.ChiefComplaint || v.Notes != pyjson.Str(ap.Notes) || v.Specialty != pr.Specialty ||
				providerLast(v) != pr.Name.LastName || v.CancellationReason != ap.CancellationReason || v.CancellationDate != ap.CancellationDate ||
				(ap.InsuranceAuthorization != nil) != (v.InsuranceAuthorization != "") || (ap.PrescriptionIssued != nil) != (v.PrescriptionIssued != "") ||
				v.ReferralFrom != ap.ReferralFrom {
				t.Errorf("%s: %+v", id, v)
			}
		}
		if !slices.Equal(failed, []string{"APPT005", "APPT007"}) {
			t.Errorf("unreadable appointments %v; want APPT005 and APPT007", failed)
		}
	})

	// Every provider whose details can be read, in one ledger (for the
	// listing check below).
	providers := ledger.New()
	t.Run("providers", func(t *testing.T) {
		var unreadable []string
		for id, p := range db.Providers.All() {
			es, ok := routeOne(t, d, ledger.ToolCall("get_provider_details", "provider_id", id))
			if !ok {
				unreadable = append(unreadable, id)
				continue
			}
			v := only[*ProviderView](t, es, "providers."+id)
			providers.Put(es[0].Path, v)
			same := v.Schedule.Len() == p.Schedule.Len()
			for day, times := range p.Schedule.All() {
				got, _ := v.Schedule.Get(day)
				same = same && slices.Equal(got, orEmpty(times))
			}
			if !same || v.Specialty != p.Specialty || v.YearsExperience != p.YearsExperience || !slices.Equal(v.Languages, p.Languages) ||
				v.ConsultationFee != p.ConsultationFee || !slices.Equal(v.Credentials, p.Credentials) || v.LicenseNumber != p.LicenseNumber ||
				!strings.HasSuffix(v.Name, " "+p.Name.FirstName+" "+p.Name.LastName) {
				t.Errorf("%s: %+v", id, v)
			}
		}
		want := []string{"dr_rodriguez_orthopedics", "pt_james_chen", "dr_chen_primary_care", "dr_patel_anesthesiology", "dr_kim_cardiac_surgery"}
		if !slices.Equal(unreadable, want) {
			t.Errorf("unreadable providers %v; want %v (no license_number)", unreadable, want)
		}
	})

	t.Run("provider_search", func(t *testing.T) {
		for _, spec := range []string{"", "Cardiology", "primary care"} {
			call := ledger.ToolCall("list_available_providers")
			path := "provider_search.all"
			if spec != "" {
				call, path = ledger.ToolCall("list_available_providers", "specialty", spec), "provider_search."+strings.ToLower(spec)
			}
			es, _ := routeOne(t, d, call)
			s := only[*ProviderSearch](t, es, path)
			var want []string
			for id, p := range db.Providers.All() {
				if spec == "" || strings.EqualFold(p.Specialty, spec) {
					want = append(want, id)
				}
			}
			var got []string
			for _, p := range s.Providers {
				got = append(got, p.ProviderID)
				src, _ := db.Providers.Get(p.ProviderID)
				if p.Specialty != src.Specialty || p.YearsExperience != src.YearsExperience || !slices.Equal(p.Languages, src.Languages) || p.Phone != src.Contact.Phone {
					t.Errorf("%s: %+v", p.ProviderID, p)
				}
			}
			if !slices.Equal(got, want) || s.Specialty != spec {
				t.Errorf("%q: providers %v; want %v", spec, got, want)
			}
		}
	})

	t.Run("appointment_listing", func(t *testing.T) {
		n := 0
		for pid := range db.Patients.All() {
			es, _ := routeOne(t, d, ledger.ToolCall("list_patient_appointments", "patient_id", pid))
			for _, e := range es {
				v := e.Value.(*AppointmentView)
				ap, _ := db.Appointments.Get(v.AppointmentID)
				pr, _ := db.Providers.Get(ap.ProviderID)
				if e.Path != "appointments."+v.AppointmentID || v.PatientID != pid || ap.PatientID != pid || v.Date != ap.Date || v.Time != ap.Time ||
					v.Status != ap.Status || v.Type != ap.Type || v.Specialty != pr.Specialty || v.ProviderID != "" || v.Source != sourceListing {
					t.Errorf("%s: %+v", e.Path, v)
				}
				// The provider is found among the providers read, when its
				// details can be read at all.
				want := ap.ProviderID
				if !providers.Has("providers." + want) {
					want = ""
				}
				if got := appointmentProvider(providers, v); got != want {
					t.Errorf("%s: provider %q; want %q", v.AppointmentID, got, want)
				}
				n++
			}
		}
		if n != db.Appointments.Len() {
			t.Errorf("%d appointments listed; want %d", n, db.Appointments.Len())
		}
		es, _ := routeOne(t, d, ledger.ToolCall("list_patient_appointments", "patient_id", "maria_rodriguez_4567", "status_filter", "pending_approval"))
		if got := paths(es); !slices.Equal(got, []string{"appointments.APPT009"}) {
			t.Errorf("filtered listing: %v", got)
		}
	})

	t.Run("records", func(t *testing.T) {
		for id, r := range db.MedicalRecords.All() {
			es, _ := routeOne(t, d, ledger.ToolCall("get_medical_record", "record_id", id))
			v := only[*RecordView](t, es, "medical_records."+id)
			wantAppt := ""
			if r.AppointmentID != nil && db.Appointments.Has(*r.AppointmentID) {
				wantAppt = *r.AppointmentID
			}
			if v.PatientID != r.PatientID || v.ProviderID != r.ProviderID || v.Date != r.Date || v.Type != r.Type ||
				v.Subjective != r.Subjective || v.Objective != r.Objective || v.Assessment != r.Assessment || v.Plan != r.Plan ||
				!slices.Equal(v.Recommendations, r.Recommendations) || v.AppointmentID != wantAppt {
				t.Errorf("%s: %+v", id, v)
			}
		}
		// By appointment: the same record.
		es, _ := routeOne(t, d, ledger.ToolCall("get_medical_record", "appointment_id", "APPT029"))
		if v := only[*RecordView](t, es, "medical_records.REC012"); v.PatientID != "yumi_tanaka_7410" {
			t.Errorf("%+v", v)
		}
	})

	t.Run("record_listing", func(t *testing.T) {
		n := 0
		for pid := range db.Patients.All() {
			es, _ := routeOne(t, d, ledger.ToolCall("list_patient_medical_records", "patient_id", pid))
			for _, e := range es {
				s := e.Value.(*RecordSummary)
				r, _ := db.MedicalRecords.Get(s.RecordID)
				var meds []string
				for _, rx := range r.Prescriptions {
					meds = append(meds, rx.Medication)
				}
				if e.Path != "record_summaries."+s.RecordID || s.PatientID != pid || r.PatientID != pid || s.Date != r.Date ||
					!slices.Equal(s.Medications, orEmpty(meds)) || (r.AppointmentID == nil) != (s.AppointmentID == "") {
					t.Errorf("%s: %+v", e.Path, s)
				}
				n++
			}
		}
		if n != db.MedicalRecords.Len() {
			t.Errorf("%d records listed; want %d", n, db.MedicalRecords.Len())
		}
	})

	t.Run("suppliers", func(t *testing.T) {
		for med, list := range db.MedicationSuppliers.All() {
			es, _ := routeOne(t, d, ledger.ToolCall("list_medication_suppliers", "medication", med))
			var got, want []string
			for _, e := range es {
				o := e.Value.(*SupplierOffer)
				if !strings.HasPrefix(e.Path, supplierPrefix(med)) || o.Medication != med {
					t.Errorf("%s: %+v", e.Path, o)
				}
				got = append(got, fmt.Sprintf("%s|%s|%s|%v", o.Company, o.Country, o.BrandName, o.PriceUSD))
			}
			for _, s := range list {
				want = append(want, fmt.Sprintf("%s|%s|%s|%v", s.Company, s.Country, s.BrandName, pyjson2(s.PriceUSD)))
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, slices.Compact(want)) {
				t.Errorf("%s: offers %v; want %v", med, got, want)
			}
		}
	})

	t.Run("interactions", func(t *testing.T) {
		es, _ := routeOne(t, d, ledger.ToolCall("check_drug_interactions", "primary_medication", "Warfarin", "current_medications", []any{"Rosuvastatin"}))
		if got := paths(es); !slices.Equal(got, []string{"interactions.Warfarin+Rosuvastatin", "interaction_checks.Warfarin vs Rosuvastatin"}) {
			t.Fatalf("paths %v", got)
		}
		iv, c := es[0].Value.(*InteractionView), es[1].Value.(*InteractionCheck)
		if iv.Severity != "moderate" || iv.RiskScore != "6" || iv.OverlapHours != 24 || c.Emergency || c.Highest != "Warfarin + Rosuvastatin (moderate)" {
			t.Errorf("%+v %+v", iv, c)
		}
		es, _ = routeOne(t, d, ledger.ToolCall("check_drug_interactions", "primary_medication", "Metformin", "current_medications", []any{"Lisinopril"}))
		if c := only[*InteractionCheck](t, es, "interaction_checks.Metformin vs Lisinopril"); len(c.Pairs) != 0 {
			t.Errorf("%+v", c)
		}
	})

	t.Run("regimen", func(t *testing.T) {
		es, _ := routeOne(t, d, ledger.ToolCall("get_regimen_options", "patient_id", "sarah_johnson_1234"))
		r := only[*RegimenView](t, es, "regimens.sarah_johnson_1234")
		plan, _ := db.RegimenPlans.Get("sarah_johnson_1234")
		if len(r.Current) != len(plan.CurrentRegimen.Components) || len(r.Options) != len(plan.OptimizedRegimens) ||
			r.Current[0].Medication != plan.CurrentRegimen.Components[0].Medication || r.Current[0].UnitCostUSD != plan.CurrentRegimen.Components[0].UnitCostUSD ||
			r.Options[1].Name != plan.OptimizedRegimens[1].Name || len(r.Options[1].SynergyNotes) != len(plan.OptimizedRegimens[1].SynergyNotes) {
			t.Errorf("%+v", r)
		}
	})

	t.Run("telemetry", func(t *testing.T) {
		es, _ := routeOne(t, d, ledger.ToolCall("list_telemetry_devices"))
		if len(es) != len(db.TelemetryInventory) {
			t.Fatalf("%d devices; want %d", len(es), len(db.TelemetryInventory))
		}
		for _, e := range es {
			dev := e.Value.(*Device)
			i := slices.IndexFunc(db.TelemetryInventory, func(x *Device) bool { return x.DeviceID == dev.DeviceID })
			src := db.TelemetryInventory[i]
			if e.Path != "telemetry.devices."+dev.DeviceID || dev.Status != src.Status || dev.LastAudit != src.LastAudit || dev.Notes != src.Notes {
				t.Errorf("%s: %+v", e.Path, dev)
			}
		}
		es, _ = routeOne(t, d, ledger.ToolCall("list_telemetry_uploads", "device_id", "VC-449"))
		if len(es) != 7 || es[3].Path != "telemetry.uploads.VC-449.2025-06-04" || es[3].Value.(*Upload).Event != "upload_missing" {
			t.Errorf("uploads %v", paths(es))
		}
		es, _ = routeOne(t, d, ledger.ToolCall("get_telemetry_upload", "device_id", "VC-449", "date", "2025-06-04"))
		if u := only[*Upload](t, es, "telemetry.uploads.VC-449.2025-06-04"); u.SyncedAt != nil || len(u.Alerts) != 2 {
			t.Errorf("%+v", u)
		}
	})
}

// shownList is a list as the patient details show it: a list holding only
// "None" reads as no entries.
func shownList(s []string) []string {
	if len(s) == 1 && s[0] == "None" {
		return []string{}
	}
	return orEmpty(s)
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// pyjson2 is the price as the listing prints it (two decimals), parsed back.
func pyjson2(f float64) float64 { return money(fixed2(f)) }

// TestRouteNothing: not-found texts, other tools, writes and garbage give no
// entries.
func TestRouteNothing(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	cases := []struct {
		call message.ToolCall
		out  string // used when call has no name
	}{
		{call: ledger.ToolCall("find_patient_by_email", "email", "nobody@example.com")},
		{call: ledger.ToolCall("find_patient_by_name_dob", "first_name", "A", "last_name", "B", "date_of_birth", "2000-01-01")},
		{call: ledger.ToolCall("get_patient_details", "patient_id", "nobody")},
		{call: ledger.ToolCall("get_appointment_details", "appointment_id", "APPT999")},
		{call: ledger.ToolCall("get_provider_details", "provider_id", "dr_nobody")},
		{call: ledger.ToolCall("get_medical_record", "record_id", "REC999")},
		{call: ledger.ToolCall("get_medical_record")},
		{call: ledger.ToolCall("get_regimen_options", "patient_id", "david_martinez_5678")},
		{call: ledger.ToolCall("list_patient_medical_records", "patient_id", "nobody")},
		{call: ledger.ToolCall("list_available_providers", "specialty", "Astrology")},
		{call: ledger.ToolCall("list_patient_appointments", "patient_id", "nobody")},
		{call: ledger.ToolCall("list_patient_appointments", "patient_id", "david_martinez_5678", "status_filter", "no_such_status")},
		{call: ledger.ToolCall("list_medication_suppliers", "medication", "Unobtainium")},
		{call: ledger.ToolCall("list_medication_suppliers", "medication", "Warfarin", "country_filter", "Atlantis")},
		{call: ledger.ToolCall("list_telemetry_uploads", "device_id", "nope")},
		{call: ledger.ToolCall("list_telemetry_devices", "status_filter", "lost")},
		{call: ledger.ToolCall("get_telemetry_upload", "device_id", "VC-449", "date", "1999-01-01")},
		{call: ledger.ToolCall("calculate", "expression", "1 + 2")},
		{call: ledger.ToolCall("think", "thought", "x")},
		{call: ledger.ToolCall("transfer_to_human_support", "reason", "x")},
		{call: ledger.ToolCall("cancel_appointment", "appointment_id", "APPT001")},
		{call: ledger.ToolCall("update_medical_record_note", "record_id", "REC001", "note", "x")},
	}
	for _, tc := range cases {
		res := respond(t, d.NewEnv(), tc.call)
		if es := d.Route(tc.call.Name, tc.call.Arguments, res.Content); es != nil {
			t.Errorf("Route(%s %s) = %v; want nothing", tc.call.Name, tc.call.Arguments, paths(es))
		}
	}
	for _, tc := range []struct{ tool, out string }{
		{"find_patient_by_email", ""},
		{"find_patient_by_email", "two words"},
		{"get_patient_details", "Patient Details for X"},
		{"get_appointment_details", "Appointment Details (ID: )"},
		{"get_provider_details", "Provider Details (ID: x)\n\nName: x"},
		{"get_medical_record", "Medical Record (ID: R)\nDate: x"},
		{"list_patient_medical_records", "Medical records (newest first):\nrecord_id=R"},
		{"get_telemetry_upload", `{"device_id": 5}`},
		{"list_telemetry_uploads", `[{"date": "x"}]`},
		{"check_drug_interactions", "Drug interaction analysis:\nA + B"},
		{"unknown_tool", "x"},
	} {
		args := json.RawMessage(`{"patient_id": "p", "primary_medication": "A", "current_medications": ["B"]}`)
		if es := d.Route(tc.tool, args, tc.out); len(es) != 0 && tc.tool != "check_drug_interactions" {
			t.Errorf("Route(%s, %q) = %v; want nothing", tc.tool, tc.out, paths(es))
		} else if tc.tool == "check_drug_interactions" && len(es) != 1 {
			t.Errorf("a malformed pair line should leave only the check: %v", paths(es))
		}
	}
}

// FuzzRoute: any output of any read tool gives entries or nothing, never a
// panic, and the entries render.
func FuzzRoute(f *testing.F) {
	d := loadDomain(f)
	env := d.NewEnv()
	seeds := []message.ToolCall{
		ledger.ToolCall("find_patient_by_email", "email", "sarah.johnson@email.com"),
		ledger.ToolCall("get_patient_details", "patient_id", "sarah_johnson_1234"),
		ledger.ToolCall("get_appointment_details", "appointment_id", "APPT005"),
		ledger.ToolCall("list_patient_appointments", "patient_id", "maya_chen_3318"),
		ledger.ToolCall("get_provider_details", "provider_id", "slp_martinez"),
		ledger.ToolCall("list_available_providers"),
		ledger.ToolCall("get_medical_record", "record_id", "REC021"),
		ledger.ToolCall("list_patient_medical_records", "patient_id", "yumi_tanaka_7410"),
		ledger.ToolCall("get_regimen_options", "patient_id", "sarah_johnson_1234"),
		ledger.ToolCall("list_medication_suppliers", "medication", "Fluticasone Inhaler"),
		ledger.ToolCall("check_drug_interactions", "primary_medication", "Xywav", "current_medications", []any{"Xywav", "Bupropion"}),
		ledger.ToolCall("list_telemetry_devices", "limit", 3),
		ledger.ToolCall("list_telemetry_uploads", "device_id", "VC-449"),
	}
	for _, tc := range seeds {
		res := respond(f, env, tc)
		f.Add(tc.Name, string(tc.Arguments), res.Content)
		f.Add(tc.Name, string(tc.Arguments), res.Content[:len(res.Content)/2])
	}
	f.Fuzz(func(t *testing.T, tool, args, output string) {
		l := ledger.New()
		l.Absorb(d, tool, json.RawMessage(args), output)
		if strings.Contains(l.Render(), "<unrenderable>") {
			t.Errorf("unrenderable entry from %s %q", tool, output)
		}
	})
}

// goldLedger plays a task's gold actions on a fresh environment and absorbs
// the successful reads, as LedgerAgent would on the gold trajectory.
func goldLedger(t testing.TB, d *Domain, split string, index int) (*ledger.Ledger, envs.Env) {
	t.Helper()
	ts, err := d.Tasks().Select(tasks.Selection{Split: split})
	if err != nil {
		t.Fatal(err)
	}
	env := d.NewEnv()
	l := ledger.New()
	for _, a := range ts[index].GoldActions() {
		ti, _ := envs.ToolInfo(d, message.ByAssistant, a.Name)
		w := -1
		if ti.Mutates() {
			decoded, _ := d.DecodeArgs(a.Name, a.Arguments)
			w = l.LogWrite(a.Name, a.Arguments, decoded)
		}
		res := respond(t, env, message.ToolCall{Name: a.Name, Arguments: a.Arguments})
		switch {
		case w >= 0:
			l.Resolve(w, !res.Error)
		case ti.Kind == "read" && !res.Error:
			l.Absorb(d, a.Name, a.Arguments, res.Content)
		}
	}
	return l, env
}

// TestRenderGolden renders the ledger after the gold trajectories of test
// tasks 10 (appointments, providers, records, suppliers, interactions) and
// 13 (telemetry, a sleep record, a high-severity interaction).
func TestRenderGolden(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	for _, tc := range []struct {
		index int
		file  string
	}{{10, "ledger_test10.golden"}, {13, "ledger_test13.golden"}} {
		l, _ := goldLedger(t, d, "test", tc.index)
		goldentest.Check(t, *update, tc.file, l.Render()+"\n")
	}
}

// longConversation returns the ledger at the end of the longest gold
// conversation (test task 10: 29 calls, six of them writes); with stress, it
// then also reads every provider, every medical record and every supplier
// list. It returns the next read to absorb with its output, and a write to
// judge.
func longConversation(b testing.TB, d *Domain, stress bool) (*ledger.Ledger, message.ToolCall, string, message.ToolCall) {
	l, env := goldLedger(b, d, "test", 10)
	readInto(b, d, env, l, thompson)
	if stress {
		for id := range d.DB().Providers.All() {
			call := ledger.ToolCall("get_provider_details", "provider_id", id)
			if res := respond(b, env, call); !res.Error {
				l.Absorb(d, call.Name, call.Arguments, res.Content)
			}
		}
		var reads []message.ToolCall
		for id := range d.DB().MedicalRecords.All() {
			reads = append(reads, ledger.ToolCall("get_medical_record", "record_id", id))
		}
		for med := range d.DB().MedicationSuppliers.All() {
			reads = append(reads, ledger.ToolCall("list_medication_suppliers", "medication", med))
		}
		readInto(b, d, env, l, reads...)
	}
	next := ledger.ToolCall("get_appointment_details", "appointment_id", "APPT030")
	res := respond(b, env, next)
	write := ledger.ToolCall("reschedule_appointment", "appointment_id", "APPT030", "new_date", "2025-05-20", "new_time", "14:00")
	return l, next, res.Content, write
}

// BenchmarkLedgerTurn measures LedgerAgent's per-turn work at the end of a
// long conversation: absorbing one read (an appointment), rendering the
// whole ledger, and judging one write (a reschedule: ownership, status,
// schedule and conflicts against every appointment seen, the write log).
func BenchmarkLedgerTurn(b *testing.B) {
	for _, stress := range []bool{false, true} {
		name := "task10"
		if stress {
			name = "everything"
		}
		b.Run(name, func(b *testing.B) { benchmarkTurn(b, stress) })
	}
}

func benchmarkTurn(b *testing.B, stress bool) {
	d := loadDomain(b)
	l, next, output, write := longConversation(b, d, stress)
	b.Logf("%d entries, %d rendered bytes, %d writes logged", l.Len(), len(l.Render()), len(l.Writes()))
	b.Run("absorb", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			l.Absorb(d, next.Name, next.Arguments, output)
		}
	})
	b.Run("render", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = l.Render()
		}
	})
	gate := ledgeragent.NewGate(d, d)
	if v := gate.Judge(l, write.Name, "", write.Arguments); v.Decision != ledger.Allow {
		b.Fatalf("verdict %+v", v)
	}
	b.Run("gate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = gate.Judge(l, write.Name, "", write.Arguments)
		}
	})
}
