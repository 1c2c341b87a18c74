/* Settings: theme (select), email preferences (checkboxes), density (radio), analytics consent.
   Saved to localStorage on "Save settings" and applied to every page; any later change shows
   "Unsaved changes" until saved again. The "?" next to the digest shows a tooltip on hover/focus. */
(function () {
  "use strict";

  var KEY = window.Acme.keys.settings;
  var form = document.getElementById("settings-form");
  var status = document.querySelector("[data-testid=settings-status]");
  var tipButton = document.querySelector("[data-testid=digest-help]");
  var tip = document.getElementById("digest-tip");
  var saved = window.Acme.readJSON(KEY, {});

  form.theme.value = saved.theme || "light";
  form.digest.checked = Boolean(saved.digest);
  form.announcements.checked = saved.announcements !== false;
  form.querySelector("input[name=density][value=" + (saved.density === "compact" ? "compact" : "comfortable") + "]").checked = true;
  form.analytics.checked = window.Acme.consent() === "all";
  // a choice made in the cookie banner on this very page must not be undone by the next save
  document.addEventListener("acme:consent", function (event) {
    form.analytics.checked = event.detail === "all";
  });

  form.addEventListener("change", function () {
    status.textContent = "Unsaved changes";
  });

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var density = form.querySelector("input[name=density]:checked");
    window.Acme.writeJSON(KEY, {
      theme: form.theme.value,
      digest: form.digest.checked,
      announcements: form.announcements.checked,
      density: density ? density.value : "comfortable"
    });
    window.localStorage.setItem(window.Acme.keys.consent, form.analytics.checked ? "all" : "essential");
    window.Acme.applySettings();
    status.textContent = "Settings saved.";
  });

  function showTip() { tip.hidden = false; }
  function hideTip() { tip.hidden = true; }
  tipButton.addEventListener("mouseenter", showTip);
  tipButton.addEventListener("focus", showTip);
  tipButton.addEventListener("mouseleave", hideTip);
  tipButton.addEventListener("blur", hideTip);
})();
