/* The inbox: its messages arrive 1 s after load, after the late consent overlay (lab.js), so the
 * first click of a visitor lands on the overlay unless it is dismissed. Archive, star, open and
 * compose; the counts follow. */
(function () {
  "use strict";
  var messages = [
    { from: "Grace Hopper", subject: "Quarterly numbers", body: "The numbers are up 12% on last quarter.", starred: true },
    { from: "Alan Turing", subject: "Interview loop", body: "Three candidates on Thursday.", starred: false },
    { from: "Ada Lovelace", subject: "Release train", body: "The train leaves Friday at noon.", starred: true },
    { from: "Edsger Dijkstra", subject: "Code review", body: "Shorter functions, please.", starred: false },
    { from: "Barbara Liskov", subject: "Offsite agenda", body: "Day one is planning, day two is hacking.", starred: false }
  ];
  var view = "all";
  var archived = 0;
  var list = document.querySelector("[data-testid=messages]");

  function summary() {
    var starred = messages.filter(function (m) { return m.starred; }).length;
    document.querySelector("[data-testid=inbox-summary]").textContent =
      messages.length + " messages, " + starred + " starred" + (archived ? ", " + archived + " archived" : "");
  }

  function render() {
    list.innerHTML = "";
    messages.filter(function (m) { return view === "all" || m.starred; }).forEach(function (m) {
      var li = document.createElement("li");
      li.setAttribute("data-testid", "message");
      var open = document.createElement("button");
      open.type = "button";
      open.setAttribute("data-testid", "open-message");
      open.setAttribute("data-track", "open-message");
      open.textContent = m.from + ": " + m.subject;
      open.addEventListener("click", function () {
        var reader = document.querySelector("[data-testid=reader]");
        reader.hidden = false;
        reader.textContent = m.subject + " from " + m.from + ". " + m.body;
        Lab.track("open_message");
      });
      var star = document.createElement("button");
      star.type = "button";
      star.setAttribute("data-testid", "star");
      star.setAttribute("data-track", "star");
      star.setAttribute("aria-pressed", String(m.starred));
      star.textContent = m.starred ? "Unstar" : "Star";
      star.addEventListener("click", function () { m.starred = !m.starred; render(); });
      var archive = document.createElement("button");
      archive.type = "button";
      archive.setAttribute("data-testid", "archive");
      archive.setAttribute("data-track", "archive");
      archive.textContent = "Archive";
      archive.addEventListener("click", function () {
        messages.splice(messages.indexOf(m), 1);
        archived += 1;
        document.querySelector("[data-testid=inbox-notice]").textContent = "Archived “" + m.subject + "”.";
        render();
      });
      li.appendChild(open);
      li.appendChild(star);
      li.appendChild(archive);
      list.appendChild(li);
    });
    summary();
  }

  function show(which) {
    view = which;
    document.querySelector("[data-testid=tab-all]").setAttribute("aria-selected", String(which === "all"));
    document.querySelector("[data-testid=tab-starred]").setAttribute("aria-selected", String(which === "starred"));
    render();
  }

  document.querySelector("[data-testid=tab-all]").addEventListener("click", function () { show("all"); });
  document.querySelector("[data-testid=tab-starred]").addEventListener("click", function () { show("starred"); });
  document.querySelector("[data-testid=compose]").addEventListener("click", function () {
    document.querySelector("[data-testid=compose-form]").hidden = false;
    document.getElementById("compose-to").focus();
  });
  document.querySelector("[data-testid=compose-form]").addEventListener("submit", function (event) {
    event.preventDefault();
    var to = document.getElementById("compose-to").value.trim();
    var subject = document.getElementById("compose-subject").value.trim();
    document.querySelector("[data-testid=inbox-notice]").textContent =
      to && subject ? "Message sent to " + to + ": " + subject : "A message needs a recipient and a subject.";
    if (to && subject) {
      event.target.hidden = true;
      Lab.track("send_message");
    }
  });
  window.setTimeout(render, 1000);
})();
