/* Acme Notes: what every page shares.
 *
 * - the cookie consent overlay (blocks the page until a choice is made; remembered in localStorage)
 * - analytics: a GA4-style beacon (navigator.sendBeacon to /g/collect), only after "Accept all"
 * - the demo session (localStorage), the account part of the header, the saved theme
 * - the help center link, which lives on a second host (see helpUrl)
 *
 * Everything is kept in localStorage so the site needs no backend beyond a static server.
 */
(function () {
  "use strict";

  var KEYS = {
    consent: "acme.consent",       // "all" | "essential"
    client: "acme.client_id",      // analytics client id, created on first accepted page view
    session: "acme.session",       // {email, name} of the signed-in user
    users: "acme.users",           // accounts created through sign-up: {email: {name, password}}
    settings: "acme.settings",     // see settings.js
    notes: "acme.notes"            // see notes.js
  };

  // The one account that always exists, so the login example works on a fresh browser.
  var DEMO_USER = { email: "ada@example.com", name: "Ada Lovelace", password: "correct-horse-battery" };

  var GA_ENDPOINT = "https://www.google-analytics.com/g/collect";
  var GA_MEASUREMENT_ID = "G-DEMO";

  function readJSON(key, fallback) {
    try {
      var raw = window.localStorage.getItem(key);
      return raw ? JSON.parse(raw) : fallback;
    } catch (err) {
      // a hand-edited or corrupt entry must not break the page: start over
      return fallback;
    }
  }

  function writeJSON(key, value) {
    window.localStorage.setItem(key, JSON.stringify(value));
  }

  // --- analytics ---------------------------------------------------------------------------

  function clientId() {
    var id = window.localStorage.getItem(KEYS.client);
    if (!id) {
      id = Math.floor(Math.random() * 1e9) + "." + Math.floor(Date.now() / 1000);
      window.localStorage.setItem(KEYS.client, id);
    }
    return id;
  }

  /* Send one GA4 measurement-protocol hit with sendBeacon, which survives the navigation that
     usually follows (sign-up redirects right after firing its event). Returns whether a beacon
     was queued: nothing is sent without consent. */
  function track(eventName, params) {
    if (consent() !== "all") {
      return false;
    }
    var query = new URLSearchParams({
      v: "2",
      tid: GA_MEASUREMENT_ID,
      cid: clientId(),
      en: eventName,
      dl: window.location.href,
      dt: document.title
    });
    Object.keys(params || {}).forEach(function (name) {
      query.set("ep." + name, String(params[name]));
    });
    return navigator.sendBeacon(GA_ENDPOINT + "?" + query.toString());
  }

  // --- consent -----------------------------------------------------------------------------

  function consent() {
    return window.localStorage.getItem(KEYS.consent);
  }

  function showConsent() {
    var overlay = document.createElement("div");
    overlay.className = "consent-overlay";
    overlay.setAttribute("data-testid", "cookie-overlay");
    overlay.innerHTML =
      '<section class="consent" role="dialog" aria-modal="true" aria-labelledby="consent-title"' +
      ' aria-describedby="consent-text" data-testid="cookie-banner">' +
      '<h2 id="consent-title">We value your privacy</h2>' +
      '<p id="consent-text">Acme Notes uses essential cookies to keep you signed in, and, with your ' +
      "permission, analytics to learn which features people use. You can change this at any time " +
      "in Settings.</p>" +
      '<div class="actions">' +
      '<button type="button" data-testid="cookie-essential">Essential only</button>' +
      '<button type="button" class="primary" data-testid="cookie-accept">Accept all cookies</button>' +
      "</div></section>";
    document.body.appendChild(overlay);
    document.body.classList.add("consent-open");

    function choose(value) {
      window.localStorage.setItem(KEYS.consent, value);
      overlay.remove();
      document.body.classList.remove("consent-open");
      document.dispatchEvent(new CustomEvent("acme:consent", { detail: value }));
      // the page view of the page the visitor is on counts once they allow it
      track("page_view");
    }
    overlay.querySelector("[data-testid=cookie-accept]").addEventListener("click", function () {
      choose("all");
    });
    overlay.querySelector("[data-testid=cookie-essential]").addEventListener("click", function () {
      choose("essential");
    });
    overlay.querySelector("[data-testid=cookie-accept]").focus();
  }

  // --- accounts ----------------------------------------------------------------------------

  function users() {
    var all = readJSON(KEYS.users, {});
    all[DEMO_USER.email] = { name: DEMO_USER.name, password: DEMO_USER.password };
    return all;
  }

  function session() {
    return readJSON(KEYS.session, null);
  }

  function signIn(email, name) {
    writeJSON(KEYS.session, { email: email, name: name });
  }

  function signOut() {
    window.localStorage.removeItem(KEYS.session);
  }

  function createUser(email, name, password) {
    var all = readJSON(KEYS.users, {});
    all[email] = { name: name, password: password };
    writeJSON(KEYS.users, all);
  }

  function firstName(name) {
    return String(name || "").trim().split(/\s+/)[0] || "there";
  }

  /* A stable, readable account number derived from the email (shown on the dashboard). */
  function accountNumber(email) {
    var hash = 0;
    for (var i = 0; i < email.length; i += 1) {
      hash = (hash * 31 + email.charCodeAt(i)) % 9000;
    }
    return "ACME-" + (1000 + hash);
  }

  function renderAccountNav() {
    var nav = document.querySelector("[data-testid=account-nav]");
    var who = session();
    if (!nav || !who) {
      return;
    }
    nav.innerHTML = "";
    var label = document.createElement("span");
    label.className = "who";
    label.setAttribute("data-testid", "signed-in-as");
    label.textContent = "Signed in as " + who.name;
    var out = document.createElement("button");
    out.type = "button";
    out.className = "link";
    out.textContent = "Log out";
    out.addEventListener("click", function () {
      signOut();
      window.location.assign("/index.html");
    });
    nav.appendChild(label);
    nav.appendChild(out);
  }

  // --- settings applied on every page ------------------------------------------------------

  function applySettings() {
    var saved = readJSON(KEYS.settings, {});
    var theme = saved.theme || "light";
    if (theme === "system") {
      theme = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
    }
    document.body.classList.toggle("theme-dark", theme === "dark");
    document.body.classList.toggle("density-compact", saved.density === "compact");
  }

  // --- the help center on a second host ----------------------------------------------------

  /* The help center is "hosted elsewhere". When the app is served on 127.0.0.1 the help center
     is the same server reached as localhost: a different host, which a flow must allow with
     allowed_hosts to follow the link. Served under any other name it is a plain relative link. */
  function helpUrl() {
    if (window.location.hostname === "127.0.0.1") {
      return window.location.protocol + "//localhost:" + window.location.port + "/help.html";
    }
    return "/help.html";
  }

  function markCurrentNav() {
    var here = window.location.pathname.replace(/\/$/, "/index.html");
    document.querySelectorAll(".main-nav a").forEach(function (link) {
      if (link.getAttribute("href") === here) {
        link.setAttribute("aria-current", "page");
      }
    });
    document.querySelectorAll("a[data-help-link]").forEach(function (link) {
      link.setAttribute("href", helpUrl());
    });
  }

  window.Acme = {
    keys: KEYS,
    readJSON: readJSON,
    writeJSON: writeJSON,
    track: track,
    consent: consent,
    users: users,
    session: session,
    signIn: signIn,
    signOut: signOut,
    createUser: createUser,
    firstName: firstName,
    accountNumber: accountNumber,
    applySettings: applySettings
  };

  applySettings();
  markCurrentNav();
  renderAccountNav();
  if (consent()) {
    track("page_view");
  } else {
    showConsent();
  }
})();
