package telehealth

// LedgerAgent's policy gate for telehealth: Go predicates over the typed
// ledger (see ledger.go for the paths), grouped per write tool. Each cites
// the heading of wiki.md it enforces ("loop prevention" names a rule, not a
// heading). Verdicts: REVISE when the call can be fixed (missing evidence →
// the read to make; a patient, appointment or record not yet authenticated;
// a slot the provider does not offer or that is taken; a prescription or
// supplier offer not on file; an argument of the wrong type), BLOCK when the
// policy leaves no valid alternative (an appointment whose status forbids the
// action, a write that was already sent).
//
//	rule                    tools                               clause                        verdict
//	----------------------  ----------------------------------  ----------------------------  -------
//	arguments               all five                            the tool's section            REVISE
//	authenticated           all five                            Patient Authentication        REVISE
//	own_patient             schedule                            Telehealth Agent Policy       REVISE
//	provider_checked        schedule                            Scheduling Appointments       REVISE
//	slot_offered            schedule                            Scheduling Appointments       REVISE
//	not_double_booked       schedule                            loop prevention               BLOCK (REVISE while in flight)
//	appointment_read        cancel, reschedule                  the tool's section            REVISE
//	own_appointment         cancel, reschedule                  Telehealth Agent Policy       REVISE
//	status                  cancel, reschedule                  the tool's section            BLOCK
//	slot_available          reschedule                          Rescheduling Appointments     REVISE
//	not_repeated            cancel, reschedule, supplier, note  loop prevention               BLOCK (REVISE while in flight)
//	record_read             supplier, note                      Medical Records and Privacy   REVISE
//	own_record              supplier, note                      Medical Records and Privacy   REVISE
//	prescription_on_record  supplier                            Telehealth Agent Policy       REVISE
//	catalog_offer           supplier                            Telehealth Agent Policy       REVISE
//
// (schedule = schedule_appointment, cancel = cancel_appointment, reschedule =
// reschedule_appointment, supplier = update_prescription_supplier, note =
// update_medical_record_note.)
//
// What the wiki says and how it is read here:
//   - "Patient Authentication": a patient must be located by email or by
//     name and date of birth (find_patient_by_*) before any action, even when
//     they give their id. The Telehealth Agent Policy preamble allows one
//     patient per conversation "unless for aged parents or kids": the gate
//     cannot tell family ties, so acting for a patient who was not
//     authenticated is a REVISE that asks to authenticate them (or deny).
//   - "Scheduling Appointments": "Check provider availability before
//     scheduling": the provider must have been looked up, and when their
//     weekly schedule (get_provider_details) is in the ledger it must offer
//     the time on that weekday. A provider listing (list_available_providers)
//     counts as the look-up: get_provider_details fails for the five
//     providers without a license number (Error: 'license_number'), whose
//     schedules no read shows; the tool itself still checks the slot.
//     Unlike Rescheduling, the section asks for no conflict check, so a new
//     booking is only checked against the slots this conversation already
//     booked (not_double_booked); the tool refuses other conflicts (gold test
//     11 books a slot the patient already holds, and the tool refuses it).
//   - "Rescheduling Appointments" / "Cancelling Appointments": only scheduled
//     or pending_approval appointments; the new slot must be available in the
//     provider's schedule (checked whenever the provider's schedule was read;
//     the section, unlike Scheduling, does not ask for that read, and the tool
//     refuses unavailable slots itself) and must not conflict with the other
//     appointments the agent has seen.
//   - "Medical Records and Privacy": only the authenticated patient's records.
//   - The preamble's "You should not make up any medical information":
//     a supplier change must name a prescription the record is seen to have
//     (list_patient_medical_records shows them; get_medical_record does not)
//     and an offer the catalog listed (company, brand and USD price as
//     list_medication_suppliers showed them; the tool's own schema says the
//     price comes "from the supplier catalog").
//   - The wiki has no rule about drug interactions, regimens or telemetry, so
//     no predicate asks for them. Appointment types are listed as examples
//     ("include"), and gold tasks use others, so they are not restricted.
//
// Observe, don't assume: a write the gate let through changes no ledger
// entry. The tools report most refusals as ordinary text, so a logged write
// that did not fail may or may not have taken effect; the loop predicates
// treat it as possibly applied (their messages say so and ask for a read),
// and the status and slot predicates correct the ledger's appointments with
// it (a cancel makes the appointment cancelled, a reschedule moves it).
// Predicates that need a record another predicate reports missing allow, so
// each problem is named once; likewise only `arguments` reports arguments
// that do not decode.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Write tool names.
const (
	toolSchedule   = "schedule_appointment"
	toolCancel     = "cancel_appointment"
	toolReschedule = "reschedule_appointment"
	toolSupplier   = "update_prescription_supplier"
	toolNote       = "update_medical_record_note"
)

// Policy headings of wiki.md cited by the predicates.
const (
	clausePreamble     = "Telehealth Agent Policy"
	clauseAuth         = "Patient Authentication"
	clauseScheduling   = "Scheduling Appointments"
	clauseRescheduling = "Rescheduling Appointments"
	clauseCancelling   = "Cancelling Appointments"
	clauseRecords      = "Medical Records and Privacy"
	// clauseLoop names a rule, not a heading: not sending again a write that
	// was already sent with the same effect.
	clauseLoop = "loop prevention"
)

// Appointment statuses.
const (
	statusScheduled = "scheduled"
	statusPending   = "pending_approval"
	statusCancelled = "cancelled"
)

func activeStatus(s string) bool { return s == statusScheduled || s == statusPending }

type paramKind uint8

const (
	kindStr paramKind = iota
	kindBool
	kindNum
	kindObj
)

// param is one argument of a write tool.
type param struct {
	name     string
	kind     paramKind
	required bool
}

// The parameters of the write tools, in signature order (read-only).
var (
	scheduleParams = []param{{"patient_id", kindStr, true}, {"provider_id", kindStr, true}, {"date", kindStr, true}, {"time", kindStr, true},
		{"appointment_type", kindStr, true}, {"bill_insurance", kindBool, false}, {"voucher_id", kindStr, false}, {"payment_notes", kindStr, false}}
	cancelParams     = []param{{"appointment_id", kindStr, true}}
	rescheduleParams = []param{{"appointment_id", kindStr, true}, {"new_date", kindStr, true}, {"new_time", kindStr, true}}
	supplierParams   = []param{{"record_id", kindStr, true}, {"medication", kindStr, true}, {"supplier_company", kindStr, true},
		{"brand_name", kindStr, true}, {"price_usd", kindNum, true}, {"currency", kindStr, false}}
	noteParams = []param{{"record_id", kindStr, true}, {"note", kindStr, true}, {"metadata", kindObj, false}}
)

// paramsOf lists a write tool's parameters in signature order (nil for any
// other tool). The slice must not be modified.
func paramsOf(tool string) []param {
	switch tool {
	case toolSchedule:
		return scheduleParams
	case toolCancel:
		return cancelParams
	case toolReschedule:
		return rescheduleParams
	case toolSupplier:
		return supplierParams
	case toolNote:
		return noteParams
	}
	return nil
}

// writeArgs are a write call's decoded arguments (the fields its tool has).
type writeArgs struct {
	PatientID       string
	ProviderID      string
	Date            string // schedule's date or reschedule's new_date
	Time            string // schedule's time or reschedule's new_time
	AppointmentType string
	BillInsurance   *bool
	VoucherID       string
	PaymentNotes    string
	AppointmentID   string
	RecordID        string
	Medication      string
	SupplierCompany string
	BrandName       string
	PriceUSD        float64
	Currency        string
	Note            string
}

// decodeWrite decodes a write call's arguments with its tool (tools.go:
// the keyword-argument checks and the tool's own argument struct of Python
// values) and reads them into writeArgs (view).
func (d *Domain) decodeWrite(tool string, raw json.RawMessage) (writeArgs, string) {
	v, err := d.Toolset().Decode(tool, raw)
	if err != nil {
		return writeArgs{}, err.Error()
	}
	return view(v)
}

// view reads a write's decoded arguments (the tool's argument struct) into
// writeArgs, once tool.CheckTypes found them of their documented types (what
// the gate cannot judge otherwise: the tools would fail on another type or
// read it differently from its documented meaning). An explicit null for an
// optional parameter is its default.
func view(decoded any) (writeArgs, string) {
	var a writeArgs
	if err := tool.CheckTypes(decoded, tool.Note("bill_insurance", "any non-empty string counts as true")); err != nil {
		return a, err.Error()
	}
	switch x := decoded.(type) {
	case *scheduleArgs:
		a.PatientID, a.ProviderID, a.Date, a.Time = x.PatientID.Text(), x.ProviderID.Text(), x.Date.Text(), x.Time.Text()
		a.AppointmentType, a.VoucherID, a.PaymentNotes = x.AppointmentType.Text(), x.VoucherID.Text(), x.PaymentNotes.Text()
		if v, ok := x.BillInsurance.V.(bool); ok {
			a.BillInsurance = &v
		}
	case *appointmentArgs:
		a.AppointmentID = x.AppointmentID.Text()
	case *rescheduleArgs:
		a.AppointmentID, a.Date, a.Time = x.AppointmentID.Text(), x.NewDate.Text(), x.NewTime.Text()
	case *supplierUpdateArgs:
		a.RecordID, a.Medication, a.SupplierCompany, a.BrandName = x.RecordID.Text(), x.Medication.Text(), x.SupplierCompany.Text(), x.BrandName.Text()
		n, _ := x.PriceUSD.V.(json.Number)
		a.PriceUSD, _ = strconv.ParseFloat(string(n), 64) // ±Inf when out of range
		a.Currency = x.Currency.Text()
	case *noteArgs:
		a.RecordID, a.Note = x.RecordID.Text(), x.Note.Text()
	default:
		return a, "not a write tool's arguments"
	}
	return a, ""
}

// proposal is one proposed write with its ledger.
type proposal struct {
	l    *ledger.Ledger
	tool string
	a    writeArgs
	auth []string // authenticated patients
}

// check is a predicate body over decoded arguments.
type check func(c *proposal) ledger.Outcome

func predicate(tool, rule, clause string, fn check) ledger.Predicate {
	return ledger.Typed("telehealth."+tool+"."+rule, tool, clause, func(l *ledger.Ledger, a *writeArgs) ledger.Outcome {
		return fn(&proposal{l: l, tool: tool, a: *a, auth: authenticatedIDs(l)})
	})
}

// DecodeArgs implements ledgeragent.Policy: a write's arguments decoded once
// into writeArgs for all its predicates.
func (d *Domain) DecodeArgs(tool string, raw json.RawMessage) (any, *ledger.Failure) {
	return ledger.DecodeTool("telehealth", tool, raw, func(tool string, raw json.RawMessage) (any, error) {
		a, problem := d.decodeWrite(tool, raw)
		if problem != "" {
			return nil, errors.New(problem)
		}
		return &a, nil
	}, argsClause)
}

// argsClause is the policy section of a write tool's arguments.
func argsClause(tool string) string {
	switch tool {
	case toolSchedule:
		return clauseScheduling
	case toolCancel:
		return clauseCancelling
	case toolReschedule:
		return clauseRescheduling
	case toolSupplier:
		return clauseRecords
	case toolNote:
		return clauseRecords
	}
	return ""
}

// GatePredicates implements ledgeragent.Policy: the predicates of the five
// write tools.
func (d *Domain) GatePredicates() []ledger.Predicate {
	return []ledger.Predicate{
		predicate(toolSchedule, "authenticated", clauseAuth, checkAuthenticated),
		predicate(toolSchedule, "own_patient", clausePreamble, checkOwnPatient),
		predicate(toolSchedule, "provider_checked", clauseScheduling, checkProviderChecked),
		predicate(toolSchedule, "slot_offered", clauseScheduling, checkSlotOffered),
		predicate(toolSchedule, "not_double_booked", clauseLoop, checkNotDoubleBooked),

		predicate(toolCancel, "authenticated", clauseAuth, checkAuthenticated),
		predicate(toolCancel, "appointment_read", clauseCancelling, checkAppointmentRead),
		predicate(toolCancel, "own_appointment", clausePreamble, checkOwnAppointment),
		predicate(toolCancel, "status", clauseCancelling, checkStatus),
		predicate(toolCancel, "not_repeated", clauseLoop, checkCancelNotRepeated),

		predicate(toolReschedule, "authenticated", clauseAuth, checkAuthenticated),
		predicate(toolReschedule, "appointment_read", clauseRescheduling, checkAppointmentRead),
		predicate(toolReschedule, "own_appointment", clausePreamble, checkOwnAppointment),
		predicate(toolReschedule, "status", clauseRescheduling, checkStatus),
		predicate(toolReschedule, "slot_available", clauseRescheduling, checkRescheduleSlot),
		predicate(toolReschedule, "not_repeated", clauseLoop, checkRescheduleNotRepeated),

		predicate(toolSupplier, "authenticated", clauseAuth, checkAuthenticated),
		predicate(toolSupplier, "record_read", clauseRecords, checkRecordRead),
		predicate(toolSupplier, "own_record", clauseRecords, checkOwnRecord),
		predicate(toolSupplier, "prescription_on_record", clausePreamble, checkPrescriptionOnRecord),
		predicate(toolSupplier, "catalog_offer", clausePreamble, checkCatalogOffer),
		predicate(toolSupplier, "not_repeated", clauseLoop, checkSupplierNotRepeated),

		predicate(toolNote, "authenticated", clauseAuth, checkAuthenticated),
		predicate(toolNote, "record_read", clauseRecords, checkRecordRead),
		predicate(toolNote, "own_record", clauseRecords, checkOwnRecord),
		predicate(toolNote, "not_repeated", clauseLoop, checkNoteNotRepeated),
	}
}

// --- helpers over the ledger and the write log ----------------------------

func q(s string) string { return pyjson.ReprString(s) }

func (c *proposal) authList() string { return pyjson.Repr(c.auth) }

// firstAuth is an authenticated patient, for hints.
func (c *proposal) firstAuth() string {
	if len(c.auth) == 0 {
		return "<patient_id>"
	}
	return c.auth[0]
}

// loggedWrite is a write of the log that may have changed the database: it
// has not failed (it is in flight, or returned a result, which for telehealth
// tools may still be a refusal in plain text).
type loggedWrite struct {
	tool string
	a    writeArgs
	done bool
}

// writeLog decodes the writes of the given tools in the ledger's write log,
// keeping those that may have taken effect and whose arguments decode.
func writeLog(l *ledger.Ledger, tools ...string) []loggedWrite {
	var out []loggedWrite
	for _, w := range l.Writes() {
		if (w.Done && !w.Succeeded) || !slices.Contains(tools, w.Tool) {
			continue
		}
		if a, ok := w.Decoded.(*writeArgs); ok {
			out = append(out, loggedWrite{tool: w.Tool, a: *a, done: w.Done})
		}
	}
	return out
}

// canonDate writes a date the tools accept as YYYY-MM-DD (the tools parse
// one-digit months and days too); other strings are kept as they are.
func canonDate(s string) string {
	if len(s) == 10 && s[4] == '-' && s[7] == '-' {
		return s
	}
	if t, err := strptime(s, dateFormat); err == nil {
		return t.Format("2006-01-02")
	}
	return s
}

// timeSlot is a provider's date and time.
type timeSlot struct{ date, time string }

func slotOf(date, tm string) timeSlot { return timeSlot{canonDate(date), tm} }

// effective is a ledger appointment's status and slot corrected by the
// logged writes: a cancel makes it cancelled, a reschedule moves it (the
// last one wins).
func effective(writes []loggedWrite, a *AppointmentView) (status string, at timeSlot) {
	status, at = a.Status, slotOf(a.Date, a.Time)
	for _, w := range writes {
		if w.a.AppointmentID != a.AppointmentID {
			continue
		}
		switch w.tool {
		case toolCancel:
			status = statusCancelled
		case toolReschedule:
			at = slotOf(w.a.Date, w.a.Time)
		}
	}
	return status, at
}

// cancelledIn reports whether a cancel of the appointment was logged.
func cancelledIn(writes []loggedWrite, id string) bool {
	return slices.ContainsFunc(writes, func(w loggedWrite) bool { return w.tool == toolCancel && w.a.AppointmentID == id })
}

// recordPatient is the patient of a record the agent read (by
// get_medical_record or in a listing).
func recordPatient(l *ledger.Ledger, id string) (string, bool) {
	if r := ledgerRecord(l, id); r != nil {
		return r.PatientID, true
	}
	if s := ledgerSummary(l, id); s != nil {
		return s.PatientID, true
	}
	return "", false
}

// checkSchedule judges a slot against a provider's weekly schedule ("" when
// it is offered).
func checkSchedule(p *ProviderView, date, tm string) string {
	d, err := strptime(date, dateFormat)
	if err != nil {
		return fmt.Sprintf("dates are written YYYY-MM-DD and %s is not a valid date.", q(date))
	}
	day := strings.ToLower(d.Weekday().String())
	times, _ := p.Schedule.Get(day)
	if len(times) == 0 {
		var days []string
		for k, ts := range p.Schedule.All() {
			if len(ts) > 0 {
				days = append(days, pyjson.Title(k))
			}
		}
		return fmt.Sprintf("%s (%s) does not work on %ss (%s is a %s); they see patients on %s.",
			p.Name, p.ProviderID, pyjson.Title(day), date, pyjson.Title(day), strings.Join(days, ", "))
	}
	if slices.Contains(times, tm) {
		return ""
	}
	return fmt.Sprintf("%s (%s) is not available at %s on %s %s. Times offered that day: %s.",
		p.Name, p.ProviderID, q(tm), pyjson.Title(day), date, strings.Join(times, ", "))
}

// --- predicates -------------------------------------------------------------

func checkAuthenticated(c *proposal) ledger.Outcome {
	if len(c.auth) > 0 {
		return ledger.OK
	}
	return ledger.NeedRevise("Per telehealth policy, authenticate the patient before any action that updates the system: locate their patient ID with find_patient_by_email or find_patient_by_name_dob (required even when the patient gives their ID).")
}

// notAuthenticated words the REVISE for acting on another patient.
func (c *proposal) notAuthenticated(what, pid string) ledger.Outcome {
	return ledger.NeedRevise(fmt.Sprintf("Per telehealth policy, you can only help the patient authenticated in this conversation (%s); %s %s, who has not been authenticated. Deny requests for other patients unless they are the authenticated patient's child or aged parent, and then locate that patient with find_patient_by_email or find_patient_by_name_dob first.",
		c.authList(), what, q(pid)))
}

func checkOwnPatient(c *proposal) ledger.Outcome {
	if len(c.auth) == 0 || slices.Contains(c.auth, c.a.PatientID) {
		return ledger.OK
	}
	return c.notAuthenticated("the appointment would be for patient", c.a.PatientID)
}

func checkProviderChecked(c *proposal) ledger.Outcome {
	if ledgerProvider(c.l, c.a.ProviderID) != nil || providerListed(c.l, c.a.ProviderID) {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per telehealth policy, check provider availability before scheduling: call get_provider_details(provider_id=%s) to read the provider's weekly schedule first (or list_available_providers if the details cannot be read).", q(c.a.ProviderID)))
}

func checkSlotOffered(c *proposal) ledger.Outcome {
	p := ledgerProvider(c.l, c.a.ProviderID)
	if p == nil {
		return ledger.OK // provider_checked
	}
	if why := checkSchedule(p, c.a.Date, c.a.Time); why != "" {
		return ledger.NeedRevise("Per telehealth policy, appointments must fit the provider's schedule: " + why)
	}
	return ledger.OK
}

func checkNotDoubleBooked(c *proposal) ledger.Outcome {
	want := slotOf(c.a.Date, c.a.Time)
	for _, w := range writeLog(c.l, toolSchedule, toolReschedule) {
		switch w.tool {
		case toolSchedule:
			if w.a.ProviderID != c.a.ProviderID || slotOf(w.a.Date, w.a.Time) != want {
				continue
			}
			if !w.done {
				return ledger.NeedRevise(fmt.Sprintf("An earlier schedule_appointment for %s on %s at %s has not returned yet; wait for its result.", c.a.ProviderID, c.a.Date, c.a.Time))
			}
			return ledger.Refuse(fmt.Sprintf("An appointment with %s on %s at %s (patient %s) was already requested in this conversation; booking the same slot again would double-book it. Read the patient's appointments (list_patient_appointments) to see the result instead of repeating the call.",
				c.a.ProviderID, c.a.Date, c.a.Time, w.a.PatientID))
		case toolReschedule:
			ap := ledgerAppointment(c.l, w.a.AppointmentID)
			if ap == nil || slotOf(w.a.Date, w.a.Time) != want || appointmentProvider(c.l, ap) != c.a.ProviderID {
				continue
			}
			return ledger.Refuse(fmt.Sprintf("Appointment %s was already moved to %s on %s at %s in this conversation; booking that slot again would double-book it.",
				ap.AppointmentID, c.a.ProviderID, c.a.Date, c.a.Time))
		}
	}
	return ledger.OK
}

// appointment is the proposed call's appointment from the ledger once some
// patient is authenticated (other predicates report the missing pieces).
func (c *proposal) appointment() *AppointmentView {
	if len(c.auth) == 0 {
		return nil
	}
	return ledgerAppointment(c.l, c.a.AppointmentID)
}

// ownedAppointment is appointment() when it is an authenticated patient's.
func (c *proposal) ownedAppointment() *AppointmentView {
	a := c.appointment()
	if a == nil || !isAuthenticated(c.l, a.PatientID) {
		return nil
	}
	return a
}

func checkAppointmentRead(c *proposal) ledger.Outcome {
	if len(c.auth) == 0 || c.appointment() != nil {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per telehealth policy, check appointment %s before changing it: call get_appointment_details(appointment_id=%s) or list_patient_appointments(patient_id=%s) first.",
		c.a.AppointmentID, q(c.a.AppointmentID), q(c.firstAuth())))
}

func checkOwnAppointment(c *proposal) ledger.Outcome {
	a := c.appointment()
	if a == nil || isAuthenticated(c.l, a.PatientID) {
		return ledger.OK
	}
	return c.notAuthenticated("appointment "+a.AppointmentID+" belongs to patient", a.PatientID)
}

func checkStatus(c *proposal) ledger.Outcome {
	a := c.ownedAppointment()
	if a == nil {
		return ledger.OK
	}
	writes := writeLog(c.l, toolCancel)
	status, _ := effective(writes, a)
	if activeStatus(status) {
		return ledger.OK
	}
	verb := "rescheduled"
	cancelled := cancelledIn(writes, a.AppointmentID)
	if c.tool == toolCancel {
		verb = "cancelled"
		if cancelled {
			return ledger.OK // not_repeated names the earlier cancel
		}
	}
	if cancelled {
		return ledger.Refuse(fmt.Sprintf("Per telehealth policy, only scheduled or pending_approval appointments can be %s; appointment %s was cancelled earlier in this conversation.", verb, a.AppointmentID))
	}
	return ledger.Refuse(fmt.Sprintf("Per telehealth policy, only appointments in status 'scheduled' or 'pending_approval' can be %s; appointment %s is %s.", verb, a.AppointmentID, q(status)))
}

func checkCancelNotRepeated(c *proposal) ledger.Outcome {
	for _, w := range writeLog(c.l, toolCancel) {
		if w.tool != toolCancel || w.a.AppointmentID != c.a.AppointmentID {
			continue
		}
		if !w.done {
			return ledger.NeedRevise(fmt.Sprintf("An earlier cancel_appointment for %s has not returned yet; wait for its result.", c.a.AppointmentID))
		}
		return ledger.Refuse(fmt.Sprintf("cancel_appointment for %s was already sent in this conversation; do not cancel it again (read the appointment to see its status).", c.a.AppointmentID))
	}
	return ledger.OK
}

func checkRescheduleSlot(c *proposal) ledger.Outcome {
	a := c.ownedAppointment()
	if a == nil {
		return ledger.OK
	}
	if _, err := strptime(c.a.Date, dateFormat); err != nil {
		return ledger.NeedRevise(fmt.Sprintf("Per telehealth policy, the new date must be available in the provider's schedule: dates are written YYYY-MM-DD and %s is not a valid date.", q(c.a.Date)))
	}
	pid := appointmentProvider(c.l, a)
	if p := ledgerProvider(c.l, pid); p != nil {
		if why := checkSchedule(p, c.a.Date, c.a.Time); why != "" {
			return ledger.NeedRevise("Per telehealth policy, the new date and time must be available in the provider's schedule: " + why)
		}
	}
	want := slotOf(c.a.Date, c.a.Time)
	writes := writeLog(c.l, toolCancel, toolReschedule, toolSchedule)
	var clash string
	c.l.Prefix(prefixAppointments, func(_ string, v any) {
		o, ok := v.(*AppointmentView)
		if clash != "" || !ok || o.AppointmentID == a.AppointmentID {
			return
		}
		status, at := effective(writes, o)
		if activeStatus(status) && at == want && sameProviderAs(c.l, a, pid, o) {
			clash = fmt.Sprintf("appointment %s (%s, %s)", o.AppointmentID, o.Provider, status)
		}
	})
	if clash == "" && pid != "" {
		for _, w := range writes {
			if w.tool == toolSchedule && w.a.ProviderID == pid && slotOf(w.a.Date, w.a.Time) == want {
				clash = "the appointment with " + pid + " requested earlier in this conversation"
			}
		}
	}
	if clash != "" {
		return ledger.NeedRevise(fmt.Sprintf("Per telehealth policy, check for conflicts before rescheduling: %s on %s at %s is already taken by %s. Choose another time.", a.Provider, c.a.Date, c.a.Time, clash))
	}
	return ledger.OK
}

func checkRescheduleNotRepeated(c *proposal) ledger.Outcome {
	want := slotOf(c.a.Date, c.a.Time)
	for _, w := range writeLog(c.l, toolReschedule) {
		if w.tool != toolReschedule || w.a.AppointmentID != c.a.AppointmentID || slotOf(w.a.Date, w.a.Time) != want {
			continue
		}
		if !w.done {
			return ledger.NeedRevise(fmt.Sprintf("An earlier reschedule_appointment of %s has not returned yet; wait for its result.", c.a.AppointmentID))
		}
		return ledger.Refuse(fmt.Sprintf("reschedule_appointment of %s to %s at %s was already sent in this conversation; do not send it again (read the appointment to see the result).", c.a.AppointmentID, c.a.Date, c.a.Time))
	}
	return ledger.OK
}

func checkRecordRead(c *proposal) ledger.Outcome {
	if len(c.auth) == 0 {
		return ledger.OK
	}
	if _, known := recordPatient(c.l, c.a.RecordID); known {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per telehealth policy, medical records may only be changed for the authenticated patient: read record %s first (get_medical_record(record_id=%s), or list_patient_medical_records(patient_id=%s)).",
		c.a.RecordID, q(c.a.RecordID), q(c.firstAuth())))
}

// ownedRecordPatient is the record's patient when the record was read and is
// an authenticated patient's ("" otherwise).
func (c *proposal) ownedRecordPatient() string {
	if len(c.auth) == 0 {
		return ""
	}
	pid, known := recordPatient(c.l, c.a.RecordID)
	if !known || !isAuthenticated(c.l, pid) {
		return ""
	}
	return pid
}

func checkOwnRecord(c *proposal) ledger.Outcome {
	if len(c.auth) == 0 {
		return ledger.OK
	}
	pid, known := recordPatient(c.l, c.a.RecordID)
	if !known || isAuthenticated(c.l, pid) {
		return ledger.OK
	}
	return c.notAuthenticated("medical record "+c.a.RecordID+" belongs to patient", pid)
}

// sameMedication compares medication names as a person would read them
// (case and surrounding spaces aside).
func sameMedication(a, b string) bool {
	return pyjson.Lower(pyjson.Strip(a)) == pyjson.Lower(pyjson.Strip(b))
}

func checkPrescriptionOnRecord(c *proposal) ledger.Outcome {
	pid := c.ownedRecordPatient()
	if pid == "" {
		return ledger.OK
	}
	s := ledgerSummary(c.l, c.a.RecordID)
	if s == nil {
		return ledger.NeedRevise(fmt.Sprintf("Per telehealth policy, do not make up medical information: the prescriptions of record %s are not in the ledger (get_medical_record does not show them); call list_patient_medical_records(patient_id=%s) first.",
			c.a.RecordID, q(pid)))
	}
	if slices.ContainsFunc(s.Medications, func(m string) bool { return sameMedication(m, c.a.Medication) }) {
		return ledger.OK
	}
	if len(s.Medications) == 0 {
		return ledger.NeedRevise(fmt.Sprintf("Per telehealth policy, do not make up medical information: record %s has no prescriptions; choose the record that prescribes %s.", c.a.RecordID, q(c.a.Medication)))
	}
	return ledger.NeedRevise(fmt.Sprintf("Per telehealth policy, do not make up medical information: record %s prescribes %s, and %s is not one of them. Use the prescription's exact name, or the record that prescribes it.",
		c.a.RecordID, pyjson.Repr(s.Medications), q(c.a.Medication)))
}

// matchesOffer reports whether the proposed supplier is the catalog offer o.
// The company may be written as the listing line shows it, with the country
// in parentheses.
func (c *proposal) matchesOffer(o *SupplierOffer) bool {
	company := pyjson.Lower(pyjson.Strip(c.a.SupplierCompany))
	return (company == pyjson.Lower(o.Company) || company == pyjson.Lower(o.Company+" ("+o.Country+")")) &&
		pyjson.Lower(pyjson.Strip(c.a.BrandName)) == pyjson.Lower(o.BrandName) &&
		math.Abs(c.a.PriceUSD-o.PriceUSD) < 0.005
}

func checkCatalogOffer(c *proposal) ledger.Outcome {
	if len(c.auth) == 0 {
		return ledger.OK
	}
	if c.a.Currency != "" && !strings.EqualFold(pyjson.Strip(c.a.Currency), "USD") {
		return ledger.NeedRevise(fmt.Sprintf("Per telehealth policy, do not make up medical information: catalog prices are in USD; currency %s does not match the catalog (leave it out or send 'USD').", q(c.a.Currency)))
	}
	offers := ledgerOffers(c.l, c.a.Medication)
	if len(offers) == 0 {
		return ledger.NeedRevise(fmt.Sprintf("Per telehealth policy, do not make up medical information: look the supplier up in the catalog first: call list_medication_suppliers(medication=%s).", q(c.a.Medication)))
	}
	for _, o := range offers {
		if c.matchesOffer(o) {
			return ledger.OK
		}
	}
	sorted := slices.Clone(offers)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].PriceUSD < sorted[j].PriceUSD })
	var seen []string
	for i, o := range sorted {
		if i == 6 {
			seen = append(seen, fmt.Sprintf("… %d more", len(sorted)-i))
			break
		}
		seen = append(seen, fmt.Sprintf("%s (%s) | brand=%s | price_usd=%s", o.Company, o.Country, o.BrandName, fixed2(o.PriceUSD)))
	}
	return ledger.NeedRevise(fmt.Sprintf("Per telehealth policy, do not make up medical information: the supplier must be an offer the catalog listed for %s, with its company, brand and USD price: %s. You sent company=%s, brand=%s, price_usd=%s.",
		c.a.Medication, strings.Join(seen, "; "), q(c.a.SupplierCompany), q(c.a.BrandName), pyjson.Float(c.a.PriceUSD)))
}

func checkSupplierNotRepeated(c *proposal) ledger.Outcome {
	for _, w := range writeLog(c.l, toolSupplier) {
		if w.tool != toolSupplier || w.a.RecordID != c.a.RecordID || !sameMedication(w.a.Medication, c.a.Medication) ||
			w.a.SupplierCompany != c.a.SupplierCompany || w.a.BrandName != c.a.BrandName || w.a.PriceUSD != c.a.PriceUSD ||
			!strings.EqualFold(orUSD(w.a.Currency), orUSD(c.a.Currency)) {
			continue
		}
		if !w.done {
			return ledger.NeedRevise(fmt.Sprintf("An earlier update_prescription_supplier of %s in %s has not returned yet; wait for its result.", c.a.Medication, c.a.RecordID))
		}
		return ledger.Refuse(fmt.Sprintf("This exact supplier update of %s in record %s was already sent in this conversation; do not repeat it.", c.a.Medication, c.a.RecordID))
	}
	return ledger.OK
}

func orUSD(s string) string {
	if s == "" {
		return "USD"
	}
	return s
}

func checkNoteNotRepeated(c *proposal) ledger.Outcome {
	for _, w := range writeLog(c.l, toolNote) {
		if w.tool != toolNote || w.a.RecordID != c.a.RecordID || w.a.Note != c.a.Note {
			continue
		}
		if !w.done {
			return ledger.NeedRevise(fmt.Sprintf("An earlier update_medical_record_note on %s has not returned yet; wait for its result.", c.a.RecordID))
		}
		return ledger.Refuse(fmt.Sprintf("This note was already appended to record %s in this conversation; appending it again would duplicate it.", c.a.RecordID))
	}
	return ledger.OK
}
