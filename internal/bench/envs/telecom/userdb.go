package telecom

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Enumerations of the user's device (values as upstream spells them).
const (
	SIMActive    = "active"
	SIMMissing   = "missing"
	SIMLockedPIN = "locked_pin"
	SIMLockedPUK = "locked_puk"

	TechNone = "none"
	Tech2G   = "2G"
	Tech3G   = "3G"
	Tech4G   = "4G"
	Tech5G   = "5G"

	Mode4G5GPreferred = "4g_5g_preferred"
	Mode4GOnly        = "4g_only"
	Mode3GOnly        = "3g_only"
	Mode2GOnly        = "2g_only"

	SignalNone      = "none"
	SignalPoor      = "poor"
	SignalFair      = "fair"
	SignalGood      = "good"
	SignalExcellent = "excellent"

	PerfUnknown   = "unknown"
	PerfPoor      = "poor"
	PerfFair      = "fair"
	PerfGood      = "good"
	PerfExcellent = "excellent"

	NetConnected     = "connected"
	NetSearching     = "searching"
	NetNoService     = "no_service"
	NetEmergencyOnly = "emergency_only"

	APNInternet = "internet"
	APNBroken   = "broken"
)

var (
	simStatuses  = []string{SIMActive, SIMMissing, SIMLockedPIN, SIMLockedPUK}
	technologies = []string{TechNone, Tech2G, Tech3G, Tech4G, Tech5G}
	modes        = []string{Mode4G5GPreferred, Mode4GOnly, Mode3GOnly, Mode2GOnly}
	signals      = []string{SignalNone, SignalPoor, SignalFair, SignalGood, SignalExcellent}
	perfLevels   = []string{PerfUnknown, PerfPoor, PerfFair, PerfGood, PerfExcellent}
	netStatuses  = []string{NetConnected, NetSearching, NetNoService, NetEmergencyOnly}
	apnNames     = []string{APNInternet, APNBroken}
)

// APNSettings is the phone's active access point configuration.
type APNSettings struct {
	APNName       string  `json:"apn_name" toml:"apn_name"`
	ResetAtReboot bool    `json:"reset_at_reboot" toml:"reset_at_reboot"`
	MMSAPN        *string `json:"mms_apn" toml:"mms_apn"`
	MMSCURL       *string `json:"mmsc_url" toml:"mmsc_url"`
	MMSProxy      *string `json:"mms_proxy" toml:"mms_proxy"`
	MMSPort       *int    `json:"mms_port" toml:"mms_port"`
}

// Shared default strings: records point at them and never write through
// the pointers.
var (
	defaultMMSAPN  = "mms"
	defaultMMSCURL = "http://mms.carrier.com/mms/wapenc"
)

func defaultAPN() APNSettings {
	return APNSettings{APNName: APNInternet, MMSAPN: &defaultMMSAPN, MMSCURL: &defaultMMSCURL}
}

// APNSlot is the phone's active_apn_settings field. It normally holds
// settings; upstream's set_apn_settings stores a non-object argument as it
// is (and then fails), after which every use of the settings fails as
// Python's attribute access on that value does. The slot keeps such a value
// so the port breaks the same way.
type APNSlot struct {
	S      APNSettings
	junk   any // decoded JSON value stored instead of settings
	isJunk bool
}

// EncodePy writes the settings, or the stored value.
func (a APNSlot) EncodePy(e *pyjson.Encoder) {
	if a.isJunk {
		e.Value(a.junk)
		return
	}
	e.Value(a.S)
}

// get returns the settings for an access to attribute attr.
func (a *APNSlot) get(attr string) (*APNSettings, error) {
	if a.isJunk {
		return nil, fmt.Errorf("'%s' object has no attribute '%s'", pyjson.TypeName(a.junk), attr)
	}
	return &a.S, nil
}

// VPNDetails describes an active VPN connection.
type VPNDetails struct {
	ServerAddress     *string `json:"server_address" toml:"server_address"`
	Protocol          *string `json:"protocol" toml:"protocol"`
	ServerPerformance string  `json:"server_performance" toml:"server_performance"`
}

// AppPermissions are the permissions tracked for an app, in upstream's
// field order.
type AppPermissions struct {
	SMS     bool `json:"sms" toml:"sms"`
	Storage bool `json:"storage" toml:"storage"`
	Phone   bool `json:"phone" toml:"phone"`
	Network bool `json:"network" toml:"network"`
}

// permissionNames is the field order of AppPermissions.
var permissionNames = []string{"sms", "storage", "phone", "network"}

func (p *AppPermissions) field(name string) *bool {
	switch name {
	case "sms":
		return &p.SMS
	case "storage":
		return &p.Storage
	case "phone":
		return &p.Phone
	case "network":
		return &p.Network
	}
	return nil
}

// granted lists granted permission names in field order.
func (p AppPermissions) granted() []string {
	var out []string
	for _, n := range permissionNames {
		if *p.field(n) {
			out = append(out, n)
		}
	}
	return out
}

// AppStatus is one installed app.
type AppStatus struct {
	AppName     string         `json:"app_name" toml:"app_name"`
	Permissions AppPermissions `json:"permissions" toml:"permissions"`
}

// App is one entry of the app_statuses dict.
type App struct {
	Key    string
	Status AppStatus
}

// Apps is the ordered app_statuses dict. Simulations share the loaded slice
// and copy it before the first change.
type Apps []App

// EncodePy writes the apps as a dict in order.
func (a Apps) EncodePy(e *pyjson.Encoder) {
	e.BeginObject()
	for i, app := range a {
		e.Key(app.Key, i == 0)
		e.Value(app.Status)
	}
	e.EndObject(len(a) == 0)
}

func (a Apps) find(key string) int {
	for i := range a {
		if a[i].Key == key {
			return i
		}
	}
	return -1
}

// Phone is the simulated user's device (upstream's MockPhoneAttributes).
type Phone struct {
	SIMCardStatus              string      `json:"sim_card_status"`
	SIMCardMissing             bool        `json:"sim_card_missing"`
	AirplaneMode               bool        `json:"airplane_mode"`
	NetworkSignalStrength      string      `json:"network_signal_strength"`
	NetworkTechnologyConnected string      `json:"network_technology_connected"`
	NetworkConnectionStatus    string      `json:"network_connection_status"`
	BatteryLevel               int         `json:"battery_level"`
	DataEnabled                bool        `json:"data_enabled"`
	RoamingEnabled             bool        `json:"roaming_enabled"`
	NetworkModePreference      string      `json:"network_mode_preference"`
	ActiveAPNSettings          APNSlot     `json:"active_apn_settings"`
	WiFiEnabled                bool        `json:"wifi_enabled"`
	WiFiConnected              bool        `json:"wifi_connected"`
	WiFiSSID                   *string     `json:"wifi_ssid"`
	WiFiSignalStrength         string      `json:"wifi_signal_strength"`
	WiFiCallingEnabled         bool        `json:"wifi_calling_enabled"`
	WiFiCallingMMSOverWiFi     bool        `json:"wifi_calling_mms_over_wifi"`
	DataSaverMode              bool        `json:"data_saver_mode"`
	VPNEnabledSetting          bool        `json:"vpn_enabled_setting"`
	VPNConnected               bool        `json:"vpn_connected"`
	VPNDetails                 *VPNDetails `json:"vpn_details"`
	AppStatuses                Apps        `json:"app_statuses"`
}

// defaultPhone is upstream's MockPhoneAttributes() with no arguments.
func defaultPhone() Phone {
	return Phone{
		SIMCardStatus:              SIMActive,
		NetworkSignalStrength:      SignalGood,
		NetworkTechnologyConnected: Tech5G,
		NetworkConnectionStatus:    NetConnected,
		BatteryLevel:               80,
		DataEnabled:                true,
		NetworkModePreference:      Mode4G5GPreferred,
		ActiveAPNSettings:          APNSlot{S: defaultAPN()},
		WiFiSignalStrength:         SignalNone,
		AppStatuses: Apps{
			{Key: "messaging", Status: AppStatus{AppName: "messaging", Permissions: AppPermissions{SMS: true, Storage: true, Phone: true}}},
			{Key: "browser", Status: AppStatus{AppName: "browser", Permissions: AppPermissions{Network: true, Storage: true}}},
		},
	}
}

// SignalLevel is one entry of the surroundings' signal map.
type SignalLevel struct {
	Tech     string
	Strength string
}

// Signals is the ordered technology → signal strength dict. It is never
// changed by any function, so simulations share it.
type Signals []SignalLevel

// EncodePy writes the signals as a dict in order.
func (s Signals) EncodePy(e *pyjson.Encoder) {
	e.BeginObject()
	for i, l := range s {
		e.Key(l.Tech, i == 0)
		e.String(l.Strength)
	}
	e.EndObject(len(s) == 0)
}

// get is dict.get(tech, none).
func (s Signals) get(tech string) string {
	for _, l := range s {
		if l.Tech == tech {
			return l.Strength
		}
	}
	return SignalNone
}

// PaymentRequest is a bill the agent asked the user to pay.
type PaymentRequest struct {
	BillID    string  `json:"bill_id"`
	AmountDue float64 `json:"amount_due"`
	Paid      bool    `json:"paid"`
}

// Surroundings is the user's situation outside the phone.
type Surroundings struct {
	Name                    *string         `json:"name"`
	PhoneNumber             *string         `json:"phone_number"`
	IsAbroad                bool            `json:"is_abroad"`
	RoamingAllowed          bool            `json:"roaming_allowed"`
	SignalStrength          Signals         `json:"signal_strength"`
	MobileDataUsageExceeded bool            `json:"mobile_data_usage_exceeded"`
	LineActive              bool            `json:"line_active"`
	PaymentRequest          *PaymentRequest `json:"payment_request"`
}

func defaultSurroundings() Surroundings {
	return Surroundings{
		SignalStrength: Signals{{Tech2G, SignalPoor}, {Tech3G, SignalFair}, {Tech4G, SignalGood}, {Tech5G, SignalExcellent}},
		LineActive:     true,
	}
}

// UserDB is the user-side database (upstream's TelecomUserDB). Its value is
// copied into each simulation; the pointers and slices inside are shared and
// copied before any change.
type UserDB struct {
	Device       Phone        `json:"device"`
	Surroundings Surroundings `json:"surroundings"`
}

// LoadUserDB reads user_db.toml; keys it leaves out take upstream's defaults.
func LoadUserDB(path string) (*UserDB, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read telecom user db: %w", err)
	}
	db, err := ParseUserDB(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return db, nil
}

// ParseUserDB decodes a user_db.toml document. It accepts every key of
// upstream's model, rejects others, checks enum values and fills defaults.
func ParseUserDB(data []byte) (*UserDB, error) {
	var raw map[string]any
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		return nil, err
	}
	db := &UserDB{Device: defaultPhone(), Surroundings: defaultSurroundings()}
	for k, v := range raw {
		switch k {
		case "device":
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("device: expected a table")
			}
			if err := decodePhone(md, m, &db.Device); err != nil {
				return nil, fmt.Errorf("device.%w", err)
			}
		case "surroundings":
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("surroundings: expected a table")
			}
			if err := decodeSurroundings(md, m, &db.Surroundings); err != nil {
				return nil, fmt.Errorf("surroundings.%w", err)
			}
		default:
			return nil, fmt.Errorf("unknown field %q", k)
		}
	}
	return db, nil
}

// orderedKeys returns the keys of the table at path in document order.
func orderedKeys(md toml.MetaData, m map[string]any, path ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range md.Keys() {
		if len(k) == len(path)+1 && slices.Equal(k[:len(path)], path) && !seen[k[len(path)]] {
			if _, ok := m[k[len(path)]]; ok {
				seen[k[len(path)]] = true
				out = append(out, k[len(path)])
			}
		}
	}
	// Inline tables may not list their keys in the metadata: keep the rest
	// in sorted order so output is deterministic.
	var rest []string
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

func decodePhone(md toml.MetaData, m map[string]any, p *Phone) error {
	for k, v := range m {
		var err error
		switch k {
		case "sim_card_status":
			err = setEnum(&p.SIMCardStatus, v, simStatuses)
		case "sim_card_missing":
			err = setBool(&p.SIMCardMissing, v)
		case "airplane_mode":
			err = setBool(&p.AirplaneMode, v)
		case "network_signal_strength":
			err = setEnum(&p.NetworkSignalStrength, v, signals)
		case "network_technology_connected":
			err = setEnum(&p.NetworkTechnologyConnected, v, technologies)
		case "network_connection_status":
			err = setEnum(&p.NetworkConnectionStatus, v, netStatuses)
		case "battery_level":
			n, ok := v.(int64)
			if !ok {
				err = fmt.Errorf("expected an integer")
			}
			p.BatteryLevel = int(n)
		case "data_enabled":
			err = setBool(&p.DataEnabled, v)
		case "roaming_enabled":
			err = setBool(&p.RoamingEnabled, v)
		case "network_mode_preference":
			err = setEnum(&p.NetworkModePreference, v, modes)
		case "active_apn_settings":
			a := defaultAPN()
			err = decodeAPN(v, &a)
			p.ActiveAPNSettings = APNSlot{S: a}
		case "wifi_enabled":
			err = setBool(&p.WiFiEnabled, v)
		case "wifi_connected":
			err = setBool(&p.WiFiConnected, v)
		case "wifi_ssid":
			err = setOptString(&p.WiFiSSID, v)
		case "wifi_signal_strength":
			err = setEnum(&p.WiFiSignalStrength, v, signals)
		case "wifi_calling_enabled":
			err = setBool(&p.WiFiCallingEnabled, v)
		case "wifi_calling_mms_over_wifi":
			err = setBool(&p.WiFiCallingMMSOverWiFi, v)
		case "data_saver_mode":
			err = setBool(&p.DataSaverMode, v)
		case "vpn_enabled_setting":
			err = setBool(&p.VPNEnabledSetting, v)
		case "vpn_connected":
			err = setBool(&p.VPNConnected, v)
		case "vpn_details":
			vm, ok := v.(map[string]any)
			if !ok {
				err = fmt.Errorf("expected a table")
				break
			}
			d := &VPNDetails{ServerPerformance: PerfUnknown}
			for dk, dv := range vm {
				switch dk {
				case "server_address":
					err = setOptString(&d.ServerAddress, dv)
				case "protocol":
					err = setOptString(&d.Protocol, dv)
				case "server_performance":
					err = setEnum(&d.ServerPerformance, dv, perfLevels)
				default:
					err = fmt.Errorf("%s: unknown field", dk)
				}
				if err != nil {
					break
				}
			}
			p.VPNDetails = d
		case "app_statuses":
			am, ok := v.(map[string]any)
			if !ok {
				err = fmt.Errorf("expected a table")
				break
			}
			var apps Apps
			for _, name := range orderedKeys(md, am, "device", "app_statuses") {
				st, e := decodeApp(am[name])
				if e != nil {
					err = fmt.Errorf("%s.%w", name, e)
					break
				}
				apps = append(apps, App{Key: name, Status: st})
			}
			p.AppStatuses = apps
		default:
			err = fmt.Errorf("unknown field")
		}
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

func decodeAPN(v any, a *APNSettings) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("expected a table")
	}
	for k, v := range m {
		var err error
		switch k {
		case "apn_name":
			err = setEnum(&a.APNName, v, apnNames)
		case "reset_at_reboot":
			err = setBool(&a.ResetAtReboot, v)
		case "mms_apn":
			err = setOptString(&a.MMSAPN, v)
		case "mmsc_url":
			err = setOptString(&a.MMSCURL, v)
		case "mms_proxy":
			err = setOptString(&a.MMSProxy, v)
		case "mms_port":
			n, ok := v.(int64)
			if !ok {
				err = fmt.Errorf("expected an integer")
			}
			i := int(n)
			a.MMSPort = &i
		default:
			err = fmt.Errorf("unknown field")
		}
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

func decodeApp(v any) (AppStatus, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return AppStatus{}, fmt.Errorf("expected a table")
	}
	var st AppStatus
	hasName := false
	for k, v := range m {
		switch k {
		case "app_name":
			s, ok := v.(string)
			if !ok {
				return st, fmt.Errorf("app_name: expected a string")
			}
			st.AppName, hasName = s, true
		case "permissions":
			pm, ok := v.(map[string]any)
			if !ok {
				return st, fmt.Errorf("permissions: expected a table")
			}
			for pk, pv := range pm {
				f := st.Permissions.field(pk)
				if f == nil {
					return st, fmt.Errorf("permissions.%s: unknown field", pk)
				}
				if err := setBool(f, pv); err != nil {
					return st, fmt.Errorf("permissions.%s: %w", pk, err)
				}
			}
		default:
			return st, fmt.Errorf("%s: unknown field", k)
		}
	}
	if !hasName {
		return st, fmt.Errorf("app_name: field required")
	}
	return st, nil
}

func decodeSurroundings(md toml.MetaData, m map[string]any, s *Surroundings) error {
	for k, v := range m {
		var err error
		switch k {
		case "name":
			err = setOptString(&s.Name, v)
		case "phone_number":
			err = setOptString(&s.PhoneNumber, v)
		case "is_abroad":
			err = setBool(&s.IsAbroad, v)
		case "roaming_allowed":
			err = setBool(&s.RoamingAllowed, v)
		case "signal_strength":
			sm, ok := v.(map[string]any)
			if !ok {
				err = fmt.Errorf("expected a table")
				break
			}
			var sig Signals
			for _, tech := range orderedKeys(md, sm, "surroundings", "signal_strength") {
				if !slices.Contains(technologies, tech) {
					err = fmt.Errorf("invalid technology %q", tech)
					break
				}
				var lvl string
				if err = setEnum(&lvl, sm[tech], signals); err != nil {
					break
				}
				sig = append(sig, SignalLevel{Tech: tech, Strength: lvl})
			}
			s.SignalStrength = sig
		case "mobile_data_usage_exceeded":
			err = setBool(&s.MobileDataUsageExceeded, v)
		case "line_active":
			err = setBool(&s.LineActive, v)
		case "payment_request":
			pm, ok := v.(map[string]any)
			if !ok {
				err = fmt.Errorf("expected a table")
				break
			}
			pr := &PaymentRequest{}
			bid, ok1 := pm["bill_id"].(string)
			amt, ok2 := toFloat(pm["amount_due"])
			if !ok1 || !ok2 {
				err = fmt.Errorf("bill_id and amount_due are required")
				break
			}
			pr.BillID, pr.AmountDue = bid, amt
			if pv, ok := pm["paid"]; ok {
				err = setBool(&pr.Paid, pv)
			}
			s.PaymentRequest = pr
		default:
			err = fmt.Errorf("unknown field")
		}
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	}
	return 0, false
}

func setEnum(dst *string, v any, allowed []string) error {
	s, ok := v.(string)
	if !ok || !slices.Contains(allowed, s) {
		return fmt.Errorf("input should be %s", quoteList(allowed))
	}
	*dst = s
	return nil
}

func setBool(dst *bool, v any) error {
	b, ok := v.(bool)
	if !ok {
		return fmt.Errorf("expected a boolean")
	}
	*dst = b
	return nil
}

func setOptString(dst **string, v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("expected a string")
	}
	*dst = &s
	return nil
}

// quoteList formats allowed values like pydantic's enum error: 'a', 'b' or 'c'.
func quoteList(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = "'" + v + "'"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
