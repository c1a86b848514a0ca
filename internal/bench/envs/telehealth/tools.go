package telehealth

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// toolDef is one upstream tool: its class name (for Python's argument
// errors) and its implementation.
type toolDef struct {
	class string
	tool  tool.Tool[*Env]
}

// newTools builds the 23 tools in upstream's ALL_TOOLS order. Their
// descriptions and parameter schemas are upstream's get_info() dicts, read
// at load time (LoadSchemas).
func newTools() []toolDef {
	return []toolDef{
		{"FindPatientByEmail", tool.New("find_patient_by_email", tool.Read, "", findPatientByEmail)},
		{"FindPatientByNameDOB", tool.New("find_patient_by_name_dob", tool.Read, "", findPatientByNameDOB)},
		{"GetPatientDetails", tool.New("get_patient_details", tool.Read, "", getPatientDetails)},
		{"GetAppointmentDetails", tool.New("get_appointment_details", tool.Read, "", getAppointmentDetails)},
		{"GetProviderDetails", tool.New("get_provider_details", tool.Read, "", getProviderDetails)},
		{"GetMedicalRecord", tool.New("get_medical_record", tool.Read, "", getMedicalRecord)},
		{"GetRegimenOptions", tool.New("get_regimen_options", tool.Read, "", getRegimenOptions)},
		{"ListPatientMedicalRecords", tool.New("list_patient_medical_records", tool.Read, "", listPatientMedicalRecords)},
		{"ListAvailableProviders", tool.New("list_available_providers", tool.Read, "", listAvailableProviders)},
		{"ListPatientAppointments", tool.New("list_patient_appointments", tool.Read, "", listPatientAppointments)},
		{"ListMedicationSuppliers", tool.New("list_medication_suppliers", tool.Read, "", listMedicationSuppliers)},
		{"ListTelemetryUploads", tool.New("list_telemetry_uploads", tool.Read, "", listTelemetryUploads)},
		{"CheckDrugInteractions", tool.New("check_drug_interactions", tool.Read, "", checkDrugInteractions)},
		{"ScheduleAppointment", tool.New("schedule_appointment", tool.Write, "", scheduleAppointment)},
		{"CancelAppointment", tool.New("cancel_appointment", tool.Write, "", cancelAppointment)},
		{"RescheduleAppointment", tool.New("reschedule_appointment", tool.Write, "", rescheduleAppointment)},
		{"Calculate", tool.New("calculate", tool.Generic, "", calculateTool)},
		{"Think", tool.New("think", tool.Think, "", think)},
		{"TransferToHumanSupport", tool.New("transfer_to_human_support", tool.Generic, "", transferToHumanSupport)},
		{"UpdatePrescriptionSupplier", tool.New("update_prescription_supplier", tool.Write, "", updatePrescriptionSupplier)},
		{"ListTelemetryDevices", tool.New("list_telemetry_devices", tool.Read, "", listTelemetryDevices)},
		{"GetTelemetryUpload", tool.New("get_telemetry_upload", tool.Read, "", getTelemetryUpload)},
		{"UpdateMedicalRecordNote", tool.New("update_medical_record_note", tool.Write, "", updateMedicalRecordNote)},
	}
}

// ---- lookups shared by the tools ----

func (e *Env) patientByArg(v any) (*Patient, bool, error) {
	key, ok, err := pyjson.DictKey(v)
	if err != nil || !ok {
		return nil, false, err
	}
	p, found := e.d.db.Patients.Get(key)
	return p, found, nil
}

func (e *Env) providerByArg(v any) (*Provider, bool, error) {
	key, ok, err := pyjson.DictKey(v)
	if err != nil || !ok {
		return nil, false, err
	}
	p, found := e.d.db.Providers.Get(key)
	return p, found, nil
}

func (e *Env) appointmentKey(v any) (string, bool, error) {
	key, ok, err := pyjson.DictKey(v)
	if err != nil || !ok {
		return "", false, err
	}
	return key, e.appointments.Has(key), nil
}

func (e *Env) recordKey(v any) (string, bool, error) {
	key, ok, err := pyjson.DictKey(v)
	if err != nil || !ok {
		return "", false, err
	}
	return key, e.records.Has(key), nil
}

// patientName is f"{first or 'Unknown'} {last or 'Patient'}" over
// patients.get(pid, {}).get('name', {}).
func (e *Env) patientName(pid string) string {
	if p, ok := e.d.db.Patients.Get(pid); ok {
		return p.Name.FirstName + " " + p.Name.LastName
	}
	return "Unknown Patient"
}

// providerLastName is provider.get('name', {}).get('last_name', def).
func (e *Env) providerLastName(pid, def string) string {
	if p, ok := e.d.db.Providers.Get(pid); ok {
		return p.Name.LastName
	}
	return def
}

// title is name.get('title', 'Dr.').
func (n *PersonName) titleOr(def string) string {
	if n.has("title") {
		return n.Title
	}
	return def
}

func joinOrNone(list []string) string {
	if len(list) == 0 {
		return "None"
	}
	return strings.Join(list, ", ")
}

// ---- 1-7: lookups ----

func findPatientByEmail(_ context.Context, e *Env, a emailArgs) (any, error) {
	for id, p := range e.d.db.Patients.All() {
		if equalStr(p.Demographics.Email, a.Email.V) {
			return id, nil
		}
	}
	return "No patient found with email: " + pyjson.Str(a.Email.V), nil
}

func findPatientByNameDOB(_ context.Context, e *Env, a nameDOBArgs) (any, error) {
	for id, p := range e.d.db.Patients.All() {
		first, err := strArg(a.FirstName.V, "lower")
		if err != nil {
			return nil, err
		}
		if pyjson.Lower(p.Name.FirstName) != pyjson.Lower(first) {
			continue
		}
		last, err := strArg(a.LastName.V, "lower")
		if err != nil {
			return nil, err
		}
		if pyjson.Lower(p.Name.LastName) == pyjson.Lower(last) && equalStr(p.Demographics.DateOfBirth, a.DateOfBirth.V) {
			return id, nil
		}
	}
	return fmt.Sprintf("No patient found with name: %s %s and DOB: %s", pyjson.Str(a.FirstName.V), pyjson.Str(a.LastName.V), pyjson.Str(a.DateOfBirth.V)), nil
}

func getPatientDetails(_ context.Context, e *Env, a patientArgs) (any, error) {
	p, ok, err := e.patientByArg(a.PatientID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return fmt.Sprintf("Patient with ID %s not found.", pyjson.Str(a.PatientID.V)), nil
	}
	d, ad, ins, mh, ec := &p.Demographics, &p.Address, &p.Insurance.Primary, &p.MedicalHistory, &p.EmergencyContact
	meds := "None"
	if len(mh.Medications) > 0 {
		parts := make([]string, len(mh.Medications))
		for i, m := range mh.Medications {
			parts[i] = m.Name + " " + m.Dosage + " " + m.Frequency
		}
		meds = strings.Join(parts, ", ")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Patient Details for %s %s (ID: %s)\n\n", p.Name.FirstName, p.Name.LastName, pyjson.Str(a.PatientID.V))
	fmt.Fprintf(&b, "Demographics:\n- Date of Birth: %s\n- Gender: %s\n- Phone: %s\n- Email: %s\n\n", d.DateOfBirth, d.Gender, d.Phone, d.Email)
	fmt.Fprintf(&b, "Address:\n- %s\n- %s\n- %s, %s %s\n- %s\n\n", ad.Address1, ad.Address2, ad.City, ad.State, ad.Zip, ad.Country)
	fmt.Fprintf(&b, "Insurance:\n- Provider: %s\n- Policy Number: %s\n- Primary Care Copay: $%s\n- Specialist Copay: $%s\n\n",
		ins.Provider, ins.PolicyNumber, fixed2(ins.CopayPrimary), fixed2(ins.CopaySpecialist))
	fmt.Fprintf(&b, "Medical History:\n- Conditions: %s\n- Allergies: %s\n- Current Medications: %s\n\n",
		joinOrNone(mh.Conditions), joinOrNone(mh.Allergies), meds)
	fmt.Fprintf(&b, "Emergency Contact:\n- %s (%s)\n- Phone: %s", ec.Name, ec.Relationship, ec.Phone)
	return b.String(), nil
}

func getAppointmentDetails(_ context.Context, e *Env, a appointmentArgs) (any, error) {
	key, ok, err := e.appointmentKey(a.AppointmentID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return fmt.Sprintf("Appointment with ID %s not found.", pyjson.Str(a.AppointmentID.V)), nil
	}
	ap, _ := e.appointments.Get(key)
	specialty := "Unknown"
	if pr, ok := e.d.db.Providers.Get(ap.ProviderID); ok {
		specialty = pr.Specialty
	}
	// The f-string evaluates its fields in order; the first failure wins.
	typ, err := strArg(ap.Type, "replace")
	if err != nil {
		return nil, err
	}
	if !ap.has("chief_complaint") {
		return nil, pyjson.KeyError("chief_complaint")
	}
	if !ap.has("meeting_link") {
		return nil, pyjson.KeyError("meeting_link")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Appointment Details (ID: %s)\n\n", key)
	fmt.Fprintf(&b, "Patient: %s (ID: %s)\n", e.patientName(ap.PatientID), ap.PatientID)
	fmt.Fprintf(&b, "Provider: Dr. %s - %s (ID: %s)\n\n", e.providerLastName(ap.ProviderID, "Unknown Provider"), specialty, ap.ProviderID)
	fmt.Fprintf(&b, "Appointment Information:\n- Date: %s\n- Time: %s\n- Duration: %d minutes\n- Type: %s\n- Status: %s\n\n",
		ap.Date, ap.Time, ap.DurationMinutes, readable(typ), readable(ap.Status))
	fmt.Fprintf(&b, "Clinical Information:\n- Chief Complaint: %s\n- Notes: %s\n\n", ap.ChiefComplaint, pyjson.Str(ap.Notes))
	fmt.Fprintf(&b, "Billing Information:\n- Insurance Authorization: %s\n- Copay Amount: $%s\n\n", pyjson.Str(ap.InsuranceAuthorization), fixed2(ap.CopayAmount))
	fmt.Fprintf(&b, "Meeting Information:\n- Meeting Link: %s", ap.MeetingLink)
	if ap.has("prescription_issued") {
		rx := ap.PrescriptionIssued
		fmt.Fprintf(&b, "\n\nPrescription Issued:\n- %s %s %s\n- Quantity: %s, Refills: %d", rx.Medication, rx.Dosage, rx.Frequency, rx.Quantity, rx.Refills)
	}
	if ap.has("referral_from") {
		fmt.Fprintf(&b, "\n\nReferral from: %s", ap.ReferralFrom)
	}
	if ap.has("cancellation_reason") {
		if !ap.has("cancellation_date") {
			return nil, pyjson.KeyError("cancellation_date")
		}
		fmt.Fprintf(&b, "\n\nCancellation Details:\n- Reason: %s\n- Date: %s", readable(ap.CancellationReason), ap.CancellationDate)
	}
	return b.String(), nil
}

func getProviderDetails(_ context.Context, e *Env, a providerArgs) (any, error) {
	p, ok, err := e.providerByArg(a.ProviderID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return fmt.Sprintf("Provider with ID %s not found.", pyjson.Str(a.ProviderID.V)), nil
	}
	if !p.has("license_number") {
		return nil, pyjson.KeyError("license_number")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Provider Details (ID: %s)\n\n", pyjson.Str(a.ProviderID.V))
	fmt.Fprintf(&b, "Name: %s %s %s\n", p.Name.titleOr("Dr."), p.Name.FirstName, p.Name.LastName)
	fmt.Fprintf(&b, "Specialty: %s\nLicense Number: %s\nCredentials: %s\nYears of Experience: %d\n\n",
		p.Specialty, p.LicenseNumber, strings.Join(p.Credentials, ", "), p.YearsExperience)
	fmt.Fprintf(&b, "Contact Information:\n- Phone: %s\n- Email: %s\n\n", p.Contact.Phone, p.Contact.Email)
	fmt.Fprintf(&b, "Languages: %s\nConsultation Fee: $%s\n\nWeekly Schedule:", strings.Join(p.Languages, ", "), fixed2(p.ConsultationFee))
	for day, times := range p.Schedule.All() {
		if len(times) > 0 {
			fmt.Fprintf(&b, "\n- %s: %s", pyjson.Title(day), strings.Join(times, ", "))
		} else {
			fmt.Fprintf(&b, "\n- %s: Not available", pyjson.Title(day))
		}
	}
	return b.String(), nil
}

func getMedicalRecord(_ context.Context, e *Env, a medicalRecordArgs) (any, error) {
	rid, aid := a.RecordID.V, a.AppointmentID.V
	if !pyjson.Truthy(rid) && !pyjson.Truthy(aid) {
		return "Please provide a record_id or appointment_id to look up the medical record.", nil
	}
	var rec *Record
	if pyjson.Truthy(rid) {
		key, ok, err := e.recordKey(rid)
		if err != nil {
			return nil, err
		}
		if !ok {
			return fmt.Sprintf("Medical record with ID %s not found.", pyjson.Str(rid)), nil
		}
		rec, _ = e.records.Get(key)
	} else {
		for _, r := range e.records.All() {
			if r.AppointmentID != nil && equalStr(*r.AppointmentID, aid) {
				rec = r
				break
			}
		}
		if rec == nil {
			return fmt.Sprintf("No medical record found for appointment ID %s.", pyjson.Str(aid)), nil
		}
	}
	patient := "Unknown Patient"
	if p, ok := e.d.db.Patients.Get(rec.PatientID); ok {
		if n := pyjson.Strip(joinNonEmpty(p.Name.FirstName, p.Name.LastName)); n != "" {
			patient = n
		}
	}
	provider := "Unknown Provider"
	if p, ok := e.d.db.Providers.Get(rec.ProviderID); ok {
		if n := pyjson.Strip(joinNonEmpty(p.Name.Title, p.Name.FirstName, p.Name.LastName)); n != "" {
			provider = n
		}
	}
	lines := []string{
		fmt.Sprintf("Medical Record (ID: %s)", rec.RecordID),
		fmt.Sprintf("Patient: %s (ID: %s)", patient, rec.PatientID),
		fmt.Sprintf("Provider: %s (ID: %s)", provider, rec.ProviderID),
	}
	if rec.AppointmentID != nil {
		if ap, ok := e.appointments.Get(*rec.AppointmentID); ok {
			lines = append(lines, fmt.Sprintf("Related Appointment: %s on %s at %s", ap.AppointmentID, ap.Date, ap.Time))
		}
	}
	lines = append(lines, "Date: "+rec.Date, "Type: "+rec.Type)
	for _, f := range []struct{ key, val string }{
		{"subjective", rec.Subjective}, {"objective", rec.Objective}, {"assessment", rec.Assessment}, {"plan", rec.Plan},
	} {
		if rec.has(f.key) {
			lines = append(lines, pyjson.Title(f.key)+": "+f.val)
		}
	}
	if len(rec.Recommendations) > 0 {
		lines = append(lines, "Recommendations:")
		for _, r := range rec.Recommendations {
			lines = append(lines, "- "+r)
		}
	}
	return strings.Join(lines, "\n"), nil
}

// joinNonEmpty is " ".join(filter(None, parts)).
func joinNonEmpty(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " ")
}

func getRegimenOptions(_ context.Context, e *Env, a regimenArgs) (any, error) {
	key, ok, err := pyjson.DictKey(a.PatientID.V)
	if err != nil {
		return nil, err
	}
	var plan *RegimenPlan
	if ok {
		plan, _ = e.d.db.RegimenPlans.Get(key)
	}
	if plan == nil || len(plan.order) == 0 {
		return fmt.Sprintf("No regimen optimization data available for patient %s.", pyjson.Str(a.PatientID.V)), nil
	}
	lines := []string{"Current regimen components:"}
	cur := &plan.CurrentRegimen
	for i := range cur.Components {
		lines = append(lines, "- "+cur.Components[i].format())
	}
	if len(cur.PillBurden.order) > 0 {
		lines = append(lines, "Current pill burden: "+cur.PillBurden.format())
	}
	if len(cur.Notes) > 0 {
		lines = append(lines, "Current regimen notes:")
		for _, n := range cur.Notes {
			lines = append(lines, "  * "+n)
		}
	}
	lines = append(lines, "Optimized regimen options:")
	for idx := range plan.OptimizedRegimens {
		r := &plan.OptimizedRegimens[idx]
		lines = append(lines, fmt.Sprintf("Option %d: %s", idx+1, r.get("name", r.Name)))
		lines = append(lines, "  Focus: "+r.get("focus", r.Focus))
		for i := range r.Components {
			lines = append(lines, "  - "+r.Components[i].format())
		}
		if len(r.PillBurden.order) > 0 {
			lines = append(lines, "  Pill burden: "+r.PillBurden.format())
		}
		if len(r.SynergyNotes) > 0 {
			lines = append(lines, "  Synergy notes:")
			for _, n := range r.SynergyNotes {
				lines = append(lines, "    - "+n)
			}
		}
	}
	return strings.Join(lines, "\n"), nil
}

// get is str(record.get(key)): the value, or "None" when the key is absent.
func (k *keys) get(key string, val any) string {
	if !k.has(key) {
		return "None"
	}
	return pyjson.Str(val)
}

func (c *Component) format() string {
	return fmt.Sprintf("%s | dosage=%s | daily_dose=%s | monthly_units=%s | unit_type=%s | brand=%s | supplier=%s | unit_cost_usd=%s",
		c.get("medication", c.Medication), c.get("dosage", c.Dosage), c.get("daily_dose", c.DailyDose),
		c.get("monthly_units", c.MonthlyUnits), c.get("unit_type", c.UnitType), c.get("preferred_brand", c.PreferredBrand),
		c.get("supplier", c.Supplier), fixed2(c.UnitCostUSD))
}

func (p *PillBurden) format() string {
	return fmt.Sprintf("tablets_per_day=%s | devices_per_month=%s", p.get("tablets_per_day", p.TabletsPerDay), p.get("devices_per_month", p.DevicesPerMonth))
}

// ---- 8-13: listings ----

func listPatientMedicalRecords(_ context.Context, e *Env, a patientRecordsArgs) (any, error) {
	type item struct {
		r    *Record
		date time.Time
	}
	var items []item
	for _, r := range e.records.All() {
		if equalStr(r.PatientID, a.PatientID.V) {
			items = append(items, item{r: r})
		}
	}
	if len(items) == 0 {
		return fmt.Sprintf("No medical records found for patient %s.", pyjson.Str(a.PatientID.V)), nil
	}
	for i := range items {
		d, err := strptime(items[i].r.Date, dateFormat)
		if err != nil {
			return nil, err
		}
		items[i].date = d
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].date.After(items[j].date) })
	n, err := applyLimit(a.Limit.V, len(items))
	if err != nil {
		return nil, err
	}
	lines := make([]string, 0, n)
	for _, it := range items[:n] {
		r := it.r
		meds := "None recorded"
		if len(r.Prescriptions) > 0 {
			names := make([]string, len(r.Prescriptions))
			for i := range r.Prescriptions {
				names[i] = r.Prescriptions[i].Medication
			}
			meds = strings.Join(names, ", ")
		}
		lines = append(lines, fmt.Sprintf("record_id=%s | date=%s | appointment_id=%s | medications=%s", r.RecordID, r.Date, pyjson.Str(r.AppointmentID), meds))
	}
	return "Medical records (newest first):\n" + strings.Join(lines, "\n"), nil
}

func listAvailableProviders(_ context.Context, e *Env, a providersArgs) (any, error) {
	spec := a.Specialty.V
	var list []*Provider
	var ids []string
	for id, p := range e.d.db.Providers.All() {
		if spec != nil {
			s, err := strArg(spec, "lower")
			if err != nil {
				return nil, err
			}
			if pyjson.Lower(p.Specialty) != pyjson.Lower(s) {
				continue
			}
		}
		list = append(list, p)
		ids = append(ids, id)
	}
	if len(list) == 0 {
		if pyjson.Truthy(spec) {
			return "No providers found with specialty: " + pyjson.Str(spec), nil
		}
		return "No providers found.", nil
	}
	var b strings.Builder
	b.WriteString("Available Providers")
	if pyjson.Truthy(spec) {
		b.WriteString(" - " + pyjson.Str(spec))
	}
	b.WriteString(":\n\n")
	for i, p := range list {
		fmt.Fprintf(&b, "• %s %s %s (ID: %s)\n", p.Name.titleOr("Dr."), p.Name.FirstName, p.Name.LastName, ids[i])
		fmt.Fprintf(&b, "  Specialty: %s\n  Experience: %d years\n  Languages: %s\n  Consultation Fee: $%s\n  Phone: %s\n\n",
			p.Specialty, p.YearsExperience, strings.Join(p.Languages, ", "), fixed2(p.ConsultationFee), p.Contact.Phone)
	}
	return pyjson.Strip(b.String()), nil
}

func listPatientAppointments(_ context.Context, e *Env, a patientAppointmentsArgs) (any, error) {
	p, ok, err := e.patientByArg(a.PatientID.V)
	if err != nil {
		return nil, err
	}
	pid := pyjson.Str(a.PatientID.V)
	if !ok {
		return fmt.Sprintf("Patient with ID %s not found.", pid), nil
	}
	filter := ""
	if pyjson.Truthy(a.StatusFilter.V) {
		s, err := strArg(a.StatusFilter.V, "lower")
		if err != nil {
			return nil, err
		}
		filter = pyjson.Lower(s)
	}
	type item struct {
		id string
		ap *Appointment
		at time.Time
	}
	var items []item
	for id, ap := range e.appointments.All() {
		if ap.PatientID != pid {
			continue
		}
		if filter != "" && pyjson.Lower(ap.Status) != filter {
			continue
		}
		at, err := strptime(ap.Date+" "+ap.Time, dateTimeFormat)
		if err != nil {
			at = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC) // datetime.min
		}
		items = append(items, item{id, ap, at})
	}
	if len(items) == 0 {
		if filter != "" {
			return fmt.Sprintf("No appointments found for patient %s with status %s.", pid, pyjson.Str(a.StatusFilter.V)), nil
		}
		return fmt.Sprintf("No appointments found for patient %s.", pid), nil
	}
	sort.SliceStable(items, func(i, j int) bool {
		if c := items[i].at.Compare(items[j].at); c != 0 {
			return c < 0
		}
		return items[i].id < items[j].id
	})
	header := fmt.Sprintf("Appointments for %s %s (ID: %s)", p.Name.FirstName, p.Name.LastName, pid)
	if filter != "" {
		header += " with status " + pyjson.Str(a.StatusFilter.V)
	}
	lines := []string{header}
	for _, it := range items {
		ap := it.ap
		last, title, specialty := "Unknown", "Dr.", "Unknown Specialty"
		if pr, ok := e.d.db.Providers.Get(ap.ProviderID); ok {
			last, title, specialty = pr.Name.LastName, pr.Name.titleOr("Dr."), pr.Specialty
		}
		typ, err := strArg(ap.Type, "replace")
		if err != nil {
			return nil, err
		}
		lines = append(lines, fmt.Sprintf("- %s: %s at %s with %s %s (%s) [%s, Type: %s]",
			it.id, ap.Date, ap.Time, title, last, specialty, readable(ap.Status), readable(typ)))
	}
	return strings.Join(lines, "\n"), nil
}

func listMedicationSuppliers(_ context.Context, e *Env, a suppliersArgs) (any, error) {
	catalog := &e.d.db.MedicationSuppliers
	canonical := make(map[string]string, catalog.Len())
	for _, k := range catalog.Keys() {
		canonical[pyjson.Lower(k)] = k // a later key with the same lower case wins
	}
	med, err := strArg(a.Medication.V, "lower")
	if err != nil {
		return nil, err
	}
	key, known := canonical[pyjson.Lower(med)]
	var suppliers []*Supplier
	if known && key != "" {
		suppliers, _ = catalog.Get(key)
	}
	if len(suppliers) == 0 {
		if !known {
			return "No supplier information found for " + med + ". (Tip: ensure the medication name matches the catalog)", nil
		}
		return "No supplier information found for " + med + ".", nil
	}
	filtered := suppliers
	if pyjson.Truthy(a.CountryFilter.V) {
		country, err := strArg(a.CountryFilter.V, "lower")
		if err != nil {
			return nil, err
		}
		filtered = nil
		for _, s := range suppliers {
			if pyjson.Lower(s.Country) == pyjson.Lower(country) {
				filtered = append(filtered, s)
			}
		}
		if len(filtered) == 0 {
			return fmt.Sprintf("No suppliers in %s for %s.", country, med), nil
		}
	}
	sorted := append([]*Supplier(nil), filtered...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].PriceUSD < sorted[j].PriceUSD })
	n, err := applyLimit(a.Limit.V, len(sorted))
	if err != nil {
		return nil, err
	}
	lines := make([]string, n)
	for i, s := range sorted[:n] {
		lines[i] = fmt.Sprintf("%s (%s) | brand=%s | price_usd=%s", s.get("company", s.Company), s.get("country", s.Country),
			s.get("brand_name", s.BrandName), fixed2(s.PriceUSD))
	}
	return "Suppliers for " + med + ":\n" + strings.Join(lines, "\n"), nil
}

func listTelemetryUploads(_ context.Context, e *Env, a uploadsArgs) (any, error) {
	start, end := a.StartDate.V, a.EndDate.V
	var out []*Upload
	for _, u := range e.d.db.TelemetryUploads {
		if !equalStr(u.DeviceID, a.DeviceID.V) {
			continue
		}
		if pyjson.Truthy(start) {
			s, ok := start.(string)
			if !ok {
				return nil, fmt.Errorf("'<' not supported between instances of 'str' and '%s'", pyjson.TypeName(start))
			}
			if u.Date < s {
				continue
			}
		}
		if pyjson.Truthy(end) {
			s, ok := end.(string)
			if !ok {
				return nil, fmt.Errorf("'>' not supported between instances of 'str' and '%s'", pyjson.TypeName(end))
			}
			if u.Date > s {
				continue
			}
		}
		out = append(out, u)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Date < out[j].Date })
	n, err := applyLimit(a.Limit.V, len(out))
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return fmt.Sprintf("No telemetry uploads found for device %s in the specified window.", pyjson.Str(a.DeviceID.V)), nil
	}
	return pyjson.String(out[:n]), nil
}

func checkDrugInteractions(_ context.Context, e *Env, a interactionsArgs) (any, error) {
	table := &e.d.db.DrugInteractions
	canonicalName := map[string]string{}
	for outer, inner := range table.All() {
		if _, seen := canonicalName[pyjson.Lower(outer)]; !seen {
			canonicalName[pyjson.Lower(outer)] = outer
		}
		for _, k := range inner.Keys() {
			if _, seen := canonicalName[pyjson.Lower(k)]; !seen {
				canonicalName[pyjson.Lower(k)] = k
			}
		}
	}
	canonical := func(med any) (string, error) {
		s, err := strArg(med, "lower")
		if err != nil {
			return "", err
		}
		if c, ok := canonicalName[pyjson.Lower(s)]; ok {
			return c, nil
		}
		return s, nil
	}
	lookup := func(medA, medB any) (*Interaction, error) {
		keyA, err := canonical(medA)
		if err != nil {
			return nil, err
		}
		keyB, err := canonical(medB)
		if err != nil {
			return nil, err
		}
		if inner, ok := table.Get(keyA); ok {
			for cand, d := range inner.All() {
				if pyjson.Lower(cand) == pyjson.Lower(keyB) {
					return d, nil
				}
			}
		}
		if inner, ok := table.Get(keyB); ok {
			for cand, d := range inner.All() {
				if pyjson.Lower(cand) == pyjson.Lower(keyA) {
					return d, nil
				}
			}
		}
		return nil, nil
	}
	meds, err := pyjson.Iterate(a.CurrentMedications.V)
	if err != nil {
		return nil, err
	}
	_, medsDict := a.CurrentMedications.V.(*pyjson.Dict)
	var lines []string
	skip := map[string]bool{}
	emergency := false
	maxOverlap := 0
	highest, reason := "none", ""
	rank := map[string]int{"low": 1, "moderate": 2, "high": 3}
	record := func(x, y any) error {
		d, err := lookup(x, y)
		if err != nil {
			return err
		}
		if d == nil || len(d.order) == 0 {
			return nil
		}
		severity := "unknown"
		if d.has("severity") {
			severity = d.Severity
		}
		overlap := 0
		if d.has("time_overlap_hours") {
			overlap = d.TimeOverlapHours
		}
		action := "Monitor."
		if d.has("action") {
			action = d.Action
		}
		for _, s := range d.Skip {
			skip[s] = true
		}
		emergency = emergency || d.Emergency
		maxOverlap = max(maxOverlap, overlap)
		dx, _ := canonical(x)
		dy, _ := canonical(y)
		lines = append(lines, fmt.Sprintf("%s + %s: severity=%s, risk_score=%s, overlap_hours=%d. %s", dx, dy, severity, d.get("risk_score", d.RiskScore), overlap, action))
		if rank[severity] > rank[highest] {
			highest, reason = severity, dx+" + "+dy
		}
		return nil
	}
	for _, m := range meds {
		if err := record(a.PrimaryMedication.V, m); err != nil {
			return nil, err
		}
	}
	for i, x := range meds {
		if medsDict {
			return nil, errors.New("unhashable type: 'slice'")
		}
		for _, y := range meds[i+1:] {
			if err := record(x, y); err != nil {
				return nil, err
			}
		}
	}
	if len(lines) == 0 {
		return "No documented high-risk interactions found for the supplied medications. Continue monitoring as per care plan.", nil
	}
	held := "None"
	if len(skip) > 0 {
		names := make([]string, 0, len(skip))
		for s := range skip {
			names = append(names, s)
		}
		sort.Strings(names)
		held = strings.Join(names, ", ")
	}
	yes := "No"
	if emergency {
		yes = "Yes"
	}
	out := append([]string{"Drug interaction analysis:"}, lines...)
	out = append(out, "", "Medications to hold today: "+held, "Emergency escalation required: "+yes,
		fmt.Sprintf("Peak overlap risk window (hours): %d", maxOverlap))
	if reason != "" {
		out = append(out, fmt.Sprintf("Highest severity interaction: %s (%s)", reason, highest))
	}
	return strings.Join(out, "\n"), nil
}

// ---- 14-16: appointment changes ----

// checkSlot runs the date, weekday and availability checks shared by
// scheduling and rescheduling. A non-empty message means the slot is
// refused; err is an uncaught exception.
func checkSlot(p *Provider, providerID string, date, tm any) (msg string, err error) {
	ds, ok := date.(string)
	if !ok {
		name := pyjson.TypeName(date)
		if date == nil {
			name = "None"
		}
		return "", fmt.Errorf("strptime() argument 1 must be str, not %s", name)
	}
	d, perr := strptime(ds, dateFormat)
	if perr != nil {
		return fmt.Sprintf("Invalid date format: %s. Please use YYYY-MM-DD format.", ds), nil
	}
	day := strings.ToLower(d.Weekday().String())
	times, works := p.Schedule.Get(day)
	if !works {
		return fmt.Sprintf("Provider %s does not work on %s.", providerID, pyjson.Title(day)), nil
	}
	for _, t := range times {
		if equalStr(t, tm) {
			return "", nil
		}
	}
	return fmt.Sprintf("Provider %s is not available at %s on %s. Available times: %s", providerID, pyjson.Str(tm), pyjson.Title(day), joinOrNone(times)), nil
}

func scheduleAppointment(_ context.Context, e *Env, a scheduleArgs) (any, error) {
	patient, ok, err := e.patientByArg(a.PatientID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return fmt.Sprintf("Patient with ID %s not found.", pyjson.Str(a.PatientID.V)), nil
	}
	provider, ok, err := e.providerByArg(a.ProviderID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return fmt.Sprintf("Provider with ID %s not found.", pyjson.Str(a.ProviderID.V)), nil
	}
	pid, provID := a.PatientID.V.(string), a.ProviderID.V.(string)
	msg, err := checkSlot(provider, provID, a.Date.V, a.Time.V)
	if err != nil || msg != "" {
		return msg, err
	}
	date, tm := a.Date.V.(string), a.Time.V.(string)
	for _, ap := range e.appointments.All() {
		if ap.ProviderID == provID && ap.Date == date && ap.Time == tm && (ap.Status == "scheduled" || ap.Status == "pending_approval") {
			return fmt.Sprintf("Provider %s already has an appointment scheduled at %s on %s.", provID, tm, date), nil
		}
	}
	n, err := e.nextAppointmentNumber()
	if err != nil {
		return nil, err
	}
	id := fmt.Sprintf("APPT%03d", n)
	ins := &patient.Insurance.Primary
	copay := ins.CopaySpecialist
	if provider.Specialty == "Primary Care" {
		copay = ins.CopayPrimary
	}
	billInsurance := pyjson.Truthy(a.BillInsurance.Or(true))
	voucher := a.VoucherID.Or(nil)
	notes := a.PaymentNotes.Or(nil)
	ap := &Appointment{
		AppointmentID: id, PatientID: pid, ProviderID: provID, Date: date, Time: tm,
		DurationMinutes: 30, Type: a.AppointmentType.V, Status: "scheduled", Notes: "",
		MeetingLink: "https://telehealth.healthcenter.com/room/" + id,
	}
	if pyjson.Truthy(notes) {
		ap.Notes = notes
	}
	if billInsurance {
		auth := fmt.Sprintf("AUTH%06d", n)
		ap.InsuranceAuthorization, ap.CopayAmount, ap.PaymentMethod, ap.InsuranceBilled = &auth, copay, "insurance", true
	} else {
		ap.PaymentMethod = "self_pay"
		if pyjson.Truthy(voucher) {
			ap.PaymentMethod = "telehealth_voucher"
		}
		ap.VoucherID = voucher
	}
	ap.order = []string{"appointment_id", "patient_id", "provider_id", "date", "time", "duration_minutes", "type", "status", "notes",
		"insurance_authorization", "copay_amount", "meeting_link", "payment_method", "voucher_id", "insurance_billed"}
	e.appointments.Add(id, ap)

	typ, err := strArg(a.AppointmentType.V, "replace") // raised after the insert, as upstream
	if err != nil {
		return nil, err
	}
	lines := []string{
		"Appointment successfully scheduled!", "",
		"Appointment ID: " + id,
		"Patient: " + patient.Name.FirstName + " " + patient.Name.LastName,
		"Provider: Dr. " + provider.Name.LastName + " - " + provider.Specialty,
		"Date: " + date,
		"Time: " + tm,
		"Type: " + readable(typ),
	}
	if billInsurance {
		lines = append(lines, "Copay: $"+fixed2(ap.CopayAmount), "Insurance Authorization: "+*ap.InsuranceAuthorization)
	} else {
		lines = append(lines, "Insurance Billing: Skipped", "Payment Method: "+readable(ap.PaymentMethod))
		if pyjson.Truthy(voucher) {
			lines = append(lines, "Voucher Applied: "+pyjson.Str(voucher))
		}
		lines = append(lines, "Amount Due Today: $0.00")
		if pyjson.Truthy(notes) {
			lines = append(lines, "Billing Notes: "+pyjson.Str(notes))
		}
	}
	lines = append(lines, "Meeting Link: "+ap.MeetingLink, "", "Please save your appointment ID for future reference.")
	return strings.Join(lines, "\n"), nil
}

// nextAppointmentNumber is max(int(k.replace("APPT", "")) for keys starting
// with "APPT") + 1, or 1.
func (e *Env) nextAppointmentNumber() (int64, error) {
	var best *big.Int
	for k := range e.appointments.All() {
		if !strings.HasPrefix(k, "APPT") {
			continue
		}
		n, err := pyInt(strings.ReplaceAll(k, "APPT", ""))
		if err != nil {
			return 0, err
		}
		if best == nil || n.Cmp(best) > 0 {
			best = n
		}
	}
	if best == nil {
		return 1, nil
	}
	if !best.IsInt64() || best.Int64() >= 1<<62 {
		return 0, errors.New("appointment number out of range")
	}
	return best.Int64() + 1, nil
}

// pyInt is int(s) for a str.
func pyInt(s string) (*big.Int, error) {
	t := pyjson.Strip(s)
	body := strings.TrimLeft(t, "+-")
	ok := len(t)-len(body) <= 1 && body != "" && body[0] != '_' && body[len(body)-1] != '_' && !strings.Contains(body, "__")
	clean := strings.ReplaceAll(body, "_", "")
	for i := 0; ok && i < len(clean); i++ {
		ok = clean[i] >= '0' && clean[i] <= '9'
	}
	if !ok {
		return nil, fmt.Errorf("invalid literal for int() with base 10: %s", pyjson.ReprString(s))
	}
	n, _ := new(big.Int).SetString(clean, 10)
	if strings.HasPrefix(t, "-") {
		n.Neg(n)
	}
	return n, nil
}

func cancelAppointment(_ context.Context, e *Env, a appointmentArgs) (any, error) {
	key, ok, err := e.appointmentKey(a.AppointmentID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return fmt.Sprintf("Appointment with ID %s not found.", pyjson.Str(a.AppointmentID.V)), nil
	}
	cur, _ := e.appointments.Get(key)
	switch cur.Status {
	case "cancelled":
		return fmt.Sprintf("Appointment %s is already cancelled.", key), nil
	case "completed":
		return fmt.Sprintf("Cannot cancel appointment %s - appointment has already been completed.", key), nil
	}
	ap, _ := e.appointments.Mut(key)
	ap.Status = "cancelled"
	ap.CancellationReason = "patient_cancelled"
	ap.add("cancellation_reason")
	ap.CancellationDate = e.d.now().Format("2006-01-02")
	ap.add("cancellation_date")
	return fmt.Sprintf("Appointment successfully cancelled.\n\nAppointment ID: %s\nPatient: %s\nProvider: Dr. %s\nOriginal Date/Time: %s at %s\nCancellation Reason: %s\nCancellation Date: %s\n\nThe appointment slot is now available for other patients. If this was a patient cancellation, please remind them of the cancellation policy.",
		key, e.patientName(ap.PatientID), e.providerLastName(ap.ProviderID, "Unknown Provider"), ap.Date, ap.Time,
		readable(ap.CancellationReason), ap.CancellationDate), nil
}

func rescheduleAppointment(_ context.Context, e *Env, a rescheduleArgs) (any, error) {
	key, ok, err := e.appointmentKey(a.AppointmentID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return fmt.Sprintf("Appointment with ID %s not found.", pyjson.Str(a.AppointmentID.V)), nil
	}
	cur, _ := e.appointments.Get(key)
	switch cur.Status {
	case "cancelled":
		return fmt.Sprintf("Cannot reschedule appointment %s - appointment has been cancelled.", key), nil
	case "completed":
		return fmt.Sprintf("Cannot reschedule appointment %s - appointment has already been completed.", key), nil
	}
	provider, ok := e.d.db.Providers.Get(cur.ProviderID)
	if !ok {
		return nil, pyjson.KeyError(cur.ProviderID)
	}
	msg, err := checkSlot(provider, cur.ProviderID, a.NewDate.V, a.NewTime.V)
	if err != nil || msg != "" {
		return msg, err
	}
	date, tm := a.NewDate.V.(string), a.NewTime.V.(string)
	for id, ap := range e.appointments.All() {
		if id != key && ap.ProviderID == cur.ProviderID && ap.Date == date && ap.Time == tm && (ap.Status == "scheduled" || ap.Status == "pending_approval") {
			return fmt.Sprintf("Provider %s already has an appointment scheduled at %s on %s.", cur.ProviderID, tm, date), nil
		}
	}
	ap, _ := e.appointments.Mut(key)
	oldDate, oldTime := ap.Date, ap.Time
	ap.Date, ap.Time = date, tm
	if !ap.has("meeting_link") {
		return nil, pyjson.KeyError("meeting_link") // raised after the change, as upstream
	}
	return fmt.Sprintf("Appointment successfully rescheduled.\n\nAppointment ID: %s\nPatient: %s\nProvider: Dr. %s - %s\n\nPrevious Date/Time: %s at %s\nNew Date/Time: %s at %s\n\nMeeting Link: %s\n\nPlease update your calendar with the new appointment time.",
		key, e.patientName(ap.PatientID), provider.Name.LastName, provider.Specialty, oldDate, oldTime, date, tm, ap.MeetingLink), nil
}

// ---- 17-19: utilities ----

func calculateTool(_ context.Context, _ *Env, a calculateArgs) (any, error) {
	return tauv1.Calculate(a.Expression.V)
}

func think(context.Context, *Env, thinkArgs) (any, error) { return "", nil }

func transferToHumanSupport(_ context.Context, _ *Env, a transferArgs) (any, error) {
	return "Transferring you to a human support representative.\n\nReason for transfer: " + pyjson.Str(a.Reason.V) +
		"\n\nPlease hold while we connect you to a member of our support team. They will be able to assist you with your request.\n\nEstimated wait time: 2-3 minutes.\n\nThank you for your patience.", nil
}

// ---- 20-23: records and telemetry ----

func updatePrescriptionSupplier(_ context.Context, e *Env, a supplierUpdateArgs) (any, error) {
	key, ok, err := e.recordKey(a.RecordID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: medical record not found", nil
	}
	cur, _ := e.records.Get(key)
	if len(cur.Prescriptions) == 0 {
		return "Error: medical record has no prescriptions", nil
	}
	// {medication.strip().lower(): prescription}: first position, last value.
	var names []string
	index := map[string]int{}
	for i := range cur.Prescriptions {
		n := pyjson.Lower(pyjson.Strip(cur.Prescriptions[i].Medication))
		if _, seen := index[n]; !seen {
			names = append(names, n)
		}
		index[n] = i
	}
	med, err := strArg(a.Medication.V, "strip")
	if err != nil {
		return nil, err
	}
	want := pyjson.Lower(pyjson.Strip(med))
	i, found := index[want]
	if !found {
		for _, n := range names {
			if strings.HasPrefix(want, n) || strings.HasPrefix(n, want) {
				i, found = index[n], true
				break
			}
		}
	}
	if !found {
		return fmt.Sprintf("Error: medication %s not found in record %s", med, key), nil
	}
	rec, _ := e.records.Mut(key)
	rx := &rec.Prescriptions[i]
	rx.Pharmacy = pyjson.Str(a.SupplierCompany.V) + " (" + pyjson.Str(a.BrandName.V) + ")"
	rx.add("pharmacy")
	price, err := pyjson.ToFloat(a.PriceUSD.V)
	if err != nil {
		return nil, err // the pharmacy change stays, as upstream
	}
	sup := &pyjson.Dict{}
	sup.Set("company", a.SupplierCompany.V)
	sup.Set("brand_name", a.BrandName.V)
	sup.Set("price_usd", price)
	sup.Set("currency", a.Currency.Or("USD"))
	rx.Supplier = sup
	rx.add("supplier")
	return pyjson.String(rec), nil
}

func listTelemetryDevices(_ context.Context, e *Env, a devicesArgs) (any, error) {
	inv := e.d.db.TelemetryInventory
	if len(inv) == 0 {
		return "Telemetry inventory is empty.", nil
	}
	filtered := inv
	if pyjson.Truthy(a.StatusFilter.V) {
		s, err := strArg(a.StatusFilter.V, "lower")
		if err != nil {
			return nil, err
		}
		filtered = nil
		for _, d := range inv {
			if pyjson.Lower(d.Status) == pyjson.Lower(s) {
				filtered = append(filtered, d)
			}
		}
		if len(filtered) == 0 {
			return "No telemetry devices with status " + s + ".", nil
		}
	}
	sorted := append([]*Device(nil), filtered...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].DeviceID < sorted[j].DeviceID })
	n, err := applyLimit(a.Limit.V, len(sorted))
	if err != nil {
		return nil, err
	}
	lines := make([]string, n)
	for i, d := range sorted[:n] {
		lines[i] = fmt.Sprintf("%s | status=%s | last_audit=%s | notes=%s", d.DeviceID, d.get("status", d.Status), d.get("last_audit", d.LastAudit), d.get("notes", d.Notes))
	}
	return "Telemetry devices:\n" + strings.Join(lines, "\n"), nil
}

func getTelemetryUpload(_ context.Context, e *Env, a uploadArgs) (any, error) {
	for _, u := range e.d.db.TelemetryUploads {
		if equalStr(u.DeviceID, a.DeviceID.V) && equalStr(u.Date, a.Date.V) {
			return pyjson.String(u), nil
		}
	}
	return fmt.Sprintf("No telemetry upload found for device %s on %s.", pyjson.Str(a.DeviceID.V), pyjson.Str(a.Date.V)), nil
}

func updateMedicalRecordNote(_ context.Context, e *Env, a noteArgs) (any, error) {
	key, ok, err := e.recordKey(a.RecordID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return fmt.Sprintf("Error: medical record %s not found", pyjson.Str(a.RecordID.V)), nil
	}
	rec, _ := e.records.Mut(key)
	entry := &pyjson.Dict{}
	entry.Set("note", a.Note.V)
	if md := a.Metadata.Or(nil); pyjson.Truthy(md) {
		entry.Set("metadata", md)
	}
	rec.Notes = append(rec.Notes, entry)
	rec.add("notes")
	return pyjson.String(rec), nil
}
