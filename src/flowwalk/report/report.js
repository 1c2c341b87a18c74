// flowwalk report.html: the test list, rendered lazily from the embedded JSON.
// Every value from the run goes into the page through textContent, never as HTML.
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("fw-data").textContent);
  var TESTS = DATA.tests;
  // a test leaves out what it holds at these values, its scenario id when it is the test id and its
  // source when it is the test id's file part (report/html.py, _compact)
  var LEFT_OUT = JSON.parse(document.getElementById("fw-left-out").textContent);
  TESTS.forEach(function (t) {
    Object.keys(LEFT_OUT).forEach(function (key) {
      if (!(key in t)) t[key] = JSON.parse(JSON.stringify(LEFT_OUT[key]));
    });
    if (!("scenario" in t)) t.scenario = t.id;
    if (!("source" in t)) t.source = t.id.split("#")[0];
  });
  var PAGE = 100;          // rows added per step while scrolling
  var AUTO_OPEN = 20;      // failed tests opened on first render, so failures show at once
  var STATUSES = ["failed", "skipped", "flaky", "passed"];
  var SYMBOL = { passed: "\u2713", failed: "\u2717", skipped: "\u2013", flaky: "~" };

  var list = document.getElementById("list");
  var moreBox = document.getElementById("more");
  var shownLabel = document.getElementById("shown");
  var search = document.getElementById("search");
  var classFilter = document.getElementById("class-filter");
  var statusBox = document.getElementById("status-filter");

  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) {
      for (var key in attrs) {
        if (!Object.prototype.hasOwnProperty.call(attrs, key) || attrs[key] === null || attrs[key] === undefined) continue;
        if (key === "text") el.textContent = String(attrs[key]);
        else if (key === "cls") el.className = attrs[key];
        else el.setAttribute(key, attrs[key]);
      }
    }
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      el.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return el;
  }

  function add(parent, child) {
    if (child) parent.appendChild(child);
  }

  function seconds(ms) {
    var s = (ms || 0) / 1000;
    return s < 60 ? s.toFixed(1) + " s" : Math.floor(s / 60) + " min " + String(Math.round(s % 60)).padStart(2, "0") + " s";
  }

  function pretty(value) {
    return typeof value === "string" ? value : JSON.stringify(value, null, 2);
  }

  // --- filters -----------------------------------------------------------------------------

  var counts = {};
  var classes = {};
  TESTS.forEach(function (t) {
    counts[t.status] = (counts[t.status] || 0) + 1;
    if (t["class"]) classes[t["class"]] = (classes[t["class"]] || 0) + 1;
    t._hay = [t.id, t.name, t.source, t.headline, t["class"], t.reason].join("\n").toLowerCase();
  });
  var checks = {};
  STATUSES.forEach(function (status) {
    var box = h("input", { type: "checkbox", id: "status-" + status, value: status });
    box.checked = true;
    checks[status] = box;
    statusBox.appendChild(h("label", { cls: "chip " + status }, box, " " + status + " ", h("small", { text: String(counts[status] || 0) })));
  });
  Object.keys(classes).sort().forEach(function (cls) {
    classFilter.appendChild(h("option", { value: cls, text: cls + " (" + classes[cls] + ")" }));
  });

  function matches(t, query, cls) {
    if (!checks[t.status] || !checks[t.status].checked) return false;
    if (cls && t["class"] !== cls) return false;
    if (query) {
      var words = query.split(/\s+/);
      for (var i = 0; i < words.length; i++) if (words[i] && t._hay.indexOf(words[i]) < 0) return false;
    }
    return true;
  }

  // --- details (built when a test is opened) ------------------------------------------------

  function kv(label, value, cls) {
    if (value === null || value === undefined || value === "") return null;
    return h("div", { cls: "kv " + (cls || "") }, h("span", { cls: "k", text: label }), h("span", { cls: "v", text: String(value) }));
  }

  function contextBlock(ctx, candidates) {
    var box = h("div", { cls: "context" });
    if (!ctx) ctx = {};
    if (ctx.url) add(box, kv("url", ctx.url));
    if (ctx.title) add(box, kv("title", ctx.title));
    var consoleLines = ctx.console || [];
    var pageErrors = ctx.page_errors || ctx.pageerrors || [];
    if (consoleLines.length || pageErrors.length) {
      var ul = h("ul", { cls: "console" });
      consoleLines.forEach(function (m) {
        // the browser layer records "type: text" strings; objects {type, text} are read too
        var split = typeof m === "string" ? /^(\w+): ([\s\S]*)$/.exec(m) : null;
        var type = split ? split[1] : (typeof m === "string" ? "log" : (m.type || "log"));
        var text = split ? split[2] : (typeof m === "string" ? m : (m.text || pretty(m)));
        ul.appendChild(h("li", { cls: type }, h("b", { text: type }), " " + text));
      });
      pageErrors.forEach(function (e) { ul.appendChild(h("li", { cls: "error" }, h("b", { text: "page error" }), " " + pretty(e))); });
      box.appendChild(h("h5", { text: "console" }));
      box.appendChild(ul);
    }
    var network = ctx.network || ctx.requests || [];
    if (network.length) {
      var table = h("table", { cls: "network" }, h("tr", null, h("th", { text: "method" }), h("th", { text: "status" }), h("th", { text: "ms" }), h("th", { text: "url" })));
      network.forEach(function (r) {
        var bad = r.status >= 400 || r.failure;
        var status = r.status === null || r.status === undefined ? (r.failure || "") : String(r.status);
        var ms = r.duration_ms === null || r.duration_ms === undefined ? "" : String(Math.round(r.duration_ms));
        table.appendChild(h("tr", { cls: bad ? "bad" : "" }, h("td", { text: r.method || "" }), h("td", { text: status }),
          h("td", { cls: "num", text: ms }), h("td", { cls: "url", text: r.url || "" })));
      });
      box.appendChild(h("h5", { text: "network" }));
      box.appendChild(table);
    }
    var a11y = ctx.a11y || ctx.accessibility || ctx.a11y_snapshot || ctx.aria_snapshot;
    if (a11y) {
      box.appendChild(h("h5", { text: "accessibility snapshot" }));
      box.appendChild(h("pre", { cls: "a11y", text: pretty(a11y) }));
    }
    if (candidates && candidates.length) {
      box.appendChild(h("h5", { text: "target candidates seen" }));
      var ct = h("table", { cls: "candidates" });
      candidates.forEach(function (c) { ct.appendChild(h("tr", null, h("td", { cls: "num", text: c.score === undefined ? "" : String(c.score) }), h("td", { text: pretty(c) }))); });
      box.appendChild(ct);
    }
    var known = { url: 1, title: 1, console: 1, page_errors: 1, pageerrors: 1, network: 1, requests: 1, a11y: 1, accessibility: 1, a11y_snapshot: 1, aria_snapshot: 1 };
    Object.keys(ctx).forEach(function (key) {
      if (known[key]) return;
      var value = ctx[key];
      // nothing to show: an empty list, a zero count, "not crashed"
      if (value === null || value === false || value === 0 || value === "" || (Array.isArray(value) && !value.length)) return;
      box.appendChild(h("h5", { text: key }));
      if (typeof value === "string" && /^context\/[^:]+$/.test(value) && value.indexOf("..") < 0) box.appendChild(h("a", { href: value, text: value }));
      else box.appendChild(h("pre", { text: pretty(value) }));
    });
    return box.childNodes.length ? box : null;
  }

  // a baseline check's evidence: the aria tree diff as text, or the three images side by side
  function baselineBlock(b) {
    var box = h("div", { cls: "baseline" });
    var status = { missing: "missing: run flowwalk run --update-snapshots, or flowwalk heal --report <this folder>",
      mismatch: "differs from the page", written: "written by --update-snapshots", invalid: "unreadable" }[b.status] || b.status;
    box.appendChild(h("h5", { text: "baseline " + b.path + " (" + status + ")" }));
    if (b.text_diff) box.appendChild(diffBlock(b.text_diff));
    var images = [["expected", b.expected], ["observed", b.observed], ["difference", b.diff]].filter(function (p) {
      return p[1] && /\.png$/.test(p[1]);
    });
    if (images.length) {
      var row = h("div", { cls: "images" });
      images.forEach(function (p) {
        row.appendChild(h("figure", null, h("a", { href: p[1], target: "_blank" }, h("img", { src: p[1], alt: p[0] + " image: " + p[1], loading: "lazy" })),
          h("figcaption", { text: p[0] })));
      });
      box.appendChild(row);
      if (b.diff_pixels !== null && b.diff_pixels !== undefined) add(box, kv("pixels differing", String(b.diff_pixels) + (b.diff_ratio !== null && b.diff_ratio !== undefined ? " (" + (b.diff_ratio * 100).toFixed(2) + " %)" : "")));
    } else if (b.observed) {
      box.appendChild(h("p", null, "what the page showed: ", h("a", { href: b.observed, text: b.observed })));
    }
    return box;
  }

  // a unified or a list diff, its added and removed lines coloured
  function diffBlock(text) {
    var pre = h("pre", { cls: "aria-diff" });
    text.split("\n").forEach(function (line) {
      var cls = line.charAt(0) === "+" && line.indexOf("+++") !== 0 ? "add" : line.charAt(0) === "-" && line.indexOf("---") !== 0 ? "del" : "";
      pre.appendChild(h("span", { cls: cls, text: line + "\n" }));
    });
    return pre;
  }

  // axe-core's violations: rule (linked to its help), impact, how many elements and which
  function violationsBlock(vs) {
    var table = h("table", { cls: "violations" }, h("tr", null, h("th", { text: "rule" }), h("th", { text: "impact" }), h("th", { text: "elements" }), h("th", { text: "help" })));
    vs.forEach(function (v) {
      var rule = v.help_url ? h("a", { href: v.help_url, target: "_blank", text: v.rule }) : h("span", { text: v.rule });
      var targets = (v.targets || []).join("\n") + (v.count > (v.targets || []).length ? "\n\u2026 " + v.count + " in all" : "");
      table.appendChild(h("tr", { cls: v.impact }, h("td", null, rule), h("td", { text: v.impact }), h("td", null, h("pre", { text: targets })),
        h("td", { text: v.help + (v.url ? " (" + v.url + ")" : "") })));
    });
    return h("div", { cls: "a11y-violations" }, h("h5", { text: "accessibility violations (axe-core)" }), table);
  }

  function traceLink(trace) {
    // the trace of the attempt that failed: download it, or open it with playwright show-trace
    return h("div", { cls: "kv trace" }, h("span", { cls: "k", text: "trace" }),
      h("span", { cls: "v" }, h("a", { href: trace, download: "", text: trace }), "  (npx playwright show-trace " + trace + ")"));
  }

  function failureBlock(f, source, trace) {
    var box = h("div", { cls: "failure" });
    box.appendChild(h("p", { cls: "headline" }, h("b", { text: f.failure_class }), " " + (f.label || f.message || "")));
    if (trace) box.appendChild(traceLink(trace));
    var where = (f.path || source) + (f.line ? ":" + f.line + (f.col ? ":" + f.col : "") : "");
    add(box, kv("spec", where));
    if (f.expected || f.observed) {
      box.appendChild(h("div", { cls: "diff" }, h("div", { cls: "expected" }, h("h5", { text: "expected" }), h("pre", { text: f.expected || "\u2014" })),
        h("div", { cls: "observed" }, h("h5", { text: "observed" }), h("pre", { text: f.observed || "\u2014" }))));
    }
    if (f.diff) { box.appendChild(h("h5", { text: "items: - expected, + observed" })); box.appendChild(diffBlock(f.diff)); }
    add(box, kv("runtime code", f.runtime_code ? f.runtime_code + (f.retryable ? " (retryable)" : "") : ""));
    if (f.parent) add(box, kv("parent", f.parent));
    if (f.screenshot) {
      box.appendChild(h("a", { cls: "shot", href: f.screenshot, target: "_blank" }, h("img", { src: f.screenshot, alt: "screenshot at the failure: " + f.screenshot, loading: "lazy" })));
    } else if (f.context && f.context.evidence_skipped && f.context.evidence_skipped.screenshot) {
      // a screenshot the rule wanted and did not get says why where the picture would be
      add(box, kv("screenshot", "none: " + f.context.evidence_skipped.screenshot));
    }
    if (f.baseline) box.appendChild(baselineBlock(f.baseline));
    if (f.violations && f.violations.length) box.appendChild(violationsBlock(f.violations));
    var ctx = contextBlock(f.context, f.candidates);
    if (ctx) box.appendChild(ctx);
    if (f.recovery && f.recovery.length) {
      var rec = h("ul", { cls: "recovery" });
      f.recovery.forEach(function (r) { rec.appendChild(h("li", { text: r.strategy + ": " + r.outcome + (r.detail ? " (" + r.detail + ")" : "") })); });
      box.appendChild(h("h5", { text: "recovery attempts" }));
      box.appendChild(rec);
    }
    return box;
  }

  function detailText(detail) {
    if (!detail) return "";
    var parts = [];
    Object.keys(detail).forEach(function (key) {
      var v = detail[key];
      if (Array.isArray(v)) v = v.map(function (x) { return typeof x === "object" ? (x.name ? x.name + (x.outcome ? "=" + x.outcome : "") : JSON.stringify(x)) : String(x); }).join(", ");
      else if (v && typeof v === "object") v = JSON.stringify(v);
      parts.push(key.replace(/_/g, " ") + ": " + v);
    });
    return parts.join(" \u00b7 ");
  }

  // a call, a group or a hook: a row the steps it ran are nested under (Playwright's test.step)
  function frameRow(f, depth, source) {
    var where = (f.path === source ? "line " : f.path + ":") + f.line;
    var args = Object.keys(f.args || {}).map(function (k) { return k + "=" + JSON.stringify(f.args[k]); }).join(", ");
    return h("tr", { cls: "frame " + f.status },
      h("td", { cls: "num" }), h("td", { cls: "st", text: f.status }),
      h("td", { cls: "d" + Math.min(depth, 8) }, h("span", { cls: "block " + f.kind, text: f.title }), h("small", { text: " " + where }),
        args ? h("small", { cls: "args", text: " (" + args + ")" }) : null),
      h("td", { cls: "num", text: String(Math.round(f.ms)) }), h("td", { cls: "num" }), h("td", { cls: "note" }));
  }

  function timeline(t) {
    if (!t.steps.length) {
      return t.skipped_steps.length ? h("ul", { cls: "skipped-steps" }, ...t.skipped_steps.map(function (s) { return h("li", { text: s + " \u2014 not run" }); })) : null;
    }
    var table = h("table", { cls: "timeline" }, h("tr", null, h("th", { text: "#" }), h("th", { text: "" }), h("th", { text: "step" }), h("th", { text: "ms" }), h("th", { text: "reads" }), h("th", { text: "detail" })));
    var open = [];
    t.steps.forEach(function (s) {
      // [index, status, kind, text, ms, reads, line, role, detail, failure, path, frame ids]
      var ids = s[11] || [];
      var same = 0;
      while (same < open.length && same < ids.length && open[same] === ids[same]) same++;
      open = open.slice(0, same);
      for (var i = same; i < ids.length; i++) {
        var f = (t.frames || {})[String(ids[i])];
        if (f) table.appendChild(frameRow(f, i, t.source));
        open.push(ids[i]);
      }
      var note = detailText(s[8]);
      if (s[9]) note = (s[9]["class"] || "") + (s[9].message ? ": " + s[9].message : "") + (note ? " \u00b7 " + note : "");
      table.appendChild(h("tr", { cls: "step " + s[1] },
        h("td", { cls: "num", text: String(s[0]) }), h("td", { cls: "st", text: s[1] + (s[7] === "guard" ? " (guard)" : "") }),
        h("td", { cls: "d" + Math.min(ids.length, 8) }, h("code", { text: s[3] }), h("small", { text: " " + (s[10] ? s[10] + ":" : "line ") + s[6] })),
        h("td", { cls: "num", text: String(Math.round(s[4])) }), h("td", { cls: "num", text: s[5] === null || s[5] === undefined ? "" : String(s[5]) }),
        h("td", { cls: "note", text: note })));
    });
    return table;
  }

  function body(t) {
    var box = h("div", { cls: "body" });
    add(box, kv("spec", t.source + ":" + t.line));
    add(box, kv("scenario", t.kind === "flow" ? "" : t.scenario));
    if (t.attempts > 1) add(box, kv("attempts", t.attempts));
    if (t.shard && DATA.run.shards && DATA.run.shards.total > 1) add(box, kv("shard", t.shard + " of " + DATA.run.shards.total));
    if (t.status === "skipped") add(box, kv("skipped", t.headline, "skip"));
    if (t.failure) box.appendChild(failureBlock(t.failure, t.source, t.trace));
    t.earlier.forEach(function (a) {
      if (!a.failure) return;
      var old = h("details", { cls: "earlier" }, h("summary", { text: "attempt " + a.attempt + ": " + a.status + " \u2014 " + (a.failure.label || "") }));
      old.appendChild(failureBlock(a.failure, t.source, a.trace));
      box.appendChild(old);
    });
    if (t.findings.length) {
      var fl = h("ul", { cls: "findings" });
      t.findings.forEach(function (f) {
        var li = h("li", { cls: f.severity }, h("b", { text: f.severity }), " " + (f.step_index ? "step " + f.step_index + ": " : "") + f.message);
        if (f.baseline) li.appendChild(baselineBlock(f.baseline));
        if (f.violations && f.violations.length) li.appendChild(violationsBlock(f.violations));
        fl.appendChild(li);
      });
      box.appendChild(h("h4", { text: "findings" }));
      box.appendChild(fl);
    }
    var tl = timeline(t);
    if (tl) { box.appendChild(h("h4", { text: "steps" })); box.appendChild(tl); }
    if (t.routed && t.routed.length) {
      box.appendChild(h("h4", { text: "requests answered by the spec" }));
      var rows = t.routed.map(function (r) {
        var said = r.answer === "aborted" ? "aborted" : String(r.status) + (r.source === "har" ? " from the HAR file" : "");
        if (r.delay_ms) said += " after " + r.delay_ms + " ms";
        return h("tr", { cls: "routed" }, h("td", { text: "step " + r.step }), h("td", { text: r.method }),
                 h("td", { text: r.url }), h("td", { text: said }), h("td", { text: "route " + r.route + " (line " + r.line + ")" }));
      });
      box.appendChild(h.apply(null, ["table", { cls: "routed" }].concat(rows)));
    }
    if (t.emits.length) {
      box.appendChild(h("h4", { text: "emits" }));
      t.emits.forEach(function (e) { box.appendChild(h("div", { cls: "emit" }, h("b", { text: e.name }), " ", h("small", { text: e.url || "" }), h("pre", { text: pretty(e.fields) }))); });
    }
    var extra = t.screenshots.filter(function (s) { return !t.failure || s !== t.failure.screenshot; });
    if (extra.length) {
      box.appendChild(h("h4", { text: "screenshots" }));
      extra.forEach(function (s) { box.appendChild(h("a", { cls: "shot small", href: s, target: "_blank" }, h("img", { src: s, alt: s, loading: "lazy" }))); });
    }
    if (t.trace && !t.failure) box.appendChild(traceLink(t.trace));
    if (t.trace_withheld) add(box, kv("trace withheld", t.trace_withheld));
    return box;
  }

  function row(t, open) {
    var summary = h("summary", null,
      h("span", { cls: "sym " + t.status, title: t.status, text: SYMBOL[t.status] || "?" }),
      h("code", { cls: "id", text: t.id }),
      h("span", { cls: "ms", text: t.status === "skipped" ? "" : seconds(t.ms) }),
      t["class"] ? h("span", { cls: "cls", text: t["class"] }) : null,
      t.change ? h("span", { cls: "badge change " + t.change, text: t.change.replace("_", " ") }) : null,
      t.quarantine ? h("span", { cls: "badge quarantine", title: "owner " + t.quarantine.owner + ": " + t.quarantine.reason,
                                 text: (t.quarantine.expired ? "quarantine expired " : "quarantined until ") + t.quarantine.expires }) : null,
      h("span", { cls: "headline", text: t.status === "flaky" ? "flaky: passed on attempt " + t.attempts : t.headline }));
    var details = h("details", { cls: "test " + t.status, "data-id": t.id }, summary);
    var built = false;
    // The body is built on first opening; expand() builds it at once, so whatever opens a row
    // from script (auto-open, a link from the overview) never shows an empty row until the
    // asynchronous toggle event arrives.
    details.expand = function () {
      if (!built) { built = true; details.appendChild(body(t)); }
      details.open = true;
    };
    details.addEventListener("toggle", function () { if (details.open) details.expand(); });
    if (open) details.expand();
    return h("li", null, details);
  }

  // --- the lazy list ------------------------------------------------------------------------

  var current = [];
  var shown = 0;
  var opened = 0;

  function more() {
    var end = Math.min(shown + PAGE, current.length);
    var frag = document.createDocumentFragment();
    for (var i = shown; i < end; i++) {
      var t = current[i];
      var open = t.status === "failed" && opened < AUTO_OPEN;
      if (open) opened++;
      frag.appendChild(row(t, open));
    }
    list.appendChild(frag);
    shown = end;
    moreBox.textContent = shown < current.length ? "showing " + shown + " of " + current.length + " \u2014 scroll for more" : "";
  }

  function apply(focusId) {
    var query = search.value.trim().toLowerCase();
    var cls = classFilter.value;
    current = TESTS.filter(function (t) { return matches(t, query, cls); });
    list.textContent = "";
    shown = 0;
    opened = 0;
    more();
    shownLabel.textContent = current.length + " of " + TESTS.length + " tests";
    var state = [];
    STATUSES.forEach(function (s) { if (!checks[s].checked) state.push("hide=" + s); });
    if (cls) state.push("class=" + encodeURIComponent(cls));
    if (query) state.push("q=" + encodeURIComponent(query));
    if (!focusId && history.replaceState) history.replaceState(null, "", state.length ? "#" + state.join("&") : location.pathname + location.search);
  }

  function focusTest(id) {
    clearTimeout(timer);  // a search typed just before must not re-render over the focused test
    STATUSES.forEach(function (s) { checks[s].checked = true; });
    classFilter.value = "";
    search.value = id.toLowerCase();
    apply(id);
    var el = list.querySelector("details");
    for (var node = list.firstChild; node; node = node.nextSibling) {
      var d = node.firstChild;
      if (d && d.getAttribute("data-id") === id) { el = d; break; }
    }
    if (el) { el.expand(); el.scrollIntoView({ block: "start" }); }
  }

  function fromHash() {
    var hash = location.hash.replace(/^#/, "");
    if (hash.indexOf("test=") === 0) { focusTest(decodeURIComponent(hash.slice(5))); return; }
    hash.split("&").forEach(function (part) {
      var kv = part.split("=");
      if (kv[0] === "hide" && checks[kv[1]]) checks[kv[1]].checked = false;
      if (kv[0] === "class") classFilter.value = decodeURIComponent(kv[1] || "");
      if (kv[0] === "q") search.value = decodeURIComponent(kv[1] || "");
    });
    apply();
  }

  var timer = null;
  search.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(apply, 120); });
  classFilter.addEventListener("change", function () { apply(); });
  STATUSES.forEach(function (s) { checks[s].addEventListener("change", function () { apply(); }); });
  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a[data-test]") : null;
    if (link) { event.preventDefault(); focusTest(link.getAttribute("data-test")); }
  });
  if ("IntersectionObserver" in window) {
    new IntersectionObserver(function (entries) {
      if (entries.some(function (e) { return e.isIntersecting; }) && shown < current.length) more();
    }, { rootMargin: "600px" }).observe(moreBox);
  }
  moreBox.addEventListener("click", more);
  fromHash();
})();
