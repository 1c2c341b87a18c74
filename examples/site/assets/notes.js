/* Notes: add (button or Enter), complete, delete, filter, a live count of open notes.
   Kept in localStorage, so they survive a reload. Adding one sends the GA4 `note_created` event. */
(function () {
  "use strict";

  var KEY = window.Acme.keys.notes;
  var form = document.getElementById("note-form");
  var input = document.getElementById("new-note");
  var error = document.getElementById("note-error");
  var list = document.querySelector("[data-testid=note-list]");
  var empty = document.querySelector("[data-testid=notes-empty]");
  var count = document.querySelector("[data-testid=notes-count]");
  var clear = document.querySelector("[data-testid=clear-completed]");
  var filterButtons = document.querySelectorAll("[data-filter]");
  var filter = "all";
  var notes = window.Acme.readJSON(KEY, []);

  var EMPTY_TEXT = {
    all: "No notes yet. Add your first one above.",
    active: "Nothing left to do. Nice work!",
    completed: "No completed notes yet."
  };

  function save() {
    window.Acme.writeJSON(KEY, notes);
  }

  function visible() {
    return notes.filter(function (note) {
      return filter === "all" || (filter === "active" ? !note.done : note.done);
    });
  }

  function render() {
    list.innerHTML = "";
    visible().forEach(function (note) {
      var item = document.createElement("li");
      item.setAttribute("data-testid", "note");
      item.className = note.done ? "done" : "";
      var label = document.createElement("label");
      var box = document.createElement("input");
      box.type = "checkbox";
      box.checked = note.done;
      box.addEventListener("change", function () {
        note.done = box.checked;
        save();
        render();
      });
      var text = document.createElement("span");
      text.className = "note-text";
      text.textContent = note.text;
      label.appendChild(box);
      label.appendChild(text);
      var remove = document.createElement("button");
      remove.type = "button";
      remove.className = "link";
      remove.textContent = "Delete";
      remove.setAttribute("aria-label", "Delete note: " + note.text);
      remove.addEventListener("click", function () {
        notes = notes.filter(function (other) { return other.id !== note.id; });
        save();
        render();
      });
      item.appendChild(label);
      item.appendChild(remove);
      list.appendChild(item);
    });
    var open = notes.filter(function (note) { return !note.done; }).length;
    count.textContent = open + (open === 1 ? " note left" : " notes left");
    empty.textContent = EMPTY_TEXT[filter];
    empty.hidden = visible().length > 0;
    clear.hidden = !notes.some(function (note) { return note.done; });
    filterButtons.forEach(function (button) {
      button.setAttribute("aria-pressed", String(button.getAttribute("data-filter") === filter));
    });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var text = input.value.trim();
    if (!text) {
      error.textContent = "Write something first.";
      input.setAttribute("aria-invalid", "true");
      return;
    }
    error.textContent = "";
    input.setAttribute("aria-invalid", "false");
    notes.push({ id: Date.now() + "-" + notes.length, text: text, done: false });
    save();
    input.value = "";
    // a new note should be seen, whatever filter was on
    filter = filter === "completed" ? "all" : filter;
    render();
    window.Acme.track("note_created", { length: text.length });
  });

  filterButtons.forEach(function (button) {
    button.addEventListener("click", function () {
      filter = button.getAttribute("data-filter");
      render();
    });
  });

  clear.addEventListener("click", function () {
    notes = notes.filter(function (note) { return !note.done; });
    save();
    render();
  });

  render();
})();
