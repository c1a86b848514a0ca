package telehealth

// LedgerAgent's tool path map for telehealth: where each successful read
// return is stored in the ledger, as typed records of this package.
//
// Most telehealth read tools return formatted text, not JSON, so Route parses
// the text back into view records that hold exactly what the text shows
// (ids, statuses, dates, schedules, prices); the two telemetry upload tools
// return JSON and decode into the database's own Upload type.
//
//	read tool                     ledger path                                     value
//	----------------------------  ----------------------------------------------  -------------------------------------------
//	find_patient_by_email         authenticated.<patient_id>                      *Authentication (method "email")
//	find_patient_by_name_dob      authenticated.<patient_id>                      *Authentication (method "name_dob")
//	get_patient_details           patients.<patient_id>                           *PatientView (insurance copays, medications)
//	get_appointment_details       appointments.<appointment_id>                   *AppointmentView (source get_appointment_details)
//	list_patient_appointments     appointments.<appointment_id> (one per line)    *AppointmentView (source list_patient_appointments)
//	get_provider_details          providers.<provider_id>                         *ProviderView (weekly schedule by weekday)
//	list_available_providers      provider_search.<specialty, lower case | all>   *ProviderSearch (the providers listed)
//	get_medical_record            medical_records.<record_id>                     *RecordView (patient, provider, SOAP notes)
//	list_patient_medical_records  record_summaries.<record_id> (one per line)     *RecordSummary (patient, prescribed medications)
//	get_regimen_options           regimens.<patient_id>                           *RegimenView (current and optimised regimens)
//	list_medication_suppliers     suppliers.<medication, lower case>.<company>|<brand>  *SupplierOffer (one per supplier line)
//	check_drug_interactions       interactions.<drug A>+<drug B> (one per pair)   *InteractionView
//	                              interaction_checks.<primary> vs <current, …>    *InteractionCheck (hold list, escalation)
//	list_telemetry_devices        telemetry.devices.<device_id>                   *Device (the fields the listing shows)
//	list_telemetry_uploads        telemetry.uploads.<device_id>.<date>            *Upload (decoded from the JSON)
//	get_telemetry_upload          telemetry.uploads.<device_id>.<date>            *Upload
//
// Ids in paths come from the returned text where it shows them (the record's
// own id), else from the call's arguments (the patient of a listing, the
// medication of a supplier listing). "Not found" texts, which the tools
// return as ordinary results, give no entries. calculate, think and
// transfer_to_human_support are not reads. Write returns (the updated record
// that update_prescription_supplier and update_medical_record_note print) are
// never stored: after a write the agent reads the record again.
//
// An appointment read both ways lands at the same path: the last read wins,
// as it is the latest observation. A listing line does not show the
// provider's id, only "<title> <last name> (<specialty>)"; predicates that
// need the provider resolve it through the providers the agent read (see
// appointmentProvider).

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Ledger path prefixes.
const (
	prefixAuth              = "authenticated."
	prefixPatients          = "patients."
	prefixAppointments      = "appointments."
	prefixProviders         = "providers."
	prefixProviderSearch    = "provider_search."
	prefixRecords           = "medical_records."
	prefixRecordSummaries   = "record_summaries."
	prefixRegimens          = "regimens."
	prefixSuppliers         = "suppliers."
	prefixInteractions      = "interactions."
	prefixInteractionChecks = "interaction_checks."
	prefixDevices           = "telemetry.devices."
	prefixUploads           = "telemetry.uploads."
)

// Where a ledger appointment came from.
const (
	sourceDetails = "get_appointment_details"
	sourceListing = "list_patient_appointments"
)

// Authentication is a patient located by email or by name and date of birth:
// the authentication the policy asks for.
type Authentication struct {
	PatientID   string `json:"patient_id"`
	Method      string `json:"method"` // "email" or "name_dob"
	Email       string `json:"email,omitempty"`
	FirstName   string `json:"first_name,omitempty"`
	LastName    string `json:"last_name,omitempty"`
	DateOfBirth string `json:"date_of_birth,omitempty"`
}

// PatientView is what get_patient_details shows.
type PatientView struct {
	PatientID         string   `json:"patient_id"`
	Name              string   `json:"name"`
	DateOfBirth       string   `json:"date_of_birth"`
	Gender            string   `json:"gender"`
	Phone             string   `json:"phone"`
	Email             string   `json:"email"`
	Address           []string `json:"address"`
	InsuranceProvider string   `json:"insurance_provider"`
	PolicyNumber      string   `json:"policy_number"`
	CopayPrimary      float64  `json:"copay_primary"`
	CopaySpecialist   float64  `json:"copay_specialist"`
	Conditions        []string `json:"conditions"`
	Allergies         []string `json:"allergies"`
	Medications       []string `json:"medications"`
	EmergencyContact  string   `json:"emergency_contact"`
	EmergencyPhone    string   `json:"emergency_phone"`
}

// AppointmentView is an appointment as get_appointment_details or a line of
// list_patient_appointments shows it. Status and Type are the database
// values (the text's title case turned back into snake case). Provider is
// the name as printed: "Dr. <last name>" in the details, "<title> <last
// name>" in a listing, which does not show ProviderID.
type AppointmentView struct {
	AppointmentID          string   `json:"appointment_id"`
	PatientID              string   `json:"patient_id"`
	Patient                string   `json:"patient,omitempty"`
	ProviderID             string   `json:"provider_id,omitempty"`
	Provider               string   `json:"provider"`
	Specialty              string   `json:"specialty"`
	Date                   string   `json:"date"`
	Time                   string   `json:"time"`
	DurationMinutes        *int     `json:"duration_minutes,omitempty"`
	Type                   string   `json:"type"`
	Status                 string   `json:"status"`
	ChiefComplaint         string   `json:"chief_complaint,omitempty"`
	Notes                  string   `json:"notes,omitempty"`
	InsuranceAuthorization string   `json:"insurance_authorization,omitempty"`
	CopayAmount            *float64 `json:"copay_amount,omitempty"`
	MeetingLink            string   `json:"meeting_link,omitempty"`
	PrescriptionIssued     string   `json:"prescription_issued,omitempty"`
	ReferralFrom           string   `json:"referral_from,omitempty"`
	CancellationReason     string   `json:"cancellation_reason,omitempty"`
	CancellationDate       string   `json:"cancellation_date,omitempty"`
	Source                 string   `json:"source"`
}

// ProviderView is what get_provider_details shows. Schedule maps lower-case
// weekday names to the times offered, in the text's order; a day shown as
// "Not available" has no times.
type ProviderView struct {
	ProviderID      string             `json:"provider_id"`
	Name            string             `json:"name"` // "<title> <first> <last>"
	Specialty       string             `json:"specialty"`
	LicenseNumber   string             `json:"license_number"`
	Credentials     []string           `json:"credentials"`
	YearsExperience int                `json:"years_experience"`
	Phone           string             `json:"phone"`
	Email           string             `json:"email"`
	Languages       []string           `json:"languages"`
	ConsultationFee float64            `json:"consultation_fee"`
	Schedule        omap.Map[[]string] `json:"schedule"`
}

// ProviderSearch is one list_available_providers result.
type ProviderSearch struct {
	Specialty string            `json:"specialty"` // as asked, "" for all
	Providers []ProviderSummary `json:"providers"`
}

// ProviderSummary is one provider of a search.
type ProviderSummary struct {
	ProviderID      string   `json:"provider_id"`
	Name            string   `json:"name"`
	Specialty       string   `json:"specialty"`
	YearsExperience int      `json:"years_experience"`
	Languages       []string `json:"languages"`
	ConsultationFee float64  `json:"consultation_fee"`
	Phone           string   `json:"phone"`
}

// RecordView is what get_medical_record shows (it does not show
// prescriptions; see RecordSummary).
type RecordView struct {
	RecordID        string   `json:"record_id"`
	PatientID       string   `json:"patient_id"`
	Patient         string   `json:"patient"`
	ProviderID      string   `json:"provider_id"`
	Provider        string   `json:"provider"`
	AppointmentID   string   `json:"appointment_id,omitempty"`
	AppointmentDate string   `json:"appointment_date,omitempty"`
	AppointmentTime string   `json:"appointment_time,omitempty"`
	Date            string   `json:"date"`
	Type            string   `json:"type"`
	Subjective      string   `json:"subjective,omitempty"`
	Objective       string   `json:"objective,omitempty"`
	Assessment      string   `json:"assessment,omitempty"`
	Plan            string   `json:"plan,omitempty"`
	Recommendations []string `json:"recommendations,omitempty"`
}

// RecordSummary is one line of list_patient_medical_records: the only read
// that shows which medications a record prescribes.
type RecordSummary struct {
	RecordID      string   `json:"record_id"`
	PatientID     string   `json:"patient_id"`
	Date          string   `json:"date"`
	AppointmentID string   `json:"appointment_id,omitempty"`
	Medications   []string `json:"medications"`
}

// RegimenView is what get_regimen_options shows.
type RegimenView struct {
	PatientID  string          `json:"patient_id"`
	Current    []ComponentView `json:"current_components"`
	PillBurden string          `json:"current_pill_burden,omitempty"`
	Notes      []string        `json:"current_notes,omitempty"`
	Options    []RegimenOption `json:"optimized_options"`
}

// RegimenOption is one optimised regimen.
type RegimenOption struct {
	Name         string          `json:"name"`
	Focus        string          `json:"focus"`
	Components   []ComponentView `json:"components"`
	PillBurden   string          `json:"pill_burden,omitempty"`
	SynergyNotes []string        `json:"synergy_notes,omitempty"`
}

// ComponentView is one regimen component line.
type ComponentView struct {
	Medication   string  `json:"medication"`
	Dosage       string  `json:"dosage"`
	DailyDose    string  `json:"daily_dose"`
	MonthlyUnits string  `json:"monthly_units"`
	UnitType     string  `json:"unit_type"`
	Brand        string  `json:"brand"`
	Supplier     string  `json:"supplier"`
	UnitCostUSD  float64 `json:"unit_cost_usd"`
}

// SupplierOffer is one supplier line of list_medication_suppliers.
type SupplierOffer struct {
	Medication string  `json:"medication"` // as asked
	Company    string  `json:"company"`
	Country    string  `json:"country"`
	BrandName  string  `json:"brand_name"`
	PriceUSD   float64 `json:"price_usd"`
}

// InteractionView is one interacting pair of a drug interaction check.
type InteractionView struct {
	Pair         string `json:"pair"` // "A + B"
	Severity     string `json:"severity"`
	RiskScore    string `json:"risk_score"`
	OverlapHours int    `json:"overlap_hours"`
	Action       string `json:"action"`
}

// InteractionCheck is the summary of one check_drug_interactions call.
type InteractionCheck struct {
	Primary          string   `json:"primary_medication"`
	Current          []string `json:"current_medications"`
	Pairs            []string `json:"pairs"`
	Hold             []string `json:"hold_today"`
	Emergency        bool     `json:"emergency_escalation"`
	PeakOverlapHours int      `json:"peak_overlap_hours"`
	Highest          string   `json:"highest_severity,omitempty"`
}

// Route implements ledger.Router: the static tool path map above. Outputs
// that do not parse as the tool's text give no entries.
func (d *Domain) Route(tool string, args json.RawMessage, output string) []ledger.Entry {
	switch tool {
	case "find_patient_by_email", "find_patient_by_name_dob":
		return routeAuthentication(tool, args, output)
	case "get_patient_details":
		if p := parsePatient(output); p != nil {
			return []ledger.Entry{{Path: prefixPatients + p.PatientID, Value: p}}
		}
	case "get_appointment_details":
		if a := parseAppointmentDetails(output); a != nil {
			return []ledger.Entry{{Path: prefixAppointments + a.AppointmentID, Value: a}}
		}
	case "list_patient_appointments":
		return routeAppointmentList(output)
	case "get_provider_details":
		if p := parseProvider(output); p != nil {
			return []ledger.Entry{{Path: prefixProviders + p.ProviderID, Value: p}}
		}
	case "list_available_providers":
		return routeProviderSearch(args, output)
	case "get_medical_record":
		if r := parseRecord(output); r != nil {
			return []ledger.Entry{{Path: prefixRecords + r.RecordID, Value: r}}
		}
	case "list_patient_medical_records":
		return routeRecordList(args, output)
	case "get_regimen_options":
		return routeRegimen(args, output)
	case "list_medication_suppliers":
		return routeSuppliers(output)
	case "check_drug_interactions":
		return routeInteractions(args, output)
	case "list_telemetry_devices":
		return routeDevices(output)
	case "list_telemetry_uploads":
		var ups []*Upload
		if err := json.Unmarshal([]byte(output), &ups); err != nil {
			return nil
		}
		var out []ledger.Entry
		for _, u := range ups {
			if u != nil && u.DeviceID != "" {
				out = append(out, ledger.Entry{Path: uploadPath(u), Value: u})
			}
		}
		return out
	case "get_telemetry_upload":
		var u *Upload
		if err := json.Unmarshal([]byte(output), &u); err != nil || u == nil || u.DeviceID == "" {
			return nil
		}
		return []ledger.Entry{{Path: uploadPath(u), Value: u}}
	}
	return nil
}

func uploadPath(u *Upload) string { return prefixUploads + u.DeviceID + "." + u.Date }

// stringArgs reads the string-valued arguments of a call (others are left
// out).
func stringArgs(raw json.RawMessage) map[string]string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// isID reports whether s looks like a bare identifier (what the find tools
// return on success).
func isID(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t\r\n{}[]\"':,")
}

func routeAuthentication(tool string, args json.RawMessage, output string) []ledger.Entry {
	id := strings.TrimSpace(output)
	if !isID(id) {
		return nil
	}
	a := stringArgs(args)
	auth := &Authentication{PatientID: id, Method: "email", Email: a["email"]}
	if tool == "find_patient_by_name_dob" {
		auth = &Authentication{PatientID: id, Method: "name_dob", FirstName: a["first_name"], LastName: a["last_name"], DateOfBirth: a["date_of_birth"]}
	}
	return []ledger.Entry{{Path: prefixAuth + id, Value: auth}}
}

// ---- text parsing helpers ----

// idSuffix splits "<text> (ID: <id>)" into text and id.
func idSuffix(s string) (text, id string, ok bool) {
	i := strings.LastIndex(s, " (ID: ")
	if i < 0 || !strings.HasSuffix(s, ")") {
		return "", "", false
	}
	return s[:i], s[i+len(" (ID: ") : len(s)-1], true
}

// splitList splits a ", "-joined list; "None" (and "") is the empty list.
func splitList(s, none string) []string {
	if s == "" || s == none {
		return []string{}
	}
	return strings.Split(s, ", ")
}

// money parses "$12.50" (or "12.50").
func money(s string) float64 {
	f, _ := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(s), "$"), 64)
	return f
}

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}

// snake turns readable() text back into a snake_case value ("Pending
// Approval" → "pending_approval").
func snake(s string) string { return strings.ReplaceAll(strings.ToLower(s), " ", "_") }

// ---- patients ----

func parsePatient(out string) *PatientView {
	lines := strings.Split(out, "\n")
	head, ok := strings.CutPrefix(lines[0], "Patient Details for ")
	if !ok {
		return nil
	}
	name, id, ok := idSuffix(head)
	if !ok || id == "" {
		return nil
	}
	p := &PatientView{PatientID: id, Name: name, Address: []string{}, Conditions: []string{}, Allergies: []string{}, Medications: []string{}}
	section := ""
	for _, line := range lines[1:] {
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "- ") {
			section = line
			continue
		}
		v := line[2:]
		field := func(prefix string) (string, bool) { return strings.CutPrefix(v, prefix) }
		switch section {
		case "Demographics:":
			if s, ok := field("Date of Birth: "); ok {
				p.DateOfBirth = s
			} else if s, ok := field("Gender: "); ok {
				p.Gender = s
			} else if s, ok := field("Phone: "); ok {
				p.Phone = s
			} else if s, ok := field("Email: "); ok {
				p.Email = s
			}
		case "Address:":
			p.Address = append(p.Address, v)
		case "Insurance:":
			if s, ok := field("Provider: "); ok {
				p.InsuranceProvider = s
			} else if s, ok := field("Policy Number: "); ok {
				p.PolicyNumber = s
			} else if s, ok := field("Primary Care Copay: "); ok {
				p.CopayPrimary = money(s)
			} else if s, ok := field("Specialist Copay: "); ok {
				p.CopaySpecialist = money(s)
			}
		case "Medical History:":
			if s, ok := field("Conditions: "); ok {
				p.Conditions = splitList(s, "None")
			} else if s, ok := field("Allergies: "); ok {
				p.Allergies = splitList(s, "None")
			} else if s, ok := field("Current Medications: "); ok {
				p.Medications = splitList(s, "None")
			}
		case "Emergency Contact:":
			if s, ok := field("Phone: "); ok {
				p.EmergencyPhone = s
			} else {
				p.EmergencyContact = v
			}
		}
	}
	return p
}

// ---- appointments ----

func parseAppointmentDetails(out string) *AppointmentView {
	lines := strings.Split(out, "\n")
	head, ok := strings.CutPrefix(lines[0], "Appointment Details (ID: ")
	if !ok || !strings.HasSuffix(head, ")") {
		return nil
	}
	a := &AppointmentView{AppointmentID: strings.TrimSuffix(head, ")"), Source: sourceDetails}
	if a.AppointmentID == "" {
		return nil
	}
	section := ""
	var last *string // the field a continuation line belongs to
	var rx []string
	for _, line := range lines[1:] {
		if line == "" {
			continue
		}
		switch line {
		case "Appointment Information:", "Clinical Information:", "Billing Information:", "Meeting Information:",
			"Prescription Issued:", "Cancellation Details:":
			section, last = line, nil
			continue
		}
		if s, ok := strings.CutPrefix(line, "Patient: "); ok && section == "" {
			a.Patient, a.PatientID, _ = idSuffix(s)
			continue
		}
		if s, ok := strings.CutPrefix(line, "Provider: "); ok && section == "" {
			text, id, _ := idSuffix(s)
			a.ProviderID = id
			a.Provider, a.Specialty, _ = strings.Cut(text, " - ")
			continue
		}
		if s, ok := strings.CutPrefix(line, "Referral from: "); ok {
			a.ReferralFrom, last = s, &a.ReferralFrom
			continue
		}
		v, item := strings.CutPrefix(line, "- ")
		if !item {
			if last != nil {
				*last += "\n" + line
			}
			continue
		}
		key, val, _ := strings.Cut(v, ": ")
		switch section {
		case "Appointment Information:":
			switch key {
			case "Date":
				a.Date = val
			case "Time":
				a.Time = val
			case "Duration":
				n := atoi(strings.TrimSuffix(val, " minutes"))
				a.DurationMinutes = &n
			case "Type":
				a.Type = snake(val)
			case "Status":
				a.Status = snake(val)
			}
			last = nil
		case "Clinical Information:":
			switch key {
			case "Chief Complaint":
				a.ChiefComplaint, last = val, &a.ChiefComplaint
			case "Notes":
				a.Notes, last = val, &a.Notes
			default:
				if last != nil {
					*last += "\n" + line
				}
			}
		case "Billing Information:":
			switch key {
			case "Insurance Authorization":
				if val != "None" {
					a.InsuranceAuthorization = val
				}
			case "Copay Amount":
				c := money(val)
				a.CopayAmount = &c
			}
			last = nil
		case "Meeting Information:":
			if key == "Meeting Link" {
				a.MeetingLink = val
			}
		case "Prescription Issued:":
			rx = append(rx, v)
		case "Cancellation Details:":
			switch key {
			case "Reason":
				a.CancellationReason = snake(val)
			case "Date":
				a.CancellationDate = val
			}
		}
	}
	a.PrescriptionIssued = strings.Join(rx, "; ")
	if a.PatientID == "" || a.Status == "" {
		return nil
	}
	return a
}

// routeAppointmentList parses
//
//	Appointments for <first> <last> (ID: <patient>)[ with status <filter>]
//	- <id>: <date> at <time> with <title> <last> (<specialty>) [<Status>, Type: <Type>]
func routeAppointmentList(out string) []ledger.Entry {
	lines := strings.Split(out, "\n")
	head, ok := strings.CutPrefix(lines[0], "Appointments for ")
	if !ok {
		return nil
	}
	if i := strings.LastIndex(head, ") with status "); i >= 0 {
		head = head[:i+1]
	}
	_, pid, ok := idSuffix(head)
	if !ok || pid == "" {
		return nil
	}
	var entries []ledger.Entry
	for _, line := range lines[1:] {
		a := parseAppointmentLine(line)
		if a == nil {
			continue
		}
		a.PatientID = pid
		entries = append(entries, ledger.Entry{Path: prefixAppointments + a.AppointmentID, Value: a})
	}
	return entries
}

func parseAppointmentLine(line string) *AppointmentView {
	rest, ok := strings.CutPrefix(line, "- ")
	if !ok {
		return nil
	}
	id, rest, ok := strings.Cut(rest, ": ")
	if !ok || id == "" {
		return nil
	}
	date, rest, ok := strings.Cut(rest, " at ")
	if !ok {
		return nil
	}
	tm, rest, ok := strings.Cut(rest, " with ")
	if !ok {
		return nil
	}
	i := strings.LastIndex(rest, " [")
	if i < 0 || !strings.HasSuffix(rest, "]") {
		return nil
	}
	who, tags := rest[:i], rest[i+2:len(rest)-1]
	status, typ, ok := strings.Cut(tags, ", Type: ")
	if !ok {
		return nil
	}
	j := strings.LastIndex(who, " (")
	if j < 0 || !strings.HasSuffix(who, ")") {
		return nil
	}
	return &AppointmentView{
		AppointmentID: id, Provider: who[:j], Specialty: who[j+2 : len(who)-1],
		Date: date, Time: tm, Type: snake(typ), Status: snake(status), Source: sourceListing,
	}
}

// ---- providers ----

func parseProvider(out string) *ProviderView {
	lines := strings.Split(out, "\n")
	head, ok := strings.CutPrefix(lines[0], "Provider Details (ID: ")
	if !ok || !strings.HasSuffix(head, ")") {
		return nil
	}
	p := &ProviderView{ProviderID: strings.TrimSuffix(head, ")"), Credentials: []string{}, Languages: []string{}}
	if p.ProviderID == "" {
		return nil
	}
	schedule := false
	for _, line := range lines[1:] {
		if line == "" {
			continue
		}
		if line == "Weekly Schedule:" {
			schedule = true
			continue
		}
		if schedule {
			v, ok := strings.CutPrefix(line, "- ")
			if !ok {
				continue
			}
			day, times, ok := strings.Cut(v, ": ")
			if !ok {
				continue
			}
			list := []string{}
			if times != "Not available" {
				list = splitList(times, "")
			}
			p.Schedule.Set(strings.ToLower(day), list)
			continue
		}
		key, val, _ := strings.Cut(strings.TrimPrefix(line, "- "), ": ")
		switch key {
		case "Name":
			p.Name = val
		case "Specialty":
			p.Specialty = val
		case "License Number":
			p.LicenseNumber = val
		case "Credentials":
			p.Credentials = splitList(val, "")
		case "Years of Experience":
			p.YearsExperience = atoi(val)
		case "Phone":
			p.Phone = val
		case "Email":
			p.Email = val
		case "Languages":
			p.Languages = splitList(val, "")
		case "Consultation Fee":
			p.ConsultationFee = money(val)
		}
	}
	if !schedule {
		return nil
	}
	return p
}

func routeProviderSearch(args json.RawMessage, out string) []ledger.Entry {
	head, body, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(head, "Available Providers") || !strings.HasSuffix(head, ":") {
		return nil
	}
	s := &ProviderSearch{Specialty: stringArgs(args)["specialty"], Providers: []ProviderSummary{}}
	var cur *ProviderSummary
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, "• "); ok {
			name, id, ok := idSuffix(v)
			if !ok {
				cur = nil
				continue
			}
			s.Providers = append(s.Providers, ProviderSummary{ProviderID: id, Name: name, Languages: []string{}})
			cur = &s.Providers[len(s.Providers)-1]
			continue
		}
		if cur == nil {
			continue
		}
		key, val, _ := strings.Cut(strings.TrimSpace(line), ": ")
		switch key {
		case "Specialty":
			cur.Specialty = val
		case "Experience":
			cur.YearsExperience = atoi(strings.TrimSuffix(val, " years"))
		case "Languages":
			cur.Languages = splitList(val, "")
		case "Consultation Fee":
			cur.ConsultationFee = money(val)
		case "Phone":
			cur.Phone = val
		}
	}
	if len(s.Providers) == 0 {
		return nil
	}
	key := strings.ToLower(s.Specialty)
	if key == "" {
		key = "all"
	}
	return []ledger.Entry{{Path: prefixProviderSearch + key, Value: s}}
}

// ---- medical records ----

func parseRecord(out string) *RecordView {
	lines := strings.Split(out, "\n")
	head, ok := strings.CutPrefix(lines[0], "Medical Record (ID: ")
	if !ok || !strings.HasSuffix(head, ")") {
		return nil
	}
	r := &RecordView{RecordID: strings.TrimSuffix(head, ")")}
	if r.RecordID == "" {
		return nil
	}
	var last *string
	recs := false
	for _, line := range lines[1:] {
		if recs {
			if v, ok := strings.CutPrefix(line, "- "); ok {
				r.Recommendations = append(r.Recommendations, v)
				continue
			}
		}
		key, val, _ := strings.Cut(line, ": ")
		switch {
		case key == "Patient" && r.PatientID == "":
			r.Patient, r.PatientID, _ = idSuffix(val)
			last = nil
		case key == "Provider" && r.ProviderID == "":
			r.Provider, r.ProviderID, _ = idSuffix(val)
			last = nil
		case key == "Related Appointment":
			id, when, _ := strings.Cut(val, " on ")
			r.AppointmentID = id
			r.AppointmentDate, r.AppointmentTime, _ = strings.Cut(when, " at ")
			last = nil
		case key == "Date" && r.Date == "":
			r.Date, last = val, nil
		case key == "Type" && r.Type == "":
			r.Type, last = val, nil
		case key == "Subjective":
			r.Subjective, last = val, &r.Subjective
		case key == "Objective":
			r.Objective, last = val, &r.Objective
		case key == "Assessment":
			r.Assessment, last = val, &r.Assessment
		case key == "Plan":
			r.Plan, last = val, &r.Plan
		case line == "Recommendations:":
			recs, last = true, nil
		default:
			if last != nil {
				*last += "\n" + line
			}
		}
	}
	if r.PatientID == "" {
		return nil
	}
	return r
}

// routeRecordList parses
//
//	Medical records (newest first):
//	record_id=<id> | date=<date> | appointment_id=<id|None> | medications=<a, b|None recorded>
//
// The listing shows the records of the patient asked for.
func routeRecordList(args json.RawMessage, out string) []ledger.Entry {
	head, body, _ := strings.Cut(out, "\n")
	pid := stringArgs(args)["patient_id"]
	if head != "Medical records (newest first):" || pid == "" {
		return nil
	}
	var entries []ledger.Entry
	for _, line := range strings.Split(body, "\n") {
		rest, ok := strings.CutPrefix(line, "record_id=")
		if !ok {
			continue
		}
		id, rest, ok1 := strings.Cut(rest, " | date=")
		date, rest, ok2 := strings.Cut(rest, " | appointment_id=")
		appt, meds, ok3 := strings.Cut(rest, " | medications=")
		if !ok1 || !ok2 || !ok3 || id == "" {
			continue
		}
		s := &RecordSummary{RecordID: id, PatientID: pid, Date: date, Medications: splitList(meds, "None recorded")}
		if appt != "None" {
			s.AppointmentID = appt
		}
		entries = append(entries, ledger.Entry{Path: prefixRecordSummaries + id, Value: s})
	}
	return entries
}

// ---- regimens ----

func parseComponent(line string) ComponentView {
	parts := strings.Split(line, " | ")
	c := ComponentView{Medication: parts[0]}
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(p, "=")
		switch k {
		case "dosage":
			c.Dosage = v
		case "daily_dose":
			c.DailyDose = v
		case "monthly_units":
			c.MonthlyUnits = v
		case "unit_type":
			c.UnitType = v
		case "brand":
			c.Brand = v
		case "supplier":
			c.Supplier = v
		case "unit_cost_usd":
			c.UnitCostUSD = money(v)
		}
	}
	return c
}

func routeRegimen(args json.RawMessage, out string) []ledger.Entry {
	pid := stringArgs(args)["patient_id"]
	lines := strings.Split(out, "\n")
	if pid == "" || lines[0] != "Current regimen components:" {
		return nil
	}
	r := &RegimenView{PatientID: pid, Current: []ComponentView{}, Options: []RegimenOption{}}
	var opt *RegimenOption
	for _, line := range lines[1:] {
		switch {
		case opt == nil && strings.HasPrefix(line, "- "):
			r.Current = append(r.Current, parseComponent(line[2:]))
		case strings.HasPrefix(line, "Current pill burden: "):
			r.PillBurden = strings.TrimPrefix(line, "Current pill burden: ")
		case opt == nil && strings.HasPrefix(line, "  * "):
			r.Notes = append(r.Notes, line[4:])
		case strings.HasPrefix(line, "Option "):
			_, name, _ := strings.Cut(line, ": ")
			r.Options = append(r.Options, RegimenOption{Name: name, Components: []ComponentView{}})
			opt = &r.Options[len(r.Options)-1]
		case opt != nil && strings.HasPrefix(line, "  Focus: "):
			opt.Focus = strings.TrimPrefix(line, "  Focus: ")
		case opt != nil && strings.HasPrefix(line, "  - "):
			opt.Components = append(opt.Components, parseComponent(line[4:]))
		case opt != nil && strings.HasPrefix(line, "  Pill burden: "):
			opt.PillBurden = strings.TrimPrefix(line, "  Pill burden: ")
		case opt != nil && strings.HasPrefix(line, "    - "):
			opt.SynergyNotes = append(opt.SynergyNotes, line[6:])
		}
	}
	return []ledger.Entry{{Path: prefixRegimens + pid, Value: r}}
}

// ---- suppliers ----

// supplierPrefix is the ledger prefix of a medication's offers.
func supplierPrefix(medication string) string {
	return prefixSuppliers + pyjson.Lower(pyjson.Strip(medication)) + "."
}

// routeSuppliers parses
//
//	Suppliers for <medication>:
//	<company> (<country>) | brand=<brand> | price_usd=<price>
func routeSuppliers(out string) []ledger.Entry {
	head, body, _ := strings.Cut(out, "\n")
	med, ok := strings.CutPrefix(head, "Suppliers for ")
	if !ok || !strings.HasSuffix(med, ":") {
		return nil
	}
	med = strings.TrimSuffix(med, ":")
	var entries []ledger.Entry
	for _, line := range strings.Split(body, "\n") {
		who, rest, ok1 := strings.Cut(line, " | brand=")
		brand, price, ok2 := strings.Cut(rest, " | price_usd=")
		i := strings.LastIndex(who, " (")
		if !ok1 || !ok2 || i < 0 || !strings.HasSuffix(who, ")") {
			continue
		}
		o := &SupplierOffer{Medication: med, Company: who[:i], Country: who[i+2 : len(who)-1], BrandName: brand, PriceUSD: money(price)}
		entries = append(entries, ledger.Entry{Path: supplierPrefix(med) + o.Company + "|" + o.BrandName, Value: o})
	}
	return entries
}

// ---- drug interactions ----

func routeInteractions(args json.RawMessage, out string) []ledger.Entry {
	var a struct {
		Primary any `json:"primary_medication"`
		Current any `json:"current_medications"`
	}
	if json.Unmarshal(args, &a) != nil {
		return nil
	}
	primary, _ := a.Primary.(string)
	list, _ := a.Current.([]any)
	current := []string{}
	for _, m := range list {
		if s, ok := m.(string); ok {
			current = append(current, s)
		}
	}
	if primary == "" {
		return nil
	}
	check := &InteractionCheck{Primary: primary, Current: current, Pairs: []string{}, Hold: []string{}}
	var entries []ledger.Entry
	switch {
	case strings.HasPrefix(out, "No documented high-risk interactions found"):
	case strings.HasPrefix(out, "Drug interaction analysis:\n"):
		for _, line := range strings.Split(out, "\n")[1:] {
			switch {
			case strings.HasPrefix(line, "Medications to hold today: "):
				check.Hold = splitList(strings.TrimPrefix(line, "Medications to hold today: "), "None")
			case strings.HasPrefix(line, "Emergency escalation required: "):
				check.Emergency = strings.TrimPrefix(line, "Emergency escalation required: ") == "Yes"
			case strings.HasPrefix(line, "Peak overlap risk window (hours): "):
				check.PeakOverlapHours = atoi(strings.TrimPrefix(line, "Peak overlap risk window (hours): "))
			case strings.HasPrefix(line, "Highest severity interaction: "):
				check.Highest = strings.TrimPrefix(line, "Highest severity interaction: ")
			default:
				if iv := parseInteraction(line); iv != nil {
					check.Pairs = append(check.Pairs, iv.Pair)
					entries = append(entries, ledger.Entry{Path: prefixInteractions + strings.ReplaceAll(iv.Pair, " + ", "+"), Value: iv})
				}
			}
		}
	default:
		return nil
	}
	key := primary + " vs " + strings.Join(current, ", ")
	return append(entries, ledger.Entry{Path: prefixInteractionChecks + key, Value: check})
}

// parseInteraction parses "A + B: severity=s, risk_score=r, overlap_hours=h. action".
func parseInteraction(line string) *InteractionView {
	pair, rest, ok := strings.Cut(line, ": severity=")
	if !ok || !strings.Contains(pair, " + ") {
		return nil
	}
	sev, rest, ok1 := strings.Cut(rest, ", risk_score=")
	risk, rest, ok2 := strings.Cut(rest, ", overlap_hours=")
	hours, action, ok3 := strings.Cut(rest, ". ")
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	return &InteractionView{Pair: pair, Severity: sev, RiskScore: risk, OverlapHours: atoi(hours), Action: action}
}

// ---- telemetry ----

// routeDevices parses "Telemetry devices:" and one line per device:
// "<id> | status=<s> | last_audit=<d> | notes=<n>" ("None" for a missing
// field, which the stored Device then lacks).
func routeDevices(out string) []ledger.Entry {
	head, body, _ := strings.Cut(out, "\n")
	if head != "Telemetry devices:" {
		return nil
	}
	var entries []ledger.Entry
	for _, line := range strings.Split(body, "\n") {
		id, rest, ok1 := strings.Cut(line, " | status=")
		status, rest, ok2 := strings.Cut(rest, " | last_audit=")
		audit, notes, ok3 := strings.Cut(rest, " | notes=")
		if !ok1 || !ok2 || !ok3 || id == "" {
			continue
		}
		dev := &Device{DeviceID: id}
		dev.order = []string{"device_id"}
		for _, f := range []struct {
			key, val string
			dst      *string
		}{{"status", status, &dev.Status}, {"last_audit", audit, &dev.LastAudit}, {"notes", notes, &dev.Notes}} {
			if f.val != "None" {
				*f.dst = f.val
				dev.order = append(dev.order, f.key)
			}
		}
		entries = append(entries, ledger.Entry{Path: prefixDevices + id, Value: dev})
	}
	return entries
}

// ---- typed lookups for the predicates (nil when absent or of another type) ----

// authenticatedIDs lists the patients located by email or name and date of
// birth in this conversation, sorted.
func authenticatedIDs(l *ledger.Ledger) []string {
	var ids []string
	l.Prefix(prefixAuth, func(_ string, v any) {
		if a, ok := v.(*Authentication); ok {
			ids = append(ids, a.PatientID)
		}
	})
	return ids
}

func isAuthenticated(l *ledger.Ledger, pid string) bool {
	v, _ := l.Get(prefixAuth + pid)
	a, ok := v.(*Authentication)
	return ok && a.PatientID == pid
}

func ledgerAppointment(l *ledger.Ledger, id string) *AppointmentView {
	v, _ := l.Get(prefixAppointments + id)
	a, _ := v.(*AppointmentView)
	return a
}

func ledgerProvider(l *ledger.Ledger, id string) *ProviderView {
	v, _ := l.Get(prefixProviders + id)
	p, _ := v.(*ProviderView)
	return p
}

func ledgerRecord(l *ledger.Ledger, id string) *RecordView {
	v, _ := l.Get(prefixRecords + id)
	r, _ := v.(*RecordView)
	return r
}

func ledgerSummary(l *ledger.Ledger, id string) *RecordSummary {
	v, _ := l.Get(prefixRecordSummaries + id)
	s, _ := v.(*RecordSummary)
	return s
}

// providerListed reports whether a provider listing showed the provider.
func providerListed(l *ledger.Ledger, id string) bool {
	found := false
	l.Prefix(prefixProviderSearch, func(_ string, v any) {
		if s, ok := v.(*ProviderSearch); ok && !found {
			found = slices.ContainsFunc(s.Providers, func(p ProviderSummary) bool { return p.ProviderID == id })
		}
	})
	return found
}

// ledgerOffers lists the supplier offers read for a medication.
func ledgerOffers(l *ledger.Ledger, medication string) []*SupplierOffer {
	var out []*SupplierOffer
	l.Prefix(supplierPrefix(medication), func(_ string, v any) {
		if o, ok := v.(*SupplierOffer); ok {
			out = append(out, o)
		}
	})
	return out
}

// appointmentProvider returns the id of an appointment's provider: the one
// the details showed, else the provider read in this conversation whose name
// and specialty match the listing's "<title> <last name> (<specialty>)"
// (exactly one must match). "" when unknown.
func appointmentProvider(l *ledger.Ledger, a *AppointmentView) string {
	if a.ProviderID != "" {
		return a.ProviderID
	}
	found := ""
	l.Prefix(prefixProviders, func(_ string, v any) {
		p, ok := v.(*ProviderView)
		if !ok || p.Specialty != a.Specialty || !listedAs(p.Name, a.Provider) {
			return
		}
		if found == "" {
			found = p.ProviderID
		} else if found != p.ProviderID {
			found = "\x00ambiguous"
		}
	})
	if found == "\x00ambiguous" {
		return ""
	}
	return found
}

// listedAs reports whether a provider named "<title> <first> <last>" (as the
// details print it) is the one a listing prints as "<title> <last>". Titles
// and names may have several words, so every split is tried.
func listedAs(fullName, label string) bool {
	for i := strings.IndexByte(fullName, ' '); i > 0; {
		title, rest := fullName[:i], fullName[i+1:]
		for j := strings.IndexByte(rest, ' '); j >= 0; {
			last := rest[j+1:]
			if len(label) == len(title)+1+len(last) && strings.HasPrefix(label, title) && label[len(title)] == ' ' && strings.HasSuffix(label, last) {
				return true
			}
			k := strings.IndexByte(rest[j+1:], ' ')
			if k < 0 {
				break
			}
			j += k + 1
		}
		k := strings.IndexByte(fullName[i+1:], ' ')
		if k < 0 {
			break
		}
		i += k + 1
	}
	return false
}

// providerLast is an appointment's provider's last name when the details
// printed it ("Dr. <last>"), else "".
func providerLast(a *AppointmentView) string {
	if a.Source == sourceDetails {
		return strings.TrimPrefix(a.Provider, "Dr. ")
	}
	return ""
}

// sameProviderAs reports whether ledger appointment b is with the provider
// of appointment a, whose resolved provider id is aID ("" if unknown): by id
// where both are known, else by specialty and printed name.
func sameProviderAs(l *ledger.Ledger, a *AppointmentView, aID string, b *AppointmentView) bool {
	if a.Specialty != b.Specialty {
		return false
	}
	if bID := appointmentProvider(l, b); aID != "" && bID != "" {
		return aID == bID
	}
	switch {
	case a.Source == b.Source:
		return a.Provider == b.Provider
	case a.Source == sourceDetails:
		return strings.HasSuffix(b.Provider, " "+providerLast(a))
	default:
		return strings.HasSuffix(a.Provider, " "+providerLast(b))
	}
}

// sameProvider reports whether two ledger appointments are with the same
// provider.
func sameProvider(l *ledger.Ledger, a, b *AppointmentView) bool {
	return sameProviderAs(l, a, appointmentProvider(l, a), b)
}
