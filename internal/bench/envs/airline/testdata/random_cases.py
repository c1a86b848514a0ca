"""Draw random airline tool-call cases for differential testing against
upstream (see oracle.py and TestToolCases).

Usage: python3 random_cases.py <seed> <number of cases> <db.json> > cases.json

Each case is 1-6 calls on real ids with occasional odd arguments: floats and
strings for ints, junk values, missing or extra keys, wrong payment ids.
Calculate expressions avoid huge powers, on which CPython would run for
minutes.
"""

import json
import random
import re
import sys

seed, n, db_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
R = random.Random(seed)
db = json.load(open(db_path))
users, res, flights = list(db["users"]), list(db["reservations"]), list(db["flights"])
CABINS = ["economy", "business", "basic_economy"]
JUNK = [None, True, False, 0, 1, -3, 2.5, 3.0, "", "x", "HAT001", [], ["a"], {}, {"a": 1}, 1e20, "12"]


def junk():
    return R.choice(JUNK)


def maybe(v, p=0.1):
    return junk() if R.random() < p else v


def rint(lo=0, hi=4):
    v = R.randint(lo, hi)
    r = R.random()
    if r < 0.1:
        return float(v)
    if r < 0.13:
        return v + 0.5
    if r < 0.16:
        return str(v)
    if r < 0.18:
        return junk()
    return v


def flight_date():
    fn = R.choice(flights)
    return fn, R.choice(list(db["flights"][fn]["dates"]))


def flight_info():
    fn, dt = flight_date()
    d = {"flight_number": maybe(fn, 0.05), "date": maybe(dt, 0.05)}
    if R.random() < 0.05:
        del d["date"]
    if R.random() < 0.05:
        d["extra"] = 1
    return d


def passenger(uid):
    u = db["users"][uid]
    me = {"first_name": u["name"]["first_name"], "last_name": u["name"]["last_name"], "dob": u["dob"]}
    p = dict(R.choice(u["saved_passengers"] + [me]))
    if R.random() < 0.05:
        del p["dob"]
    if R.random() < 0.03:
        p["first_name"] = junk()
    return p


def payment(uid, amount):
    ids = list(db["users"][uid]["payment_methods"]) + ["certificate_3221322", "gift_card_0"]
    return {"payment_id": maybe(R.choice(ids), 0.05),
            "amount": R.choice([amount, amount, float(amount), amount + 1, amount // 2, amount + 0.5])}


def expression():
    toks = ["1", "2", "10", "0", "3.5", ".5", "07", "100", "+", "-", "*", "/", "//", "**", "(", ")", " ", "."]
    while True:
        e = "".join(R.choice(toks) for _ in range(R.randint(0, 9)))
        if e.count("**") <= 1 and not re.search(r"\*\*[\s(+\-]*[\d.]{4,}", e):
            return e


def call():
    name = R.choice(["book_reservation"] * 4 + ["calculate"] * 2 + ["cancel_reservation"] * 2 + [
        "get_reservation_details", "get_user_details", "list_all_airports", "search_direct_flight",
        "search_onestop_flight", "send_certificate", "transfer_to_human_agents"] + [
        "update_reservation_baggages"] * 3 + ["update_reservation_flights"] * 4 + [
        "update_reservation_passengers"] * 2 + ["get_flight_status", "nope"])
    rid = R.choice(res)
    r = db["reservations"][rid]
    uid = r["user_id"]
    methods = list(db["users"][uid]["payment_methods"])
    if name == "book_reservation":
        fl = [flight_info() for _ in range(R.randint(0, 3))]
        if R.random() < 0.5 and r["flights"]:
            fl = [{"flight_number": f["flight_number"], "date": f["date"]} for f in r["flights"]]
        npass = R.randint(0, 3)
        a = dict(user_id=maybe(uid, 0.05), origin=maybe(r["origin"], 0.05), destination=maybe(r["destination"], 0.05),
                 flight_type=maybe(R.choice(["one_way", "round_trip"]), 0.05), cabin=maybe(R.choice(CABINS), 0.05),
                 flights=maybe(fl, 0.03), passengers=maybe([passenger(uid) for _ in range(npass)], 0.03),
                 payment_methods=None, total_baggages=rint(), nonfree_baggages=rint(0, 2),
                 insurance=maybe(R.choice(["yes", "no"]), 0.05))
        cabin = a["cabin"] if a["cabin"] in CABINS else "economy"
        total = 0
        for f in fl:
            fn, dt = f.get("flight_number"), f.get("date")
            if isinstance(fn, str) and isinstance(dt, str):
                status = db["flights"].get(fn, {}).get("dates", {}).get(dt, {})
                total += status.get("prices", {}).get(cabin, 0) * npass
        if a["insurance"] == "yes":
            total += 30 * npass
        if isinstance(a["nonfree_baggages"], int):
            total += 50 * a["nonfree_baggages"]
        k = R.randint(0, 2)
        pays = [payment(uid, total)] if k == 0 else [payment(uid, total // 2), payment(uid, total - total // 2)] if k == 1 else []
        a["payment_methods"] = maybe(pays, 0.03)
    elif name == "calculate":
        a = {"expression": expression() if R.random() > 0.05 else junk()}
    elif name in ("cancel_reservation", "get_reservation_details"):
        a = {"reservation_id": maybe(rid)}
    elif name == "get_user_details":
        a = {"user_id": maybe(uid)}
    elif name == "list_all_airports":
        a = {} if R.random() < 0.9 else {"x": 1}
    elif name in ("search_direct_flight", "search_onestop_flight"):
        f = db["flights"][R.choice(flights)]
        a = {"origin": maybe(f["origin"]), "destination": maybe(R.choice([f["destination"], r["destination"]])),
             "date": maybe(flight_date()[1])}
    elif name == "send_certificate":
        a = {"user_id": maybe(uid), "amount": R.choice([50, 100, 150.0, 12.5, "30", 0, -5, None])}
    elif name == "transfer_to_human_agents":
        a = {"summary": maybe("help", 0.2)}
    elif name == "update_reservation_baggages":
        a = {"reservation_id": maybe(rid, 0.05), "total_baggages": rint(0, 5), "nonfree_baggages": rint(0, 3),
             "payment_id": maybe(R.choice(methods))}
    elif name == "update_reservation_flights":
        fl = [{"flight_number": f["flight_number"], "date": f["date"]} for f in r["flights"]]
        if fl and R.random() < 0.5:
            i = R.randrange(len(fl))
            fn, dt = flight_date()
            fl[i] = {"flight_number": fn, "date": R.choice([dt, fl[i]["date"]])}
        if R.random() < 0.1:
            fl = fl[:-1]
        if R.random() < 0.05:
            fl = junk()
        a = {"reservation_id": maybe(rid, 0.05), "cabin": maybe(R.choice([r["cabin"]] * 2 + CABINS), 0.05),
             "flights": fl, "payment_id": maybe(R.choice(methods))}
    elif name == "update_reservation_passengers":
        ps = [passenger(uid) for _ in range(len(r["passengers"]) + R.choice([0, 0, 0, 1, -1]))]
        a = {"reservation_id": maybe(rid, 0.05), "passengers": maybe(ps, 0.05)}
    elif name == "get_flight_status":
        fn, dt = flight_date()
        a = {"flight_number": maybe(fn), "date": maybe(dt)}
    else:
        a = {}
    if R.random() < 0.02 and a:
        a.pop(R.choice(list(a)))
    if R.random() < 0.02:
        a["unexpected"] = 1
    return {"name": name, "arguments": a}


cases = [{"name": "random %d-%d" % (seed, i), "calls": [call() for _ in range(R.randint(1, 6))]} for i in range(n)]
json.dump(cases, sys.stdout)
