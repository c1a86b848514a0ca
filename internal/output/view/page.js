"use strict";
(function () {
  // Errors of the page go into #page-errors, where tests and readers see them.
  var errBox = document.getElementById("page-errors");
  function noteError(msg) {
    var n = Number(errBox.dataset.count) + 1;
    errBox.dataset.count = String(n);
    errBox.hidden = false;
    errBox.textContent += msg + "\n";
  }
  window.addEventListener("error", function (e) { noteError("error: " + e.message + " (" + (e.lineno || 0) + ")"); });
  window.addEventListener("unhandledrejection", function (e) { noteError("rejection: " + e.reason); });
  var origError = console.error;
  console.error = function () { noteError("console.error: " + Array.prototype.join.call(arguments, " ")); origError.apply(console, arguments); };

  function block(id) {
    var el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  }
  // h builds an element; children are nodes or strings (always text).
  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) {
      for (var k in attrs) {
        var v = attrs[k];
        if (v === undefined || v === null || v === false) continue;
        if (k === "on") { for (var ev in v) el.addEventListener(ev, v[ev]); }
        else if (k === "cls") el.className = v;
        else el.setAttribute(k, v === true ? "" : v);
      }
    }
    for (var i = 2; i < arguments.length; i++) add(el, arguments[i]);
    return el;
  }
  function add(el, c) {
    if (c === undefined || c === null || c === false) return;
    if (Array.isArray(c)) { c.forEach(function (x) { add(el, x); }); return; }
    el.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
  }
  function pct(x) { return x === undefined || x === null ? "–" : (100 * x).toFixed(1); }
  function num(x, d) { return x === undefined || x === null ? "–" : Number(x).toFixed(d); }
  // money is a cost; null (unknown: a backbone without a price, or not
  // recorded) shows as missing, never as $0.
  function money(x) { return x === undefined || x === null ? "–" : "$" + Number(x).toFixed(4); }
  function known(s, field, x) { return (s.unknown || []).indexOf(field) >= 0 ? null : x; }
  function pretty(raw) {
    if (raw === undefined || raw === null) return "";
    if (typeof raw === "string") {
      try { return JSON.stringify(JSON.parse(raw), null, 2); } catch (e) { return raw; }
    }
    return JSON.stringify(raw, null, 2);
  }
  // args shows a JSON value on one line when short, indented otherwise.
  function args(raw) {
    var v = parseArgs(raw);
    var one = typeof v === "string" ? v : JSON.stringify(v);
    return one && one.length <= 300 ? one : pretty(raw);
  }
  function parseArgs(raw) {
    if (typeof raw === "string") { try { return JSON.parse(raw); } catch (e) { return raw; } }
    return raw;
  }

  var data = block("index");
  var groups = data.groups, sims = data.sims;

  // Simulations come one plain JSON block each (data.chunk 0) or
  // data.chunk at a time in gzip-compressed base64 chunks, inline or in
  // script files beside the page (data.chunk_href; <script src> works from
  // file://, fetch does not). simData returns a promise of one simulation.
  var chunks = {}, pending = {};
  window.ledgerbenchChunk = function (c, b64) { if (pending[c]) pending[c].resolve(b64); };
  function chunkText(c) {
    var el = document.getElementById("c" + c);
    if (el) return Promise.resolve(el.textContent);
    if (!data.chunk_href) return Promise.reject(new Error("chunk " + c + " is not in the page"));
    return new Promise(function (resolve, reject) {
      var src = data.chunk_href + "/c" + c + ".js";
      pending[c] = { resolve: resolve };
      var tag = document.createElement("script");
      tag.src = src;
      tag.onerror = function () { reject(new Error("could not load " + src + ": keep the " + data.chunk_href + " folder beside this page")); };
      document.head.appendChild(tag);
    });
  }
  function gunzipJSON(b64) {
    if (typeof DecompressionStream === "undefined") {
      return Promise.reject(new Error("this browser has no DecompressionStream (Chrome 80+, Firefox 113+, Safari 16.4+ have it); write the page with ledgerbench view --plain"));
    }
    var bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }
  function simData(i) {
    if (!(i >= 0 && i < sims.length)) return Promise.resolve(null);
    if (!data.chunk) return Promise.resolve(block("s" + i));
    var c = Math.floor(i / data.chunk);
    if (!chunks[c]) {
      chunks[c] = chunkText(c).then(gunzipJSON);
      chunks[c].catch(function () { delete chunks[c]; }); // try again on the next open
    }
    return chunks[c].then(function (arr) { return arr[i % data.chunk]; });
  }
  // Row fields (see view.go).
  var G = 0, TASK = 1, TRIAL = 2, REWARD = 3, TERM = 4, COST = 5, CAT = 6, STOP = 7, NV = 8, SHADOW = 9;
  function passed(row) { return Math.abs(row[REWARD] - 1) <= 1e-6; }
  function groupLabel(g) {
    var x = groups[g];
    return x.domain + " · " + x.agent + " · " + (x.backbone || "—") + (x.user_backbone && x.user_backbone !== x.backbone ? " / user " + x.user_backbone : "") +
      (x.trait ? " / trait " + x.trait : "") + (x.simulated ? " (SIMULATED)" : "");
  }
  function uniq(f) {
    var seen = {}, out = [];
    groups.forEach(function (g) { var v = f(g); if (!seen[v]) { seen[v] = true; out.push(v); } });
    return out.sort();
  }
  function cmpTask(a, b) {
    var na = Number(a), nb = Number(b);
    if (!isNaN(na) && !isNaN(nb)) return na - nb;
    return a < b ? -1 : a > b ? 1 : 0;
  }

  var app = document.getElementById("app");
  var PAGE = 100;

  function parseQuery(q) {
    var out = {};
    (q || "").split("&").forEach(function (kv) {
      if (!kv) return;
      var i = kv.indexOf("=");
      out[decodeURIComponent(i < 0 ? kv : kv.slice(0, i))] = i < 0 ? "1" : decodeURIComponent(kv.slice(i + 1));
    });
    return out;
  }
  function toQuery(f) {
    return Object.keys(f).filter(function (k) { return f[k] !== "" && f[k] !== undefined && f[k] !== "0"; })
      .map(function (k) { return encodeURIComponent(k) + "=" + encodeURIComponent(f[k]); }).join("&");
  }

  function route() {
    var hash = location.hash.replace(/^#/, "");
    var slash = hash.indexOf("/");
    var name = slash < 0 ? hash : hash.slice(0, slash), rest = slash < 0 ? "" : hash.slice(slash + 1);
    document.getElementById("nav-index").className = name === "compare" ? "" : "on";
    document.getElementById("nav-compare").className = name === "compare" ? "on" : "";
    app.textContent = "";
    window.scrollTo(0, 0);
    var done;
    try {
      if (name === "selftest") done = selftest();
      else if (name === "sim") done = openSim(Number(rest.split("/")[0]), rest.split("/")[1]);
      else if (name === "compare") renderCompare(parseQuery(rest));
      else renderIndex(parseQuery(rest));
    } catch (e) {
      noteError("render: " + (e && e.stack ? e.stack : e));
    }
    // Milliseconds from navigation start to the first rendered view.
    Promise.resolve(done).catch(function (e) { noteError("render: " + (e && e.message ? e.message : e)); }).then(function () {
      if (!document.body.dataset.readyMs) document.body.dataset.readyMs = String(Math.round(performance.now()));
    });
  }
  // openSim renders simulation i once its chunk is decoded; route ignores
  // the result when the reader navigated elsewhere meanwhile.
  function openSim(i, focus) {
    document.body.dataset.view = "loading";
    add(app, h("p", null, "Loading simulation " + i + "…"));
    var hash = location.hash, t0 = performance.now();
    return simData(i).then(function (s) {
      if (location.hash !== hash) return;
      app.textContent = "";
      renderSim(i, focus, s);
      document.body.dataset.simMs = String(Math.round(performance.now() - t0));
    }, function (e) {
      if (location.hash === hash) {
        app.textContent = "";
        add(app, h("p", { id: "load-error" }, "Could not open simulation " + i + ": " + (e && e.message ? e.message : e)));
      }
      throw e;
    });
  }

  // ---- index ----
  function renderIndex(f) {
    document.body.dataset.view = "index";
    var ks = 0;
    groups.forEach(function (g) { ks = Math.max(ks, (g.pass_k || []).length); });
    var head = h("tr", null, h("th", null, "domain"), h("th", null, "agent"), h("th", null, "backbone"), h("th", null, "user"),
      h("th", { cls: "num" }, "sims"), h("th", { cls: "num" }, "tasks"));
    for (var k = 1; k <= ks; k++) head.appendChild(h("th", { cls: "num" }, "pass^" + k));
    add(head, [h("th", { cls: "num" }, "avg reward"), h("th", { cls: "num" }, "failed"), h("th", { cls: "num" }, "infra"), h("th", { cls: "num" }, "cost/sim"), h("th", { cls: "num", title: "share of prompt tokens served from the provider's cache" }, "cached")]);
    var gt = h("table", { id: "groups" }, h("thead", null, head));
    var gb = h("tbody");
    groups.forEach(function (g, i) {
      var tr = h("tr", { cls: "click", "data-group": i, on: { click: function () { location.hash = "index/" + toQuery({ group: String(i) }); } } },
        h("td", null, g.domain), h("td", null, g.agent),
        h("td", null, g.backbone, g.simulated ? [" ", h("span", { cls: "badge sim", title: g.simulated + " of " + g.records + " simulations on the offline sim backbone: scripted faults, not model results" }, "SIMULATED")] : ""),
        h("td", null, g.user_backbone, g.trait ? h("span", { cls: "muted" }, " · trait " + g.trait) : ""),
        h("td", { cls: "num" }, g.records), h("td", { cls: "num" }, g.tasks));
      for (var k = 0; k < ks; k++) tr.appendChild(h("td", { cls: "num" }, pct((g.pass_k || [])[k])));
      add(tr, [h("td", { cls: "num" }, num(g.avg_reward, 3)), h("td", { cls: "num" }, g.failed), h("td", { cls: "num" }, g.infra), h("td", { cls: "num" }, money(g.cost)), h("td", { cls: "num" }, pct(g.cached))]);
      gb.appendChild(tr);
    });
    gt.appendChild(gb);
    add(app, [h("h2", null, "Groups (" + groups.length + ")"), gt]);
    groups.forEach(function (g) {
      if (g.nl_unjudged) add(app, h("p", { cls: "muted group-note" }, g.domain + "/" + g.agent + "/" + g.backbone + ": NL assertions not judged (--no-judge) in " +
        g.nl_unjudged + " of " + g.scored + " scored simulations: their rewards omit NL_ASSERTION"));
    });

    function sel(name, label, options) {
      var s = h("select", { id: "f-" + name, on: { change: function () { f[name] = s.value; apply(); } } }, h("option", { value: "" }, "all"));
      options.forEach(function (o) { s.appendChild(h("option", { value: o[0], selected: String(f[name] || "") === String(o[0]) }, o[1])); });
      return h("label", null, label + " ", s);
    }
    function check(name, label) {
      var c = h("input", { type: "checkbox", id: "f-" + name, checked: f[name] === "1", on: { change: function () { f[name] = c.checked ? "1" : ""; apply(); } } });
      return h("label", null, c, " " + label);
    }
    var cats = Object.keys(data.categories).map(function (c) { return [c, data.categories[c]]; });
    var search = h("input", { type: "text", id: "f-task", placeholder: "task id", value: f.task || "", size: 10,
      on: { change: function () { f.task = search.value.trim(); apply(); } } });
    var filters = h("div", { cls: "filters" },
      check("failed", "failed only"), check("gate", "gate stopped something"),
      sel("domain", "domain", uniq(function (g) { return g.domain; }).map(function (d) { return [d, d]; })),
      sel("agent", "agent", uniq(function (g) { return g.agent; }).map(function (d) { return [d, d]; })),
      sel("group", "group", groups.map(function (g, i) { return [String(i), groupLabel(i)]; })),
      sel("cat", "error", cats),
      h("label", null, "task ", search));
    var count = h("span", { id: "sim-count" });
    var pager = h("div", { cls: "pager" });
    var table = h("table", { id: "sims" }, h("thead", null, h("tr", null, h("th", null, "group"), h("th", null, "task"), h("th", { cls: "num" }, "trial"),
      h("th", { cls: "num" }, "reward"), h("th", null, "termination"), h("th", { cls: "num" }, "cost"), h("th", null, "error category"), h("th", null, "gate"))));
    var body = h("tbody");
    table.appendChild(body);
    add(app, [h("h2", null, "Simulations"), filters, h("div", null, count), pager, table]);

    function matches(r) {
      var g = groups[r[G]];
      if (f.failed === "1" && passed(r)) return false;
      if (f.gate === "1" && !r[STOP]) return false;
      if (f.domain && g.domain !== f.domain) return false;
      if (f.agent && g.agent !== f.agent) return false;
      if (f.group !== undefined && f.group !== "" && String(r[G]) !== String(f.group)) return false;
      if (f.cat && r[CAT] !== f.cat) return false;
      if (f.task && String(r[TASK]) !== f.task) return false;
      return true;
    }
    function apply() {
      var q = toQuery(f);
      if (location.hash.replace(/^#/, "") !== "index/" + q) history.replaceState(null, "", "#index/" + q);
      draw();
    }
    function draw() {
      var hits = [];
      for (var i = 0; i < sims.length; i++) if (matches(sims[i])) hits.push(i);
      var pages = Math.max(1, Math.ceil(hits.length / PAGE));
      var p = Math.min(Math.max(0, Number(f.page || 0)), pages - 1);
      count.textContent = hits.length + " of " + sims.length + " simulations";
      count.dataset.count = String(hits.length);
      pager.textContent = "";
      add(pager, [h("button", { disabled: p === 0, on: { click: function () { f.page = String(p - 1); apply(); } } }, "‹ prev"),
        "page " + (p + 1) + " of " + pages,
        h("button", { disabled: p >= pages - 1, on: { click: function () { f.page = String(p + 1); apply(); } } }, "next ›")]);
      body.textContent = "";
      hits.slice(p * PAGE, (p + 1) * PAGE).forEach(function (i) {
        var r = sims[i];
        body.appendChild(h("tr", { cls: "click sim-row", "data-sim": i, on: { click: function () { location.hash = "sim/" + i; } } },
          h("td", null, groupLabel(r[G])), h("td", null, r[TASK]), h("td", { cls: "num" }, r[TRIAL]),
          h("td", { cls: "num " + (passed(r) ? "pass" : "fail") }, num(r[REWARD], 2)), h("td", null, r[TERM]),
          h("td", { cls: "num" }, money(r[COST])), h("td", null, r[CAT] ? data.categories[r[CAT]] || r[CAT] : ""),
          h("td", null, r[STOP] ? h("span", { cls: "badge BLOCK" }, "stopped") : "", r[NV] ? " " + r[NV] + (r[SHADOW] ? " shadow" : "") + " verdict" + (r[NV] > 1 ? "s" : "") : "")));
      });
    }
    draw();
  }

  // ---- compare ----
  function renderCompare(f) {
    document.body.dataset.view = "compare";
    function pick(agent) {
      for (var i = 0; i < groups.length; i++) if (groups[i].agent === agent) return String(i);
      return "";
    }
    if (f.a === undefined) f.a = pick("baseline") || (groups.length ? "0" : "");
    if (f.b === undefined) {
      var a = groups[Number(f.a)];
      f.b = "";
      for (var i = 0; i < groups.length; i++) {
        if (String(i) !== f.a && (!a || groups[i].domain === a.domain)) { f.b = String(i); if (groups[i].agent === "ledger") break; }
      }
    }
    function sel(name) {
      var s = h("select", { id: "c-" + name, on: { change: function () { f[name] = s.value; location.hash = "compare/" + toQuery(f); } } });
      groups.forEach(function (g, i) { s.appendChild(h("option", { value: String(i), selected: String(i) === f[name] }, groupLabel(i))); });
      return s;
    }
    add(app, [h("h2", null, "Side by side on the same tasks"), h("div", { cls: "filters" }, h("label", null, "A ", sel("a")), h("label", null, "B ", sel("b")))]);
    if (f.a === "" || f.b === "") { add(app, h("p", null, "Two groups are needed.")); return; }
    function tally(g) {
      var t = {};
      sims.forEach(function (r, i) {
        if (String(r[G]) !== g || r[TERM] === "infrastructure_error") return;
        var x = t[r[TASK]] || (t[r[TASK]] = { n: 0, c: 0, sims: [] });
        x.n++; if (passed(r)) x.c++; x.sims.push(i);
      });
      return t;
    }
    var A = tally(f.a), B = tally(f.b);
    var ids = Object.keys(A).filter(function (id) { return B[id]; }).sort(cmpTask);
    var better = 0, worse = 0, same = 0;
    var body = h("tbody");
    ids.forEach(function (id) {
      var a = A[id], b = B[id], ra = a.c / a.n, rb = b.c / b.n, status, cls;
      if (rb > ra) { better++; status = "B better"; cls = "pass"; } else if (rb < ra) { worse++; status = "B worse"; cls = "fail"; } else { same++; status = "same"; cls = "muted"; }
      var flipped = (a.c === a.n) !== (b.c === b.n);
      function links(x) { return x.sims.map(function (i) { return h("a", { href: "#sim/" + i }, "t" + sims[i][TRIAL]); }).reduce(function (acc, el) { return acc.concat([el, " "]); }, []); }
      body.appendChild(h("tr", { cls: "cmp-row" + (flipped ? " flipped" : ""), "data-task": id },
        h("td", null, id), h("td", { cls: "num" }, a.c + "/" + a.n), h("td", null, links(a)),
        h("td", { cls: "num" }, b.c + "/" + b.n), h("td", null, links(b)),
        h("td", { cls: cls }, status + (flipped ? " (flipped)" : ""))));
    });
    add(app, [h("p", { id: "cmp-summary" }, ids.length + " shared tasks: B better on " + better + ", worse on " + worse + ", same on " + same + "."),
      h("table", { id: "compare-table" }, h("thead", null, h("tr", null, h("th", null, "task"), h("th", { cls: "num" }, "A passed"), h("th", null, "A trials"),
        h("th", { cls: "num" }, "B passed"), h("th", null, "B trials"), h("th", null, "change"))), body)]);
  }

  // ---- one simulation ----
  function renderSim(i, focus, s) {
    document.body.dataset.view = "sim";
    if (!s) { add(app, h("p", null, "No simulation " + i + ".")); return; }
    var task = s.task >= 0 ? block("t" + s.task) : null;
    var ri = s.reward_info;
    var ok = ri && Math.abs(ri.reward - 1) <= 1e-6;
    var nav = h("p", null, h("a", { href: "#index" }, "← index"), " ",
      i > 0 ? h("a", { href: "#sim/" + (i - 1) }, "‹ previous") : "", " ",
      i + 1 < sims.length ? h("a", { href: "#sim/" + (i + 1) }, "next ›") : "");
    var meta = h("dl", { cls: "meta", id: "sim-meta" });
    function m(k, v) { if (v !== undefined && v !== null && v !== "") add(meta, [h("dt", null, k), h("dd", null, v)]); }
    m("reward", h("span", { cls: "big " + (ok ? "pass" : "fail"), id: "sim-reward" }, ri ? num(ri.reward, 3) : "not scored"));
    m("task", s.task_id); m("trial", s.trial); m("domain", s.domain); m("agent", s.agent);
    m("backbone", s.backbone + (s.simulated ? " (simulated)" : "")); m("user backbone", s.user_backbone);
    m("termination", s.termination); m("error", s.error);
    if (s.diagnosis) m("error category", (data.categories[s.diagnosis.category] || s.diagnosis.category) + " — " + s.diagnosis.detail);
    m("cost", "agent " + money(known(s, "agent_cost", s.agent_cost)) + ", user " + money(known(s, "user_cost", s.user_cost)) +
      (s.judge_cost || known(s, "judge_cost", 0) === null ? ", judge " + money(known(s, "judge_cost", s.judge_cost)) : ""));
    m("tokens", "agent " + (s.agent_usage.prompt_tokens || 0) + " in / " + (s.agent_usage.completion_tokens || 0) + " out; user " + (s.user_usage.prompt_tokens || 0) + " / " + (s.user_usage.completion_tokens || 0));
    m("steps", s.steps || ""); m("duration", num(s.duration, 2) + " s"); m("seed", s.seed); m("id", s.id); m("source", s.source);
    add(app, [nav, h("h2", { id: "sim-title" }, "Simulation " + i + " · task " + s.task_id + " · trial " + s.trial + " · " + s.agent + (s.simulated ? " (SIMULATED)" : "")), meta]);

    var left = h("div"), right = h("div");
    add(app, h("div", { cls: "cols" }, left, right));
    add(left, [h("h2", null, "Conversation"), conversation(s)]);
    add(right, [h("h2", null, "Reward"), rewardBox(s, ri, task)]);
    add(right, [h("h2", null, "Task"), taskBox(task, s)]);
    if (s.reviews && s.reviews.length) add(right, [h("h2", null, "LLM review"), reviewBox(s.reviews)]);
    var first = app.querySelector(".verdict:not(.ALLOW)") || app.querySelector(".verdict");
    if (first) {
      first.id = "first-verdict";
      m("gate", h("a", { href: "#sim/" + i + "/gate" }, "jump to the first " + (first.dataset.verdict === "ALLOW" ? "gate verdict" : "refused call")));
    }
    if (focus === "gate" && first) {
      var det = first.querySelector("details.ledger-at");
      if (det) det.open = true;
      // Fold the conversation before the verdict (the two messages before it
      // stay) so the verdict opens near the top of the page.
      var conv = document.getElementById("conversation"), node = first;
      while (node.parentNode !== conv) node = node.parentNode;
      var before = [];
      for (var p = node.previousSibling; p; p = p.previousSibling) before.push(p);
      var fold = before.slice(2);
      if (fold.length) {
        fold.forEach(function (el) { el.hidden = true; });
        conv.insertBefore(h("button", { id: "unfold", on: { click: function (e) { fold.forEach(function (el) { el.hidden = false; }); e.target.remove(); } } },
          "show " + fold.length + " earlier messages"), conv.firstChild);
      }

    }
  }

  // reviewBox shows the simulation's LLM reviews (ledgerbench review): per
  // mode its summary, each error found and the authentication class, or
  // that the review call failed.
  function reviewBox(entries) {
    var box = h("div", { id: "review" });
    entries.forEach(function (e) {
      var r = e.review || e.user_only_review;
      var head = (e.mode === "user" ? "user-only review" : "full review") + " by " + e.backbone + " (" + e.review_model + ")";
      add(box, h("h3", null, head));
      if (e.error) { add(box, h("p", { cls: "fail review-failed" }, "review failed (infrastructure): " + e.error)); return; }
      if (!r) return;
      add(box, h("p", { cls: "review-summary" }, r.summary || "(no summary)"));
      var list = h("ul", { cls: "review-errors" });
      (r.errors || []).forEach(function (x) {
        var who = x.source || "user", at = x.turn_idx !== null && x.turn_idx !== undefined ? " · turn " + x.turn_idx : "";
        add(list, h("li", { cls: "review-error " + who }, h("b", null, who + at + (x.severity ? " · " + x.severity : "")),
          " [" + (x.error_tags || []).join(", ") + "] " + x.reasoning + (x.correct_behavior ? " — should: " + x.correct_behavior : "")));
      });
      if (!(r.errors || []).length) add(list, h("li", { cls: "muted" }, "no errors found"));
      add(box, list);
      var a = e.auth_classification;
      if (a) add(box, h("p", { cls: "review-auth" }, "authentication: " + a.status + (a.reasoning ? " — " + a.reasoning : "")));
    });
    return box;
  }

  function callsOf(msgs) {
    var out = [];
    msgs.forEach(function (m) { (m.tool_calls || []).forEach(function (c) { out.push(c); }); });
    return out;
  }

  // conversation draws the trajectory with LedgerAgent's gate where the
  // model met it. The trajectory holds only the calls that ran; a call the
  // gate stopped, and the gate's feedback (the tool result the model got),
  // are in agent_info alone. A stopped call of a reply's last generation was
  // proposed with that reply's calls and is drawn inside it; one of an
  // earlier generation (all its calls stopped, so the agent generated again)
  // is drawn as a removed proposal before the reply.
  function conversation(s) {
    var box = h("div", { id: "conversation" });
    var msgs = s.messages || [];
    var names = {};
    msgs.forEach(function (m) { (m.tool_calls || []).forEach(function (c) { names[c.id] = c.name; }); });
    var gate = s.gate, byCall = {}, inReply = {}, before = {}, unplaced = [];
    var ledgerAt = gate ? ledgerTurns(gate.turns || []) : null;
    var turns = gate ? gate.turns || [] : [], lastOf = {}, replies = 0;
    turns.forEach(function (t, i) { if (typeof t.reply === "number") { lastOf[t.reply] = i; replies = Math.max(replies, t.reply + 1); } });
    if (gate) {
      gate.verdicts.forEach(function (v) {
        var t = v.turn !== undefined && v.turn !== null ? turns[v.turn] : null;
        var stopped = String(v.verdict || "").toUpperCase() !== "ALLOW" && gate.mode !== "shadow";
        if (stopped && t && typeof t.reply === "number") {
          if (lastOf[t.reply] === v.turn) (inReply[t.reply] = inReply[t.reply] || []).push(v);
          else ((before[t.reply] = before[t.reply] || {})[v.turn] = before[t.reply][v.turn] || []).push(v);
        } else if (!stopped && v.call_id && names[v.call_id]) (byCall[v.call_id] = byCall[v.call_id] || []).push(v);
        else unplaced.push(v);
      });
    }
    // The agent's replies are its assistant messages, after τ²-bench's
    // greeting when the trajectory starts with one the agent did not write.
    var assistants = msgs.filter(function (m) { return m.role === "assistant"; }).length;
    var offset = msgs.length && msgs[0].role === "assistant" && assistants > replies && replies > 0 ? 1 : 0;
    var assistantSeen = -1;
    msgs.forEach(function (m) {
      var cls = "msg " + m.role + (m.error ? " err" : ""), reply = null;
      if (m.role === "assistant") {
        assistantSeen++;
        reply = assistantSeen - offset;
        var rounds = before[reply] || {};
        Object.keys(rounds).sort(function (a, b) { return a - b; }).forEach(function (t) { box.appendChild(proposal(rounds[t], ledgerAt)); });
      }
      var el = h("div", { cls: cls, "data-turn": m.turn_idx });
      var who = m.role;
      if (m.role === "tool") who = "tool result" + (names[m.tool_call_id] ? " · " + names[m.tool_call_id] : "") + (m.requestor && m.requestor !== "assistant" ? " (" + m.requestor + ")" : "") + (m.error ? " · error" : "");
      add(el, h("div", { cls: "who" }, who));
      if (m.content) add(el, m.role === "tool" ? h("pre", { cls: "out" }, pretty(m.content)) : h("div", { cls: "text" }, m.content));
      (m.tool_calls || []).forEach(function (c) {
        add(el, h("div", { cls: "call" }, "→ ", h("span", { cls: "name" }, c.name), h("pre", { cls: "args" }, args(c.arguments))));
        (byCall[c.id] || []).forEach(function (v) { add(el, verdictBox(v, ledgerAt)); });
      });
      if (reply !== null) (inReply[reply] || []).forEach(function (v) { add(el, stoppedCall(v, ledgerAt)); });
      box.appendChild(el);
    });
    unplaced.forEach(function (v) { box.appendChild(verdictBox(v, ledgerAt)); });
    return box;
  }

  // stoppedCall is a call the gate stopped, as the model proposed it, with
  // the gate's verdict and feedback.
  function stoppedCall(v, ledgerAt) {
    return h("div", { cls: "call stopped" }, "→ ", h("span", { cls: "name" }, v.tool), h("span", { cls: "muted" }, " (stopped by the gate, not executed; not in the trajectory)"),
      h("pre", { cls: "args" }, args(v.arguments)), verdictBox(v, ledgerAt, true));
  }

  // proposal is a message the agent generated whose every call the gate
  // stopped: the model saw it and the feedback, then generated again.
  function proposal(vs, ledgerAt) {
    var el = h("div", { cls: "proposal", "data-turn": vs[0].turn });
    add(el, h("div", { cls: "who" }, "assistant · proposal removed by the gate (the model saw it and the feedback; the trajectory does not hold it)"));
    vs.forEach(function (v) { add(el, stoppedCall(v, ledgerAt)); });
    return el;
  }

  // ledgerTurns returns a function giving the ledger lines at turn t and the
  // paths changed at t.
  function ledgerTurns(turns) {
    return function (t) {
      var cur = {}, changed = {};
      for (var i = 0; i <= t && i < turns.length; i++) {
        (turns[i].ledger || []).forEach(function (line) {
          var k = line.indexOf(": "), p = k < 0 ? line : line.slice(0, k);
          cur[p] = line;
          if (i === t) changed[p] = true;
        });
      }
      return Object.keys(cur).sort().map(function (p) { return { line: cur[p], changed: !!changed[p] }; });
    };
  }

  function verdictBox(v, ledgerAt, withCall) {
    var d = String(v.verdict || "").toUpperCase();
    var el = h("div", { cls: "gate verdict " + d, "data-verdict": d },
      h("div", null, h("span", { cls: "badge " + d }, d), " gate on ", h("span", { cls: "name" }, v.tool),
        v.shadow ? h("span", { cls: "muted" }, " (shadow: the call ran)") : "",
        v.turn !== undefined && v.turn !== null ? h("span", { cls: "muted" }, " · turn " + v.turn) : ""));
    if (v.predicate) add(el, h("div", null, "predicate ", h("code", null, v.predicate), v.clause ? " — policy: " + v.clause : ""));
    if (v.reason) add(el, h("div", { cls: "reason" }, v.reason));
    if (v.failed && v.failed.length > 1) add(el, h("div", { cls: "muted" }, "also failed: " + v.failed.slice(1).join(", ")));
    if (d !== "ALLOW" && v.arguments && !v.shadow && !withCall) add(el, [h("div", { cls: "muted" }, "proposed call (not executed):"), h("pre", { cls: "args" }, v.tool + " " + args(v.arguments))]);
    if (v.feedback) add(el, [h("div", { cls: "muted" }, "the model got, as this call's tool result:"), h("pre", { cls: "out feedback" }, v.feedback)]);
    if (ledgerAt && v.turn !== undefined && v.turn !== null) {
      var lines = ledgerAt(v.turn);
      var nchg = lines.filter(function (l) { return l.changed; }).length;
      var pre = h("pre", { cls: "ledger" });
      lines.forEach(function (l) { add(pre, l.changed ? h("span", { cls: "chg" }, "+ " + l.line + "\n") : "  " + l.line + "\n"); });
      add(el, h("details", { cls: "ledger-at" }, h("summary", null, "ledger at this turn: " + lines.length + " entr" + (lines.length === 1 ? "y" : "ies") + (nchg ? ", " + nchg + " new or changed since the previous turn (+)" : ", unchanged since the previous turn")), lines.length ? pre : h("p", { cls: "muted" }, "empty")));
    }
    return el;
  }

  function mark(okv) { return h("span", { cls: okv ? "pass" : "fail" }, okv ? "✓ " : "✗ "); }

  function argDiff(gold, got) {
    var g = parseArgs(gold) || {}, c = parseArgs(got) || {}, out = [];
    if (typeof g !== "object" || typeof c !== "object") return out;
    Object.keys(g).forEach(function (k) {
      if (JSON.stringify(g[k]) !== JSON.stringify(c[k])) out.push(k + ": got " + (k in c ? JSON.stringify(c[k]) : "(missing)") + ", gold " + JSON.stringify(g[k]));
    });
    Object.keys(c).forEach(function (k) { if (!(k in g)) out.push(k + ": extra " + JSON.stringify(c[k])); });
    return out;
  }

  function rewardBox(s, ri, task) {
    var box = h("div", { cls: "box", id: "reward" });
    if (!ri) { add(box, h("p", null, "No reward info (" + s.termination + ").")); return box; }
    add(box, h("div", null, "reward ", h("b", null, num(ri.reward, 3)), ri.reward_basis ? " · basis " + ri.reward_basis.join(", ") : ""));
    // NL_ASSERTION 1 without assertions is vacuous (nothing to judge); an
    // unjudged run has no NL verdict at all, and the panel says so.
    var noNL = !(ri.nl_assertions && ri.nl_assertions.length);
    if (ri.reward_breakdown) add(box, h("div", { cls: "muted" }, Object.keys(ri.reward_breakdown).map(function (k) {
      return k + " " + ri.reward_breakdown[k] + (k === "NL_ASSERTION" && noNL ? " (no NL assertions to judge)" : "");
    }).join(" · ")));
    if (s.nl_unjudged) add(box, h("div", { cls: "check failed" }, "NL assertions not judged (--no-judge): this reward omits NL_ASSERTION"));
    var other = (ri.not_evaluated || []).filter(function (k) { return k !== "NL_ASSERTION"; });
    if (other.length) add(box, h("div", { cls: "muted" }, "not evaluated: " + other.join(", ")));
    if (ri.db_check) {
      add(box, h("h3", null, "Database"));
      add(box, h("div", { cls: "check" + (ri.db_check.db_match ? "" : " failed") }, mark(ri.db_check.db_match),
        ri.db_check.db_match ? "final database matches the gold database" : "final database differs from the gold database (replaying the gold actions)",
        ri.db_check.user_db_match === false ? "; the user-side database differs" : ""));
      if (!ri.db_check.db_match && !s.db_diff) add(box, h("div", { cls: "muted" }, "(which fields differ was not computed for this simulation: see view --db-diffs)"));
      if (s.db_diff && s.db_diff.length) {
        var dd = h("pre", { cls: "args db-diff" });
        s.db_diff.forEach(function (l) { add(dd, l + "\n"); });
        add(box, [h("div", { cls: "muted" }, "fields that differ (this trajectory's database against the gold one):"), dd]);
      }
    }
    var calls = callsOf(s.messages || []);
    if (ri.action_checks && ri.action_checks.length) {
      add(box, h("h3", null, "Gold actions"));
      ri.action_checks.forEach(function (c) {
        var a = c.action, el = h("div", { cls: "check" + (c.action_match ? "" : " failed") }, mark(c.action_match), h("span", { cls: "name" }, a.name),
          c.tool_type ? h("span", { cls: "muted" }, " (" + c.tool_type + ")") : "", h("pre", { cls: "args" }, args(a.arguments)));
        if (!c.action_match) {
          var same = calls.filter(function (x) { return x.name === a.name; });
          if (!same.length) add(el, h("div", { cls: "fail" }, "never called"));
          same.forEach(function (x, j) {
            var diff = argDiff(a.compare_args ? pick(a.arguments, a.compare_args) : a.arguments, a.compare_args ? pick(x.arguments, a.compare_args) : x.arguments);
            add(el, h("div", { cls: "fail" }, "call " + (j + 1) + " with wrong arguments: " + (diff.join("; ") || "(differs)")));
          });
        }
        add(box, el);
      });
    }
    if (ri.env_assertions && ri.env_assertions.length) {
      add(box, h("h3", null, "Environment assertions"));
      ri.env_assertions.forEach(function (c) {
        var a = c.env_assertion;
        add(box, h("div", { cls: "check" + (c.met ? "" : " failed") }, mark(c.met), h("span", { cls: "name" }, a.env_type + "." + a.func_name),
          h("pre", { cls: "args" }, args(a.arguments)), a.assert_value === false ? " (must be false)" : "", c.error ? h("div", { cls: "fail" }, c.error) : "", a.message ? h("div", { cls: "muted" }, a.message) : ""));
      });
    }
    if (ri.communicate_checks && ri.communicate_checks.length) {
      add(box, h("h3", null, "Communicated information"));
      ri.communicate_checks.forEach(function (c) { add(box, h("div", { cls: "check" }, mark(c.met), JSON.stringify(c.info), c.justification ? h("div", { cls: "muted" }, c.justification) : "")); });
    }
    if (ri.nl_assertions && ri.nl_assertions.length) {
      add(box, h("h3", null, "NL assertions"));
      ri.nl_assertions.forEach(function (c) { add(box, h("div", { cls: "check" }, mark(c.met), c.nl_assertion, c.justification ? h("div", { cls: "muted" }, c.justification) : "")); });
    }
    if (ri.notes && ri.notes.length) {
      add(box, h("h3", null, "Notes"));
      ri.notes.forEach(function (n) { add(box, h("div", { cls: "check muted" }, n)); });
    }
    return box;
  }

  function pick(args, keys) {
    var a = parseArgs(args) || {}, out = {};
    keys.forEach(function (k) { if (k in a) out[k] = a[k]; });
    return out;
  }

  function taskBox(t, s) {
    var box = h("div", { cls: "box", id: "task" });
    if (!t) { add(box, h("p", { cls: "muted" }, "Task " + s.task_id + " is not known here (load the domain's data or use a results file that embeds its tasks).")); return box; }
    var d = t.description || {};
    if (d.purpose) add(box, [h("h3", null, "Purpose"), h("div", { cls: "text" }, d.purpose)]);
    var us = t.user_scenario || {};
    if (us.persona) add(box, [h("h3", null, "Persona"), h("div", { cls: "text" }, us.persona)]);
    var ins = us.instructions;
    add(box, h("h3", null, "User instructions"));
    if (typeof ins === "string") add(box, h("div", { cls: "text" }, ins));
    else if (ins) {
      [["reason_for_call", "reason for call"], ["known_info", "known info"], ["unknown_info", "unknown info"], ["task_instructions", "task instructions"]].forEach(function (f) {
        if (ins[f[0]]) add(box, h("div", { cls: "check" }, h("b", null, f[1] + ": "), h("span", { cls: "text" }, ins[f[0]])));
      });
    }
    var ec = t.evaluation_criteria || {};
    if (ec.actions && ec.actions.length) {
      add(box, h("h3", null, "Gold actions"));
      ec.actions.forEach(function (a, j) { add(box, h("div", { cls: "check" }, (j + 1) + ". ", h("span", { cls: "name" }, a.name), a.requestor && a.requestor !== "assistant" ? " (" + a.requestor + ")" : "", h("pre", { cls: "args" }, args(a.arguments)))); });
    }
    if (ec.env_assertions && ec.env_assertions.length) {
      add(box, h("h3", null, "Environment assertions"));
      ec.env_assertions.forEach(function (a) { add(box, h("div", { cls: "check" }, h("span", { cls: "name" }, a.env_type + "." + a.func_name), h("pre", { cls: "args" }, args(a.arguments)))); });
    }
    if (ec.communicate_info && ec.communicate_info.length) add(box, [h("h3", null, "Must communicate"), h("div", null, ec.communicate_info.join(" · "))]);
    if (ec.nl_assertions && ec.nl_assertions.length) {
      add(box, h("h3", null, "NL assertions"));
      ec.nl_assertions.forEach(function (a) { add(box, h("div", { cls: "check" }, a)); });
    }
    if (ec.reward_basis) add(box, h("div", { cls: "muted" }, "reward basis: " + ec.reward_basis.join(", ")));
    return box;
  }

  // selftest renders every simulation page (the first 5000), the compare
  // view and then the index; errors go to #page-errors, the tally to
  // #selftest.
  function selftest() {
    var n = Math.min(sims.length, 5000), done = 0;
    function one(i) {
      return simData(i).then(function (s) {
        app.textContent = "";
        try { renderSim(i, i % 2 ? "gate" : "", s); done++; } catch (e) { noteError("sim " + i + ": " + (e && e.stack ? e.stack : e)); }
      }, function (e) { noteError("sim " + i + ": " + (e && e.message ? e.message : e)); });
    }
    var p = Promise.resolve();
    for (var i = 0; i < n; i++) p = p.then(one.bind(null, i));
    return p.then(function () {
      app.textContent = "";
      try { renderCompare({}); } catch (e) { noteError("compare: " + e); }
      app.textContent = "";
      renderIndex({});
      document.body.appendChild(h("p", { id: "selftest", "data-sims": done, "data-of": sims.length }, "selftest: rendered " + done + " simulation pages"));
    });
  }

  window.addEventListener("hashchange", route);
  route();
})();
