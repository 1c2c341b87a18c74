/* Team: five members, filtered by name or role as you type (Escape clears the filter).
   The list is re-rendered, so only matching members are in the page. */
(function () {
  "use strict";

  var MEMBERS = [
    { name: "Ada Lovelace", role: "Owner" },
    { name: "Grace Hopper", role: "Admin" },
    { name: "Alan Turing", role: "Editor" },
    { name: "Katherine Johnson", role: "Editor" },
    { name: "Edsger Dijkstra", role: "Viewer" }
  ];

  var input = document.getElementById("member-filter");
  var list = document.querySelector("[data-testid=member-list]");
  var summary = document.querySelector("[data-testid=member-summary]");
  var empty = document.querySelector("[data-testid=members-empty]");

  function initials(name) {
    return name.split(/\s+/).map(function (part) { return part.charAt(0); }).join("").slice(0, 2);
  }

  function render() {
    var query = input.value.trim().toLowerCase();
    var shown = MEMBERS.filter(function (member) {
      return !query || member.name.toLowerCase().indexOf(query) >= 0 || member.role.toLowerCase().indexOf(query) >= 0;
    });
    list.innerHTML = "";
    shown.forEach(function (member) {
      var item = document.createElement("li");
      item.className = "member";
      item.setAttribute("data-testid", "member");
      item.innerHTML = '<span class="avatar" aria-hidden="true"></span><div><div class="name" data-testid="member-name"></div>' +
        '<div class="role" data-testid="member-role"></div></div>';
      item.querySelector(".avatar").textContent = initials(member.name);
      item.querySelector(".name").textContent = member.name;
      item.querySelector(".role").textContent = member.role;
      list.appendChild(item);
    });
    summary.textContent = "Showing " + shown.length + " of " + MEMBERS.length + " members";
    empty.hidden = shown.length > 0;
    empty.textContent = shown.length ? "" : "No one matches \u201C" + input.value.trim() + "\u201D.";
  }

  input.addEventListener("input", render);
  input.addEventListener("keydown", function (event) {
    if (event.key === "Escape") {
      input.value = "";
      render();
    }
  });
  render();
})();
