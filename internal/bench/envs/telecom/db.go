package telecom

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"slices"
	"strconv"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

// Date is a calendar date held as upstream prints it ("2025-02-25"), so
// model dumps need no formatting and ISO dates compare as strings.
type Date string

// DateTime is a date and time held as Python's str(datetime) prints it
// ("2025-01-15 10:30:00"), the form json.dumps(default=str) gives.
type DateTime string

// UnmarshalTOML accepts a quoted ISO date or a TOML local date.
func (d *Date) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		p, err := parseDate(x)
		if err != nil {
			return err
		}
		*d = p
		return nil
	case time.Time:
		*d = Date(x.Format("2006-01-02"))
		return nil
	}
	return fmt.Errorf("date: unexpected TOML value %T", v)
}

// UnmarshalTOML accepts an ISO date-time string (with "T" or a space, or a
// bare date) or a TOML local date-time.
func (d *DateTime) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		p, err := parseDateTime(x)
		if err != nil {
			return err
		}
		*d = p
		return nil
	case time.Time:
		*d = formatDateTime(x)
		return nil
	}
	return fmt.Errorf("datetime: unexpected TOML value %T", v)
}

func parseDate(s string) (Date, error) {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return "", fmt.Errorf("invalid date %q", s)
	}
	return Date(t.Format("2006-01-02")), nil
}

func parseDateTime(s string) (DateTime, error) {
	for _, layout := range []string{"2006-01-02T15:04:05.999999", "2006-01-02 15:04:05.999999", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return formatDateTime(t), nil
		}
	}
	return "", fmt.Errorf("invalid datetime %q", s)
}

// formatDateTime is Python's str(datetime) for a naive datetime.
func formatDateTime(t time.Time) DateTime {
	s := t.Format("2006-01-02 15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	return DateTime(s)
}

// Enumerations of the agent database (values as upstream spells them).
const (
	LineActive            = "Active"
	LineSuspended         = "Suspended"
	LinePendingActivation = "Pending Activation"
	LineClosed            = "Closed"

	BillDraft           = "Draft"
	BillIssued          = "Issued"
	BillAwaitingPayment = "Awaiting Payment"
	BillPaid            = "Paid"
	BillOverdue         = "Overdue"
	BillDisputed        = "Disputed"
)

var (
	lineStatuses    = []string{LineActive, LineSuspended, LinePendingActivation, LineClosed}
	billStatuses    = []string{BillDraft, BillIssued, BillAwaitingPayment, BillPaid, BillOverdue, BillDisputed}
	accountStatuses = []string{"Active", "Suspended", "Pending Verification", "Closed"}
	methodTypes     = []string{"Credit Card", "Debit Card", "PayPal"}
	deviceTypes     = []string{"phone", "router", "tablet", "watch", "other"}
)

// Plan is a service plan.
type Plan struct {
	PlanID                  string  `json:"plan_id" toml:"plan_id"`
	Name                    string  `json:"name" toml:"name"`
	DataLimitGB             float64 `json:"data_limit_gb" toml:"data_limit_gb"`
	PricePerMonth           float64 `json:"price_per_month" toml:"price_per_month"`
	DataRefuelingPricePerGB float64 `json:"data_refueling_price_per_gb" toml:"data_refueling_price_per_gb"`
}

// Device is a customer device known to the carrier.
type Device struct {
	DeviceID             string    `json:"device_id" toml:"device_id"`
	DeviceType           string    `json:"device_type" toml:"device_type"`
	Model                string    `json:"model" toml:"model"`
	IMEI                 *string   `json:"imei" toml:"imei"`
	IsESIMCapable        bool      `json:"is_esim_capable" toml:"is_esim_capable"`
	Activated            bool      `json:"activated" toml:"activated"`
	ActivationDate       *DateTime `json:"activation_date" toml:"activation_date"`
	LastESIMTransferDate *DateTime `json:"last_esim_transfer_date" toml:"last_esim_transfer_date"`
}

// Line is a phone or data line.
type Line struct {
	LineID                 string     `json:"line_id" toml:"line_id"`
	PhoneNumber            string     `json:"phone_number" toml:"phone_number"`
	Status                 string     `json:"status" toml:"status"`
	PlanID                 string     `json:"plan_id" toml:"plan_id"`
	DeviceID               *string    `json:"device_id" toml:"device_id"`
	DataUsedGB             FloatOrInt `json:"data_used_gb" toml:"data_used_gb"`
	DataRefuelingGB        float64    `json:"data_refueling_gb" toml:"data_refueling_gb"`
	RoamingEnabled         bool       `json:"roaming_enabled" toml:"roaming_enabled"`
	ContractEndDate        *Date      `json:"contract_end_date" toml:"contract_end_date"`
	LastPlanChangeDate     *Date      `json:"last_plan_change_date" toml:"last_plan_change_date"`
	LastSIMReplacementDate *Date      `json:"last_sim_replacement_date" toml:"last_sim_replacement_date"`
	SuspensionStartDate    *Date      `json:"suspension_start_date" toml:"suspension_start_date"`
}

// FloatOrInt is a float field that can come to hold a Python int: upstream's
// models do not validate assignments, so set_data_usage(..., 20) stores the
// int 20, which dumps and str() then print without ".0".
type FloatOrInt struct {
	V float64
	// IntText is the int's digits when the value is an int.
	IntText string
}

// Float is a float value.
func Float(v float64) FloatOrInt { return FloatOrInt{V: v} }

// String is Python's str() of the value.
func (f FloatOrInt) String() string {
	if f.IntText != "" {
		return f.IntText
	}
	return pyjson.Float(f.V)
}

// EncodePy writes the value as json.dumps does.
func (f FloatOrInt) EncodePy(e *pyjson.Encoder) {
	if f.IntText != "" {
		e.Value(json.Number(f.IntText))
		return
	}
	e.Float(f.V)
}

// UnmarshalTOML reads a TOML number; pydantic makes ints floats.
func (f *FloatOrInt) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case float64:
		*f = Float(x)
	case int64:
		*f = Float(float64(x))
	default:
		return fmt.Errorf("expected a number, got %T", v)
	}
	return nil
}

// LineItem is one charge or credit on a bill.
type LineItem struct {
	Description string  `json:"description" toml:"description"`
	Amount      float64 `json:"amount" toml:"amount"`
	Date        Date    `json:"date" toml:"date"`
	ItemType    string  `json:"item_type" toml:"item_type"`
}

// Bill is a customer bill.
type Bill struct {
	BillID      string     `json:"bill_id" toml:"bill_id"`
	CustomerID  string     `json:"customer_id" toml:"customer_id"`
	PeriodStart Date       `json:"period_start" toml:"period_start"`
	PeriodEnd   Date       `json:"period_end" toml:"period_end"`
	IssueDate   Date       `json:"issue_date" toml:"issue_date"`
	TotalDue    float64    `json:"total_due" toml:"total_due"`
	DueDate     Date       `json:"due_date" toml:"due_date"`
	LineItems   []LineItem `json:"line_items" toml:"line_items"`
	Status      string     `json:"status" toml:"status"`
}

// Address is a billing address.
type Address struct {
	Street  string `json:"street" toml:"street"`
	City    string `json:"city" toml:"city"`
	State   string `json:"state" toml:"state"`
	ZipCode string `json:"zip_code" toml:"zip_code"`
}

// PaymentMethod is a stored payment method.
type PaymentMethod struct {
	MethodType         string `json:"method_type" toml:"method_type"`
	AccountNumberLast4 string `json:"account_number_last_4" toml:"account_number_last_4"`
	ExpirationDate     string `json:"expiration_date" toml:"expiration_date"`
}

// Customer is an account holder.
type Customer struct {
	CustomerID                 string          `json:"customer_id" toml:"customer_id"`
	FullName                   string          `json:"full_name" toml:"full_name"`
	DateOfBirth                string          `json:"date_of_birth" toml:"date_of_birth"`
	Email                      string          `json:"email" toml:"email"`
	PhoneNumber                string          `json:"phone_number" toml:"phone_number"`
	Address                    Address         `json:"address" toml:"address"`
	AccountStatus              string          `json:"account_status" toml:"account_status"`
	PaymentMethods             []PaymentMethod `json:"payment_methods" toml:"payment_methods"`
	LineIDs                    []string        `json:"line_ids" toml:"line_ids"`
	BillIDs                    []string        `json:"bill_ids" toml:"bill_ids"`
	CreatedAt                  DateTime        `json:"created_at" toml:"created_at"`
	LastExtensionDate          *Date           `json:"last_extension_date" toml:"last_extension_date"`
	GoodwillCreditUsedThisYear float64         `json:"goodwill_credit_used_this_year" toml:"goodwill_credit_used_this_year"`
}

func cloneCustomer(c *Customer) *Customer {
	out := *c
	out.PaymentMethods = slices.Clone(c.PaymentMethods)
	out.LineIDs = slices.Clone(c.LineIDs)
	out.BillIDs = slices.Clone(c.BillIDs)
	return &out
}

func cloneLine(l *Line) *Line {
	out := *l
	return &out
}

func cloneBill(b *Bill) *Bill {
	out := *b
	out.LineItems = slices.Clone(b.LineItems)
	return &out
}

// DB is the loaded agent database (upstream's TelecomDB). It is shared by
// every simulation and never modified after Load; simulations change it
// through copy-on-write tables. Records are keyed by id; a later record
// reusing an id gets a private key so every record stays in list order while
// lookups by id find the first one, as upstream's list scans do.
type DB struct {
	Plans     omap.Map[*Plan]
	Customers omap.Map[*Customer]
	Lines     omap.Map[*Line]
	Bills     omap.Map[*Bill]
	Devices   omap.Map[*Device]
}

// recordKey returns the table key for a record with id: the id itself, or a
// private key when the id is already taken.
func recordKey(has func(string) bool, id string) string {
	if !has(id) {
		return id
	}
	for n := 2; ; n++ {
		k := id + "\x00" + strconv.Itoa(n)
		if !has(k) {
			return k
		}
	}
}

// tomlDB is db.toml as written; ParseDB fills the defaults.
type tomlDB struct {
	Plans     []Plan     `toml:"plans"`
	Customers []Customer `toml:"customers"`
	Lines     []Line     `toml:"lines"`
	Bills     []Bill     `toml:"bills"`
	Devices   []Device   `toml:"devices"`
}

// LoadDB reads db.toml. The pinned file (checked by hash while it is
// decoded) is known to have every required key, so only another file is
// decoded a second time to check them (checkRequired).
func LoadDB(file string) (*DB, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read telecom db: %w", err)
	}
	db, err := data.DecodePinned(data.Tau2, path.Join(data.Tau2DomainPath(Name), "db.toml"), raw, parsePinnedDB, ParseDB)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return db, nil
}

// ParseDB decodes and validates a telecom db.toml document.
func ParseDB(data []byte) (*DB, error) { return parseDB(data, true) }

// parsePinnedDB decodes the pinned db.toml, which has every required key.
func parsePinnedDB(data []byte) (*DB, error) { return parseDB(data, false) }

// parseDB decodes a db.toml document, checking that its records have their
// required keys when required is set.
func parseDB(data []byte, required bool) (*DB, error) {
	var raw tomlDB
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		return nil, err
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("unknown field %q", und[0].String())
	}
	if required {
		if err := checkRequired(string(data)); err != nil {
			return nil, err
		}
	}
	db := &DB{}
	for i := range raw.Plans {
		p := raw.Plans[i]
		db.Plans.Set(recordKey(db.Plans.Has, p.PlanID), &p)
	}
	for i := range raw.Devices {
		d := raw.Devices[i]
		if !slices.Contains(deviceTypes, d.DeviceType) {
			return nil, fmt.Errorf("devices[%d].device_type: invalid value %q", i, d.DeviceType)
		}
		db.Devices.Set(recordKey(db.Devices.Has, d.DeviceID), &d)
	}
	for i := range raw.Lines {
		l := raw.Lines[i]
		if l.Status == "" {
			l.Status = LinePendingActivation
		}
		if !slices.Contains(lineStatuses, l.Status) {
			return nil, fmt.Errorf("lines[%d].status: invalid value %q", i, l.Status)
		}
		db.Lines.Set(recordKey(db.Lines.Has, l.LineID), &l)
	}
	for i := range raw.Customers {
		c := raw.Customers[i]
		if c.AccountStatus == "" {
			c.AccountStatus = "Pending Verification"
		}
		if !slices.Contains(accountStatuses, c.AccountStatus) {
			return nil, fmt.Errorf("customers[%d].account_status: invalid value %q", i, c.AccountStatus)
		}
		for j, pm := range c.PaymentMethods {
			if !slices.Contains(methodTypes, pm.MethodType) {
				return nil, fmt.Errorf("customers[%d].payment_methods[%d].method_type: invalid value %q", i, j, pm.MethodType)
			}
		}
		if c.CreatedAt == "" {
			// Upstream's default is a date object that pydantic does not
			// convert, so it prints without a time.
			c.CreatedAt = "2025-01-01"
		}
		db.Customers.Set(recordKey(db.Customers.Has, c.CustomerID), &c)
	}
	for i := range raw.Bills {
		b := raw.Bills[i]
		if b.Status == "" {
			b.Status = BillDraft
		}
		if !slices.Contains(billStatuses, b.Status) {
			return nil, fmt.Errorf("bills[%d].status: invalid value %q", i, b.Status)
		}
		db.Bills.Set(recordKey(db.Bills.Has, b.BillID), &b)
	}
	return db, nil
}

// requiredFields lists, per array of tables, the keys without a default in
// upstream's models.
var requiredFields = map[string][]string{
	"plans":     {"plan_id", "name", "data_limit_gb", "price_per_month", "data_refueling_price_per_gb"},
	"devices":   {"device_id", "device_type", "model", "is_esim_capable"},
	"lines":     {"line_id", "phone_number", "plan_id"},
	"customers": {"customer_id", "full_name", "date_of_birth", "email", "phone_number", "address"},
	"bills":     {"bill_id", "customer_id", "period_start", "period_end", "issue_date", "total_due", "due_date"},
}

// checkRequired reports the first record that lacks a required key.
func checkRequired(data string) error {
	var generic map[string]any
	if _, err := toml.Decode(data, &generic); err != nil {
		return err
	}
	for _, table := range []string{"plans", "customers", "lines", "bills", "devices"} {
		recs, _ := generic[table].([]map[string]any)
		for i, r := range recs {
			for _, k := range requiredFields[table] {
				if _, ok := r[k]; !ok {
					return fmt.Errorf("%s[%d].%s: field required", table, i, k)
				}
			}
			if table == "bills" {
				items, _ := r["line_items"].([]map[string]any)
				for j, it := range items {
					for _, k := range []string{"description", "amount", "date", "item_type"} {
						if _, ok := it[k]; !ok {
							return fmt.Errorf("bills[%d].line_items[%d].%s: field required", i, j, k)
						}
					}
				}
			}
		}
	}
	return nil
}

// agentDump writes the agent database as upstream's model_dump (field order plans,
// customers, lines, bills, devices).
type agentDump struct{ e *Env }

func (a agentDump) EncodePy(enc *pyjson.Encoder) {
	e := a.e
	enc.BeginObject()
	enc.Key("plans", true)
	encodeList(enc, e.d.db.Plans.All())
	enc.Key("customers", false)
	encodeList(enc, e.customers.All())
	enc.Key("lines", false)
	encodeList(enc, e.lines.All())
	enc.Key("bills", false)
	encodeList(enc, e.bills.All())
	enc.Key("devices", false)
	encodeList(enc, e.d.db.Devices.All())
	enc.EndObject(false)
}

func encodeList[V any](enc *pyjson.Encoder, all func(func(string, *V) bool)) {
	enc.BeginArray()
	first := true
	for _, v := range all {
		enc.Elem(first)
		first = false
		enc.Value(v)
	}
	enc.EndArray(first)
}
