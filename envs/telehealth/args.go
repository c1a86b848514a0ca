package telehealth

import (
	"unicode/utf8"

	"github.com/ledgerbench/ledgerbench/internal/pyjson"
)

// arg is one keyword argument as json.loads hands it to the upstream tool:
// any JSON value (see py.go), plus whether it was passed at all (a
// parameter's default applies only when it was not; an explicit null is
// None).
type arg struct {
	v   any
	set bool
}

// UnmarshalJSON accepts any JSON value; upstream checks no types.
func (a *arg) UnmarshalJSON(b []byte) error {
	if s, ok := plainString(b); ok { // the common case, without a decoder
		a.v, a.set = s, true
		return nil
	}
	v, err := pyjson.Decode(b)
	if err != nil {
		return err
	}
	a.v, a.set = v, true
	return nil
}

// plainString returns the value of a JSON string literal that has no escapes.
func plainString(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	body := b[1 : len(b)-1]
	for _, c := range body {
		if c == '\\' || c == '"' || c < 0x20 {
			return "", false
		}
	}
	if !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}

// or returns the argument, or def when it was not passed.
func (a arg) or(def any) any {
	if a.set {
		return a.v
	}
	return def
}

// The argument types differ only in the JSON schema type they declare.
type (
	strArgT  struct{ arg }
	intArgT  struct{ arg }
	numArgT  struct{ arg }
	boolArgT struct{ arg }
	listArgT struct{ arg } // array of strings
	dictArgT struct{ arg }
)

func schemaType(t string) *pyjson.Dict {
	d := &pyjson.Dict{}
	d.Set("type", t)
	return d
}

func (strArgT) JSONSchema() *pyjson.Dict  { return schemaType("string") }
func (intArgT) JSONSchema() *pyjson.Dict  { return schemaType("integer") }
func (numArgT) JSONSchema() *pyjson.Dict  { return schemaType("number") }
func (boolArgT) JSONSchema() *pyjson.Dict { return schemaType("boolean") }
func (dictArgT) JSONSchema() *pyjson.Dict { return schemaType("object") }
func (listArgT) JSONSchema() *pyjson.Dict {
	d := schemaType("array")
	d.Set("items", schemaType("string"))
	return d
}

// Argument structs, one per tool, in upstream's parameter order. A field
// with omitempty is an optional parameter.

type emailArgs struct {
	Email strArgT `json:"email" desc:"Email address on the patient's account."`
}

type nameDOBArgs struct {
	FirstName   strArgT `json:"first_name" desc:"Patient's first name."`
	LastName    strArgT `json:"last_name" desc:"Patient's last name."`
	DateOfBirth strArgT `json:"date_of_birth" desc:"Date of birth as YYYY-MM-DD."`
}

type patientArgs struct {
	PatientID strArgT `json:"patient_id" desc:"Patient identifier."`
}

type appointmentArgs struct {
	AppointmentID strArgT `json:"appointment_id" desc:"Appointment identifier, such as APPT001."`
}

type providerArgs struct {
	ProviderID strArgT `json:"provider_id" desc:"Provider identifier."`
}

type medicalRecordArgs struct {
	RecordID      strArgT `json:"record_id,omitempty" desc:"Medical record identifier, such as REC001."`
	AppointmentID strArgT `json:"appointment_id,omitempty" desc:"Appointment the record belongs to (used when no record_id is given)."`
}

type regimenArgs struct {
	PatientID strArgT `json:"patient_id" desc:"Patient whose regimen options to show."`
}

type patientRecordsArgs struct {
	PatientID strArgT `json:"patient_id" desc:"Patient identifier."`
	Limit     intArgT `json:"limit,omitempty" desc:"Show at most this many records, newest first."`
}

type providersArgs struct {
	Specialty strArgT `json:"specialty,omitempty" desc:"Only providers of this specialty (case-insensitive), e.g. Cardiology."`
}

type patientAppointmentsArgs struct {
	PatientID    strArgT `json:"patient_id" desc:"Patient identifier."`
	StatusFilter strArgT `json:"status_filter,omitempty" desc:"Only appointments with this status, e.g. scheduled or pending_approval."`
}

type suppliersArgs struct {
	Medication    strArgT `json:"medication" desc:"Medication name as listed in the catalog (case-insensitive)."`
	CountryFilter strArgT `json:"country_filter,omitempty" desc:"Only suppliers based in this country."`
	Limit         intArgT `json:"limit,omitempty" desc:"Show at most this many offers, cheapest first."`
}

type uploadsArgs struct {
	DeviceID  strArgT `json:"device_id" desc:"Telemetry device identifier."`
	StartDate strArgT `json:"start_date,omitempty" desc:"First day to include, YYYY-MM-DD."`
	EndDate   strArgT `json:"end_date,omitempty" desc:"Last day to include, YYYY-MM-DD."`
	Limit     intArgT `json:"limit,omitempty" desc:"Show at most this many uploads."`
}

type interactionsArgs struct {
	PrimaryMedication  strArgT  `json:"primary_medication" desc:"Medication to check, e.g. one taken by mistake."`
	CurrentMedications listArgT `json:"current_medications" desc:"Medications the patient currently takes."`
}

type scheduleArgs struct {
	PatientID       strArgT  `json:"patient_id" desc:"Patient identifier."`
	ProviderID      strArgT  `json:"provider_id" desc:"Provider identifier."`
	Date            strArgT  `json:"date" desc:"Appointment date, YYYY-MM-DD."`
	Time            strArgT  `json:"time" desc:"Start time, HH:MM on a 24-hour clock; must be one of the provider's slots."`
	AppointmentType strArgT  `json:"appointment_type" desc:"Kind of visit, e.g. routine_checkup, follow_up, consultation, specialist_consultation or sick_visit."`
	BillInsurance   boolArgT `json:"bill_insurance,omitempty" desc:"Bill the patient's insurance (default true); false means self-pay or a voucher."`
	VoucherID       strArgT  `json:"voucher_id,omitempty" desc:"Telehealth voucher to pay with when insurance is not billed."`
	PaymentNotes    strArgT  `json:"payment_notes,omitempty" desc:"Free-text billing notes kept with the appointment."`
}

type rescheduleArgs struct {
	AppointmentID strArgT `json:"appointment_id" desc:"Appointment identifier."`
	NewDate       strArgT `json:"new_date" desc:"New date, YYYY-MM-DD."`
	NewTime       strArgT `json:"new_time" desc:"New start time, HH:MM on a 24-hour clock."`
}

type calculateArgs struct {
	Expression strArgT `json:"expression" desc:"Arithmetic with numbers, + - * / and parentheses, e.g. (60 * 0.45) + 3."`
}

type thinkArgs struct {
	Thought strArgT `json:"thought" desc:"The reasoning to note down."`
}

type transferArgs struct {
	Reason strArgT `json:"reason" desc:"Short summary of why a person needs to take over."`
}

type supplierUpdateArgs struct {
	RecordID        strArgT `json:"record_id" desc:"Medical record holding the prescription."`
	Medication      strArgT `json:"medication" desc:"Prescribed medication to change (a name prefix is enough)."`
	SupplierCompany strArgT `json:"supplier_company" desc:"Company that will supply it."`
	BrandName       strArgT `json:"brand_name" desc:"Brand sold by that company."`
	PriceUSD        numArgT `json:"price_usd" desc:"Unit price in US dollars."`
	Currency        strArgT `json:"currency,omitempty" desc:"Currency code stored with the price (default USD)."`
}

type devicesArgs struct {
	StatusFilter strArgT `json:"status_filter,omitempty" desc:"Only devices with this status, e.g. available or missing_overdue."`
	Limit        intArgT `json:"limit,omitempty" desc:"Show at most this many devices."`
}

type uploadArgs struct {
	DeviceID strArgT `json:"device_id" desc:"Telemetry device identifier."`
	Date     strArgT `json:"date" desc:"Day of the upload, YYYY-MM-DD."`
}

type noteArgs struct {
	RecordID strArgT  `json:"record_id" desc:"Medical record to annotate."`
	Note     strArgT  `json:"note" desc:"Text of the note."`
	Metadata dictArgT `json:"metadata,omitempty" desc:"Optional structured details stored with the note."`
}
