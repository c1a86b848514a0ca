package telecom

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pydantic"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// userClass is upstream's user toolkit class name, used in Python error texts.
const userClass = "TelecomUserTools"

// Status bar indicators (emoji as upstream writes them).
const (
	iconAirplane     = "\u2708\ufe0f Airplane Mode"
	iconNoSignal     = "\U0001F4F5 No Signal"
	iconDataEnabled  = "\U0001F4F1 Data Enabled"
	iconDataSaver    = "\U0001F53D Data Saver"
	iconDataDisabled = "\U0001F4F5 Data Disabled"
	iconWiFi         = "\U0001F4E1 "
	iconVPN          = "\U0001F512 VPN Connected"
	iconBattery      = "\U0001F50B "
)

// signalIcon is the status bar's signal indicator.
func signalIcon(strength string) string {
	switch strength {
	case SignalPoor:
		return "\U0001F4F6\u00b9 Poor"
	case SignalFair:
		return "\U0001F4F6\u00b2 Fair"
	case SignalGood:
		return "\U0001F4F6\u00b3 Good"
	case SignalExcellent:
		return "\U0001F4F6\u2074 Excellent"
	}
	return iconNoSignal
}

// The VPN server every connect_vpn uses. Records point at these strings
// and never write through the pointers.
var (
	vpnServer   = "192.168.1.1"
	vpnProtocol = "OpenVPN"
)

// --- device simulation ---

func (e *Env) dev() *Phone { return &e.user.Device }

func (e *Env) statusBar() string {
	d := e.dev()
	var b strings.Builder
	if d.AirplaneMode {
		b.WriteString(iconAirplane)
	} else {
		b.WriteString(signalIcon(d.NetworkSignalStrength))
		if d.NetworkTechnologyConnected != TechNone {
			b.WriteString(" | ")
			b.WriteString(d.NetworkTechnologyConnected)
		}
		if d.DataEnabled && d.NetworkTechnologyConnected != TechNone {
			b.WriteString(" | " + iconDataEnabled)
			if d.DataSaverMode {
				b.WriteString(" | " + iconDataSaver)
			}
		} else {
			b.WriteString(" | " + iconDataDisabled)
		}
	}
	if d.WiFiEnabled && d.WiFiConnected {
		if d.WiFiSSID != nil && *d.WiFiSSID != "" {
			b.WriteString(" | " + iconWiFi + "Connected to " + *d.WiFiSSID)
		} else {
			b.WriteString(" | " + iconWiFi + "Enabled")
		}
	}
	if d.VPNConnected {
		b.WriteString(" | " + iconVPN)
	}
	b.WriteString(" | " + iconBattery + strconv.Itoa(d.BatteryLevel) + "%")
	return b.String()
}

// withBar appends the status bar line most device actions report.
func (e *Env) withBar(s string) string { return s + "\nStatus Bar: " + e.statusBar() }

func (e *Env) simStatus() string {
	if e.dev().SIMCardMissing {
		return SIMMissing
	}
	return e.dev().SIMCardStatus
}

// networkSearch is upstream's simulate_network_search. It fails (after
// updating the connection) only when the APN slot holds no settings.
func (e *Env) networkSearch() error {
	d, sig := e.dev(), e.user.Surroundings.SignalStrength
	noService := func() {
		d.NetworkConnectionStatus = NetNoService
		d.NetworkTechnologyConnected = TechNone
		d.NetworkSignalStrength = SignalNone
	}
	if e.simStatus() == SIMActive {
		d.NetworkConnectionStatus = NetConnected
		tech := Tech4G
		switch d.NetworkModePreference {
		case Mode4G5GPreferred:
			if sig.get(Tech5G) != SignalNone {
				tech = Tech5G
			}
		case Mode3GOnly:
			tech = Tech3G
		case Mode2GOnly:
			tech = Tech2G
		}
		d.NetworkTechnologyConnected = tech
		d.NetworkSignalStrength = sig.get(tech)
	} else {
		noService()
	}
	if d.AirplaneMode {
		noService()
	}
	apn, err := d.ActiveAPNSettings.get("apn_name")
	if err != nil {
		return err
	}
	if apn.APNName == APNBroken || !e.user.Surroundings.LineActive {
		noService()
	}
	return nil
}

func (e *Env) mobileDataWorking() bool {
	d, s := e.dev(), &e.user.Surroundings
	switch {
	case d.AirplaneMode, d.NetworkSignalStrength == SignalNone, d.NetworkConnectionStatus == NetNoService:
		return false
	case s.IsAbroad && (!d.RoamingEnabled || !s.RoamingAllowed):
		return false
	case !d.DataEnabled, s.MobileDataUsageExceeded:
		return false
	}
	return true
}

// techSpeed is the speed range (Mbps) of a network technology.
func techSpeed(tech string) (lo, hi float64) {
	switch tech {
	case Tech2G:
		return 0.1, 0.4
	case Tech3G:
		return 1.0, 5.0
	case Tech4G:
		return 10.0, 100.0
	case Tech5G:
		return 50.0, 500.0
	}
	return 0, 0
}

// signalFactor is the share of the technology's speed a signal gives.
func signalFactor(strength string) float64 {
	switch strength {
	case SignalPoor:
		return 0.2
	case SignalFair:
		return 0.5
	case SignalGood:
		return 0.8
	case SignalExcellent:
		return 1.0
	}
	return 0
}

// speedTest returns the simulated download speed and its description; ok is
// false when there is no mobile data connection.
func (e *Env) speedTest() (speed float64, desc string, ok bool) {
	if !e.mobileDataWorking() {
		return 0, "No Connection", false
	}
	d := e.dev()
	factor := 1.0
	if d.VPNConnected && d.VPNDetails != nil && d.VPNDetails.ServerPerformance == PerfPoor {
		factor = 0.1
	}
	if d.DataSaverMode {
		factor *= 0.2
	}
	lo, hi := techSpeed(d.NetworkTechnologyConnected)
	speed = pyjson.Round((lo+hi)/2.0*signalFactor(d.NetworkSignalStrength)*factor, 2)
	switch {
	case speed < 1:
		desc = "Very Poor"
	case speed < 5:
		desc = "Poor"
	case speed < 25:
		desc = "Fair"
	case speed < 100:
		desc = "Good"
	default:
		desc = "Excellent"
	}
	return speed, desc, true
}

// speedAdvice is what the speed test says about a speed class.
func speedAdvice(desc string) string {
	switch desc {
	case "Very Poor":
		return "Connection is very slow. Basic web browsing might be difficult."
	case "Poor":
		return "Connection is slow. Web browsing may be sluggish, streaming difficult."
	case "Fair":
		return "Connection is okay for web browsing and some standard definition streaming."
	case "Good":
		return "Connection is good for most activities, including HD streaming."
	case "Excellent":
		return "Connection is very fast."
	}
	return ""
}

func (e *Env) canSendMMS() (bool, error) {
	d := e.dev()
	if !e.mobileDataWorking() || d.NetworkTechnologyConnected == Tech2G {
		return false, nil
	}
	if d.WiFiCallingEnabled && d.WiFiCallingMMSOverWiFi {
		return false, nil
	}
	apn, err := d.ActiveAPNSettings.get("mmsc_url")
	if err != nil {
		return false, err
	}
	if apn.MMSCURL == nil {
		return false, nil
	}
	i := d.AppStatuses.find("messaging")
	if i < 0 {
		return false, nil
	}
	p := d.AppStatuses[i].Status.Permissions
	return p.Storage && p.SMS, nil
}

func (e *Env) toggleAirplane() (bool, error) {
	d := e.dev()
	wasOn := d.AirplaneMode
	d.AirplaneMode = !wasOn
	if wasOn {
		d.NetworkConnectionStatus = NetSearching
		if d.WiFiEnabled {
			d.WiFiConnected, d.WiFiSSID, d.WiFiSignalStrength = false, nil, SignalNone
		}
	} else {
		d.WiFiConnected, d.WiFiSSID, d.WiFiSignalStrength = false, nil, SignalNone
		if d.VPNConnected {
			e.disconnectVPN()
		}
	}
	return d.AirplaneMode, e.networkSearch()
}

func (e *Env) toggleData() (bool, error) {
	d := e.dev()
	d.DataEnabled = !d.DataEnabled
	return d.DataEnabled, e.networkSearch()
}

func (e *Env) toggleRoaming() (bool, error) {
	d := e.dev()
	d.RoamingEnabled = !d.RoamingEnabled
	return d.RoamingEnabled, e.networkSearch()
}

func (e *Env) toggleDataSaver() bool {
	d := e.dev()
	d.DataSaverMode = !d.DataSaverMode
	return d.DataSaverMode
}

func (e *Env) toggleWiFiCalling() bool {
	d := e.dev()
	d.WiFiCallingEnabled = !d.WiFiCallingEnabled
	return d.WiFiCallingEnabled
}

// connectVPN reports false when a VPN is already connected. The details
// object is this simulation's default VPN object: upstream shares one object
// across the whole process, which break_vpn degrades (QUIRK 10); here each
// simulation has its own, so the degradation never leaks into other
// simulations while a reconnect within the simulation still sees it.
func (e *Env) connectVPN() bool {
	d := e.dev()
	if d.VPNConnected {
		return false
	}
	d.VPNConnected = true
	if e.vpn == nil {
		e.vpn = &VPNDetails{ServerAddress: &vpnServer, Protocol: &vpnProtocol, ServerPerformance: PerfExcellent}
	}
	d.VPNDetails = e.vpn
	return true
}

func (e *Env) disconnectVPN() bool {
	d := e.dev()
	if !d.VPNConnected {
		return false
	}
	d.VPNConnected, d.VPNDetails = false, nil
	return true
}

// mutApps returns the app list, copied before the simulation's first change.
func (e *Env) mutApps() Apps {
	if !e.appsOwned {
		e.user.Device.AppStatuses = slices.Clone(e.user.Device.AppStatuses)
		e.appsOwned = true
	}
	return e.user.Device.AppStatuses
}

// turnTo toggles a setting until it has the wanted value: upstream's
// turn_*_on/off functions toggle once more when the first toggle went the
// wrong way (each toggle runs its side effects).
func turnTo(want bool, toggle func() (bool, error)) error {
	got, err := toggle()
	if err != nil || got == want {
		return err
	}
	_, err = toggle()
	return err
}

func onOff(b bool) string {
	if b {
		return "ON"
	}
	return "OFF"
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

// --- user tool arguments ---

// modeArgs keeps a plain string: upstream assigns a mode of another type to
// the device unvalidated and fails later on it, which the Phone model here
// (a str field) cannot hold; such a call fails on decoding instead.
type modeArgs struct {
	Mode string `json:"mode"`
}

type apnArgs struct {
	APNSettings tool.DictValue `json:"apn_settings"`
}

type appArgs struct {
	AppName tool.StrValue `json:"app_name"`
}

type grantArgs struct {
	AppName    tool.StrValue `json:"app_name"`
	Permission tool.StrValue `json:"permission"`
}

func userTools() *tool.Set[*Env] {
	return tool.NewSet(userClass,
		tool.New("check_status_bar", tool.Read, "", checkStatusBar),
		tool.New("check_network_status", tool.Read, "", checkNetworkStatus),
		tool.New("check_network_mode_preference", tool.Read, "", checkNetworkModePreference),
		tool.New("set_network_mode_preference", tool.Write, "", setNetworkModePreference),
		tool.New("run_speed_test", tool.Read, "", runSpeedTest),
		tool.New("toggle_airplane_mode", tool.Write, "", toggleAirplaneMode),
		tool.New("check_sim_status", tool.Read, "", checkSIMStatus),
		tool.New("reseat_sim_card", tool.Write, "", reseatSIMCard),
		tool.New("toggle_data", tool.Write, "", toggleData),
		tool.New("toggle_roaming", tool.Write, "", toggleRoaming),
		tool.New("check_data_restriction_status", tool.Read, "", checkDataRestrictionStatus),
		tool.New("toggle_data_saver_mode", tool.Write, "", toggleDataSaverMode),
		tool.New("check_apn_settings", tool.Read, "", checkAPNSettings),
		tool.New("set_apn_settings", tool.Write, "", setAPNSettings),
		tool.New("reset_apn_settings", tool.Write, "", resetAPNSettings),
		tool.New("check_wifi_status", tool.Read, "", checkWiFiStatus),
		tool.New("toggle_wifi", tool.Write, "", toggleWiFi),
		tool.New("check_wifi_calling_status", tool.Read, "", checkWiFiCallingStatus),
		tool.New("toggle_wifi_calling", tool.Write, "", toggleWiFiCalling),
		tool.New("check_vpn_status", tool.Read, "", checkVPNStatus),
		tool.New("connect_vpn", tool.Write, "", connectVPN),
		tool.New("disconnect_vpn", tool.Write, "", disconnectVPN),
		tool.New("check_installed_apps", tool.Read, "", checkInstalledApps),
		tool.New("check_app_status", tool.Read, "", checkAppStatus),
		tool.New("check_app_permissions", tool.Read, "", checkAppPermissions),
		tool.New("grant_app_permission", tool.Write, "", grantAppPermission),
		tool.New("can_send_mms", tool.Read, "", canSendMMS),
		tool.New("reboot_device", tool.Write, "", rebootDevice),
		tool.New("check_payment_request", tool.Read, "", checkPaymentRequest),
		tool.New("make_payment", tool.Write, "", makePayment),
	)
}

func checkStatusBar(_ context.Context, e *Env, _ noArgs) (any, error) {
	return "Status Bar: " + e.statusBar(), nil
}

func checkNetworkStatus(_ context.Context, e *Env, _ noArgs) (any, error) {
	d := e.dev()
	lines := []string{
		"Airplane Mode: " + onOff(d.AirplaneMode),
		"SIM Card Status: " + e.simStatus(),
		"Cellular Connection: " + d.NetworkConnectionStatus,
		"Cellular Signal: " + d.NetworkSignalStrength,
		"Cellular Network Type: " + d.NetworkTechnologyConnected,
		"Mobile Data Enabled: " + yesNo(d.DataEnabled),
		"Data Roaming Enabled: " + yesNo(d.RoamingEnabled),
		"Wi-Fi Radio: " + onOff(d.WiFiEnabled),
		"Wi-Fi Connected: " + yesNo(d.WiFiConnected),
	}
	if d.WiFiConnected {
		lines = append(lines, "Connected Wi-Fi Network: "+pyjson.Str(d.WiFiSSID))
	}
	return strings.Join(lines, "\n"), nil
}

func checkNetworkModePreference(_ context.Context, e *Env, _ noArgs) (any, error) {
	return "Network Mode Preference: " + e.dev().NetworkModePreference, nil
}

func setNetworkModePreference(_ context.Context, e *Env, a modeArgs) (any, error) {
	if !slices.Contains(modes, a.Mode) {
		return e.withBar("Failed to set network mode: '" + a.Mode + "' is not a valid option. Please use one of: " + strings.Join(modes, ", ")), nil
	}
	e.dev().NetworkModePreference = a.Mode
	if err := e.networkSearch(); err != nil {
		return nil, err
	}
	return e.withBar("Preferred Network Mode set to: " + a.Mode), nil
}

func runSpeedTest(_ context.Context, e *Env, _ noArgs) (any, error) {
	speed, desc, ok := e.speedTest()
	if !ok {
		return "Speed test failed: " + desc + ".", nil
	}
	return "Speed Test Result: " + pyjson.FormatFixed(speed, 2) + " Mbps (" + desc + "). " + speedAdvice(desc), nil
}

func toggleAirplaneMode(_ context.Context, e *Env, _ noArgs) (any, error) {
	on, err := e.toggleAirplane()
	if err != nil {
		return nil, err
	}
	return e.withBar("Airplane Mode is now " + onOff(on) + "."), nil
}

func checkSIMStatus(_ context.Context, e *Env, _ noArgs) (any, error) {
	switch s := e.simStatus(); s {
	case SIMActive:
		return "Your SIM card is active and working.", nil
	case SIMMissing:
		return "No SIM card detected in the phone.", nil
	case SIMLockedPIN:
		return "The SIM card is locked with a PIN code.", nil
	case SIMLockedPUK:
		return "The SIM card is locked with a PUK code.", nil
	default:
		return "Unknown SIM status: " + s, nil
	}
}

func reseatSIMCard(_ context.Context, e *Env, _ noArgs) (any, error) {
	e.dev().SIMCardMissing = false
	if err := e.networkSearch(); err != nil {
		return nil, err
	}
	return e.withBar("SIM card re-seated successfully."), nil
}

func toggleData(_ context.Context, e *Env, _ noArgs) (any, error) {
	on, err := e.toggleData()
	if err != nil {
		return nil, err
	}
	return e.withBar("Mobile Data is now " + onOff(on) + "."), nil
}

func toggleRoaming(_ context.Context, e *Env, _ noArgs) (any, error) {
	on, err := e.toggleRoaming()
	if err != nil {
		return nil, err
	}
	return e.withBar("Data Roaming is now " + onOff(on) + "."), nil
}

func checkDataRestrictionStatus(_ context.Context, e *Env, _ noArgs) (any, error) {
	if e.dev().DataSaverMode {
		return "Data Saver mode is ON (limits data usage).", nil
	}
	return "Data Saver mode is OFF.", nil
}

func toggleDataSaverMode(_ context.Context, e *Env, _ noArgs) (any, error) {
	return e.withBar("Data Saver Mode is now " + onOff(e.toggleDataSaver()) + "."), nil
}

func checkAPNSettings(_ context.Context, e *Env, _ noArgs) (any, error) {
	a, err := e.dev().ActiveAPNSettings.get("model_copy")
	if err != nil {
		return nil, err
	}
	name := a.APNName
	if name == "" {
		name = "Not Set"
	}
	url := "Not Set"
	if a.MMSCURL != nil && *a.MMSCURL != "" {
		url = *a.MMSCURL
	}
	return "Current APN Name: " + name + "\nMMSC URL (for picture messages): " + url + "\n(These are technical settings, usually best left unchanged.)", nil
}

func setAPNSettings(_ context.Context, e *Env, a apnArgs) (any, error) {
	s, junk, err := parseAPN(a.APNSettings.V)
	if junk != nil {
		// Upstream stores the value, then fails reading it.
		e.dev().ActiveAPNSettings = APNSlot{junk: junk.v, isJunk: true}
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	e.dev().ActiveAPNSettings = APNSlot{S: s}
	if err := e.networkSearch(); err != nil {
		return nil, err
	}
	return e.withBar("APN settings set to: " + s.APNName), nil
}

func resetAPNSettings(_ context.Context, e *Env, _ noArgs) (any, error) {
	apn, err := e.dev().ActiveAPNSettings.get("reset_at_reboot")
	if err != nil {
		return nil, err
	}
	apn.ResetAtReboot = true
	if err := e.networkSearch(); err != nil {
		return nil, err
	}
	return e.withBar("APN settings will reset at reboot."), nil
}

func checkWiFiStatus(_ context.Context, e *Env, _ noArgs) (any, error) {
	d := e.dev()
	switch {
	case !d.WiFiEnabled:
		return "Wi-Fi is turned OFF.", nil
	case d.WiFiConnected:
		return "Wi-Fi is ON and connected to '" + pyjson.Str(d.WiFiSSID) + "'. Signal strength: " + d.WiFiSignalStrength + ".", nil
	}
	return "Wi-Fi is ON but not connected to any network.", nil
}

func toggleWiFi(_ context.Context, e *Env, _ noArgs) (any, error) {
	d := e.dev()
	if d.AirplaneMode {
		return e.withBar("Cannot change Wi-Fi settings while Airplane Mode is ON."), nil
	}
	d.WiFiEnabled = !d.WiFiEnabled
	if !d.WiFiEnabled {
		d.WiFiConnected, d.WiFiSSID, d.WiFiSignalStrength = false, nil, SignalNone
	}
	return e.withBar("Wi-Fi is now " + onOff(d.WiFiEnabled) + "."), nil
}

func checkWiFiCallingStatus(_ context.Context, e *Env, _ noArgs) (any, error) {
	return "Wi-Fi Calling is currently turned " + onOff(e.dev().WiFiCallingEnabled) + ".", nil
}

func toggleWiFiCalling(_ context.Context, e *Env, _ noArgs) (any, error) {
	return e.withBar("Wi-Fi Calling is now " + onOff(e.toggleWiFiCalling()) + "."), nil
}

func checkVPNStatus(_ context.Context, e *Env, _ noArgs) (any, error) {
	d := e.dev()
	switch {
	case d.VPNConnected && d.VPNDetails != nil:
		return "VPN is ON and connected. Details: " + vpnRepr(d.VPNDetails), nil
	case d.VPNConnected:
		return "VPN is ON and connected (no specific details available).", nil
	case d.VPNEnabledSetting:
		return "VPN is turned ON in settings, but currently not connected.", nil
	}
	return "VPN is turned OFF.", nil
}

func connectVPN(_ context.Context, e *Env, _ noArgs) (any, error) {
	if !e.connectVPN() {
		return "VPN already connected.", nil
	}
	return e.withBar("VPN connected successfully."), nil
}

func disconnectVPN(_ context.Context, e *Env, _ noArgs) (any, error) {
	if e.disconnectVPN() {
		return e.withBar("VPN disconnected successfully."), nil
	}
	return e.withBar("No active VPN connection to disconnect."), nil
}

func checkInstalledApps(_ context.Context, e *Env, _ noArgs) (any, error) {
	names := make([]string, len(e.dev().AppStatuses))
	for i, a := range e.dev().AppStatuses {
		names[i] = a.Key
	}
	return "The following apps are installed on the phone: " + strings.Join(names, ", "), nil
}

// app is app_statuses.get(app_name) for any JSON value: the app's index
// (-1 for none) and str(app_name).
func (e *Env) app(name any) (int, string, error) {
	k, ok, err := pyjson.DictKey(name)
	if err != nil {
		return -1, "", err
	}
	if !ok {
		return -1, pyjson.Str(name), nil
	}
	return e.dev().AppStatuses.find(k), k, nil
}

func checkAppStatus(_ context.Context, e *Env, a appArgs) (any, error) {
	i, name, err := e.app(a.AppName.V)
	if err != nil {
		return nil, err
	}
	if i < 0 {
		return "App '" + name + "' not found on this phone.", nil
	}
	lines := []string{"Status for App: " + name}
	granted := e.dev().AppStatuses[i].Status.Permissions.granted()
	if len(granted) == 0 {
		lines = append(lines, " - Permissions: None granted.")
	} else {
		lines = append(lines, " - Permissions Granted:")
		for _, p := range granted {
			lines = append(lines, "   - "+p)
		}
	}
	return strings.Join(lines, "\n"), nil
}

func checkAppPermissions(_ context.Context, e *Env, a appArgs) (any, error) {
	i, name, err := e.app(a.AppName.V)
	if err != nil {
		return nil, err
	}
	if i < 0 {
		return "App '" + name + "' not found on this phone.", nil
	}
	granted := e.dev().AppStatuses[i].Status.Permissions.granted()
	if len(granted) == 0 {
		return "App '" + name + "' currently has no permissions granted.", nil
	}
	return "App '" + name + "' has permission for: " + strings.Join(granted, ", ") + ".", nil
}

func grantAppPermission(_ context.Context, e *Env, a grantArgs) (any, error) {
	i, name, err := e.app(a.AppName.V)
	if err != nil {
		return nil, err
	}
	p, ok := a.Permission.V.(string)
	if !ok {
		return nil, fmt.Errorf("'%s' object has no attribute 'lower'", pyjson.TypeName(a.Permission.V))
	}
	perm := pyjson.Lower(p)
	switch {
	case i < 0:
		return e.withBar("Error. App '" + name + "' not found. Cannot grant permission."), nil
	case !slices.Contains(permissionNames, perm):
		return e.withBar("Error. Permission '" + perm + "' not tracked for app '" + name + "', available permissions: " + pyjson.Repr(permissionNames)), nil
	}
	*e.mutApps()[i].Status.Permissions.field(perm) = true
	return e.withBar("Success. Permission '" + perm + "' granted to app '" + name + "'."), nil
}

func canSendMMS(_ context.Context, e *Env, _ noArgs) (any, error) {
	ok, err := e.canSendMMS()
	if err != nil {
		return nil, err
	}
	if ok {
		return "Your messaging app can send MMS messages.", nil
	}
	return "Your messaging app cannot send MMS messages.", nil
}

func rebootDevice(_ context.Context, e *Env, _ noArgs) (any, error) {
	var lines []string
	d := e.dev()
	apn, err := d.ActiveAPNSettings.get("reset_at_reboot")
	if err != nil {
		return nil, err
	}
	if apn.ResetAtReboot {
		lines = append(lines, "Resetting APN settings...")
		d.ActiveAPNSettings = APNSlot{S: defaultAPN()}
	}
	lines = append(lines, "Restarting network services...")
	d.NetworkConnectionStatus = NetSearching
	if err := e.networkSearch(); err != nil {
		return nil, err
	}
	return e.withBar(strings.Join(lines, "\n")), nil
}

func checkPaymentRequest(_ context.Context, e *Env, _ noArgs) (any, error) {
	pr := e.user.Surroundings.PaymentRequest
	if pr == nil {
		return "No payment request has been made.", nil
	}
	return "You have a payment request for bill " + pr.BillID + " of " + pyjson.Float(pr.AmountDue) + " USD.", nil
}

func makePayment(_ context.Context, e *Env, _ noArgs) (any, error) {
	s := &e.user.Surroundings
	if s.PaymentRequest == nil {
		return "You do not have a payment request.", nil
	}
	pr := *s.PaymentRequest
	pr.Paid = true
	s.PaymentRequest = &pr
	return "Payment of " + pyjson.Float(pr.AmountDue) + " USD has been made for bill " + pr.BillID + ".", nil
}

// vpnRepr prints a VPN details model dump as Python's repr of the dict,
// including the enum member's repr.
func vpnRepr(v *VPNDetails) string {
	return "{'server_address': " + pyjson.Repr(v.ServerAddress) + ", 'protocol': " + pyjson.Repr(v.Protocol) +
		", 'server_performance': <PerformanceLevel." + strings.ToUpper(v.ServerPerformance) + ": " + pyjson.ReprString(v.ServerPerformance) + ">}"
}

// junkValue is a non-object apn_settings argument.
type junkValue struct{ v any }

// parseAPN validates an apn_settings argument as pydantic's APNSettings(**d)
// would, filling defaults for missing keys. A non-object argument is
// returned as junk with the error upstream raises after storing it.
func parseAPN(v any) (APNSettings, *junkValue, error) {
	d, ok := v.(*pyjson.Dict)
	if !ok {
		return APNSettings{}, &junkValue{v}, fmt.Errorf("'%s' object has no attribute 'apn_name'", pyjson.TypeName(v))
	}
	s := defaultAPN()
	var val pydantic.Validator
	// The fields in APNSettings' declaration order (pydantic reports them
	// so), then the extra keys.
	fields := []string{"apn_name", "reset_at_reboot", "mms_apn", "mmsc_url", "mms_proxy", "mms_port"}
	for _, f := range fields {
		x, ok := d.Get(f)
		if !ok {
			continue
		}
		switch f {
		case "apn_name":
			s.APNName = val.Enum(f, x, apnNames...)
		case "reset_at_reboot":
			s.ResetAtReboot = val.Bool(f, x)
		case "mms_apn":
			s.MMSAPN = val.OptStr(f, x)
		case "mmsc_url":
			s.MMSCURL = val.OptStr(f, x)
		case "mms_proxy":
			s.MMSProxy = val.OptStr(f, x)
		case "mms_port":
			s.MMSPort = val.OptInt(f, x)
		}
	}
	for i, k := range d.Keys {
		if !slices.Contains(fields, k) {
			val.Extra(k, d.Values[i])
		}
	}
	return s, nil, val.Err("APNSettings")
}

// --- user-side environment functions (not tools) ---

type userInfoArgs struct {
	Name        string `json:"name"`
	PhoneNumber string `json:"phone_number"`
}

type locationArgs struct {
	Abroad bool `json:"abroad"`
}

type lockArgs struct {
	Mode string `json:"mode"`
}

type wifiCallingArgs struct {
	Enabled     bool  `json:"enabled"`
	MMSOverWiFi *bool `json:"mms_over_wifi,omitempty"`
}

type permArgs struct {
	AppName    string `json:"app_name"`
	Permission string `json:"permission"`
}

type expectBoolArgs struct {
	ExpectedStatus bool `json:"expected_status"`
}

type expectStrArgs struct {
	ExpectedStatus string `json:"expected_status"`
}

type speedArgs struct {
	ExpectedSpeed float64 `json:"expected_speed"`
	ExpectedDesc  *string `json:"expected_desc,omitempty"`
}

func userFuncs() *tool.Set[*Env] {
	return tool.NewSet(userClass,
		tool.New("set_user_info", tool.Generic, "", setUserInfo),
		tool.New("set_user_location", tool.Generic, "", setUserLocation),
		tool.New("turn_airplane_mode_on", tool.Generic, "", turnAirplaneModeOn),
		tool.New("turn_airplane_mode_off", tool.Generic, "", turnAirplaneModeOff),
		tool.New("unseat_sim_card", tool.Generic, "", unseatSIMCard),
		tool.New("lock_sim_card", tool.Generic, "", lockSIMCard),
		tool.New("turn_data_on", tool.Generic, "", turnDataOn),
		tool.New("turn_data_off", tool.Generic, "", turnDataOff),
		tool.New("turn_roaming_on", tool.Generic, "", turnRoamingOn),
		tool.New("turn_roaming_off", tool.Generic, "", turnRoamingOff),
		tool.New("turn_data_saver_mode_on", tool.Generic, "", turnDataSaverModeOn),
		tool.New("turn_data_saver_mode_off", tool.Generic, "", turnDataSaverModeOff),
		tool.New("break_apn_settings", tool.Generic, "", breakAPNSettings),
		tool.New("break_apn_mms_setting", tool.Generic, "", breakAPNMMSSetting),
		tool.New("set_wifi_calling", tool.Generic, "", setWiFiCalling),
		tool.New("break_vpn", tool.Generic, "", breakVPN),
		tool.New("remove_app_permission", tool.Generic, "", removeAppPermission),
		tool.New("simulate_network_search", tool.Generic, "", simulateNetworkSearch),
		tool.New("assert_airplane_mode_status", tool.Read, "", assertAirplaneModeStatus),
		tool.New("assert_service_status", tool.Read, "", assertServiceStatus),
		tool.New("assert_mobile_data_status", tool.Read, "", assertMobileDataStatus),
		tool.New("assert_mobile_roaming_status", tool.Read, "", assertMobileRoamingStatus),
		tool.New("assert_mobile_data_saver_mode_status", tool.Read, "", assertMobileDataSaverModeStatus),
		tool.New("assert_internet_speed", tool.Read, "", assertInternetSpeed),
		tool.New("assert_internet_not_excellent", tool.Generic, "", assertInternetNotExcellent),
		tool.New("assert_can_send_mms", tool.Read, "", assertCanSendMMS),
		tool.New("assert_mobile_data_usage_exceeded", tool.Read, "", assertMobileDataUsageExceeded),
	)
}

func setUserInfo(_ context.Context, e *Env, a userInfoArgs) (any, error) {
	name, phone := a.Name, a.PhoneNumber
	e.user.Surroundings.Name, e.user.Surroundings.PhoneNumber = &name, &phone
	return nil, nil
}

func setUserLocation(_ context.Context, e *Env, a locationArgs) (any, error) {
	e.user.Surroundings.IsAbroad = a.Abroad
	return nil, nil
}

func turnAirplaneModeOn(_ context.Context, e *Env, _ noArgs) (any, error) {
	return "Airplane Mode is now ON.", turnTo(true, e.toggleAirplane)
}

func turnAirplaneModeOff(_ context.Context, e *Env, _ noArgs) (any, error) {
	return "Airplane Mode is now OFF.", turnTo(false, e.toggleAirplane)
}

func unseatSIMCard(_ context.Context, e *Env, _ noArgs) (any, error) {
	e.dev().SIMCardMissing = true
	return "SIM card un-seated successfully.", e.networkSearch()
}

func lockSIMCard(_ context.Context, e *Env, a lockArgs) (any, error) {
	switch a.Mode {
	case "pin":
		e.dev().SIMCardStatus = SIMLockedPIN
	case "puk":
		e.dev().SIMCardStatus = SIMLockedPUK
	}
	return "SIM card locked successfully in " + a.Mode + " mode.", e.networkSearch()
}

func turnDataOn(_ context.Context, e *Env, _ noArgs) (any, error) {
	e.dev().DataEnabled = true
	return "Data connection restored.", nil
}

func turnDataOff(_ context.Context, e *Env, _ noArgs) (any, error) {
	return "Data connection broken.", turnTo(false, e.toggleData)
}

func turnRoamingOn(_ context.Context, e *Env, _ noArgs) (any, error) {
	return "Data Roaming is now ON.", turnTo(true, e.toggleRoaming)
}

func turnRoamingOff(_ context.Context, e *Env, _ noArgs) (any, error) {
	return "Data Roaming is now OFF.", turnTo(false, e.toggleRoaming)
}

func turnDataSaverModeOn(_ context.Context, e *Env, _ noArgs) (any, error) {
	if !e.toggleDataSaver() {
		e.toggleDataSaver()
	}
	return "Data Saver Mode is now ON.", nil
}

func turnDataSaverModeOff(_ context.Context, e *Env, _ noArgs) (any, error) {
	if e.toggleDataSaver() {
		e.toggleDataSaver()
	}
	return "Data Saver Mode is now OFF.", nil
}

func breakAPNSettings(_ context.Context, e *Env, _ noArgs) (any, error) {
	apn, err := e.dev().ActiveAPNSettings.get("apn_name")
	if err != nil {
		return nil, err
	}
	apn.APNName = APNBroken
	return "APN settings broken. Please call reset_apn_settings() to fix.", e.networkSearch()
}

func breakAPNMMSSetting(_ context.Context, e *Env, _ noArgs) (any, error) {
	apn, err := e.dev().ActiveAPNSettings.get("mmsc_url")
	if err != nil {
		return nil, err
	}
	apn.MMSCURL = nil
	return "APN MMS setting broken. Please call reset_apn_settings() to fix.", nil
}

func setWiFiCalling(_ context.Context, e *Env, a wifiCallingArgs) (any, error) {
	if e.dev().WiFiCallingEnabled != a.Enabled {
		e.toggleWiFiCalling()
	}
	msg := "Wi-Fi Calling is now " + onOff(a.Enabled) + "."
	if a.MMSOverWiFi != nil {
		e.dev().WiFiCallingMMSOverWiFi = *a.MMSOverWiFi
		msg += "\nMMS over Wi-Fi is now " + onOff(*a.MMSOverWiFi) + "."
	}
	return msg, nil
}

func breakVPN(_ context.Context, e *Env, _ noArgs) (any, error) {
	e.connectVPN()
	d := e.dev()
	if d.VPNDetails == nil {
		return nil, errors.New("'NoneType' object has no attribute 'server_performance'")
	}
	if d.VPNDetails != e.vpn {
		// Details loaded from the user database are shared: copy them.
		c := *d.VPNDetails
		d.VPNDetails = &c
	}
	d.VPNDetails.ServerPerformance = PerfPoor
	return "VPN connection broken.", nil
}

func removeAppPermission(_ context.Context, e *Env, a permArgs) (any, error) {
	perm := pyjson.Lower(a.Permission)
	i := e.dev().AppStatuses.find(a.AppName)
	if i < 0 {
		return []any{false, "App '" + a.AppName + "' not found. Cannot remove permission."}, nil
	}
	if !slices.Contains(permissionNames, perm) {
		return []any{false, "Permission '" + perm + "' not tracked for app '" + a.AppName + "'."}, nil
	}
	*e.mutApps()[i].Status.Permissions.field(perm) = false
	return []any{true, "Permission '" + perm + "' removed from app '" + a.AppName + "'."}, nil
}

func simulateNetworkSearch(_ context.Context, e *Env, _ noArgs) (any, error) {
	return nil, e.networkSearch()
}

func assertAirplaneModeStatus(_ context.Context, e *Env, a expectBoolArgs) (any, error) {
	return e.dev().AirplaneMode == a.ExpectedStatus, nil
}

func assertServiceStatus(_ context.Context, e *Env, a expectStrArgs) (any, error) {
	if !slices.Contains(netStatuses, a.ExpectedStatus) {
		return nil, fmt.Errorf("%s is not a valid NetworkStatus", pyjson.ReprString(a.ExpectedStatus))
	}
	return e.dev().NetworkConnectionStatus == a.ExpectedStatus, nil
}

func assertMobileDataStatus(_ context.Context, e *Env, a expectBoolArgs) (any, error) {
	return e.mobileDataWorking() == a.ExpectedStatus, nil
}

func assertMobileRoamingStatus(_ context.Context, e *Env, a expectBoolArgs) (any, error) {
	return e.dev().RoamingEnabled == a.ExpectedStatus, nil
}

func assertMobileDataSaverModeStatus(_ context.Context, e *Env, a expectBoolArgs) (any, error) {
	return e.dev().DataSaverMode == a.ExpectedStatus, nil
}

func assertInternetSpeed(_ context.Context, e *Env, a speedArgs) (any, error) {
	speed, desc, _ := e.speedTest()
	if a.ExpectedDesc == nil {
		return speed >= a.ExpectedSpeed, nil
	}
	return speed >= a.ExpectedSpeed && pyjson.Lower(desc) == pyjson.Lower(*a.ExpectedDesc), nil
}

func assertInternetNotExcellent(_ context.Context, e *Env, _ noArgs) (any, error) {
	_, desc, _ := e.speedTest()
	return pyjson.Lower(desc) != "excellent", nil
}

func assertCanSendMMS(_ context.Context, e *Env, a expectBoolArgs) (any, error) {
	ok, err := e.canSendMMS()
	if err != nil {
		return nil, err
	}
	return ok == a.ExpectedStatus, nil
}

func assertMobileDataUsageExceeded(_ context.Context, e *Env, a expectBoolArgs) (any, error) {
	return e.user.Surroundings.MobileDataUsageExceeded == a.ExpectedStatus, nil
}
