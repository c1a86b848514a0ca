package tautraittelecom

// LedgerAgent's tool path map for tautrait-telecom: where each successful
// read return is stored in the ledger. The lookups return json.dumps of a
// record (decoded into the view types below, which keep what the policy
// needs) or, for the two finders, the customer's id.
//
//	read tool                    ledger path                  value
//	---------------------------  ---------------------------  --------------------------------------------------
//	find_customer_by_email       located.<customer_id>        *Located (method "email")
//	find_customer_by_phone       located.<customer_id>        *Located (method "phone")
//	get_customer_details         customers.<customer_id>      *CustomerView (services, devices and their services)
//	get_billing_details          billing.<customer_id>        *BillingView (balance, monthly charges, preferences)
//	get_service_details          services.<service_id>        *ServiceView
//	get_services                 services.<service_id> (each) *ServiceView
//	get_device_details           devices.<device name>        *DeviceModel (the catalog entry)
//	get_support_ticket_details   tickets.<ticket_id>          *TicketView
//
// Answers that start with "Error:" (the tools' not-found texts, returned as
// ordinary results) give no entries; troubleshoot_device, get_senior_discount,
// calculate and think store nothing. Write returns are never stored: after
// a write the agent reads the record again (the evidence reads of audit.go).

import (
	"encoding/json"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
)

// Ledger path prefixes.
const (
	prefixLocated   = "located."
	prefixCustomers = "customers."
	prefixBilling   = "billing."
	prefixServices  = "services."
	prefixDevices   = "devices."
	prefixTickets   = "tickets."
)

// Located is a customer found by email or phone number: the id the agent
// is to read back to the user (Authentication).
type Located struct {
	CustomerID string `json:"customer_id"`
	Method     string `json:"method"` // "email" or "phone"
	Email      string `json:"email,omitempty"`
	Phone      string `json:"phone,omitempty"`
}

// CustomerView is what get_customer_details shows of a customer that the
// policy needs: the account, services and devices.
type CustomerView struct {
	CustomerID    string       `json:"customer_id"`
	Name          string       `json:"name,omitempty"`
	AccountNumber string       `json:"account_number,omitempty"`
	Services      []string     `json:"services"`
	Devices       []DeviceView `json:"devices"`
}

// DeviceView is one of a customer's devices; Service is "" for a device on
// no service.
type DeviceView struct {
	DeviceID string `json:"device_id"`
	Name     string `json:"name"`
	Service  string `json:"service,omitempty"`
}

// BillingView is what get_billing_details shows.
type BillingView struct {
	CustomerID     string             `json:"customer_id"`
	AccountNumber  string             `json:"account_number,omitempty"`
	CurrentBalance float64            `json:"current_balance"`
	MonthlyCharges map[string]float64 `json:"monthly_charges,omitempty"`
	AutoPay        bool               `json:"auto_pay"`
	Paperless      bool               `json:"paperless"`
	BillingCycle   string             `json:"billing_cycle,omitempty"`
}

// ServiceView is a service of the catalog.
type ServiceView struct {
	ServiceID string  `json:"service_id"`
	Name      string  `json:"name"`
	Category  string  `json:"category"`
	Price     float64 `json:"price"`
}

// DeviceModel is a device of the catalog (get_device_details).
type DeviceModel struct {
	Name         string `json:"name"`
	Category     string `json:"category"`
	Manufacturer string `json:"manufacturer"`
	Model        string `json:"model"`
}

// TicketView is a support ticket.
type TicketView struct {
	TicketID   string `json:"ticket_id"`
	CustomerID string `json:"customer_id"`
	Status     string `json:"status"`
	Priority   string `json:"priority"`
	Category   string `json:"category,omitempty"`
}

// Route implements ledger.Router: the static tool path map above.
func (d *Domain) Route(tool string, args json.RawMessage, output string) []ledger.Entry {
	if strings.HasPrefix(output, "Error:") {
		return nil
	}
	in := stringArgs(args)
	switch tool {
	case "find_customer_by_email", "find_customer_by_phone":
		id := strings.TrimSpace(output)
		if id == "" || strings.ContainsAny(id, " \n") {
			return nil
		}
		l := &Located{CustomerID: id, Method: "email", Email: in["email"]}
		if tool == "find_customer_by_phone" {
			l = &Located{CustomerID: id, Method: "phone", Phone: in["phone"]}
		}
		return []ledger.Entry{{Path: prefixLocated + id, Value: l}}
	case "get_customer_details":
		var raw struct {
			CustomerID string `json:"customer_id"`
			Name       struct {
				First string `json:"first_name"`
				Last  string `json:"last_name"`
			} `json:"name"`
			Account struct {
				Number string `json:"account_number"`
			} `json:"account"`
			Services []string `json:"services"`
			Devices  []struct {
				DeviceID string  `json:"device_id"`
				Name     string  `json:"name"`
				Service  *string `json:"service"`
			} `json:"devices"`
		}
		if json.Unmarshal([]byte(output), &raw) != nil {
			return nil
		}
		id := raw.CustomerID
		if id == "" {
			id = in["customer_id"]
		}
		v := &CustomerView{CustomerID: id, Name: strings.TrimSpace(raw.Name.First + " " + raw.Name.Last), AccountNumber: raw.Account.Number,
			Services: append([]string{}, raw.Services...), Devices: []DeviceView{}}
		for _, dv := range raw.Devices {
			x := DeviceView{DeviceID: dv.DeviceID, Name: dv.Name}
			if dv.Service != nil {
				x.Service = *dv.Service
			}
			v.Devices = append(v.Devices, x)
		}
		return []ledger.Entry{{Path: prefixCustomers + id, Value: v}}
	case "get_billing_details":
		var v BillingView
		if json.Unmarshal([]byte(output), &v) != nil {
			return nil
		}
		if v.CustomerID == "" {
			v.CustomerID = in["customer_id"]
		}
		return []ledger.Entry{{Path: prefixBilling + v.CustomerID, Value: &v}}
	case "get_service_details":
		var v ServiceView
		if json.Unmarshal([]byte(output), &v) != nil || v.ServiceID == "" {
			return nil
		}
		return []ledger.Entry{{Path: prefixServices + v.ServiceID, Value: &v}}
	case "get_services":
		var all map[string]*ServiceView
		if json.Unmarshal([]byte(output), &all) != nil {
			return nil
		}
		var out []ledger.Entry
		for id, v := range all {
			if v != nil {
				out = append(out, ledger.Entry{Path: prefixServices + id, Value: v})
			}
		}
		return out
	case "get_device_details":
		var v DeviceModel
		if json.Unmarshal([]byte(output), &v) != nil || in["device_name"] == "" {
			return nil
		}
		v.Name = in["device_name"]
		return []ledger.Entry{{Path: prefixDevices + v.Name, Value: &v}}
	case "get_support_ticket_details":
		var v TicketView
		if json.Unmarshal([]byte(output), &v) != nil || v.TicketID == "" {
			return nil
		}
		return []ledger.Entry{{Path: prefixTickets + v.TicketID, Value: &v}}
	}
	return nil
}

// stringArgs is a call's string arguments.
func stringArgs(raw json.RawMessage) map[string]string {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	out := map[string]string{}
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// known reports whether the conversation has looked the customer up: found
// by email or phone, or read their details or billing.
func known(l *ledger.Ledger, cid string) bool {
	return cid != "" && (l.Has(prefixLocated+cid) || l.Has(prefixCustomers+cid) || l.Has(prefixBilling+cid))
}

func ledgerCustomer(l *ledger.Ledger, cid string) *CustomerView {
	return ledger.Lookup[CustomerView](l, prefixCustomers+cid)
}

func ledgerTicket(l *ledger.Ledger, tid string) *TicketView {
	return ledger.Lookup[TicketView](l, prefixTickets+tid)
}
