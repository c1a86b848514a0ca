package telehealth

import "github.com/ledgerbench/ledgerbench/internal/core/tool"

// Arguments are tool.Value types (the decoded JSON values upstream's tools
// receive, see py.go): upstream checks no types.

// Argument structs, one per tool, in upstream's parameter order. A field
// with omitempty is an optional parameter.

type emailArgs struct {
	Email tool.StrValue `json:"email"`
}

type nameDOBArgs struct {
	FirstName   tool.StrValue `json:"first_name"`
	LastName    tool.StrValue `json:"last_name"`
	DateOfBirth tool.StrValue `json:"date_of_birth"`
}

type patientArgs struct {
	PatientID tool.StrValue `json:"patient_id"`
}

type appointmentArgs struct {
	AppointmentID tool.StrValue `json:"appointment_id"`
}

type providerArgs struct {
	ProviderID tool.StrValue `json:"provider_id"`
}

type medicalRecordArgs struct {
	RecordID      tool.StrValue `json:"record_id,omitempty"`
	AppointmentID tool.StrValue `json:"appointment_id,omitempty"`
}

type regimenArgs struct {
	PatientID tool.StrValue `json:"patient_id"`
}

type patientRecordsArgs struct {
	PatientID tool.StrValue `json:"patient_id"`
	Limit     tool.IntValue `json:"limit,omitempty"`
}

type providersArgs struct {
	Specialty tool.StrValue `json:"specialty,omitempty"`
}

type patientAppointmentsArgs struct {
	PatientID    tool.StrValue `json:"patient_id"`
	StatusFilter tool.StrValue `json:"status_filter,omitempty"`
}

type suppliersArgs struct {
	Medication    tool.StrValue `json:"medication"`
	CountryFilter tool.StrValue `json:"country_filter,omitempty"`
	Limit         tool.IntValue `json:"limit,omitempty"`
}

type uploadsArgs struct {
	DeviceID  tool.StrValue `json:"device_id"`
	StartDate tool.StrValue `json:"start_date,omitempty"`
	EndDate   tool.StrValue `json:"end_date,omitempty"`
	Limit     tool.IntValue `json:"limit,omitempty"`
}

type interactionsArgs struct {
	PrimaryMedication  tool.StrValue     `json:"primary_medication"`
	CurrentMedications tool.StrListValue `json:"current_medications"`
}

type scheduleArgs struct {
	PatientID       tool.StrValue  `json:"patient_id"`
	ProviderID      tool.StrValue  `json:"provider_id"`
	Date            tool.StrValue  `json:"date"`
	Time            tool.StrValue  `json:"time"`
	AppointmentType tool.StrValue  `json:"appointment_type"`
	BillInsurance   tool.BoolValue `json:"bill_insurance,omitempty"`
	VoucherID       tool.StrValue  `json:"voucher_id,omitempty"`
	PaymentNotes    tool.StrValue  `json:"payment_notes,omitempty"`
}

type rescheduleArgs struct {
	AppointmentID tool.StrValue `json:"appointment_id"`
	NewDate       tool.StrValue `json:"new_date"`
	NewTime       tool.StrValue `json:"new_time"`
}

type calculateArgs struct {
	Expression tool.StrValue `json:"expression"`
}

type thinkArgs struct {
	Thought tool.StrValue `json:"thought"`
}

type transferArgs struct {
	Reason tool.StrValue `json:"reason"`
}

type supplierUpdateArgs struct {
	RecordID        tool.StrValue `json:"record_id"`
	Medication      tool.StrValue `json:"medication"`
	SupplierCompany tool.StrValue `json:"supplier_company"`
	BrandName       tool.StrValue `json:"brand_name"`
	PriceUSD        tool.NumValue `json:"price_usd"`
	Currency        tool.StrValue `json:"currency,omitempty"`
}

type devicesArgs struct {
	StatusFilter tool.StrValue `json:"status_filter,omitempty"`
	Limit        tool.IntValue `json:"limit,omitempty"`
}

type uploadArgs struct {
	DeviceID tool.StrValue `json:"device_id"`
	Date     tool.StrValue `json:"date"`
}

type noteArgs struct {
	RecordID tool.StrValue  `json:"record_id"`
	Note     tool.StrValue  `json:"note"`
	Metadata tool.DictValue `json:"metadata,omitempty"`
}
