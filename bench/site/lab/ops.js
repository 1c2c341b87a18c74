/* The ops dashboard: 1,500 services in one table (a large DOM), 28 cards, three canvas charts, a
 * clock and a ticker rewritten every 250 ms, and filters that narrow the table. The data is a
 * pure function of the row number, so every run sees the same rows. */
(function () {
  "use strict";
  var REGIONS = ["eu-west", "eu-north", "us-east", "us-west", "ap-south"];
  var TOTAL = 1500;
  var services = [];
  for (var i = 0; i < TOTAL; i++) {
    var n = i + 1;
    services.push({
      name: "svc-" + String(n).padStart(4, "0"),
      region: REGIONS[i % REGIONS.length],
      // every 10th service degraded, every 50th down (the rest healthy): 120, 30, 1,350
      status: n % 50 === 0 ? "down" : (n % 10 === 0 ? "degraded" : "healthy"),
      latency: 40 + (n * 37) % 260,
      rpm: 100 + (n * 113) % 9000
    });
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (text !== undefined) {
      node.textContent = text;
    }
    return node;
  }

  function renderCards() {
    var cards = document.querySelector("[data-testid=cards]");
    var counts = { healthy: 0, degraded: 0, down: 0 };
    services.forEach(function (s) { counts[s.status] += 1; });
    var items = [["Services", TOTAL], ["Healthy", counts.healthy], ["Degraded", counts.degraded], ["Down", counts.down]];
    REGIONS.forEach(function (region) {
      var inRegion = services.filter(function (s) { return s.region === region; });
      items.push([region + " services", inRegion.length]);
      items.push([region + " p95", Math.max.apply(null, inRegion.map(function (s) { return s.latency; })) + " ms"]);
      items.push([region + " errors/h", inRegion.filter(function (s) { return s.status !== "healthy"; }).length * 3]);
      items.push([region + " on call", ["Grace", "Alan", "Ada", "Edsger", "Barbara"][REGIONS.indexOf(region)]]);
    });
    items.forEach(function (item) {
      var card = el("div", { "class": "card", "data-testid": "card" });
      card.appendChild(el("div", { "class": "label" }, item[0]));
      card.appendChild(el("div", { "class": "value", "data-testid": "card-value" }, String(item[1])));
      cards.appendChild(card);
    });
  }

  function drawBars(canvas, values, color) {
    var ctx = canvas.getContext("2d");
    var max = Math.max.apply(null, values);
    var width = canvas.width / values.length;
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.fillStyle = color;
    values.forEach(function (value, index) {
      var h = (value / max) * (canvas.height - 20);
      ctx.fillRect(index * width + 2, canvas.height - h, width - 4, h);
    });
    canvas.setAttribute("data-drawn", "bars:" + values.length);
  }

  function drawCharts() {
    drawBars(document.getElementById("chart-latency"), REGIONS.map(function (region) {
      return services.filter(function (s) { return s.region === region; })
        .reduce(function (sum, s) { return sum + s.latency; }, 0);
    }), "#4b3fd6");
    var hours = [];
    for (var h = 0; h < 24; h++) {
      hours.push(h);
    }
    drawBars(document.getElementById("chart-errors"), hours.map(function (h) { return 3 + (h * 7) % 11; }), "#b00020");
    drawBars(document.getElementById("chart-traffic"), hours.map(function (h) { return 50 + (h * 29) % 90; }), "#0a7d55");
  }

  var rows = [];
  function renderRows() {
    var body = document.querySelector("[data-testid=service-rows]");
    var fragment = document.createDocumentFragment();
    services.forEach(function (s) {
      var tr = el("tr", { "data-testid": "service-row", "data-status": s.status });
      tr.appendChild(el("td", { "data-testid": "service-name" }, s.name));
      tr.appendChild(el("td", {}, s.region));
      tr.appendChild(el("td", { "class": "status-" + s.status }, s.status));
      tr.appendChild(el("td", {}, s.latency + " ms"));
      tr.appendChild(el("td", {}, String(s.rpm)));
      var cell = el("td");
      var open = el("button", { type: "button", "data-testid": "open-service", "data-track": "open-service" }, "Details");
      open.addEventListener("click", function () { showDetail(s); });
      cell.appendChild(open);
      tr.appendChild(cell);
      rows.push({ service: s, row: tr });
      fragment.appendChild(tr);
    });
    body.appendChild(fragment);
  }

  function showDetail(s) {
    var detail = document.querySelector("[data-testid=detail]");
    detail.hidden = false;
    detail.className = "card";
    detail.textContent = s.name + " in " + s.region + ": " + s.status + ", p95 " + s.latency + " ms, " + s.rpm +
      " requests/min";
    Lab.track("service_opened", { service: s.name });
  }

  function applyFilters() {
    var words = document.getElementById("row-filter").value.trim().toLowerCase();
    var status = document.getElementById("status-filter").value;
    var shown = 0;
    rows.forEach(function (entry) {
      var s = entry.service;
      var match = (!words || s.name.indexOf(words) !== -1 || s.region.indexOf(words) !== -1) &&
        (!status || s.status === status);
      entry.row.hidden = !match;
      if (match) {
        shown += 1;
      }
    });
    document.querySelector("[data-testid=row-summary]").textContent =
      shown ? "Showing " + shown + " of " + TOTAL + " services" : "No service matches";
  }

  function startTicker() {
    var clock = document.querySelector("[data-testid=clock]");
    var ticker = document.querySelector("[data-testid=ticker]");
    var updates = 0;
    window.setInterval(function () {
      updates += 1;
      clock.textContent = new Date().toISOString().slice(11, 21) + " UTC";
      ticker.textContent = updates + (updates === 1 ? " update" : " updates");
      // one card follows the live traffic
      document.querySelectorAll("[data-testid=card-value]")[0].setAttribute("data-live", String(updates));
    }, 250);
  }

  renderCards();
  drawCharts();
  renderRows();
  applyFilters();
  startTicker();
  document.getElementById("row-filter").addEventListener("input", applyFilters);
  document.getElementById("status-filter").addEventListener("change", applyFilters);
})();
