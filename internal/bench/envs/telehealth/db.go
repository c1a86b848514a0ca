package telehealth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// DB is the telehealth database as upstream's load_data returns it: nine
// tables in this order. It is loaded once and shared; simulations change
// appointments and medical records through copy-on-write views (see Env).
type DB struct {
	Patients            omap.Map[*Patient]                `json:"patients"`
	Providers           omap.Map[*Provider]               `json:"providers"`
	Appointments        omap.Map[*Appointment]            `json:"appointments"`
	MedicalRecords      omap.Map[*Record]                 `json:"medical_records"`
	MedicationSuppliers omap.Map[[]*Supplier]             `json:"medication_suppliers"`
	DrugInteractions    omap.Map[*omap.Map[*Interaction]] `json:"drug_interactions"`
	TelemetryInventory  []*Device                         `json:"telemetry_inventory"`
	TelemetryUploads    []*Upload                         `json:"telemetry_uploads"`
	RegimenPlans        omap.Map[*RegimenPlan]            `json:"regimen_plans"`
}

// LoadDB reads the nine data files from dir (the upstream data folder).
// telemetry_inventory.json, telemetry_uploads.json and regimen_plans.json
// may be missing, as upstream allows; the others must exist.
func LoadDB(dir string) (*DB, error) {
	files := []struct {
		name     string
		optional bool
	}{
		{"patients.json", false},
		{"providers.json", false},
		{"appointments.json", false},
		{"medical_records.json", false},
		{"medication_suppliers.json", false},
		{"drug_interactions.json", false},
		{"telemetry_inventory.json", true},
		{"telemetry_uploads.json", true},
		{"regimen_plans.json", true},
	}
	db := &DB{}
	targets := []any{&db.Patients, &db.Providers, &db.Appointments, &db.MedicalRecords,
		&db.MedicationSuppliers, &db.DrugInteractions, &db.TelemetryInventory, &db.TelemetryUploads, &db.RegimenPlans}
	for i, f := range files {
		path := filepath.Join(dir, f.name)
		data, err := os.ReadFile(path)
		if err != nil {
			if f.optional && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, fmt.Errorf("telehealth: read %w", err)
		}
		if err := json.Unmarshal(data, targets[i]); err != nil {
			return nil, fmt.Errorf("telehealth: %s: %w", path, err)
		}
	}
	if db.TelemetryInventory == nil {
		db.TelemetryInventory = []*Device{}
	}
	if db.TelemetryUploads == nil {
		db.TelemetryUploads = []*Upload{}
	}
	return db, nil
}

// ---- patients ----

// Patient is one patients.json entry.
type Patient struct {
	keys
	PatientID        string           `json:"patient_id"`
	Name             PersonName       `json:"name"`
	Demographics     Demographics     `json:"demographics"`
	Address          Address          `json:"address"`
	Insurance        Insurance        `json:"insurance"`
	MedicalHistory   MedicalHistory   `json:"medical_history"`
	EmergencyContact EmergencyContact `json:"emergency_contact"`
}

// PersonName is a patient's or provider's name (providers usually have a
// title such as "MD").
type PersonName struct {
	keys
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	Title     string `json:"title,omitempty"`
}

// Demographics are a patient's personal details.
type Demographics struct {
	keys
	DateOfBirth string `json:"date_of_birth"`
	Gender      string `json:"gender"`
	Phone       string `json:"phone"`
	Email       string `json:"email"`
}

// Address is a postal address.
type Address struct {
	keys
	Address1 string `json:"address1"`
	Address2 string `json:"address2"`
	City     string `json:"city"`
	State    string `json:"state"`
	Zip      string `json:"zip"`
	Country  string `json:"country"`
}

// Insurance holds the primary plan.
type Insurance struct {
	keys
	Primary InsurancePlan `json:"primary"`
}

// InsurancePlan is an insurance policy with its copays.
type InsurancePlan struct {
	keys
	Provider        string  `json:"provider"`
	PolicyNumber    string  `json:"policy_number"`
	GroupNumber     string  `json:"group_number"`
	CopayPrimary    float64 `json:"copay_primary"`
	CopaySpecialist float64 `json:"copay_specialist"`
}

// MedicalHistory is a patient's conditions, allergies and medications.
type MedicalHistory struct {
	keys
	Conditions  []string     `json:"conditions"`
	Allergies   []string     `json:"allergies"`
	Medications []Medication `json:"medications"`
	Surgeries   []Surgery    `json:"surgeries,omitempty"`
}

// Medication is a current medication.
type Medication struct {
	keys
	Name      string `json:"name"`
	Dosage    string `json:"dosage"`
	Frequency string `json:"frequency"`
}

// Surgery is a past procedure.
type Surgery struct {
	keys
	Procedure string `json:"procedure"`
	Date      string `json:"date"`
	Surgeon   string `json:"surgeon"`
}

// EmergencyContact is who to call.
type EmergencyContact struct {
	keys
	Name         string `json:"name"`
	Relationship string `json:"relationship"`
	Phone        string `json:"phone"`
}

// ---- providers ----

// Provider is one providers.json entry. Schedule maps weekday names
// ("monday", ...) to available times, in file order.
type Provider struct {
	keys
	ProviderID      string             `json:"provider_id"`
	Name            PersonName         `json:"name"`
	Specialty       string             `json:"specialty"`
	LicenseNumber   string             `json:"license_number,omitempty"`
	Credentials     []string           `json:"credentials"`
	Contact         Contact            `json:"contact"`
	Schedule        omap.Map[[]string] `json:"schedule"`
	ConsultationFee float64            `json:"consultation_fee"`
	Languages       []string           `json:"languages"`
	YearsExperience int                `json:"years_experience"`
}

// Contact is a phone number and an email address.
type Contact struct {
	keys
	Phone string `json:"phone"`
	Email string `json:"email"`
}

// ---- appointments ----

// Appointment is one appointments.json entry. Type, Notes and VoucherID
// hold whatever schedule_appointment was given (strings in the data).
type Appointment struct {
	keys
	AppointmentID          string              `json:"appointment_id"`
	PatientID              string              `json:"patient_id"`
	ProviderID             string              `json:"provider_id"`
	Date                   string              `json:"date"`
	Time                   string              `json:"time"`
	DurationMinutes        int                 `json:"duration_minutes"`
	Type                   any                 `json:"type"`
	Status                 string              `json:"status"`
	ChiefComplaint         string              `json:"chief_complaint,omitempty"`
	Notes                  any                 `json:"notes"`
	InsuranceAuthorization *string             `json:"insurance_authorization"`
	CopayAmount            float64             `json:"copay_amount"`
	MeetingLink            string              `json:"meeting_link,omitempty"`
	PrescriptionIssued     *IssuedPrescription `json:"prescription_issued,omitempty"`
	ReferralFrom           string              `json:"referral_from,omitempty"`
	CancellationReason     string              `json:"cancellation_reason,omitempty"`
	CancellationDate       string              `json:"cancellation_date,omitempty"`
	PaymentMethod          string              `json:"payment_method,omitempty"`
	VoucherID              any                 `json:"voucher_id,omitempty"`
	InsuranceBilled        bool                `json:"insurance_billed,omitempty"`
}

// IssuedPrescription is a prescription written during an appointment.
type IssuedPrescription struct {
	keys
	Medication string `json:"medication"`
	Dosage     string `json:"dosage"`
	Frequency  string `json:"frequency"`
	Quantity   string `json:"quantity"`
	Refills    int    `json:"refills"`
}

func cloneAppointment(a *Appointment) *Appointment {
	c := *a
	c.keys = a.keys.clone()
	return &c
}

// ---- medical records ----

// Record is one medical_records.json entry.
type Record struct {
	keys
	RecordID        string           `json:"record_id"`
	AppointmentID   *string          `json:"appointment_id"`
	PatientID       string           `json:"patient_id"`
	ProviderID      string           `json:"provider_id"`
	Date            string           `json:"date"`
	Type            string           `json:"type"`
	VitalSigns      omap.Map[string] `json:"vital_signs,omitempty"`
	Subjective      string           `json:"subjective,omitempty"`
	Objective       string           `json:"objective,omitempty"`
	Assessment      string           `json:"assessment,omitempty"`
	Plan            string           `json:"plan,omitempty"`
	Prescriptions   []Prescription   `json:"prescriptions,omitempty"`
	NextAppointment string           `json:"next_appointment,omitempty"`
	LabOrders       []string         `json:"lab_orders,omitempty"`
	Recommendations []string         `json:"recommendations,omitempty"`
	Notes           []any            `json:"notes,omitempty"`
}

// Prescription is a prescription in a medical record. Supplier is a
// supplier object or a company name.
type Prescription struct {
	keys
	Medication  string  `json:"medication"`
	Dosage      string  `json:"dosage"`
	Frequency   string  `json:"frequency"`
	Quantity    string  `json:"quantity,omitempty"`
	Duration    string  `json:"duration,omitempty"`
	Refills     int     `json:"refills"`
	Pharmacy    string  `json:"pharmacy,omitempty"`
	Supplier    any     `json:"supplier,omitempty"`
	Brand       string  `json:"brand,omitempty"`
	UnitCostUSD float64 `json:"unit_cost_usd,omitempty"`
}

func cloneRecord(r *Record) *Record {
	c := *r
	c.keys = r.keys.clone()
	c.Prescriptions = slices.Clone(r.Prescriptions)
	for i := range c.Prescriptions {
		c.Prescriptions[i].keys = r.Prescriptions[i].keys.clone()
	}
	c.Notes = slices.Clone(r.Notes)
	return &c
}

// ---- catalog, interactions, telemetry, regimens ----

// Supplier is one offer in medication_suppliers.json.
type Supplier struct {
	keys
	Company   string  `json:"company,omitempty"`
	Country   string  `json:"country,omitempty"`
	BrandName string  `json:"brand_name,omitempty"`
	PriceUSD  float64 `json:"price_usd"`
}

// Interaction describes how two drugs interact.
type Interaction struct {
	keys
	Severity         string   `json:"severity,omitempty"`
	RiskScore        int      `json:"risk_score,omitempty"`
	TimeOverlapHours int      `json:"time_overlap_hours,omitempty"`
	Action           string   `json:"action,omitempty"`
	Skip             []string `json:"skip,omitempty"`
	Emergency        bool     `json:"emergency,omitempty"`
}

// Device is a telemetry wearable in the inventory.
type Device struct {
	keys
	DeviceID   string `json:"device_id"`
	DeviceType string `json:"device_type,omitempty"`
	Status     string `json:"status,omitempty"`
	LastAudit  string `json:"last_audit,omitempty"`
	Notes      string `json:"notes,omitempty"`
}

// Upload is one day of telemetry from a device.
type Upload struct {
	keys
	DeviceID   string   `json:"device_id"`
	Date       string   `json:"date"`
	UsageHours float64  `json:"usage_hours,omitempty"`
	SyncedAt   *string  `json:"synced_at,omitempty"`
	Event      string   `json:"event,omitempty"`
	Alerts     []string `json:"alerts,omitempty"`
}

// RegimenPlan is a patient's current regimen and optimisation options.
type RegimenPlan struct {
	keys
	PatientID         string    `json:"patient_id,omitempty"`
	CurrentRegimen    Regimen   `json:"current_regimen,omitempty"`
	OptimizedRegimens []Regimen `json:"optimized_regimens,omitempty"`
}

// Regimen is a set of medication components.
type Regimen struct {
	keys
	Name         string      `json:"name,omitempty"`
	Focus        string      `json:"focus,omitempty"`
	Components   []Component `json:"components,omitempty"`
	PillBurden   PillBurden  `json:"pill_burden,omitempty"`
	Notes        []string    `json:"notes,omitempty"`
	SynergyNotes []string    `json:"synergy_notes,omitempty"`
}

// Component is one medication of a regimen.
type Component struct {
	keys
	Medication     string  `json:"medication,omitempty"`
	Dosage         string  `json:"dosage,omitempty"`
	DailyDose      int     `json:"daily_dose,omitempty"`
	MonthlyUnits   int     `json:"monthly_units,omitempty"`
	UnitType       string  `json:"unit_type,omitempty"`
	PreferredBrand string  `json:"preferred_brand,omitempty"`
	Supplier       string  `json:"supplier,omitempty"`
	UnitCostUSD    float64 `json:"unit_cost_usd"`
}

// PillBurden counts tablets and devices.
type PillBurden struct {
	keys
	TabletsPerDay   int `json:"tablets_per_day,omitempty"`
	DevicesPerMonth int `json:"devices_per_month,omitempty"`
}

// JSON plumbing: every record type reads and writes itself in key order.

func (x *Patient) UnmarshalJSON(b []byte) error            { return decodeObject(b, x) }
func (x *PersonName) UnmarshalJSON(b []byte) error         { return decodeObject(b, x) }
func (x *Demographics) UnmarshalJSON(b []byte) error       { return decodeObject(b, x) }
func (x *Address) UnmarshalJSON(b []byte) error            { return decodeObject(b, x) }
func (x *Insurance) UnmarshalJSON(b []byte) error          { return decodeObject(b, x) }
func (x *InsurancePlan) UnmarshalJSON(b []byte) error      { return decodeObject(b, x) }
func (x *MedicalHistory) UnmarshalJSON(b []byte) error     { return decodeObject(b, x) }
func (x *Medication) UnmarshalJSON(b []byte) error         { return decodeObject(b, x) }
func (x *Surgery) UnmarshalJSON(b []byte) error            { return decodeObject(b, x) }
func (x *EmergencyContact) UnmarshalJSON(b []byte) error   { return decodeObject(b, x) }
func (x *Provider) UnmarshalJSON(b []byte) error           { return decodeObject(b, x) }
func (x *Contact) UnmarshalJSON(b []byte) error            { return decodeObject(b, x) }
func (x *Appointment) UnmarshalJSON(b []byte) error        { return decodeObject(b, x) }
func (x *IssuedPrescription) UnmarshalJSON(b []byte) error { return decodeObject(b, x) }
func (x *Record) UnmarshalJSON(b []byte) error             { return decodeObject(b, x) }
func (x *Prescription) UnmarshalJSON(b []byte) error       { return decodeObject(b, x) }
func (x *Supplier) UnmarshalJSON(b []byte) error           { return decodeObject(b, x) }
func (x *Interaction) UnmarshalJSON(b []byte) error        { return decodeObject(b, x) }
func (x *Device) UnmarshalJSON(b []byte) error             { return decodeObject(b, x) }
func (x *Upload) UnmarshalJSON(b []byte) error             { return decodeObject(b, x) }
func (x *RegimenPlan) UnmarshalJSON(b []byte) error        { return decodeObject(b, x) }
func (x *Regimen) UnmarshalJSON(b []byte) error            { return decodeObject(b, x) }
func (x *Component) UnmarshalJSON(b []byte) error          { return decodeObject(b, x) }
func (x *PillBurden) UnmarshalJSON(b []byte) error         { return decodeObject(b, x) }

func (x *Patient) EncodePy(e *pyjson.Encoder)            { encodeObject(e, x) }
func (x *PersonName) EncodePy(e *pyjson.Encoder)         { encodeObject(e, x) }
func (x *Demographics) EncodePy(e *pyjson.Encoder)       { encodeObject(e, x) }
func (x *Address) EncodePy(e *pyjson.Encoder)            { encodeObject(e, x) }
func (x *Insurance) EncodePy(e *pyjson.Encoder)          { encodeObject(e, x) }
func (x *InsurancePlan) EncodePy(e *pyjson.Encoder)      { encodeObject(e, x) }
func (x *MedicalHistory) EncodePy(e *pyjson.Encoder)     { encodeObject(e, x) }
func (x *Medication) EncodePy(e *pyjson.Encoder)         { encodeObject(e, x) }
func (x *Surgery) EncodePy(e *pyjson.Encoder)            { encodeObject(e, x) }
func (x *EmergencyContact) EncodePy(e *pyjson.Encoder)   { encodeObject(e, x) }
func (x *Provider) EncodePy(e *pyjson.Encoder)           { encodeObject(e, x) }
func (x *Contact) EncodePy(e *pyjson.Encoder)            { encodeObject(e, x) }
func (x *Appointment) EncodePy(e *pyjson.Encoder)        { encodeObject(e, x) }
func (x *IssuedPrescription) EncodePy(e *pyjson.Encoder) { encodeObject(e, x) }
func (x *Record) EncodePy(e *pyjson.Encoder)             { encodeObject(e, x) }
func (x *Prescription) EncodePy(e *pyjson.Encoder)       { encodeObject(e, x) }
func (x *Supplier) EncodePy(e *pyjson.Encoder)           { encodeObject(e, x) }
func (x *Interaction) EncodePy(e *pyjson.Encoder)        { encodeObject(e, x) }
func (x *Device) EncodePy(e *pyjson.Encoder)             { encodeObject(e, x) }
func (x *Upload) EncodePy(e *pyjson.Encoder)             { encodeObject(e, x) }
func (x *RegimenPlan) EncodePy(e *pyjson.Encoder)        { encodeObject(e, x) }
func (x *Regimen) EncodePy(e *pyjson.Encoder)            { encodeObject(e, x) }
func (x *Component) EncodePy(e *pyjson.Encoder)          { encodeObject(e, x) }
func (x *PillBurden) EncodePy(e *pyjson.Encoder)         { encodeObject(e, x) }
