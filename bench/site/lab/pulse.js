/* Release pulse: a small page whose analytics never rest (lab.js: a hit per tracked click and a
 * heartbeat every second), plus named events for a range change, a like and a subscription. */
(function () {
  "use strict";
  var deploys = { day: "12 deploys today", week: "71 deploys this week", month: "305 deploys this month" };
  var likes = 0;
  ["day", "week", "month"].forEach(function (range) {
    document.querySelector("[data-testid=range-" + range + "]").addEventListener("click", function () {
      ["day", "week", "month"].forEach(function (other) {
        document.querySelector("[data-testid=range-" + other + "]").setAttribute("aria-selected", String(other === range));
      });
      document.querySelector("[data-testid=range-summary]").textContent = deploys[range];
      Lab.track("select_range", { range: range });
    });
  });
  document.querySelector("[data-testid=like]").addEventListener("click", function () {
    likes += 1;
    document.querySelector("[data-testid=likes]").textContent = likes + (likes === 1 ? " like" : " likes");
    Lab.track("like", { count: likes });
  });
  document.querySelector("[data-testid=subscribe-form]").addEventListener("submit", function (event) {
    event.preventDefault();
    var email = document.getElementById("subscribe-email").value.trim();
    var ok = /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email);
    document.querySelector("[data-testid=subscribe-status]").textContent =
      ok ? "Subscribed " + email + "." : "Enter a valid email address.";
    if (ok) {
      Lab.track("sign_up", { method: "release_emails" });
    }
  });
})();
