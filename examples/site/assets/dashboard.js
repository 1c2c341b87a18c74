/* Dashboard: signed-in visitors only (others go to the login page and come back here).
   Greets new accounts (?welcome=1 after sign-up) differently from returning ones. */
(function () {
  "use strict";

  var who = window.Acme.session();
  if (!who) {
    window.location.replace("/login.html?next=%2Fdashboard.html");
    return;
  }
  var isNew = new URLSearchParams(window.location.search).get("welcome") === "1";
  var first = window.Acme.firstName(who.name);
  document.getElementById("greeting").textContent = isNew ? "Welcome, " + first + "!" : "Welcome back, " + first;
  document.querySelector("[data-testid=dashboard-lead]").textContent = isNew
    ? "Your account is ready. Start by writing your first note."
    : "Here is where your workspace stands today.";
  document.querySelector("[data-testid=account-number]").textContent = window.Acme.accountNumber(who.email);
  document.querySelector("[data-testid=account-email]").textContent = who.email;

  var notes = window.Acme.readJSON(window.Acme.keys.notes, []);
  document.querySelector("[data-testid=open-notes]").textContent = String(
    notes.filter(function (note) { return !note.done; }).length
  );

  var toast = document.querySelector("[data-testid=whats-new]");
  document.querySelector("[data-testid=dismiss-whats-new]").addEventListener("click", function () {
    toast.remove();
  });
})();
