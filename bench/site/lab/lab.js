/* Shared by the lab pages (bench/site/lab): GA4-style analytics that beacon continuously, and the
 * late consent overlay. Analytics: a page_view on load, a `click` hit for every click on an element
 * with data-track (its value as ep.target), named events through Lab.track, and a
 * user_engagement heartbeat every second, all sent with navigator.sendBeacon to the GA4 collect URL
 * (the benchmark answers it locally). Pages that ask for consent send nothing before it. */
(function () {
  "use strict";
  var GA_ENDPOINT = "https://www.google-analytics.com/g/collect";
  var CONSENT_KEY = "lab.consent";
  var clientId = String(Math.floor(Math.random() * 1e9)) + "." + String(Math.floor(Date.now() / 1000));
  var sent = 0;
  var started = false;

  function consentNeeded() {
    return document.body.hasAttribute("data-consent-ms");
  }

  function allowed() {
    return !consentNeeded() || window.localStorage.getItem(CONSENT_KEY) === "accepted";
  }

  function track(name, params) {
    if (!allowed()) {
      return false;
    }
    var query = new URLSearchParams({ v: "2", tid: "G-LAB", cid: clientId, en: name,
                                      dl: window.location.href, dt: document.title, _s: String(++sent) });
    Object.keys(params || {}).forEach(function (key) { query.set("ep." + key, String(params[key])); });
    var queued = navigator.sendBeacon(GA_ENDPOINT + "?" + query.toString());
    var counter = document.querySelector("[data-testid=beacons-sent]");
    if (counter) {
      counter.textContent = sent + (sent === 1 ? " hit sent" : " hits sent");
    }
    return queued;
  }

  function startAnalytics() {
    if (started || !allowed()) {
      return;
    }
    started = true;
    track("page_view");
    var beats = 0;
    window.setInterval(function () {
      beats += 1;
      track("user_engagement", { engagement_time_msec: 1000, beat: beats });
    }, 1000);
  }

  document.addEventListener("click", function (event) {
    var tracked = event.target instanceof Element ? event.target.closest("[data-track]") : null;
    if (tracked) {
      track("click", { target: tracked.getAttribute("data-track") });
    }
  }, true);

  /* The consent overlay, shown `data-consent-ms` ms after load (a ?consent_ms= in the URL wins),
   * covering the page (it takes every click) until Accept or Reject; remembered per browser. */
  function showConsentState(value) {
    var state = document.querySelector("[data-testid=consent-state]");
    if (state) {
      state.textContent = value === "accepted" ? "Analytics on" : "Analytics off";
    }
  }

  function scheduleConsent() {
    if (!consentNeeded()) {
      return;
    }
    var chosen = window.localStorage.getItem(CONSENT_KEY);
    if (chosen) {
      showConsentState(chosen);
      return;
    }
    var fromUrl = new URLSearchParams(window.location.search).get("consent_ms");
    var delay = Number(fromUrl || document.body.getAttribute("data-consent-ms"));
    window.setTimeout(function () {
      var overlay = document.createElement("div");
      overlay.className = "late-overlay";
      overlay.setAttribute("data-testid", "consent-overlay");
      overlay.innerHTML =
        '<section class="panel" role="dialog" aria-modal="true" aria-labelledby="late-consent-title">' +
        '<h2 id="late-consent-title">Before you go on</h2>' +
        "<p>We measure how the inbox is used, to make it faster. Is that fine with you?</p>" +
        '<button type="button" class="primary" data-testid="consent-accept">Accept</button> ' +
        '<button type="button" data-testid="consent-reject">Reject</button></section>';
      function choose(value) {
        window.localStorage.setItem(CONSENT_KEY, value);
        overlay.remove();
        showConsentState(value);
        startAnalytics();
      }
      overlay.querySelector("[data-testid=consent-accept]").addEventListener("click", function () { choose("accepted"); });
      overlay.querySelector("[data-testid=consent-reject]").addEventListener("click", function () { choose("rejected"); });
      document.body.appendChild(overlay);
    }, delay);
  }

  window.Lab = { track: track };
  document.addEventListener("DOMContentLoaded", function () {
    scheduleConsent();
    startAnalytics();
  });
})();
