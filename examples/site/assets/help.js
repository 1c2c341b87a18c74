/* Help center: it lives on a second host (see helpUrl in app.js), so the way back to the app
   names the app's host explicitly. */
(function () {
  "use strict";

  var back = document.querySelector("[data-testid=back-to-app]");
  if (window.location.hostname === "localhost") {
    back.href = window.location.protocol + "//127.0.0.1:" + window.location.port + "/index.html";
  }
})();
