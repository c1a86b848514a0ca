package telehealth

// Gate audits for telehealth (ledgeragent.Auditor): the reads a careful agent
// makes before each write, and gold writes turned into named policy
// violations. Mutation kinds (each applies only where the call has the
// argument and the ledger or the database offers a realistic wrong value):
//
//	kind                      tools                 the violation
//	------------------------  --------------------  --------------------------------------------------------
//	unauthenticated_patient   schedule              another patient (not authenticated in the conversation)
//	unchecked_provider        schedule              a provider the agent never looked up (neither details nor
//	                                                a listing; same specialty first)
//	unoffered_slot            schedule, reschedule  a time the provider does not offer on that weekday (a
//	                                                time offered on another day, else a day off); reschedule
//	                                                only where the provider's schedule is in the ledger
//	foreign_appointment       cancel, reschedule    another patient's scheduled or pending appointment
//	closed_appointment        cancel, reschedule,   an appointment of the patient the ledger shows as
//	                          schedule              completed or cancelled; for a booking made after a
//	                                                cancel, reschedule_appointment of the cancelled
//	                                                appointment into the new slot (stale state)
//	slot_taken                reschedule            the slot of another active appointment with the same
//	                                                provider that the agent has seen
//	foreign_record            supplier, note        another patient's medical record
//	medication_not_on_record  supplier              a catalog medication the record does not prescribe
//	off_catalog_offer         supplier              the chosen supplier with another offer's price (a price
//	                                                the catalog does not list for that company and brand)
//	repeat_write              all five              the last earlier write of the conversation that
//	                                                returned without error, sent again
//
// (tool short names as in gate.go.)

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Mutation kinds.
const (
	MutUnauthenticatedPatient = "unauthenticated_patient"
	MutUncheckedProvider      = "unchecked_provider"
	MutUnofferedSlot          = "unoffered_slot"
	MutForeignAppointment     = "foreign_appointment"
	MutClosedAppointment      = "closed_appointment"
	MutSlotTaken              = "slot_taken"
	MutForeignRecord          = "foreign_record"
	MutMedicationNotOnRecord  = "medication_not_on_record"
	MutOffCatalogOffer        = "off_catalog_offer"
	MutRepeatWrite            = "repeat_write"
)

// authenticationRead locates a patient as a careful agent would: by email
// when the patient has one that leads to them (children have none or share
// a parent's), else by name and date of birth.
func (d *Domain) authenticationRead(pid string) (message.ToolCall, bool) {
	p, ok := d.db.Patients.Get(pid)
	if !ok || p == nil {
		return message.ToolCall{}, false
	}
	for id, other := range d.db.Patients.All() {
		if p.Demographics.Email != "" && other.Demographics.Email == p.Demographics.Email {
			if id == pid {
				return ledger.ToolCall("find_patient_by_email", "email", p.Demographics.Email), true
			}
			break
		}
	}
	return ledger.ToolCall("find_patient_by_name_dob", "first_name", p.Name.FirstName, "last_name", p.Name.LastName,
		"date_of_birth", p.Demographics.DateOfBirth), true
}

// writePatient is the patient a write acts for, from the database as loaded
// ("" when unknown, e.g. an appointment created during the conversation).
func (d *Domain) writePatient(tool string, a writeArgs) string {
	switch tool {
	case toolSchedule:
		return a.PatientID
	case toolCancel, toolReschedule:
		if ap, ok := d.db.Appointments.Get(a.AppointmentID); ok && ap != nil {
			return ap.PatientID
		}
	case toolSupplier, toolNote:
		if r, ok := d.db.MedicalRecords.Get(a.RecordID); ok && r != nil {
			return r.PatientID
		}
	}
	return ""
}

// EvidenceReads implements ledgeragent.Auditor: before a write, a careful
// agent authenticates the patient, then reads what the write's predicates
// judge: the providers of the specialty and the provider's schedule before
// booking; the patient's appointments
// and the appointment before cancelling or rescheduling; the patient's
// record list (the prescriptions), the record and the medication's catalog
// offers before a supplier change; the record before adding a note.
func (d *Domain) EvidenceReads(tool string, args json.RawMessage) []message.ToolCall {
	if paramsOf(tool) == nil {
		return nil
	}
	a, _ := d.decodeWrite(tool, args) // use whatever decodes
	pid := d.writePatient(tool, a)
	var calls []message.ToolCall
	if auth, ok := d.authenticationRead(pid); ok {
		calls = append(calls, auth)
	}
	switch tool {
	case toolSchedule:
		if p, ok := d.db.Providers.Get(a.ProviderID); ok && p != nil {
			calls = append(calls, ledger.ToolCall("list_available_providers", "specialty", p.Specialty))
		}
		if a.ProviderID != "" {
			calls = append(calls, ledger.ToolCall("get_provider_details", "provider_id", a.ProviderID))
		}
	case toolCancel, toolReschedule:
		if pid != "" {
			calls = append(calls, ledger.ToolCall("list_patient_appointments", "patient_id", pid))
		}
		if a.AppointmentID != "" {
			calls = append(calls, ledger.ToolCall("get_appointment_details", "appointment_id", a.AppointmentID))
		}
	case toolSupplier:
		if pid != "" {
			calls = append(calls, ledger.ToolCall("list_patient_medical_records", "patient_id", pid))
		}
		if a.RecordID != "" {
			calls = append(calls, ledger.ToolCall("get_medical_record", "record_id", a.RecordID))
		}
		if a.Medication != "" {
			calls = append(calls, ledger.ToolCall("list_medication_suppliers", "medication", a.Medication))
		}
	case toolNote:
		if a.RecordID != "" {
			calls = append(calls, ledger.ToolCall("get_medical_record", "record_id", a.RecordID))
		}
	}
	return calls
}

// offset picks a deterministic starting point for scans of the database, so
// that different calls draw different wrong values.

// mutator builds mutated copies of one call's arguments.
type mutator struct {
	tool string
	orig string
	args *pyjson.Dict
	out  []ledger.Mutation
}

// add records a mutation of kind that sets the given arguments (pairs of
// name and value); a result equal to the original call is dropped.
func (m *mutator) add(kind string, kv ...any) {
	d := &pyjson.Dict{Keys: slices.Clone(m.args.Keys), Values: slices.Clone(m.args.Values)}
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].(string)
		d.Set(k, kv[i+1])
	}
	b, err := d.MarshalJSON()
	if err != nil || string(b) == m.orig {
		return
	}
	m.out = append(m.out, ledger.Mutation{Kind: kind, Tool: m.tool, Args: b})
}

// addCall records a mutation that replaces the call by another tool's call
// with the given arguments.
func (m *mutator) addCall(kind, tool string, kv ...any) {
	call := ledger.ToolCall(tool, kv...)
	m.out = append(m.out, ledger.Mutation{Kind: kind, Tool: tool, Args: call.Arguments})
}

// Mutations implements ledgeragent.Auditor.
func (d *Domain) Mutations(tool string, args json.RawMessage, l *ledger.Ledger) []ledger.Mutation {
	a, problem := d.decodeWrite(tool, args)
	if problem != "" || paramsOf(tool) == nil {
		return nil
	}
	v, err := pyjson.Decode(args)
	dict, ok := v.(*pyjson.Dict)
	if err != nil || !ok {
		return nil
	}
	orig, err := dict.MarshalJSON()
	if err != nil {
		return nil
	}
	m := &mutator{tool: tool, orig: string(orig), args: dict}
	auth := authenticatedIDs(l)
	switch tool {
	case toolSchedule:
		d.mutateSchedule(m, a, l, auth)
	case toolCancel, toolReschedule:
		d.mutateAppointment(m, a, l, auth)
	case toolSupplier, toolNote:
		d.mutateRecord(m, a, l, auth)
	}
	repeatWrite(m, l)
	return m.out
}

func (d *Domain) mutateSchedule(m *mutator, a writeArgs, l *ledger.Ledger, auth []string) {
	ledger.Scan(d.db.Patients.Keys(), a.PatientID, func(id string) bool {
		if id == a.PatientID || slices.Contains(auth, id) {
			return false
		}
		m.add(MutUnauthenticatedPatient, "patient_id", id)
		return true
	})
	specialty := ""
	if p, ok := d.db.Providers.Get(a.ProviderID); ok && p != nil {
		specialty = p.Specialty
	}
	unchecked := func(sameSpecialty bool) bool {
		found := false
		ledger.Scan(d.db.Providers.Keys(), a.ProviderID, func(id string) bool {
			p, _ := d.db.Providers.Get(id)
			if id == a.ProviderID || ledgerProvider(l, id) != nil || providerListed(l, id) || p == nil || (sameSpecialty && p.Specialty != specialty) {
				return false
			}
			m.add(MutUncheckedProvider, "provider_id", id)
			found = true
			return true
		})
		return found
	}
	if !unchecked(true) {
		unchecked(false)
	}
	if p := ledgerProvider(l, a.ProviderID); p != nil {
		unofferedSlot(m, p, a.Date, a.Time, "date", "time")
	}
	// Acting on stale state: moving an appointment the conversation already
	// cancelled into the new slot instead of booking one.
	ws := l.Writes()
	for i := len(ws) - 1; i >= 0; i-- {
		w := ws[i]
		if w.Tool != toolCancel || !w.Done || !w.Succeeded {
			continue
		}
		prev, ok := w.Decoded.(*writeArgs)
		if !ok {
			continue
		}
		if ap := ledgerAppointment(l, prev.AppointmentID); ap != nil && ap.PatientID == a.PatientID {
			m.addCall(MutClosedAppointment, toolReschedule, "appointment_id", prev.AppointmentID, "new_date", a.Date, "new_time", a.Time)
			return
		}
	}
}

// unofferedSlot adds a slot the provider does not offer: the same day at a
// time the provider offers on another weekday only, else the same time on
// the next day the provider does not offer it.
func unofferedSlot(m *mutator, p *ProviderView, date, tm, dateArg, timeArg string) {
	t, err := strptime(date, dateFormat)
	if err != nil {
		return
	}
	today, _ := p.Schedule.Get(strings.ToLower(t.Weekday().String()))
	for _, times := range p.Schedule.All() {
		for _, other := range times {
			if !slices.Contains(today, other) && len(today) > 0 {
				m.add(MutUnofferedSlot, timeArg, other)
				return
			}
		}
	}
	for k := 1; k <= 7; k++ {
		next := t.Add(time.Duration(k) * 24 * time.Hour)
		times, _ := p.Schedule.Get(strings.ToLower(next.Weekday().String()))
		if !slices.Contains(times, tm) {
			m.add(MutUnofferedSlot, dateArg, next.Format("2006-01-02"))
			return
		}
	}
}

func (d *Domain) mutateAppointment(m *mutator, a writeArgs, l *ledger.Ledger, auth []string) {
	ledger.Scan(d.db.Appointments.Keys(), a.AppointmentID, func(id string) bool {
		ap, _ := d.db.Appointments.Get(id)
		if id == a.AppointmentID || ap == nil || slices.Contains(auth, ap.PatientID) || !activeStatus(ap.Status) {
			return false
		}
		m.add(MutForeignAppointment, "appointment_id", id)
		return true
	})
	writes := writeLog(l, toolCancel, toolReschedule)
	var closed []string
	l.Prefix(prefixAppointments, func(_ string, v any) {
		ap, ok := v.(*AppointmentView)
		if !ok || ap.AppointmentID == a.AppointmentID || !isAuthenticated(l, ap.PatientID) {
			return
		}
		if status, _ := effective(writes, ap); !activeStatus(status) {
			closed = append(closed, ap.AppointmentID)
		}
	})
	if len(closed) > 0 {
		m.add(MutClosedAppointment, "appointment_id", closed[ledger.Offset(a.AppointmentID, len(closed))])
	}
	if m.tool != toolReschedule {
		return
	}
	ap := ledgerAppointment(l, a.AppointmentID)
	if ap == nil {
		return
	}
	if p := ledgerProvider(l, appointmentProvider(l, ap)); p != nil {
		unofferedSlot(m, p, a.Date, a.Time, "new_date", "new_time")
	}
	_, own := effective(writes, ap)
	var taken []timeSlot
	l.Prefix(prefixAppointments, func(_ string, v any) {
		o, ok := v.(*AppointmentView)
		if !ok || o.AppointmentID == ap.AppointmentID || !sameProvider(l, ap, o) {
			return
		}
		if status, at := effective(writes, o); activeStatus(status) && at != own {
			taken = append(taken, timeSlot{o.Date, o.Time})
		}
	})
	if len(taken) > 0 {
		s := taken[ledger.Offset(a.AppointmentID, len(taken))]
		m.add(MutSlotTaken, "new_date", s.date, "new_time", s.time)
	}
}

func (d *Domain) mutateRecord(m *mutator, a writeArgs, l *ledger.Ledger, auth []string) {
	ledger.Scan(d.db.MedicalRecords.Keys(), a.RecordID, func(id string) bool {
		r, _ := d.db.MedicalRecords.Get(id)
		if id == a.RecordID || r == nil || slices.Contains(auth, r.PatientID) {
			return false
		}
		if m.tool == toolNote {
			m.add(MutForeignRecord, "record_id", id)
			return true
		}
		if len(r.Prescriptions) == 0 {
			return false
		}
		med := r.Prescriptions[0].Medication
		for _, rx := range r.Prescriptions {
			if sameMedication(rx.Medication, a.Medication) {
				med = rx.Medication
			}
		}
		m.add(MutForeignRecord, "record_id", id, "medication", med)
		return true
	})
	if m.tool != toolSupplier {
		return
	}
	if s := ledgerSummary(l, a.RecordID); s != nil {
		ledger.Scan(d.db.MedicationSuppliers.Keys(), a.RecordID+a.Medication, func(med string) bool {
			want := pyjson.Lower(pyjson.Strip(med))
			for _, rx := range s.Medications {
				have := pyjson.Lower(pyjson.Strip(rx))
				if strings.HasPrefix(want, have) || strings.HasPrefix(have, want) {
					return false // the tool would match it to a prescription
				}
			}
			m.add(MutMedicationNotOnRecord, "medication", med)
			return true
		})
	}
	offers := ledgerOffers(l, a.Medication)
	if len(offers) == 0 {
		return
	}
	// Another listed offer's price (rows mixed up), else a misremembered one.
	var prices []float64
	for i := range offers {
		prices = append(prices, offers[(ledger.Offset(a.RecordID+a.Medication, len(offers))+i)%len(offers)].PriceUSD)
	}
	prices = append(prices, pyjson.Round(a.PriceUSD+1, 2))
	for _, price := range prices {
		if price != a.PriceUSD && !d.catalogHas(a.Medication, a.SupplierCompany, a.BrandName, price) {
			m.add(MutOffCatalogOffer, "price_usd", price)
			return
		}
	}
}

// catalogHas reports whether the database lists the offer.
func (d *Domain) catalogHas(medication, company, brand string, price float64) bool {
	for key, list := range d.db.MedicationSuppliers.All() {
		if !sameMedication(key, medication) {
			continue
		}
		for _, s := range list {
			c := &proposal{a: writeArgs{SupplierCompany: company, BrandName: brand, PriceUSD: price}}
			if c.matchesOffer(&SupplierOffer{Company: s.Company, Country: s.Country, BrandName: s.BrandName, PriceUSD: s.PriceUSD}) {
				return true
			}
		}
	}
	return false
}

// repeatWrite adds the last earlier write that returned without error, sent
// again unchanged.
func repeatWrite(m *mutator, l *ledger.Ledger) {
	ws := l.Writes()
	for i := len(ws) - 1; i >= 0; i-- {
		w := ws[i]
		if !w.Done || !w.Succeeded {
			continue
		}
		if w.Tool == m.tool && sameJSON(w.Args, json.RawMessage(m.orig)) {
			return // the call itself repeats the write
		}
		m.out = append(m.out, ledger.Mutation{Kind: MutRepeatWrite, Tool: w.Tool, Args: w.Args})
		return
	}
}

// sameJSON compares two JSON texts as values.
func sameJSON(a, b json.RawMessage) bool {
	va, err1 := pyjson.Decode(a)
	vb, err2 := pyjson.Decode(b)
	return err1 == nil && err2 == nil && pyjson.Equal(va, vb)
}
