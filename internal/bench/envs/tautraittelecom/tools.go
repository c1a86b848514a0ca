package tautraittelecom

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyops"
	"github.com/ledgerbench/ledgerbench/internal/py/table"
)

// Tool names the ledger and the gate refer to.
const (
	toolManageService = "manage_service"
	toolCreateTicket  = "create_support_ticket"
	toolAddDevice     = "add_device"
	toolManageBilling = "manage_billing"
	toolModifyTicket  = "modify_support_ticket"
	toolRecordPayment = "record_payment"
)

// newTools builds the 18 tools in upstream's ALL_TOOLS order
// (tools/__init__.py, checked at load). Descriptions and parameter schemas
// are upstream's get_info() dicts, read at load time. The six tools that can
// change the data are writes (manage_service also lists); st is where
// troubleshoot_device finds its answers.
func newTools(st *steps) []tauv1.Def {
	return []tauv1.Def{
		{Class: "Calculate", Tool: tool.New("calculate", tool.Generic, "", calculate)},
		{Class: "Think", Tool: tool.New("think", tool.Think, "", think)},
		{Class: "FindCustomerByEmail", Tool: tool.New("find_customer_by_email", tool.Read, "", findCustomerByEmail)},
		{Class: "FindCustomerByPhone", Tool: tool.New("find_customer_by_phone", tool.Read, "", findCustomerByPhone)},
		{Class: "GetCustomerDetails", Tool: tool.New("get_customer_details", tool.Read, "", getCustomerDetails)},
		{Class: "GetServiceDetails", Tool: tool.New("get_service_details", tool.Read, "", getServiceDetails)},
		{Class: "GetDeviceDetails", Tool: tool.New("get_device_details", tool.Read, "", getDeviceDetails)},
		{Class: "GetBillingDetails", Tool: tool.New("get_billing_details", tool.Read, "", getBillingDetails)},
		{Class: "ManageService", Tool: tool.New(toolManageService, tool.Write, "", manageService)},
		{Class: "TroubleshootDevice", Tool: tool.New("troubleshoot_device", tool.Read, "", st.troubleshoot)},
		{Class: "CreateSupportTicket", Tool: tool.New(toolCreateTicket, tool.Write, "", createSupportTicket)},
		{Class: "GetSupportTicketDetails", Tool: tool.New("get_support_ticket_details", tool.Read, "", getSupportTicketDetails)},
		{Class: "AddDevice", Tool: tool.New(toolAddDevice, tool.Write, "", addDevice)},
		{Class: "ManageBilling", Tool: tool.New(toolManageBilling, tool.Write, "", manageBilling)},
		{Class: "GetServices", Tool: tool.New("get_services", tool.Read, "", getServices)},
		{Class: "GetSeniorDiscount", Tool: tool.New("get_senior_discount", tool.Read, "", getSeniorDiscount)},
		{Class: "ModifySupportTicket", Tool: tool.New(toolModifyTicket, tool.Write, "", modifySupportTicket)},
		{Class: "RecordPayment", Tool: tool.New(toolRecordPayment, tool.Write, "", recordPayment)},
	}
}

// The tables, and the read-only ones of the loaded data.
func customers(e *tauv1.Env) *table.Table[pyjson.Dict] { return e.View("customers") }
func billing(e *tauv1.Env) *table.Table[pyjson.Dict]   { return e.View("billing") }
func tickets(e *tauv1.Env) *table.Table[pyjson.Dict]   { return e.View("support_tickets") }

func catalog(e *tauv1.Env, name string) *omap.Map[*pyjson.Dict] {
	t, _ := e.DB().Table(name)
	return t
}

// dget is d.get(key, def) on a dict; found reports whether the key was
// there (a default list is a temporary: appending to it changes nothing).
func dget(d any, key string, def any) (v any, found bool, err error) {
	x, ok := d.(*pyjson.Dict)
	if !ok {
		return nil, false, pyops.AttributeError(d, "get")
	}
	if v, ok := x.Get(key); ok {
		return v, true, nil
	}
	return def, false, nil
}

// catalogKey is `key in services` (or devices) for a read-only table.
func catalogKey(m *omap.Map[*pyjson.Dict], key any) (string, bool, error) {
	k, ok, err := pyjson.DictKey(key)
	if err != nil {
		return "", false, pyops.TypeError("%s", err.Error())
	}
	return k, ok && m.Has(k), nil
}

func str(v any) string { return pyjson.Str(v) }

func dumps(v any) (any, error) { return tauv1.Dumps(v) }

func calculate(_ context.Context, _ *tauv1.Env, a calculateArgs) (any, error) {
	return tauv1.Calculate(a.Expression.V)
}

func think(context.Context, *tauv1.Env, thinkArgs) (any, error) { return "", nil }

// ---- lookups ----

func findCustomerByEmail(_ context.Context, e *tauv1.Env, a emailArgs) (any, error) {
	for id, c := range customers(e).All() {
		demo, _, err := dget(c, "demographics", &pyjson.Dict{})
		if err != nil {
			return nil, err
		}
		mail, _, err := dget(demo, "email", "")
		if err != nil {
			return nil, err
		}
		left, err := pyops.Lower(mail)
		if err != nil {
			return nil, err
		}
		right, err := pyops.Lower(a.Email.V)
		if err != nil {
			return nil, err
		}
		if left == right {
			return id, nil
		}
	}
	return "Error: No customer found with email address: " + str(a.Email.V), nil
}

// digits is ”.join(filter(str.isdigit, v)).
func digits(v any) (string, error) {
	items, err := pyops.Iter(v)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			return "", pyops.TypeError("descriptor 'isdigit' for 'str' objects doesn't apply to a '%s' object", pyjson.TypeName(it))
		}
		if isDigits(s) {
			b.WriteString(s)
		}
	}
	return b.String(), nil
}

// isDigits is str.isdigit(): non-empty and every character a digit.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !pyjson.IsDigit(r) {
			return false
		}
	}
	return true
}

func findCustomerByPhone(_ context.Context, e *tauv1.Env, a phoneArgs) (any, error) {
	want, err := digits(a.Phone.V)
	if err != nil {
		return nil, err
	}
	for id, c := range customers(e).All() {
		demo, _, err := dget(c, "demographics", &pyjson.Dict{})
		if err != nil {
			return nil, err
		}
		phone, _, err := dget(demo, "phone", "")
		if err != nil {
			return nil, err
		}
		got, err := digits(phone)
		if err != nil {
			return nil, err
		}
		if got == want {
			return id, nil
		}
	}
	return "Error: No customer found with phone number: " + str(a.Phone.V), nil
}

// record answers a lookup: json.dumps of table[key], or the tool's
// not-found text and the key.
func record(t *table.Table[pyjson.Dict], key any, notFound string) (any, error) {
	k, ok, err := tauv1.Key(t, key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return notFound + str(key), nil
	}
	r, _ := t.Get(k)
	return dumps(r)
}

// catalogRecord is record over a read-only table.
func catalogRecord(m *omap.Map[*pyjson.Dict], key any, notFound string) (any, error) {
	k, ok, err := catalogKey(m, key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return notFound + str(key), nil
	}
	r, _ := m.Get(k)
	return dumps(r)
}

func getCustomerDetails(_ context.Context, e *tauv1.Env, a customerArgs) (any, error) {
	return record(customers(e), a.CustomerID.V, "Error: Customer not found: ")
}

func getServiceDetails(_ context.Context, e *tauv1.Env, a serviceArgs) (any, error) {
	return catalogRecord(catalog(e, "services"), a.ServiceID.V, "Error: Service not found: ")
}

func getDeviceDetails(_ context.Context, e *tauv1.Env, a deviceArgs) (any, error) {
	return catalogRecord(catalog(e, "devices"), a.DeviceName.V, "Error: Device not found: ")
}

func getBillingDetails(_ context.Context, e *tauv1.Env, a customerArgs) (any, error) {
	return record(billing(e), a.CustomerID.V, "Error: No billing information found for customer: ")
}

func getSupportTicketDetails(_ context.Context, e *tauv1.Env, a ticketArgs) (any, error) {
	return record(tickets(e), a.TicketID.V, "Error: Support ticket not found: ")
}

func getServices(_ context.Context, e *tauv1.Env, _ noArgs) (any, error) {
	return dumps(catalog(e, "services"))
}

// float is float(v) as the tools call it inside try/except (TypeError,
// ValueError): ok false for those; an int too large for a float
// (OverflowError) is not caught, so it is the error.
func float(v any) (f float64, ok bool, err error) {
	if x, isFloat := v.(float64); isFloat { // a value a tool stored
		return x, true, nil
	}
	f, err = pyjson.ToFloat(v)
	switch {
	case err == nil:
		return f, true, nil
	case strings.HasPrefix(err.Error(), "int too large"):
		return 0, false, &pyops.Error{Type: "OverflowError", Msg: err.Error()}
	}
	return 0, false, nil
}

func getSeniorDiscount(_ context.Context, _ *tauv1.Env, a discountArgs) (any, error) {
	price, ok, err := float(a.OriginalPrice.V)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return "Error: original_price must be a number", nil
	}
	return pyjson.FormatFixed(maxZero(price-5.0), 2), nil
}

// maxZero is max(x, 0.0): the first argument unless 0.0 is greater (so NaN
// and -0.0 stay).
func maxZero(x float64) float64 {
	if 0.0 > x {
		return 0
	}
	return x
}

// ---- services ----

func manageService(_ context.Context, e *tauv1.Env, a manageServiceArgs) (any, error) {
	cid, ok, err := tauv1.Key(customers(e), a.CustomerID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: Customer not found: " + str(a.CustomerID.V), nil
	}
	action := a.Action.V
	if pyops.Eq(action, "list") {
		cust, _ := customers(e).Get(cid)
		svcs, _, err := dget(cust, "services", []any{})
		if err != nil {
			return nil, err
		}
		ids, err := pyops.Iter(svcs)
		if err != nil {
			return nil, err
		}
		result := []any{}
		for _, id := range ids {
			k, ok, err := catalogKey(catalog(e, "services"), id)
			if err != nil {
				return nil, err
			}
			if ok {
				s, _ := catalog(e, "services").Get(k)
				result = append(result, s)
			}
		}
		out := &pyjson.Dict{}
		out.Set("customer_id", cid)
		out.Set("services", result)
		return dumps(out)
	}
	sid := a.ServiceID.Or(nil)
	if !pyjson.Truthy(sid) {
		return "Error: Service ID is required for action: " + str(action), nil
	}
	switch {
	case pyops.Eq(action, "add"):
		return addService(e, cid, sid, a.DevicesIDs.Or(nil))
	case pyops.Eq(action, "remove"):
		return removeService(e, cid, sid)
	}
	return "Error: Invalid action: " + str(action) + ". Valid actions are: add, remove, list", nil
}

// customerLists is the customer's record, owned by the simulation, with its
// services and devices as customer.get(…, []) gives them; keepSvcs says
// whether the services list is the record's own.
func customerLists(e *tauv1.Env, cid string) (cust *pyjson.Dict, svcs, devs any, keepSvcs bool, err error) {
	cust, _ = customers(e).Mut(cid)
	if svcs, keepSvcs, err = dget(cust, "services", []any{}); err != nil {
		return nil, nil, nil, false, err
	}
	if devs, _, err = dget(cust, "devices", []any{}); err != nil {
		return nil, nil, nil, false, err
	}
	return cust, svcs, devs, keepSvcs, nil
}

func addService(e *tauv1.Env, cid string, sid, deviceIDs any) (any, error) {
	sk, ok, err := catalogKey(catalog(e, "services"), sid)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: Service not found: " + str(sid), nil
	}
	cur, _ := customers(e).Get(cid)
	svcsNow, _, err := dget(cur, "services", []any{})
	if err != nil {
		return nil, err
	}
	has, err := pyops.Contains(svcsNow, sk)
	if err != nil {
		return nil, err
	}
	if has {
		return "Error: Customer " + cid + " already has service: " + sk, nil
	}
	cust, svcs, devs, keepSvcs, err := customerLists(e, cid)
	if err != nil {
		return nil, err
	}
	if pyjson.Truthy(deviceIDs) {
		wanted, err := pyops.Iter(deviceIDs)
		if err != nil {
			return nil, err
		}
		devList, err := pyops.Iter(devs)
		if err != nil {
			return nil, err
		}
		for _, want := range wanted {
			ids := make([]any, 0, len(devList))
			for _, d := range devList {
				id, err := pyops.GetItem(d, "device_id")
				if err != nil {
					return nil, err
				}
				ids = append(ids, id)
			}
			if found, _ := pyops.Contains(ids, want); !found {
				return "Error: Device not found: " + str(want) + " in devices " + str(devs), nil
			}
			for _, d := range devList {
				id, err := pyops.GetItem(d, "device_id")
				if err != nil {
					return nil, err
				}
				if pyops.Eq(id, want) {
					if err := pyops.SetItem(d, "service", sk); err != nil {
						return nil, err
					}
					break
				}
			}
		}
	}
	list, ok := svcs.([]any)
	if !ok {
		return nil, pyops.AttributeError(svcs, "append")
	}
	if keepSvcs {
		cust.Set("services", append(list, sk))
	}
	svc, _ := catalog(e, "services").Get(sk)
	name, _, _ := dget(svc, "name", sk)
	if _, ok := billing(e).Get(cid); ok {
		price, _, _ := dget(svc, "price", pyops.Float(0))
		entry, _ := billing(e).Mut(cid)
		charges, err := pyops.GetItem(entry, "monthly_charges")
		if err != nil {
			return nil, err
		}
		if err := pyops.SetItem(charges, sk, price); err != nil {
			return nil, err
		}
	}
	return "Success: Added service '" + str(name) + "' to customer " + cid, nil
}

func removeService(e *tauv1.Env, cid string, sid any) (any, error) {
	cur, _ := customers(e).Get(cid)
	svcsNow, _, err := dget(cur, "services", []any{})
	if err != nil {
		return nil, err
	}
	has, err := pyops.Contains(svcsNow, sid)
	if err != nil {
		return nil, err
	}
	if !has {
		return "Error: Customer " + cid + " does not have service: " + str(sid), nil
	}
	cust, svcs, devs, keepSvcs, err := customerLists(e, cid)
	if err != nil {
		return nil, err
	}
	devList, err := pyops.Iter(devs)
	if err != nil {
		return nil, err
	}
	removed := []any{}
	for _, d := range devList {
		s, _, err := dget(d, "service", nil)
		if err != nil {
			return nil, err
		}
		if pyops.Eq(s, sid) {
			if err := pyops.SetItem(d, "service", nil); err != nil {
				return nil, err
			}
			name, _, _ := dget(d, "name", nil)
			removed = append(removed, name)
		}
	}
	list, ok := svcs.([]any)
	if !ok {
		return nil, pyops.AttributeError(svcs, "remove")
	}
	for i, s := range list {
		if pyops.Eq(s, sid) {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if keepSvcs {
		cust.Set("services", list)
	}
	sk, hashable, err := pyjson.DictKey(sid) // services.get(service_id, {})
	if err != nil {
		return nil, pyops.TypeError("%s", err.Error())
	}
	var name any = sid
	if svc, ok := catalog(e, "services").Get(sk); ok && hashable {
		name, _, _ = dget(svc, "name", sid)
	}
	if _, ok := billing(e).Get(cid); ok {
		entry, _ := billing(e).Mut(cid)
		charges, err := pyops.GetItem(entry, "monthly_charges")
		if err != nil {
			return nil, err
		}
		if err := pop(charges, sid); err != nil {
			return nil, err
		}
	}
	return "Success: Removed service '" + str(name) + "' from customer " + cid + ". Devices " + pyjson.Repr(removed) +
		" are now no longer associated with the service.", nil
}

// pop is d.pop(key) without a default.
func pop(v, key any) error {
	d, ok := v.(*pyjson.Dict)
	if !ok {
		return pyops.AttributeError(v, "pop")
	}
	k, hashable, err := pyjson.DictKey(key)
	if err != nil {
		return pyops.TypeError("%s", err.Error())
	}
	if !hashable {
		return pyops.KeyError(key)
	}
	if err := pyops.Delete(d, k); err != nil {
		return pyops.KeyError(key)
	}
	return nil
}

// ---- tickets ----

var (
	ticketCategories = []string{"mobile", "internet", "tv", "billing", "account", "device", "security", "phone"}
	ticketPriorities = []string{"low", "medium", "high", "urgent"}
)

func oneOf(v any, list []string) bool {
	for _, s := range list {
		if pyops.Eq(v, s) {
			return true
		}
	}
	return false
}

func createSupportTicket(_ context.Context, e *tauv1.Env, a createTicketArgs) (any, error) {
	cid, ok, err := tauv1.Key(customers(e), a.CustomerID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: Customer not found: " + str(a.CustomerID.V), nil
	}
	if !oneOf(a.Category.V, ticketCategories) {
		return "Error: Invalid category: " + str(a.Category.V) + ". Valid categories: " + strings.Join(ticketCategories, ", "), nil
	}
	priority := a.Priority.Or("medium")
	if !oneOf(priority, ticketPriorities) {
		return "Error: Invalid priority: " + str(priority) + ". Valid priorities: " + strings.Join(ticketPriorities, ", "), nil
	}
	ts := tickets(e)
	id := fmt.Sprintf("TICKET%03d", ts.Len()+1)
	t := &pyjson.Dict{}
	t.Set("ticket_id", id)
	t.Set("customer_id", cid)
	t.Set("status", "open")
	t.Set("priority", priority)
	t.Set("category", a.Category.V)
	ts.Add(id, t)
	return "Success: Created support ticket " + id + " for customer " + cid, nil
}

func modifySupportTicket(_ context.Context, e *tauv1.Env, a modifyTicketArgs) (any, error) {
	tid, ok, err := tauv1.Key(tickets(e), a.TicketID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: Support ticket not found: " + str(a.TicketID.V), nil
	}
	t, _ := tickets(e).Mut(tid)
	t.Set("status", stored(a.Status.V))
	t.Set("priority", stored(a.Priority.V))
	return "Success: Modified support ticket " + tid + " with status " + str(a.Status.V) + " and priority " + str(a.Priority.V), nil
}

// stored is an argument as upstream stores it in the data: what json.loads
// made of it, float literals as floats (1e400 is inf, dumped as Infinity).
func stored(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, el := range x {
			out[i] = stored(el)
		}
		return out
	case *pyjson.Dict:
		out := &pyjson.Dict{Keys: append([]string(nil), x.Keys...), Values: make([]any, len(x.Values))}
		for i, el := range x.Values {
			out.Values[i] = stored(el)
		}
		return out
	case json.Number:
		if !pyjson.IsInt(x) {
			return pyops.Float(pyjson.NumberFloat(x))
		}
	}
	return v
}

// ---- devices ----

func addDevice(_ context.Context, e *tauv1.Env, a addDeviceArgs) (any, error) {
	cid, ok, err := tauv1.Key(customers(e), a.CustomerID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: Customer not found: " + str(a.CustomerID.V), nil
	}
	cur, _ := customers(e).Get(cid)
	devsNow, _, err := dget(cur, "devices", []any{})
	if err != nil {
		return nil, err
	}
	if _, known, err := catalogKey(catalog(e, "devices"), a.DeviceName.V); err != nil {
		return nil, err
	} else if !known {
		return "Error: Invalid device name: " + str(a.DeviceName.V), nil
	}
	n, err := pyops.Len(devsNow)
	if err != nil {
		return nil, err
	}
	if _, ok := devsNow.([]any); !ok {
		return nil, pyops.AttributeError(devsNow, "append")
	}
	d := &pyjson.Dict{}
	d.Set("device_id", strconv.Itoa(n+1))
	d.Set("name", a.DeviceName.V)
	d.Set("service", nil)
	// The list read above is the shared record's: append to this
	// simulation's copy (a default list's append is lost).
	cust, _ := customers(e).Mut(cid)
	if _, own := cust.Get("devices"); own {
		if err := tauv1.Append(cust, "devices", d); err != nil {
			return nil, err
		}
	}
	return "Success: Added device '" + str(a.DeviceName.V) + "' to customer " + cid, nil
}

// ---- billing ----

func manageBilling(_ context.Context, e *tauv1.Env, a manageBillingArgs) (any, error) {
	cid, ok, err := tauv1.Key(customers(e), a.CustomerID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: Customer not found: " + str(a.CustomerID.V), nil
	}
	b, err := tauv1.MutLookup(billing(e), cid)
	if err != nil {
		return nil, err
	}
	b.Set("paperless", stored(a.Paperless.V))
	b.Set("auto_pay", stored(a.AutoPay.V))
	b.Set("billing_cycle", stored(a.BillingCycle.V))
	out := &pyjson.Dict{}
	out.Set("customer_id", cid)
	out.Set("billing", b)
	return dumps(out)
}

func recordPayment(_ context.Context, e *tauv1.Env, a paymentArgs) (any, error) {
	cid, ok, err := tauv1.Key(billing(e), a.CustomerID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: No billing information found for customer: " + str(a.CustomerID.V), nil
	}
	f, ok, err := float(a.Amount.V)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return "Error: amount must be a number", nil
	}
	amount := pyjson.Round(f, 2)
	cur, _ := billing(e).Get(cid)
	bal, _, err := dget(cur, "current_balance", pyops.Float(0))
	if err != nil {
		return nil, err
	}
	balance, ok, err := float(bal)
	if err != nil {
		return nil, err
	}
	if !ok { // outside upstream's try: the exception stands
		_, err := pyjson.ToFloat(bal)
		return nil, pyops.TypeError("%s", err.Error())
	}
	newBalance := maxZero(pyjson.Round(balance-amount, 2))
	entry, _ := billing(e).Mut(cid)
	entry.Set("current_balance", pyops.Float(newBalance))
	rec := &pyjson.Dict{}
	rec.Set("date", stored(a.Date.V))
	rec.Set("amount", pyops.Float(amount))
	rec.Set("status", "completed")
	if _, ok := entry.Get("payment_history"); !ok {
		entry.Set("payment_history", []any{}) // setdefault
	}
	if err := tauv1.Append(entry, "payment_history", rec); err != nil {
		return nil, err
	}
	last := &pyjson.Dict{}
	last.Set("amount", pyops.Float(amount))
	last.Set("date", stored(a.Date.V))
	last.Set("method", stored(a.Method.V))
	last.Set("status", "completed")
	entry.Set("last_payment", last)
	out := &pyjson.Dict{}
	out.Set("customer_id", cid)
	out.Set("amount", pyjson.FormatFixed(amount, 2))
	out.Set("method", stored(a.Method.V))
	out.Set("date", stored(a.Date.V))
	out.Set("current_balance", pyjson.FormatFixed(newBalance, 2))
	return dumps(out)
}
