/* Sign-up: client-side validation with inline errors; the submit button is enabled only when
   every field is valid. On submit the account is created in localStorage, the GA4 `sign_up`
   event is sent (sendBeacon survives the redirect), and the form posts to the server, which
   redirects to the dashboard. */
(function () {
  "use strict";

  var form = document.getElementById("signup-form");
  var fields = {
    name: document.getElementById("name"),
    email: document.getElementById("email"),
    password: document.getElementById("password"),
    terms: document.getElementById("terms")
  };
  var submit = document.getElementById("create-account");
  var submitHelp = document.getElementById("submit-help");
  var EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
  // a field shows its error once the visitor has typed in it or left it, never on a fresh form
  var touched = {};

  function problems() {
    var name = fields.name.value.trim();
    var email = fields.email.value.trim().toLowerCase();
    var password = fields.password.value;
    var out = {};
    if (name.length < 2) {
      out.name = name ? "Your name needs at least 2 characters." : "Enter your full name.";
    }
    if (!EMAIL.test(email)) {
      out.email = email ? "Enter a valid email address, like name@company.com." : "Enter your work email.";
    } else if (Object.prototype.hasOwnProperty.call(window.Acme.users(), email)) {
      out.email = "An account with " + email + " already exists. Log in instead.";
    }
    if (password.length < 8 || !/[0-9]/.test(password) || !/[A-Za-z]/.test(password)) {
      out.password = password ? "Use at least 8 characters, including a letter and a number." : "Choose a password.";
    }
    if (!fields.terms.checked) {
      out.terms = "accept the Terms of Service";
    }
    return out;
  }

  function render() {
    var found = problems();
    ["name", "email", "password"].forEach(function (key) {
      var error = document.getElementById(key + "-error");
      var show = touched[key] && found[key];
      error.textContent = show ? found[key] : "";
      fields[key].setAttribute("aria-invalid", show ? "true" : "false");
    });
    var missing = [];
    if (found.name) { missing.push("your name"); }
    if (found.email) { missing.push("a valid email"); }
    if (found.password) { missing.push("a password"); }
    if (found.terms) { missing.push("accepting the terms"); }
    submit.disabled = missing.length > 0;
    submitHelp.textContent = missing.length ? "Still needed: " + missing.join(", ") + "." : "All set.";
    return missing.length === 0;
  }

  ["name", "email", "password"].forEach(function (key) {
    fields[key].addEventListener("input", function () {
      touched[key] = true;
      render();
    });
    fields[key].addEventListener("blur", function () {
      touched[key] = true;
      render();
    });
  });
  fields.terms.addEventListener("change", render);

  form.addEventListener("submit", function (event) {
    touched = { name: true, email: true, password: true };
    if (!render()) {
      event.preventDefault();
      return;
    }
    var email = fields.email.value.trim().toLowerCase();
    var name = fields.name.value.trim();
    // Demo only: a real app would send this to its server, never keep a password in the browser.
    window.Acme.createUser(email, name, fields.password.value);
    window.Acme.signIn(email, name);
    window.Acme.track("sign_up", { method: "email" });
    // not prevented: the browser posts the form and follows the server's redirect
  });

  render();
})();
