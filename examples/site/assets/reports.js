/* Reports: "Generate report" shows a progress state, and the report is ready 1.5 s later
   (content that appears after a delay). Each report gets the next id (R-1001, R-1002, ...)
   and is listed under Recent reports, kept in localStorage. */
(function () {
  "use strict";

  var KEY = "acme.reports";
  var DELAY_MS = 1500;
  var button = document.getElementById("generate-report");
  var status = document.getElementById("report-status");
  var recent = document.querySelector("[data-testid=recent-reports]");
  var none = document.querySelector("[data-testid=no-reports]");

  function reports() {
    return window.Acme.readJSON(KEY, []);
  }

  function renderRecent() {
    var all = reports();
    recent.innerHTML = "";
    all.slice().reverse().forEach(function (report) {
      var item = document.createElement("li");
      item.setAttribute("data-testid", "recent-report");
      item.textContent = report.id + " \u00B7 Weekly activity \u00B7 " + report.notes + " notes, " + report.done + " completed";
      recent.appendChild(item);
    });
    none.hidden = all.length > 0;
  }

  function summarize() {
    var notes = window.Acme.readJSON(window.Acme.keys.notes, []);
    return { notes: notes.length, done: notes.filter(function (note) { return note.done; }).length };
  }

  button.addEventListener("click", function () {
    button.disabled = true;
    button.textContent = "Generating\u2026";
    status.innerHTML = '<p data-testid="report-progress"><span class="spinner" aria-hidden="true"></span> Preparing your report\u2026 this takes a moment.</p>';
    window.setTimeout(function () {
      var all = reports();
      var numbers = summarize();
      var report = { id: "R-" + (1001 + all.length), notes: numbers.notes, done: numbers.done };
      all.push(report);
      window.Acme.writeJSON(KEY, all);

      var card = document.createElement("div");
      card.className = "card report-ready";
      card.setAttribute("data-testid", "report-ready");
      card.innerHTML = "<h3>Report ready</h3><p>Report <strong data-testid=\"report-id\"></strong> " +
        "covers the last 7 days: <span data-testid=\"report-numbers\"></span>.</p>" +
        '<a class="button" data-testid="download-report">Download CSV</a>';
      card.querySelector("[data-testid=report-id]").textContent = report.id;
      card.querySelector("[data-testid=report-numbers]").textContent =
        report.notes + " notes written, " + report.done + " completed";
      card.querySelector("[data-testid=download-report]").href =
        "data:text/csv;charset=utf-8," + encodeURIComponent("report,notes,completed\n" + report.id + "," + report.notes + "," + report.done + "\n");
      card.querySelector("[data-testid=download-report]").setAttribute("download", report.id + ".csv");
      status.innerHTML = "";
      status.appendChild(card);
      button.disabled = false;
      button.textContent = "Generate another report";
      renderRecent();
      window.Acme.track("report_generated", { report_id: report.id });
    }, DELAY_MS);
  });

  renderRecent();
})();
