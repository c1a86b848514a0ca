package tautraittelecom

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/table"
)

// toolDef is one upstream tool: its class name (for Python's argument
// errors) and its implementation.
type toolDef struct {
	class string
	tool  tool.Tool[*Env]
}

// newTools builds the 18 tools in upstream's ALL_TOOLS order
// (tools/__init__.py). Their descriptions and parameter schemas are
// upstream's get_info() dicts, read at load time (LoadSchemas). Kinds: the
// six tools that can change the data are writes (manage_service also lists),
// the lookups reads.
func newTools() []toolDef {
	return []toolDef{
		{"Calculate", tool.New("calculate", tool.Generic, "", tauv1.Calculate[*Env])},
		{"Think", tool.New("think", tool.Think, "", tauv1.Think[*Env])},
		{"FindCustomerByEmail", tool.New("find_customer_by_email", tool.Read, "", findCustomerByEmail)},
		{"FindCustomerByPhone", tool.New("find_customer_by_phone", tool.Read, "", findCustomerByPhone)},
		{"GetCustomerDetails", tool.New("get_customer_details", tool.Read, "", getCustomerDetails)},
		{"GetServiceDetails", tool.New("get_service_details", tool.Read, "", getServiceDetails)},
		{"GetDeviceDetails", tool.New("get_device_details", tool.Read, "", getDeviceDetails)},
		{"GetBillingDetails", tool.New("get_billing_details", tool.Read, "", getBillingDetails)},
		{"ManageService", tool.New("manage_service", tool.Write, "", manageService)},
		{"TroubleshootDevice", tool.New("troubleshoot_device", tool.Read, "", troubleshootDevice)},
		{"CreateSupportTicket", tool.New("create_support_ticket", tool.Write, "", createSupportTicket)},
		{"GetSupportTicketDetails", tool.New("get_support_ticket_details", tool.Read, "", getSupportTicketDetails)},
		{"AddDevice", tool.New("add_device", tool.Write, "", addDevice)},
		{"ManageBilling", tool.New("manage_billing", tool.Write, "", manageBilling)},
		{"GetServices", tool.New("get_services", tool.Read, "", getServices)},
		{"GetSeniorDiscount", tool.New("get_senior_discount", tool.Read, "", getSeniorDiscount)},
		{"ModifySupportTicket", tool.New("modify_support_ticket", tool.Write, "", modifySupportTicket)},
		{"RecordPayment", tool.New("record_payment", tool.Write, "", recordPayment)},
	}
}

// key is `v in table` for a table of str keys: the key, whether it is
// there, and the TypeError an unhashable value raises.
func key(t interface{ Has(string) bool }, v any) (string, bool, error) {
	k, ok, err := pyjson.DictKey(v)
	if err != nil || !ok {
		return "", false, err
	}
	return k, t.Has(k), nil
}

func dumps(v any) string { return pyjson.String(v) }

// ---- lookups ----

func findCustomerByEmail(_ context.Context, e *Env, a emailArgs) (any, error) {
	for id, c := range e.customers.All() {
		demo, _, err := get(c, "demographics", &pyjson.Dict{})
		if err != nil {
			return nil, err
		}
		mail, _, err := get(demo, "email", "")
		if err != nil {
			return nil, err
		}
		left, err := lower(mail)
		if err != nil {
			return nil, err
		}
		right, err := lower(a.Email.V)
		if err != nil {
			return nil, err
		}
		if left == right {
			return id, nil
		}
	}
	return "Error: No customer found with email address: " + pyjson.Str(a.Email.V), nil
}

// digits is ”.join(filter(str.isdigit, v)).
func digits(v any) (string, error) {
	items, err := iterate(v)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			return "", fmt.Errorf("descriptor 'isdigit' for 'str' objects doesn't apply to a '%s' object", pyjson.TypeName(it))
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

func findCustomerByPhone(_ context.Context, e *Env, a phoneArgs) (any, error) {
	want, err := digits(a.Phone.V)
	if err != nil {
		return nil, err
	}
	for id, c := range e.customers.All() {
		demo, _, err := get(c, "demographics", &pyjson.Dict{})
		if err != nil {
			return nil, err
		}
		phone, _, err := get(demo, "phone", "")
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
	return "Error: No customer found with phone number: " + pyjson.Str(a.Phone.V), nil
}

// record answers a lookup tool: json.dumps of the record, or the tool's
// not-found text followed by the argument.
func record(t *table.Table[pyjson.Dict], v any, notFound string) (any, error) {
	k, ok, err := key(t, v)
	if err != nil {
		return nil, err
	}
	if !ok {
		return notFound + pyjson.Str(v), nil
	}
	r, _ := t.Get(k)
	return dumps(r), nil
}

// catalog is record for the read-only tables.
func catalog(m interface {
	Has(string) bool
	Get(string) (*pyjson.Dict, bool)
}, v any, notFound string) (any, error) {
	k, ok, err := key(m, v)
	if err != nil {
		return nil, err
	}
	if !ok {
		return notFound + pyjson.Str(v), nil
	}
	r, _ := m.Get(k)
	return dumps(r), nil
}

func getCustomerDetails(_ context.Context, e *Env, a customerArgs) (any, error) {
	return record(&e.customers, a.CustomerID.V, "Error: Customer not found: ")
}

func getServiceDetails(_ context.Context, e *Env, a serviceArgs) (any, error) {
	return catalog(&e.d.db.Services, a.ServiceID.V, "Error: Service not found: ")
}

func getDeviceDetails(_ context.Context, e *Env, a deviceArgs) (any, error) {
	return catalog(&e.d.db.Devices, a.DeviceName.V, "Error: Device not found: ")
}

func getBillingDetails(_ context.Context, e *Env, a customerArgs) (any, error) {
	return record(&e.billing, a.CustomerID.V, "Error: No billing information found for customer: ")
}

func getSupportTicketDetails(_ context.Context, e *Env, a ticketArgs) (any, error) {
	return record(&e.tickets, a.TicketID.V, "Error: Support ticket not found: ")
}

func getServices(_ context.Context, e *Env, _ noArgs) (any, error) {
	return dumps(e.d.db.Services), nil
}

func getSeniorDiscount(_ context.Context, _ *Env, a discountArgs) (any, error) {
	price, overflow, err := toFloat(a.OriginalPrice.V)
	switch {
	case overflow:
		return nil, err
	case err != nil:
		return "Error: original_price must be a number", nil
	}
	return pyjson.FormatFixed(maxZero(price-5.0), 2), nil
}

// ---- troubleshooting ----

// issues are the values of troubleshoot_device.py's Issue enum, in
// definition order.
var issues = []string{"no_service", "slow_speeds", "battery_drain"}

func troubleshootDevice(_ context.Context, e *Env, a troubleshootArgs) (any, error) {
	// issue = Issue(issue): a value lookup, else ValueError.
	issue := ""
	for _, v := range issues {
		if eq(a.Issue.V, v) {
			issue = v
		}
	}
	if issue == "" {
		return nil, fmt.Errorf("%s is not a valid Issue", pyjson.Repr(a.Issue.V))
	}
	k, ok, err := key(&e.d.db.Devices, a.DeviceName.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: Device not found: " + pyjson.Str(a.DeviceName.V), nil
	}
	dev, _ := e.d.db.Devices.Get(k)
	cat, _, err := get(dev, "category", "")
	if err != nil {
		return nil, err
	}
	st := e.d.steps
	switch {
	case eq(cat, "mobile_phone") || eq(cat, "phone"):
		switch issue {
		case "battery_drain":
			return st.phoneBattery, nil
		case "no_service":
			return st.phoneNoService, nil
		case "slow_speeds":
			return st.phoneSlow, nil
		}
	case eq(cat, "networking"):
		switch issue {
		case "no_service":
			return st.netNoService, nil
		case "slow_speeds":
			return st.netSlow, nil
		}
	case eq(cat, "tv"):
		if issue == "no_service" {
			return st.tvNoService, nil
		}
		// `issue == Issue.NO_SERVICE or issue == Issue.NO_SIGNAL`: the enum
		// has no NO_SIGNAL member (3.11's EnumType.__getattr__ text).
		return nil, fmt.Errorf("NO_SIGNAL")
	}
	return st.unknown, nil
}

// ---- services ----

func manageService(_ context.Context, e *Env, a manageServiceArgs) (any, error) {
	cid, ok, err := key(&e.customers, a.CustomerID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: Customer not found: " + pyjson.Str(a.CustomerID.V), nil
	}
	action := a.Action.V
	if eq(action, "list") {
		cust, _ := e.customers.Get(cid)
		svcs, _, err := get(cust, "services", []any{})
		if err != nil {
			return nil, err
		}
		ids, err := iterate(svcs)
		if err != nil {
			return nil, err
		}
		result := []any{}
		for _, id := range ids {
			k, ok, err := key(&e.d.db.Services, id)
			if err != nil {
				return nil, err
			}
			if ok {
				s, _ := e.d.db.Services.Get(k)
				result = append(result, s)
			}
		}
		out := &pyjson.Dict{}
		out.Set("customer_id", cid)
		out.Set("services", result)
		return dumps(out), nil
	}
	sid := a.ServiceID.Or(nil)
	if !pyjson.Truthy(sid) {
		return "Error: Service ID is required for action: " + pyjson.Str(action), nil
	}
	switch {
	case eq(action, "add"):
		return e.addService(cid, sid, a.DevicesIDs.Or(nil))
	case eq(action, "remove"):
		return e.removeService(cid, sid)
	}
	return "Error: Invalid action: " + pyjson.Str(action) + ". Valid actions are: add, remove, list", nil
}

// customerLists returns the customer's record (owned by this simulation)
// and its services and devices lists as customer.get(..., []) gives them;
// keep tells whether each list is the record's own (a default list's
// appends are lost).
func (e *Env) customerLists(cid string) (cust *pyjson.Dict, svcs, devs any, keepSvcs bool, err error) {
	cust, _ = e.customers.Mut(cid)
	svcs, keepSvcs, err = get(cust, "services", []any{})
	if err != nil {
		return nil, nil, nil, false, err
	}
	devs, _, err = get(cust, "devices", []any{})
	if err != nil {
		return nil, nil, nil, false, err
	}
	return cust, svcs, devs, keepSvcs, nil
}

func (e *Env) addService(cid string, sid, deviceIDs any) (any, error) {
	sk, ok, err := key(&e.d.db.Services, sid)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: Service not found: " + pyjson.Str(sid), nil
	}
	if cur, _ := e.customers.Get(cid); cur != nil {
		// Read before changing anything: nothing below may fail before
		// the first change without it.
		svcs, _, err := get(cur, "services", []any{})
		if err != nil {
			return nil, err
		}
		has, err := in(svcs, sk)
		if err != nil {
			return nil, err
		}
		if has {
			return "Error: Customer " + cid + " already has service: " + sk, nil
		}
	}
	cust, svcs, devs, keepSvcs, err := e.customerLists(cid)
	if err != nil {
		return nil, err
	}
	if pyjson.Truthy(deviceIDs) {
		wanted, err := iterate(deviceIDs)
		if err != nil {
			return nil, err
		}
		devList, err := iterate(devs)
		if err != nil {
			return nil, err
		}
		for _, want := range wanted {
			ids := make([]any, 0, len(devList))
			for _, d := range devList {
				id, err := item(d, "device_id")
				if err != nil {
					return nil, err
				}
				ids = append(ids, id)
			}
			if !contains(ids, want) {
				return "Error: Device not found: " + pyjson.Str(want) + " in devices " + pyjson.Str(devs), nil
			}
			for _, d := range devList {
				id, err := item(d, "device_id")
				if err != nil {
					return nil, err
				}
				if eq(id, want) {
					if err := setItem(d, "service", sk); err != nil {
						return nil, err
					}
					break
				}
			}
		}
	}
	list, ok := svcs.([]any)
	if !ok {
		return nil, fmt.Errorf("'%s' object has no attribute 'append'", pyjson.TypeName(svcs))
	}
	if keepSvcs {
		cust.Set("services", append(list, sk))
	}
	svc, _ := e.d.db.Services.Get(sk)
	name, _, _ := get(svc, "name", sk)
	if b, ok := e.billing.Get(cid); ok && b != nil {
		price, _, _ := get(svc, "price", 0.0)
		entry, _ := e.billing.Mut(cid)
		charges, err := item(entry, "monthly_charges")
		if err != nil {
			return nil, err
		}
		if err := setItem(charges, sk, price); err != nil {
			return nil, err
		}
	}
	return "Success: Added service '" + pyjson.Str(name) + "' to customer " + cid, nil
}

// in is `x in v` for a container v (a list compares by ==, a dict looks
// the key up, a str looks for a substring).
func in(v, x any) (bool, error) {
	switch c := v.(type) {
	case []any:
		return contains(c, x), nil
	case *pyjson.Dict:
		k, ok, err := pyjson.DictKey(x)
		if err != nil || !ok {
			return false, err
		}
		_, found := c.Get(k)
		return found, nil
	case string:
		s, ok := x.(string)
		if !ok {
			return false, fmt.Errorf("'in <string>' requires string as left operand, not %s", pyjson.TypeName(x))
		}
		return strings.Contains(c, s), nil
	}
	return false, fmt.Errorf("argument of type '%s' is not iterable", pyjson.TypeName(v))
}

func (e *Env) removeService(cid string, sid any) (any, error) {
	cur, _ := e.customers.Get(cid)
	svcsNow, _, err := get(cur, "services", []any{})
	if err != nil {
		return nil, err
	}
	has, err := in(svcsNow, sid)
	if err != nil {
		return nil, err
	}
	if !has {
		return "Error: Customer " + cid + " does not have service: " + pyjson.Str(sid), nil
	}
	cust, svcs, devs, keepSvcs, err := e.customerLists(cid)
	if err != nil {
		return nil, err
	}
	devList, err := iterate(devs)
	if err != nil {
		return nil, err
	}
	removed := []any{}
	for _, d := range devList {
		s, _, err := get(d, "service", nil)
		if err != nil {
			return nil, err
		}
		if eq(s, sid) {
			if err := setItem(d, "service", nil); err != nil {
				return nil, err
			}
			name, _, _ := get(d, "name", nil)
			removed = append(removed, name)
		}
	}
	list, ok := svcs.([]any)
	if !ok {
		return nil, fmt.Errorf("'%s' object has no attribute 'remove'", pyjson.TypeName(svcs))
	}
	for i, s := range list {
		if eq(s, sid) {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if keepSvcs {
		cust.Set("services", list)
	}
	sk, hashable, err := pyjson.DictKey(sid) // services.get(service_id, {})
	if err != nil {
		return nil, err
	}
	var name any = sid
	if svc, ok := e.d.db.Services.Get(sk); ok && hashable {
		name, _, _ = get(svc, "name", sid)
	}
	if b, ok := e.billing.Get(cid); ok && b != nil {
		entry, _ := e.billing.Mut(cid)
		charges, err := item(entry, "monthly_charges")
		if err != nil {
			return nil, err
		}
		if err := pop(charges, sid); err != nil {
			return nil, err
		}
	}
	return "Success: Removed service '" + pyjson.Str(name) + "' from customer " + cid + ". Devices " + pyjson.Repr(removed) +
		" are now no longer associated with the service.", nil
}

// pop is d.pop(key) without a default.
func pop(v, k any) error {
	d, ok := v.(*pyjson.Dict)
	if !ok {
		return fmt.Errorf("'%s' object has no attribute 'pop'", pyjson.TypeName(v))
	}
	ks, hashable, err := pyjson.DictKey(k)
	if err != nil {
		return err
	}
	if hashable {
		for i, kk := range d.Keys {
			if kk == ks {
				d.Keys = append(d.Keys[:i:i], d.Keys[i+1:]...)
				d.Values = append(d.Values[:i:i], d.Values[i+1:]...)
				return nil
			}
		}
	}
	return pyjson.KeyError(k)
}

// ---- tickets ----

var (
	ticketCategories = []string{"mobile", "internet", "tv", "billing", "account", "device", "security", "phone"}
	ticketPriorities = []string{"low", "medium", "high", "urgent"}
)

func oneOf(v any, list []string) bool {
	for _, s := range list {
		if eq(v, s) {
			return true
		}
	}
	return false
}

func createSupportTicket(_ context.Context, e *Env, a createTicketArgs) (any, error) {
	cid, ok, err := key(&e.customers, a.CustomerID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: Customer not found: " + pyjson.Str(a.CustomerID.V), nil
	}
	if !oneOf(a.Category.V, ticketCategories) {
		return "Error: Invalid category: " + pyjson.Str(a.Category.V) + ". Valid categories: " + strings.Join(ticketCategories, ", "), nil
	}
	priority := a.Priority.Or("medium")
	if !oneOf(priority, ticketPriorities) {
		return "Error: Invalid priority: " + pyjson.Str(priority) + ". Valid priorities: " + strings.Join(ticketPriorities, ", "), nil
	}
	id := fmt.Sprintf("TICKET%03d", e.tickets.Len()+1)
	t := &pyjson.Dict{}
	t.Set("ticket_id", id)
	t.Set("customer_id", cid)
	t.Set("status", "open")
	t.Set("priority", stored(priority))
	t.Set("category", stored(a.Category.V))
	e.tickets.Add(id, t)
	return "Success: Created support ticket " + id + " for customer " + cid, nil
}

func modifySupportTicket(_ context.Context, e *Env, a modifyTicketArgs) (any, error) {
	tid, ok, err := key(&e.tickets, a.TicketID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: Support ticket not found: " + pyjson.Str(a.TicketID.V), nil
	}
	t, _ := e.tickets.Mut(tid)
	t.Set("status", stored(a.Status.V))
	t.Set("priority", stored(a.Priority.V))
	return "Success: Modified support ticket " + tid + " with status " + pyjson.Str(a.Status.V) + " and priority " + pyjson.Str(a.Priority.V), nil
}

// ---- devices ----

func addDevice(_ context.Context, e *Env, a addDeviceArgs) (any, error) {
	cid, ok, err := key(&e.customers, a.CustomerID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: Customer not found: " + pyjson.Str(a.CustomerID.V), nil
	}
	cur, _ := e.customers.Get(cid)
	devsNow, _, err := get(cur, "devices", []any{})
	if err != nil {
		return nil, err
	}
	_, known, err := key(&e.d.db.Devices, a.DeviceName.V)
	if err != nil {
		return nil, err
	}
	if !known {
		return "Error: Invalid device name: " + pyjson.Str(a.DeviceName.V), nil
	}
	list, ok := devsNow.([]any)
	if !ok {
		return nil, fmt.Errorf("'%s' object has no attribute 'append'", pyjson.TypeName(devsNow))
	}
	d := &pyjson.Dict{}
	d.Set("device_id", strconv.Itoa(len(list)+1))
	d.Set("name", a.DeviceName.V)
	d.Set("service", nil)
	// The list read above is the shared record's: append to this
	// simulation's copy.
	cust, _ := e.customers.Mut(cid)
	if own, ok := cust.Get("devices"); ok {
		cust.Set("devices", append(own.([]any), d))
	}
	return "Success: Added device '" + pyjson.Str(a.DeviceName.V) + "' to customer " + cid, nil
}

// ---- billing ----

func manageBilling(_ context.Context, e *Env, a manageBillingArgs) (any, error) {
	cid, ok, err := key(&e.customers, a.CustomerID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: Customer not found: " + pyjson.Str(a.CustomerID.V), nil
	}
	b, ok := e.billing.Mut(cid)
	if !ok {
		return nil, pyjson.KeyError(cid)
	}
	b.Set("paperless", stored(a.Paperless.V))
	b.Set("auto_pay", stored(a.AutoPay.V))
	b.Set("billing_cycle", stored(a.BillingCycle.V))
	out := &pyjson.Dict{}
	out.Set("customer_id", cid)
	out.Set("billing", b)
	return dumps(out), nil
}

func recordPayment(_ context.Context, e *Env, a paymentArgs) (any, error) {
	cid, ok, err := key(&e.billing, a.CustomerID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: No billing information found for customer: " + pyjson.Str(a.CustomerID.V), nil
	}
	f, overflow, err := toFloat(a.Amount.V)
	switch {
	case overflow:
		return nil, err
	case err != nil:
		return "Error: amount must be a number", nil
	}
	amount := pyjson.Round(f, 2)
	cur, _ := e.billing.Get(cid)
	bal, _, err := get(cur, "current_balance", 0.0)
	if err != nil {
		return nil, err
	}
	balance, _, err := toFloat(bal)
	if err != nil {
		return nil, err
	}
	newBalance := maxZero(pyjson.Round(balance-amount, 2))
	entry, _ := e.billing.Mut(cid)
	entry.Set("current_balance", newBalance)
	rec := &pyjson.Dict{}
	rec.Set("date", stored(a.Date.V))
	rec.Set("amount", amount)
	rec.Set("status", "completed")
	hist, ok := entry.Get("payment_history")
	if !ok {
		hist = []any{}
	}
	list, isList := hist.([]any)
	if !isList {
		entry.Set("payment_history", hist)
		return nil, fmt.Errorf("'%s' object has no attribute 'append'", pyjson.TypeName(hist))
	}
	entry.Set("payment_history", append(list, rec))
	last := &pyjson.Dict{}
	last.Set("amount", amount)
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
	return dumps(out), nil
}
