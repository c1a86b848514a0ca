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
	Email strArgT `json:"email"`
}

type nameDOBArgs struct {
	FirstName   strArgT `json:"first_name"`
	LastName    strArgT `json:"last_name"`
	DateOfBirth strArgT `json:"date_of_birth"`
}

type patientArgs struct {
	PatientID strArgT `json:"patient_id"`
}

type appointmentArgs struct {
	AppointmentID strArgT `json:"appointment_id"`
}

type providerArgs struct {
	ProviderID strArgT `json:"provider_id"`
}

type medicalRecordArgs struct {
	RecordID      strArgT `json:"record_id,omitempty"`
	AppointmentID strArgT `json:"appointment_id,omitempty"`
}

type regimenArgs struct {
	PatientID strArgT `json:"patient_id"`
}

type patientRecordsArgs struct {
	PatientID strArgT `json:"patient_id"`
	Limit     intArgT `json:"limit,omitempty"`
}

type providersArgs struct {
	Specialty strArgT `json:"specialty,omitempty"`
}

type patientAppointmentsArgs struct {
	PatientID    strArgT `json:"patient_id"`
	StatusFilter strArgT `json:"status_filter,omitempty"`
}

type suppliersArgs struct {
	Medication    strArgT `json:"medication"`
	CountryFilter strArgT `json:"country_filter,omitempty"`
	Limit         intArgT `json:"limit,omitempty"`
}

type uploadsArgs struct {
	DeviceID  strArgT `json:"device_id"`
	StartDate strArgT `json:"start_date,omitempty"`
	EndDate   strArgT `json:"end_date,omitempty"`
	Limit     intArgT `json:"limit,omitempty"`
}

type interactionsArgs struct {
	PrimaryMedication  strArgT  `json:"primary_medication"`
	CurrentMedications listArgT `json:"current_medications"`
}

type scheduleArgs struct {
	PatientID       strArgT  `json:"patient_id"`
	ProviderID      strArgT  `json:"provider_id"`
	Date            strArgT  `json:"date"`
	Time            strArgT  `json:"time"`
	AppointmentType strArgT  `json:"appointment_type"`
	BillInsurance   boolArgT `json:"bill_insurance,omitempty"`
	VoucherID       strArgT  `json:"voucher_id,omitempty"`
	PaymentNotes    strArgT  `json:"payment_notes,omitempty"`
}

type rescheduleArgs struct {
	AppointmentID strArgT `json:"appointment_id"`
	NewDate       strArgT `json:"new_date"`
	NewTime       strArgT `json:"new_time"`
}

type calculateArgs struct {
	Expression strArgT `json:"expression"`
}

type thinkArgs struct {
	Thought strArgT `json:"thought"`
}

type transferArgs struct {
	Reason strArgT `json:"reason"`
}

type supplierUpdateArgs struct {
	RecordID        strArgT `json:"record_id"`
	Medication      strArgT `json:"medication"`
	SupplierCompany strArgT `json:"supplier_company"`
	BrandName       strArgT `json:"brand_name"`
	PriceUSD        numArgT `json:"price_usd"`
	Currency        strArgT `json:"currency,omitempty"`
}

type devicesArgs struct {
	StatusFilter strArgT `json:"status_filter,omitempty"`
	Limit        intArgT `json:"limit,omitempty"`
}

type uploadArgs struct {
	DeviceID strArgT `json:"device_id"`
	Date     strArgT `json:"date"`
}

type noteArgs struct {
	RecordID strArgT  `json:"record_id"`
	Note     strArgT  `json:"note"`
	Metadata dictArgT `json:"metadata,omitempty"`
}
