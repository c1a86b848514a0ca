package telecom

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// The simulated calendar: upstream fixes "today" at 2025-02-25.
const (
	today           Date = "2025-02-25"
	cycleEnd        Date = "2025-02-28" // last day of today's month
	nextMonthStart  Date = "2025-03-01" // first day of next month
	nextMonthEnd    Date = "2025-03-31"
	nextMonthDue    Date = "2025-03-15" // next month start + 14 days
	lastMonthStart  Date = "2025-01-01"
	lastMonthEnd    Date = "2025-01-31"
	lastMonthDueDay Date = "2025-01-15" // last month start + 14 days
)

// agentClass is upstream's toolkit class name, used in Python error texts.
const agentClass = "TelecomTools"

// --- lookups (upstream's private helpers; errors are upstream's texts) ---

// The lookups by an argument take it as json.loads gave it (upstream
// compares it with ==, so only a str can match; the error shows its str()).

func (e *Env) customerByID(id any) (*Customer, error) {
	if s, ok := id.(string); ok {
		if c, ok := e.customers.Get(s); ok {
			return c, nil
		}
	}
	return nil, fmt.Errorf("Customer with ID %s not found", pyjson.Str(id))
}

func (e *Env) lineByID(id string) (*Line, error) {
	if l, ok := e.lines.Get(id); ok {
		return l, nil
	}
	return nil, fmt.Errorf("Line with ID %s not found", id)
}

func (e *Env) lineByPhone(phone string) (*Line, error) {
	for _, l := range e.lines.All() {
		if l.PhoneNumber == phone {
			return l, nil
		}
	}
	return nil, fmt.Errorf("Line with phone number %s not found", phone)
}

func (e *Env) planByID(id string) (*Plan, error) {
	if p, ok := e.d.db.Plans.Get(id); ok {
		return p, nil
	}
	return nil, fmt.Errorf("Plan with ID %s not found", id)
}

func (e *Env) deviceByID(id string) (*Device, error) {
	if d, ok := e.d.db.Devices.Get(id); ok {
		return d, nil
	}
	return nil, fmt.Errorf("Device with ID %s not found", id)
}

func (e *Env) billByID(id string) (*Bill, error) {
	if b, ok := e.bills.Get(id); ok {
		return b, nil
	}
	return nil, fmt.Errorf("Bill with ID %s not found", id)
}

func (e *Env) customerByPhone(phone any) (*Customer, error) {
	s, isStr := phone.(string)
	for _, c := range e.customers.All() {
		if isStr && c.PhoneNumber == s {
			return c, nil
		}
		for _, lid := range c.LineIDs {
			l, err := e.lineByID(lid)
			if err != nil {
				return nil, err
			}
			if isStr && l.PhoneNumber == s {
				return c, nil
			}
		}
	}
	return nil, fmt.Errorf("Customer with phone number %s not found", pyjson.Str(phone))
}

// targetLine is upstream's _get_target_line: the line must belong to the
// customer.
func (e *Env) targetLine(customerID, lineID any) (*Line, error) {
	c, err := e.customerByID(customerID)
	if err != nil {
		return nil, err
	}
	lid, ok := lineID.(string)
	if !ok || !slices.Contains(c.LineIDs, lid) {
		return nil, fmt.Errorf("Line %s not found for customer %s", pyjson.Str(lineID), pyjson.Str(customerID))
	}
	return e.lineByID(lid)
}

// awaitingBills lists the customer's bills awaiting payment, in bill_ids
// order.
func (e *Env) awaitingBills(c *Customer) ([]*Bill, error) {
	var out []*Bill
	for _, id := range c.BillIDs {
		b, err := e.billByID(id)
		if err != nil {
			return nil, err
		}
		if b.Status == BillAwaitingPayment {
			out = append(out, b)
		}
	}
	return out, nil
}

// addBill appends a bill record, keeping an earlier bill with the same id
// first for lookups.
func (e *Env) addBill(b *Bill) {
	e.bills.Add(recordKey(e.bills.Has, b.BillID), b)
}

// newBillID is the id of a generated draft bill. Upstream draws
// "B" + uuid4().hex[:8] (random); each simulation here draws from its own
// deterministic sequence, so equal runs create equal ids.
func (e *Env) newBillID() string {
	e.idSeq++
	x := e.idSeq * 0x9E3779B97F4A7C15
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	x ^= x >> 31
	return fmt.Sprintf("B%08x", uint32(x))
}

// applyOneTimeCharge adds a line item to the customer's first draft bill,
// creating a draft bill for next month when there is none.
func (e *Env) applyOneTimeCharge(customerID string, amount float64, desc string) error {
	c, err := e.customerByID(customerID)
	if err != nil {
		return err
	}
	var draftKey string
	for _, id := range c.BillIDs {
		b, err := e.billByID(id)
		if err != nil {
			return err
		}
		if b.Status == BillDraft {
			draftKey = id
			break
		}
	}
	var draft *Bill
	if draftKey == "" {
		id := e.newBillID()
		draft = &Bill{
			BillID: id, CustomerID: customerID,
			PeriodStart: nextMonthStart, PeriodEnd: nextMonthEnd, IssueDate: nextMonthStart,
			DueDate: nextMonthDue, Status: BillDraft,
		}
		e.addBill(draft)
		mc, _ := e.customers.Mut(customerID)
		mc.BillIDs = append(mc.BillIDs, id)
	} else {
		draft, _ = e.bills.Mut(draftKey)
	}
	itemType := "Charge"
	if amount < 0 {
		itemType = "Credit"
	}
	draft.LineItems = append(draft.LineItems, LineItem{Description: desc, Amount: amount, Date: today, ItemType: itemType})
	draft.TotalDue += amount
	return nil
}

// --- arguments ---

type phoneArgs struct {
	PhoneNumber tool.StrValue `json:"phone_number"`
}

type customerIDArgs struct {
	CustomerID tool.StrValue `json:"customer_id"`
}

type nameArgs struct {
	FullName tool.StrValue `json:"full_name"`
	DOB      tool.StrValue `json:"dob"`
}

type idArgs struct {
	ID tool.StrValue `json:"id"`
}

type suspendArgs struct {
	CustomerID tool.StrValue `json:"customer_id"`
	LineID     tool.StrValue `json:"line_id"`
	Reason     tool.StrValue `json:"reason"` // only logged upstream
}

type lineArgs struct {
	CustomerID tool.StrValue `json:"customer_id"`
	LineID     tool.StrValue `json:"line_id"`
}

type billsArgs struct {
	CustomerID tool.StrValue `json:"customer_id"`
	Limit      limitArg      `json:"limit,omitempty"`
}

type paymentArgs struct {
	CustomerID tool.StrValue `json:"customer_id"`
	BillID     tool.StrValue `json:"bill_id"`
}

type summaryArgs struct {
	Summary tool.StrValue `json:"summary"` // never inspected
}

type refuelArgs struct {
	CustomerID tool.StrValue `json:"customer_id"`
	LineID     tool.StrValue `json:"line_id"`
	GBAmount   tool.NumValue `json:"gb_amount"`
}

// limitArg is get_bills_for_customer's limit (int = 12): any JSON value,
// used as a slice bound.
type limitArg struct{ tool.Value }

func (limitArg) JSONSchema() *pyjson.Dict {
	d := &pyjson.Dict{}
	d.Set("type", "integer")
	d.Set("default", 12)
	return d
}

// numberValue returns a numeric argument (decoded as json.loads decodes
// it, so that a wrong type fails where the Python code would fail and an int
// keeps printing as an int) as a float, its Python str() and its Python
// type name. A JSON boolean is a Python bool, which is an int.
func numberValue(n tool.NumValue) (f float64, text string, pyType string) {
	switch x := n.V.(type) {
	case nil, bool:
		if x == true {
			f = 1
		}
		return f, pyjson.Str(x), pyjson.TypeName(x)
	case json.Number:
		return pyjson.NumberFloat(x), pyjson.Str(x), pyjson.TypeName(x)
	}
	return 0, "", pyjson.TypeName(n.V)
}

// --- agent tools ---

func agentTools() *tool.Set[*Env] {
	return tool.NewSet(agentClass,
		tool.New("get_customer_by_phone", tool.Read, "", getCustomerByPhone),
		tool.New("get_customer_by_id", tool.Read, "", getCustomerByID),
		tool.New("get_customer_by_name", tool.Read, "", getCustomerByName),
		tool.New("get_details_by_id", tool.Read, "", getDetailsByID),
		tool.New("suspend_line", tool.Write, "", suspendLine),
		tool.New("resume_line", tool.Write, "", resumeLine),
		tool.New("get_bills_for_customer", tool.Read, "", getBillsForCustomer),
		tool.New("send_payment_request", tool.Write, "", sendPaymentRequest),
		tool.New("get_data_usage", tool.Read, "", getDataUsage),
		tool.New("enable_roaming", tool.Write, "", enableRoaming),
		tool.New("disable_roaming", tool.Write, "", disableRoaming),
		tool.New("transfer_to_human_agents", tool.Generic, "", transferToHumanAgents),
		tool.New("refuel_data", tool.Write, "", refuelData),
	)
}

func getCustomerByPhone(_ context.Context, e *Env, a phoneArgs) (any, error) {
	return e.customerByPhone(a.PhoneNumber.V)
}

func getCustomerByID(_ context.Context, e *Env, a customerIDArgs) (any, error) {
	return e.customerByID(a.CustomerID.V)
}

func getCustomerByName(_ context.Context, e *Env, a nameArgs) (any, error) {
	out := []*Customer{}
	for _, c := range e.customers.All() {
		name, ok := a.FullName.V.(string)
		if !ok {
			return nil, fmt.Errorf("'%s' object has no attribute 'lower'", pyjson.TypeName(a.FullName.V))
		}
		if dob, ok := a.DOB.V.(string); ok && pyjson.Lower(c.FullName) == pyjson.Lower(name) && c.DateOfBirth == dob {
			out = append(out, c)
		}
	}
	return out, nil
}

func getDetailsByID(_ context.Context, e *Env, a idArgs) (any, error) {
	id, ok := a.ID.V.(string)
	if !ok {
		return nil, fmt.Errorf("'%s' object has no attribute 'startswith'", pyjson.TypeName(a.ID.V))
	}
	if id == "" {
		return nil, fmt.Errorf("Unknown ID format or type: %s", id)
	}
	switch id[0] {
	case 'L':
		return e.lineByID(id)
	case 'D':
		return e.deviceByID(id)
	case 'B':
		return e.billByID(id)
	case 'C':
		return e.customerByID(id)
	case 'P':
		return e.planByID(id)
	}
	return nil, fmt.Errorf("Unknown ID format or type: %s", id)
}

func suspendLine(_ context.Context, e *Env, a suspendArgs) (any, error) {
	l, err := e.targetLine(a.CustomerID.V, a.LineID.V)
	if err != nil {
		return nil, err
	}
	if l.Status != LineActive {
		return nil, errors.New("Line must be active to suspend")
	}
	ml, _ := e.lines.Mut(a.LineID.Text())
	ml.Status = LineSuspended
	d := today
	ml.SuspensionStartDate = &d
	res := &pyjson.Dict{}
	res.Set("message", "Line suspended successfully. $5/month holding fee will apply.")
	res.Set("line", ml)
	return res, nil
}

func resumeLine(_ context.Context, e *Env, a lineArgs) (any, error) {
	l, err := e.targetLine(a.CustomerID.V, a.LineID.V)
	if err != nil {
		return nil, err
	}
	if l.Status != LineSuspended && l.Status != LinePendingActivation {
		return nil, errors.New("Line must be suspended to resume")
	}
	ml, _ := e.lines.Mut(a.LineID.Text())
	ml.Status = LineActive
	ml.SuspensionStartDate = nil
	res := &pyjson.Dict{}
	res.Set("message", "Line resumed successfully")
	res.Set("line", ml)
	return res, nil
}

func getBillsForCustomer(_ context.Context, e *Env, a billsArgs) (any, error) {
	c, err := e.customerByID(a.CustomerID.V)
	if err != nil {
		return nil, err
	}
	bills := make([]*Bill, 0, len(c.BillIDs))
	for _, id := range c.BillIDs {
		b, err := e.billByID(id)
		if err != nil {
			return nil, err
		}
		bills = append(bills, b)
	}
	slices.SortStableFunc(bills, func(x, y *Bill) int {
		switch {
		case x.IssueDate > y.IssueDate:
			return -1
		case x.IssueDate < y.IssueDate:
			return 1
		}
		return 0
	})
	var limit int
	switch x := a.Limit.Or(json.Number("12")).(type) {
	case nil:
		return bills, nil
	case bool:
		if x {
			limit = 1
		}
	case json.Number:
		n, err := strconv.ParseInt(string(x), 10, 64)
		switch {
		case err == nil:
			limit = int(n)
		case !pyjson.IsInt(x):
			return nil, errSliceIndex
		case strings.HasPrefix(string(x), "-"): // beyond int64: the whole list or none of it
			limit = math.MinInt
		default:
			limit = math.MaxInt
		}
	default:
		return nil, errSliceIndex
	}
	return bills[:pySliceEnd(limit, len(bills))], nil
}

// errSliceIndex is Python's error for seq[:limit] with a limit that is not
// an int or None.
var errSliceIndex = errors.New("slice indices must be integers or None or have an __index__ method")

func sendPaymentRequest(_ context.Context, e *Env, a paymentArgs) (any, error) {
	c, err := e.customerByID(a.CustomerID.V)
	if err != nil {
		return nil, err
	}
	waiting, err := e.awaitingBills(c)
	if err != nil {
		return nil, err
	}
	if len(waiting) != 0 {
		return nil, errors.New("A bill is already awaiting payment for this customer")
	}
	bid, ok := a.BillID.V.(string)
	if !ok || !slices.Contains(c.BillIDs, bid) {
		return nil, fmt.Errorf("Bill %s not found for customer %s", pyjson.Str(a.BillID.V), pyjson.Str(a.CustomerID.V))
	}
	if _, err := e.billByID(bid); err != nil {
		return nil, err
	}
	b, _ := e.bills.Mut(bid)
	b.Status = BillAwaitingPayment
	return "Payment request sent to the customer for bill " + b.BillID, nil
}

func getDataUsage(_ context.Context, e *Env, a lineArgs) (any, error) {
	l, err := e.targetLine(a.CustomerID.V, a.LineID.V)
	if err != nil {
		return nil, err
	}
	p, err := e.planByID(l.PlanID)
	if err != nil {
		return nil, err
	}
	// Upstream returns a plain dict, whose numbers its serialiser
	// turns into strings.
	res := &pyjson.Dict{}
	res.Set("line_id", a.LineID.Text())
	res.Set("data_used_gb", l.DataUsedGB.String())
	res.Set("data_limit_gb", pyjson.Float(p.DataLimitGB))
	res.Set("data_refueling_gb", pyjson.Float(l.DataRefuelingGB))
	res.Set("cycle_end_date", string(cycleEnd))
	return res, nil
}

func enableRoaming(_ context.Context, e *Env, a lineArgs) (any, error) {
	l, err := e.targetLine(a.CustomerID.V, a.LineID.V)
	if err != nil {
		return nil, err
	}
	if l.RoamingEnabled {
		return "Roaming was already enabled", nil
	}
	ml, _ := e.lines.Mut(a.LineID.Text())
	ml.RoamingEnabled = true
	return "Roaming enabled successfully", nil
}

func disableRoaming(_ context.Context, e *Env, a lineArgs) (any, error) {
	l, err := e.targetLine(a.CustomerID.V, a.LineID.V)
	if err != nil {
		return nil, err
	}
	if !l.RoamingEnabled {
		return "Roaming was already disabled", nil
	}
	ml, _ := e.lines.Mut(a.LineID.Text())
	ml.RoamingEnabled = false
	return "Roaming disabled successfully", nil
}

func transferToHumanAgents(_ context.Context, _ *Env, _ summaryArgs) (any, error) {
	return "Transfer successful", nil
}

func refuelData(_ context.Context, e *Env, a refuelArgs) (any, error) {
	l, err := e.targetLine(a.CustomerID.V, a.LineID.V)
	if err != nil {
		return nil, err
	}
	gb, gbText, typ := numberValue(a.GBAmount)
	if typ != "int" && typ != "float" && typ != "bool" {
		return nil, fmt.Errorf("'<=' not supported between instances of '%s' and 'int'", typ)
	}
	if gb <= 0 {
		return nil, errors.New("Refuel amount must be positive")
	}
	p, err := e.planByID(l.PlanID)
	if err != nil {
		return nil, err
	}
	charge := gb * p.DataRefuelingPricePerGB
	ml, _ := e.lines.Mut(a.LineID.Text())
	ml.DataRefuelingGB += gb
	desc := "Data refueling: " + gbText + " GB at $" + pyjson.Float(p.DataRefuelingPricePerGB) + "/GB"
	if err := e.applyOneTimeCharge(a.CustomerID.Text(), charge, desc); err != nil {
		return nil, err
	}
	res := &pyjson.Dict{}
	res.Set("message", "Successfully added "+gbText+" GB of data for line "+a.LineID.Text()+" for $"+pyjson.FormatFixed(charge, 2))
	res.Set("new_data_refueling_gb", pyjson.Float(ml.DataRefuelingGB))
	res.Set("charge", pyjson.Float(charge))
	return res, nil
}

// pySliceEnd is the end index of Python's seq[:limit] for a sequence of
// length n.
func pySliceEnd(limit, n int) int {
	if limit < 0 {
		limit = max(limit, -n) + n
	}
	return min(limit, n)
}

// --- agent-side environment functions (not tools) ---

type setUsageArgs struct {
	CustomerID string        `json:"customer_id"`
	LineID     string        `json:"line_id"`
	DataUsedGB tool.NumValue `json:"data_used_gb"`
}

type overdueArgs struct {
	CustomerID    string `json:"customer_id"`
	LineID        string `json:"line_id"`
	NewBillID     string `json:"new_bill_id"`
	ContractEnded bool   `json:"contract_ended"`
}

type refuelAmountArgs struct {
	CustomerID     string  `json:"customer_id"`
	LineID         string  `json:"line_id"`
	ExpectedAmount float64 `json:"expected_amount"`
}

type lineStatusArgs struct {
	CustomerID     string `json:"customer_id"`
	LineID         string `json:"line_id"`
	ExpectedStatus string `json:"expected_status"`
}

type overdueExistsArgs struct {
	CustomerID    string `json:"customer_id"`
	OverdueBillID string `json:"overdue_bill_id"`
}

type noOverdueArgs struct {
	OverdueBillID string `json:"overdue_bill_id"`
}

type noArgs struct{}

func agentFuncs() *tool.Set[*Env] {
	return tool.NewSet(agentClass,
		tool.New("get_available_plan_ids", tool.Read, "", getAvailablePlanIds),
		tool.New("set_data_usage", tool.Write, "", setDataUsage),
		tool.New("suspend_line_for_overdue_bill", tool.Write, "", suspendLineForOverdueBill),
		tool.New("assert_data_refueling_amount", tool.Read, "", assertDataRefuelingAmount),
		tool.New("assert_line_status", tool.Read, "", assertLineStatus),
		tool.New("assert_overdue_bill_exists", tool.Read, "", assertOverdueBillExists),
		tool.New("assert_no_overdue_bill", tool.Read, "", assertNoOverdueBill),
	)
}

func getAvailablePlanIds(_ context.Context, e *Env, _ noArgs) (any, error) {
	ids := []string{}
	for _, p := range e.d.db.Plans.All() {
		ids = append(ids, p.PlanID)
	}
	return ids, nil
}

func setDataUsage(_ context.Context, e *Env, a setUsageArgs) (any, error) {
	if _, err := e.targetLine(a.CustomerID, a.LineID); err != nil {
		return nil, err
	}
	used, text, typ := numberValue(a.DataUsedGB)
	if typ != "int" && typ != "float" {
		return nil, fmt.Errorf("data_used_gb must be a number, not %s", typ)
	}
	ml, _ := e.lines.Mut(a.LineID)
	ml.DataUsedGB = Float(used)
	if typ == "int" {
		ml.DataUsedGB.IntText = text
	}
	return "Data usage set to " + text + " GB for line " + a.LineID, nil
}

func suspendLineForOverdueBill(_ context.Context, e *Env, a overdueArgs) (any, error) {
	l, err := e.lineByID(a.LineID)
	if err != nil {
		return nil, err
	}
	if l.Status != LineActive {
		return nil, errors.New("Line must be active to suspend for unpaid bill")
	}
	p, err := e.planByID(l.PlanID)
	if err != nil {
		return nil, err
	}
	amount := p.PricePerMonth
	if amount <= 0 {
		return nil, errors.New("Amount must be positive for overdue bill")
	}
	c, err := e.customerByID(a.CustomerID)
	if err != nil {
		return nil, err
	}
	for _, id := range c.BillIDs {
		b, err := e.billByID(id)
		if err != nil {
			return nil, err
		}
		if b.Status == BillOverdue {
			return nil, errors.New("Customer already has an overdue bill")
		}
	}
	e.addBill(&Bill{
		BillID: a.NewBillID, CustomerID: a.CustomerID,
		PeriodStart: lastMonthStart, PeriodEnd: lastMonthEnd, IssueDate: lastMonthStart,
		TotalDue: amount, DueDate: lastMonthDueDay, Status: BillOverdue,
		LineItems: []LineItem{{Description: "Charge for line " + l.LineID, Amount: amount, Date: today, ItemType: "Charge"}},
	})
	mc, _ := e.customers.Mut(a.CustomerID)
	mc.BillIDs = append(mc.BillIDs, a.NewBillID)
	ml, _ := e.lines.Mut(a.LineID)
	ml.Status = LineSuspended
	d := today
	ml.SuspensionStartDate = &d
	if a.ContractEnded {
		end := lastMonthEnd
		ml.ContractEndDate = &end
	}
	return fmt.Sprintf("Line %s suspended for unpaid bill %s. Contract ended: %s", a.LineID, a.NewBillID, pyjson.Str(a.ContractEnded)), nil
}

func assertDataRefuelingAmount(_ context.Context, e *Env, a refuelAmountArgs) (any, error) {
	l, err := e.targetLine(a.CustomerID, a.LineID)
	if err != nil {
		return nil, err
	}
	return math.Abs(l.DataRefuelingGB-a.ExpectedAmount) < 1e-6, nil
}

func assertLineStatus(_ context.Context, e *Env, a lineStatusArgs) (any, error) {
	l, err := e.targetLine(a.CustomerID, a.LineID)
	if err != nil {
		return nil, err
	}
	return l.Status == a.ExpectedStatus, nil
}

func assertOverdueBillExists(_ context.Context, e *Env, a overdueExistsArgs) (any, error) {
	c, err := e.customerByID(a.CustomerID)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(c.BillIDs, a.OverdueBillID) {
		return nil, fmt.Errorf("Overdue bill %s not found", a.OverdueBillID)
	}
	b, err := e.billByID(a.OverdueBillID)
	if err != nil {
		return nil, err
	}
	if b.Status != BillOverdue {
		return nil, fmt.Errorf("Overdue bill %s is not overdue", a.OverdueBillID)
	}
	return true, nil
}

func assertNoOverdueBill(_ context.Context, e *Env, a noOverdueArgs) (any, error) {
	b, err := e.billByID(a.OverdueBillID)
	if err != nil || b.Status == BillPaid {
		return true, nil
	}
	return false, nil
}
