/* Log in against the accounts this browser knows (the demo account always exists). A wrong
   email or password shows an error and stays on the page; a right one posts the form, and the
   server redirects to the dashboard (or to the page named by ?next=). */
(function () {
  "use strict";

  var form = document.getElementById("login-form");
  var email = document.getElementById("login-email");
  var password = document.getElementById("login-password");
  var error = document.getElementById("login-error");

  // ?next=/page.html (set when a signed-out visitor opens the dashboard); same-site paths only
  var next = new URLSearchParams(window.location.search).get("next");
  if (next && /^\/[A-Za-z0-9_\-]+\.html$/.test(next)) {
    form.setAttribute("action", "/__redirect?to=" + encodeURIComponent(next));
  }

  function fail(message) {
    error.textContent = message;
    error.hidden = false;
    email.setAttribute("aria-invalid", "true");
    password.setAttribute("aria-invalid", "true");
    password.value = "";
    password.focus();
  }

  form.addEventListener("submit", function (event) {
    var address = email.value.trim().toLowerCase();
    if (!address || !password.value) {
      event.preventDefault();
      fail("Enter your email and password.");
      return;
    }
    var account = window.Acme.users()[address];
    if (!account || account.password !== password.value) {
      event.preventDefault();
      fail("Incorrect email or password. Check both and try again.");
      return;
    }
    error.hidden = true;
    window.Acme.signIn(address, account.name);
    window.Acme.track("login", { method: "email" });
  });
})();
