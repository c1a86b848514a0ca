"""Writes cases.json, the scenarios of TestScenarios (golden transcript in
cases.golden) and TestDifferentialOracle. Edit here, run
`python3 testdata/gen_cases.py` from envs/telecom, then
`go test -run TestScenarios -update`."""
import json
from pathlib import Path
U, A = "user", "assistant"
def t(side, fname, **args): return {"side": side, "mode": "tool", "name": fname, "arguments": args}
def f(side, fname, **args): return {"side": side, "mode": "func", "name": fname, "arguments": args}
def raw(side, mode, name, args): return {"side": side, "mode": mode, "name": name, "arguments": args}
info = f(U, "set_user_info", name="John Smith", phone_number="555-123-2002")
cases = []
def case(name, *steps): cases.append({"name": name, "steps": list(steps)})

# --- status bar and network status across device states
case("status bar: default, airplane, no SIM, data off, data saver, VPN",
     t(U, "check_status_bar"), f(U, "turn_airplane_mode_on"), t(U, "check_status_bar"), f(U, "turn_airplane_mode_off"),
     f(U, "unseat_sim_card"), t(U, "check_status_bar"), t(U, "reseat_sim_card"),
     f(U, "turn_data_off"), t(U, "check_status_bar"), f(U, "turn_data_on"), t(U, "check_status_bar"),
     f(U, "turn_data_saver_mode_on"), t(U, "check_status_bar"), t(U, "connect_vpn"), t(U, "check_status_bar"))
case("status bar: signal per network mode",
     f(U, "set_network_mode_preference", mode="2g_only"), f(U, "simulate_network_search"), t(U, "check_status_bar"),
     t(U, "set_network_mode_preference", mode="2g_only"), t(U, "set_network_mode_preference", mode="3g_only"),
     t(U, "set_network_mode_preference", mode="4g_only"), t(U, "set_network_mode_preference", mode="4g_5g_preferred"),
     t(U, "set_network_mode_preference", mode="5g_only"), t(U, "set_network_mode_preference", mode="4G_ONLY"),
     t(U, "check_network_mode_preference"))
case("network status: default, no SIM, airplane, wifi on",
     t(U, "check_network_status"), f(U, "unseat_sim_card"), t(U, "check_network_status"), t(U, "reseat_sim_card"),
     t(U, "toggle_wifi"), t(U, "check_network_status"), t(U, "toggle_airplane_mode"), t(U, "check_network_status"),
     t(U, "toggle_airplane_mode"), t(U, "check_network_status"))
# --- speed test
case("speed test per technology and signal",
     t(U, "run_speed_test"), t(U, "set_network_mode_preference", mode="4g_only"), t(U, "run_speed_test"),
     t(U, "set_network_mode_preference", mode="3g_only"), t(U, "run_speed_test"),
     t(U, "set_network_mode_preference", mode="2g_only"), t(U, "run_speed_test"),
     f(U, "assert_internet_speed", expected_speed=0.1), f(U, "assert_internet_not_excellent"))
case("speed test: data saver and poor VPN",
     f(U, "turn_data_saver_mode_on"), t(U, "run_speed_test"), t(U, "check_data_restriction_status"),
     f(U, "break_vpn"), t(U, "run_speed_test"), t(U, "check_vpn_status"), t(U, "toggle_data_saver_mode"),
     t(U, "run_speed_test"), t(U, "check_data_restriction_status"), t(U, "disconnect_vpn"), t(U, "run_speed_test"),
     f(U, "assert_internet_speed", expected_speed=200, expected_desc="excellent"),
     f(U, "assert_internet_speed", expected_speed=200, expected_desc="good"))
case("speed test: no connection",
     f(U, "turn_data_off"), t(U, "run_speed_test"), f(U, "assert_mobile_data_status", expected_status=False),
     f(U, "assert_internet_speed", expected_speed=0), f(U, "assert_internet_not_excellent"))
# --- abroad and roaming (sync with the agent's line)
case("abroad: roaming needs phone setting and line roaming",
     info, f(U, "set_user_location", abroad=True), f(U, "turn_roaming_off"),
     f(A, "disable_roaming", customer_id="C1001", line_id="L1002"), t(U, "run_speed_test"),
     t(U, "toggle_roaming"), t(U, "run_speed_test"), t(A, "enable_roaming", customer_id="C1001", line_id="L1002"),
     t(U, "run_speed_test"), t(U, "toggle_roaming"), t(U, "check_network_status"),
     f(U, "assert_mobile_roaming_status", expected_status=False), f(U, "assert_mobile_data_status", expected_status=False),
     f(U, "turn_roaming_on"), f(U, "assert_mobile_data_status", expected_status=True))
case("data usage exceeded and refuel",
     info, f(A, "set_data_usage", customer_id="C1001", line_id="L1002", data_used_gb=15.1),
     f(U, "assert_mobile_data_usage_exceeded", expected_status=True), t(U, "run_speed_test"),
     t(A, "get_data_usage", customer_id="C1001", line_id="L1002"),
     t(A, "refuel_data", customer_id="C1001", line_id="L1002", gb_amount=2.0), t(U, "run_speed_test"),
     f(U, "assert_mobile_data_usage_exceeded", expected_status=False),
     f(A, "assert_data_refueling_amount", customer_id="C1001", line_id="L1002", expected_amount=2.0),
     t(A, "get_data_usage", customer_id="C1001", line_id="L1002"), t(A, "get_details_by_id", id="B1003"))
# --- airplane mode transitions
case("airplane mode: wifi and VPN are dropped",
     t(U, "toggle_wifi"), t(U, "connect_vpn"), t(U, "toggle_airplane_mode"), t(U, "check_wifi_status"),
     t(U, "check_vpn_status"), t(U, "toggle_wifi"), t(U, "toggle_airplane_mode"), t(U, "check_wifi_status"),
     f(U, "assert_airplane_mode_status", expected_status=False), f(U, "turn_airplane_mode_on"),
     f(U, "assert_airplane_mode_status", expected_status=True), f(U, "assert_service_status", expected_status="no_service"))
# --- SIM
case("SIM: missing, locked PIN, locked PUK",
     t(U, "check_sim_status"), f(U, "unseat_sim_card"), t(U, "check_sim_status"),
     f(U, "assert_service_status", expected_status="no_service"), t(U, "reseat_sim_card"), t(U, "check_sim_status"),
     f(U, "lock_sim_card", mode="pin"), t(U, "check_sim_status"), t(U, "reseat_sim_card"), t(U, "check_network_status"),
     f(U, "lock_sim_card", mode="puk"), t(U, "check_sim_status"), f(U, "lock_sim_card", mode="other"), t(U, "check_sim_status"),
     f(U, "assert_service_status", expected_status="bogus"))
# --- mobile data and roaming toggles
case("toggles: data, roaming, data saver, wifi calling",
     t(U, "toggle_data"), t(U, "toggle_data"), t(U, "toggle_roaming"), t(U, "toggle_roaming"),
     t(U, "toggle_data_saver_mode"), t(U, "toggle_data_saver_mode"), t(U, "check_wifi_calling_status"),
     t(U, "toggle_wifi_calling"), t(U, "check_wifi_calling_status"), t(U, "toggle_wifi_calling"),
     f(U, "turn_data_saver_mode_on"), f(U, "turn_data_saver_mode_on"), f(U, "assert_mobile_data_saver_mode_status", expected_status=True),
     f(U, "turn_data_saver_mode_off"), f(U, "turn_roaming_on"), f(U, "turn_roaming_on"), f(U, "turn_roaming_off"),
     f(U, "turn_airplane_mode_off"), f(U, "turn_data_on"))
# --- APN
case("APN: broken APN, reset, reboot",
     t(U, "check_apn_settings"), f(U, "break_apn_settings"), t(U, "check_apn_settings"), t(U, "check_status_bar"),
     t(U, "reboot_device"), t(U, "reset_apn_settings"), t(U, "check_apn_settings"), t(U, "reboot_device"),
     t(U, "check_apn_settings"), f(U, "assert_service_status", expected_status="connected"))
case("APN: MMS URL broken then reset",
     f(U, "break_apn_mms_setting"), t(U, "check_apn_settings"), t(U, "can_send_mms"), t(U, "reset_apn_settings"),
     t(U, "can_send_mms"), t(U, "reboot_device"), t(U, "can_send_mms"), f(U, "assert_can_send_mms", expected_status=True))
case("APN: set_apn_settings values and validation",
     t(U, "set_apn_settings", apn_settings={"apn_name": "broken"}), t(U, "check_apn_settings"),
     t(U, "set_apn_settings", apn_settings={}), t(U, "check_apn_settings"),
     t(U, "set_apn_settings", apn_settings={"apn_name": "internet", "mmsc_url": None, "mms_port": "8080", "reset_at_reboot": "yes"}),
     t(U, "check_apn_settings"), t(U, "can_send_mms"),
     t(U, "set_apn_settings", apn_settings={"apn_name": "fast"}),
     t(U, "set_apn_settings", apn_settings={"apn_name": "internet", "color": "red"}),
     t(U, "set_apn_settings", apn_settings={"mms_apn": 5, "mms_port": 1.5}),
     t(U, "set_apn_settings", apn_settings={"mmsc_url": ""}), t(U, "check_apn_settings"), t(U, "can_send_mms"),
     t(U, "reboot_device"))
case("APN: a non-object apn_settings is stored and breaks later APN uses",
     t(U, "set_apn_settings", apn_settings="internet"), t(U, "check_apn_settings"), t(U, "toggle_data"),
     t(U, "check_status_bar"), t(U, "can_send_mms"), t(U, "reset_apn_settings"), t(U, "reboot_device"),
     f(U, "assert_can_send_mms", expected_status=True), f(U, "break_apn_mms_setting"),
     t(U, "set_apn_settings", apn_settings=None), t(U, "set_apn_settings", apn_settings={"apn_name": "internet"}),
     t(U, "check_apn_settings"), t(U, "can_send_mms"))
# --- wifi
case("wifi: on, off, blocked by airplane mode",
     t(U, "check_wifi_status"), t(U, "toggle_wifi"), t(U, "check_wifi_status"), t(U, "toggle_wifi"),
     t(U, "check_wifi_status"), f(U, "turn_airplane_mode_on"), t(U, "toggle_wifi"))
# --- VPN
case("VPN: connect, connect again, disconnect, disconnect again",
     t(U, "check_vpn_status"), t(U, "connect_vpn"), t(U, "check_vpn_status"), t(U, "connect_vpn"),
     t(U, "disconnect_vpn"), t(U, "check_vpn_status"), t(U, "disconnect_vpn"))
case("VPN: broken VPN stays poor after reconnecting (per-simulation default object)",
     f(U, "break_vpn"), t(U, "disconnect_vpn"), t(U, "connect_vpn"), t(U, "check_vpn_status"), t(U, "run_speed_test"),
     f(U, "break_vpn"), t(U, "check_vpn_status"))
# --- apps and MMS
case("apps: status, permissions, grant",
     t(U, "check_installed_apps"), t(U, "check_app_status", app_name="messaging"), t(U, "check_app_status", app_name="browser"),
     t(U, "check_app_status", app_name="camera"), t(U, "check_app_permissions", app_name="messaging"),
     t(U, "check_app_permissions", app_name="camera"),
     f(U, "remove_app_permission", app_name="messaging", permission="sms"),
     f(U, "remove_app_permission", app_name="messaging", permission="STORAGE"),
     f(U, "remove_app_permission", app_name="messaging", permission="phone"),
     f(U, "remove_app_permission", app_name="messaging", permission="camera"),
     f(U, "remove_app_permission", app_name="camera", permission="sms"),
     t(U, "check_app_status", app_name="messaging"), t(U, "check_app_permissions", app_name="messaging"),
     t(U, "can_send_mms"), t(U, "grant_app_permission", app_name="messaging", permission="SMS"),
     t(U, "can_send_mms"), t(U, "grant_app_permission", app_name="messaging", permission="storage"),
     t(U, "grant_app_permission", app_name="messaging", permission="camera"),
     t(U, "grant_app_permission", app_name="camera", permission="sms"), t(U, "can_send_mms"),
     t(U, "check_app_status", app_name="messaging"))
case("MMS: 2G, wifi calling MMS over wifi",
     t(U, "can_send_mms"), f(U, "set_wifi_calling", enabled=True, mms_over_wifi=True), t(U, "can_send_mms"),
     t(U, "check_wifi_calling_status"), t(U, "toggle_wifi_calling"), t(U, "can_send_mms"),
     f(U, "set_wifi_calling", enabled=False), f(U, "set_wifi_calling", enabled=True, mms_over_wifi=False),
     t(U, "can_send_mms"), f(U, "set_network_mode_preference", mode="2g_only"), t(U, "can_send_mms"),
     f(U, "assert_can_send_mms", expected_status=False))
# --- payment
case("payment: request, check, pay, sync marks bill paid",
     info, t(U, "check_payment_request"), t(U, "make_payment"),
     t(A, "send_payment_request", customer_id="C1001", bill_id="B1002"), t(U, "check_payment_request"),
     t(A, "send_payment_request", customer_id="C1001", bill_id="B1001"), t(U, "make_payment"),
     t(A, "get_details_by_id", id="B1002"), t(U, "check_payment_request"),
     t(A, "send_payment_request", customer_id="C1001", bill_id="B1004"),
     t(A, "send_payment_request", customer_id="C9999", bill_id="B1002"))
case("overdue bill: suspended line, pay, resume",
     info, f(A, "suspend_line_for_overdue_bill", customer_id="C1001", line_id="L1002", new_bill_id="B1234321", contract_ended=False),
     t(U, "check_status_bar"), t(U, "reboot_device"), f(U, "assert_service_status", expected_status="no_service"),
     f(A, "assert_overdue_bill_exists", customer_id="C1001", overdue_bill_id="B1234321"),
     f(A, "assert_no_overdue_bill", overdue_bill_id="B1234321"),
     f(A, "assert_line_status", customer_id="C1001", line_id="L1002", expected_status="Suspended"),
     t(A, "get_bills_for_customer", customer_id="C1001", limit=2),
     t(A, "send_payment_request", customer_id="C1001", bill_id="B1234321"), t(U, "check_payment_request"),
     t(U, "make_payment"), t(U, "check_payment_request"), f(A, "assert_no_overdue_bill", overdue_bill_id="B1234321"),
     t(A, "resume_line", customer_id="C1001", line_id="L1002"), t(U, "check_status_bar"), t(U, "reboot_device"),
     f(U, "assert_service_status", expected_status="connected"),
     f(A, "suspend_line_for_overdue_bill", customer_id="C1001", line_id="L1002", new_bill_id="B77", contract_ended=True),
     f(A, "suspend_line_for_overdue_bill", customer_id="C1001", line_id="L1001", new_bill_id="B78", contract_ended=True),
     f(A, "assert_overdue_bill_exists", customer_id="C1001", overdue_bill_id="B1001"),
     f(A, "assert_overdue_bill_exists", customer_id="C1001", overdue_bill_id="B9"),
     f(A, "assert_no_overdue_bill", overdue_bill_id="B9"))
case("overdue bill with contract ended; duplicate bill id",
     info, f(A, "suspend_line_for_overdue_bill", customer_id="C1001", line_id="L1002", new_bill_id="B1001", contract_ended=True),
     t(A, "get_details_by_id", id="L1002"), t(A, "get_bills_for_customer", customer_id="C1001"),
     t(A, "get_customer_by_id", customer_id="C1001"))
# --- agent tools
case("agent lookups",
     t(A, "get_customer_by_phone", phone_number="555-123-2002"), t(A, "get_customer_by_phone", phone_number="555-123-2003"),
     t(A, "get_customer_by_phone", phone_number="555-123-1002"), t(A, "get_customer_by_phone", phone_number="555-000-0000"),
     t(A, "get_customer_by_id", customer_id="C1004"), t(A, "get_customer_by_id", customer_id="C9"),
     t(A, "get_customer_by_name", full_name="john SMITH", dob="1985-06-15"),
     t(A, "get_customer_by_name", full_name="John Smith", dob="1985-06-16"),
     t(A, "get_details_by_id", id="L1009"), t(A, "get_details_by_id", id="D1002"), t(A, "get_details_by_id", id="B1005"),
     t(A, "get_details_by_id", id="C1003"), t(A, "get_details_by_id", id="P1003"), t(A, "get_details_by_id", id="X1"),
     t(A, "get_details_by_id", id="L9"), t(A, "get_details_by_id", id="D9"), t(A, "get_details_by_id", id="B9"),
     t(A, "get_details_by_id", id="P9"), t(A, "get_details_by_id", id=""),
     f(A, "get_available_plan_ids"))
case("agent bills",
     t(A, "get_bills_for_customer", customer_id="C1001"), t(A, "get_bills_for_customer", customer_id="C1001", limit=1),
     t(A, "get_bills_for_customer", customer_id="C1001", limit=0), t(A, "get_bills_for_customer", customer_id="C1001", limit=-1),
     t(A, "get_bills_for_customer", customer_id="C1001", limit=None), t(A, "get_bills_for_customer", customer_id="C1004"),
     t(A, "get_bills_for_customer", customer_id="C1002", limit=True), t(A, "get_bills_for_customer", customer_id="C9"))
case("agent line suspend and resume",
     info, t(A, "suspend_line", customer_id="C1001", line_id="L1002", reason="travel"), t(U, "check_status_bar"),
     t(U, "toggle_airplane_mode"), t(U, "toggle_airplane_mode"), t(U, "check_network_status"),
     t(A, "suspend_line", customer_id="C1001", line_id="L1002", reason="again"),
     t(A, "resume_line", customer_id="C1001", line_id="L1002"), t(A, "resume_line", customer_id="C1001", line_id="L1002"),
     t(A, "suspend_line", customer_id="C1001", line_id="L1004", reason="x"),
     t(A, "suspend_line", customer_id="C9", line_id="L1004", reason="x"),
     t(A, "resume_line", customer_id="C1001", line_id="L1003"),
     f(A, "assert_line_status", customer_id="C1001", line_id="L1003", expected_status="Active"))
case("agent roaming and data",
     t(A, "enable_roaming", customer_id="C1001", line_id="L1002"), t(A, "disable_roaming", customer_id="C1001", line_id="L1002"),
     t(A, "disable_roaming", customer_id="C1001", line_id="L1002"), t(A, "enable_roaming", customer_id="C1001", line_id="L1002"),
     t(A, "enable_roaming", customer_id="C1001", line_id="L1004"), t(A, "get_data_usage", customer_id="C1002", line_id="L1006"),
     t(A, "get_data_usage", customer_id="C1001", line_id="L1005"), t(A, "transfer_to_human_agents", summary="Customer needs help."))
case("agent refuel: amounts, types, new draft bill",
     t(A, "refuel_data", customer_id="C1001", line_id="L1002", gb_amount=2), t(A, "refuel_data", customer_id="C1001", line_id="L1002", gb_amount=0.5),
     t(A, "refuel_data", customer_id="C1001", line_id="L1002", gb_amount=0), t(A, "refuel_data", customer_id="C1001", line_id="L1002", gb_amount=-1),
     t(A, "refuel_data", customer_id="C1001", line_id="L1002", gb_amount="2"), t(A, "refuel_data", customer_id="C1001", line_id="L1002", gb_amount=None),
     t(A, "refuel_data", customer_id="C1001", line_id="L1002", gb_amount=True),
     t(A, "refuel_data", customer_id="C1001", line_id="L1002", gb_amount=1e-05),
     t(A, "refuel_data", customer_id="C1002", line_id="L1004", gb_amount=3.3), t(A, "refuel_data", customer_id="C1002", line_id="L1005", gb_amount=1),
     t(A, "get_bills_for_customer", customer_id="C1002"), t(A, "get_details_by_id", id="L1004"),
     f(A, "set_data_usage", customer_id="C1001", line_id="L1001", data_used_gb=4.0),
     f(A, "set_data_usage", customer_id="C1001", line_id="L1003", data_used_gb=7),
     t(A, "get_data_usage", customer_id="C1001", line_id="L1003"), t(A, "get_details_by_id", id="L1003"),
     f(A, "set_data_usage", customer_id="C1001", line_id="L1004", data_used_gb=4.5))
# --- calling convention
case("calling convention: unknown tools, sides, arguments",
     t(A, "check_status_bar"), t(U, "get_customer_by_id", customer_id="C1001"), t(U, "no_such_tool"),
     t(A, "get_customer_by_id"), t(A, "get_customer_by_id", customer_id="C1001", extra=1),
     t(A, "suspend_line"), t(A, "suspend_line", customer_id="C1001"), t(U, "check_app_status"),
     t(U, "check_status_bar", verbose=True), t(U, "grant_app_permission"),
     f(U, "no_such_function"), f(A, "no_such_function"), f(U, "set_user_info", name="x"),
     f(A, "set_data_usage", customer_id="C1001", line_id="L1002"))
with open(Path(__file__).with_name("cases.json"), "w") as fp:
    fp.write("[\n")
    for i, c in enumerate(cases):
        fp.write(' {"name": %s, "steps": [\n' % json.dumps(c["name"], ensure_ascii=False))
        fp.write(",\n".join("  " + json.dumps(st, ensure_ascii=False) for st in c["steps"]))
        fp.write("\n ]}" + ("," if i < len(cases) - 1 else "") + "\n")
    fp.write("]\n")
print(len(cases), "cases,", sum(len(c["steps"]) for c in cases), "steps")
