/* Home page: customer stories load lazily, the first time their section scrolls into view
   (what a real marketing page does to keep the first paint light). */
(function () {
  "use strict";

  var STORIES = [
    { quote: "We replaced three spreadsheets and a standing meeting with one notebook.", who: "Mara, design studio (4 people)" },
    { quote: "The Monday report is the only status update our team actually reads.", who: "Tomás, support lead" },
    { quote: "Set up in five minutes, and everyone found their notes on day one.", who: "Priya, bakery co-op" }
  ];

  var section = document.querySelector("[data-testid=stories]");
  var list = document.querySelector("[data-testid=story-list]");
  var status = document.querySelector("[data-testid=stories-status]");
  var loaded = false;

  function load() {
    if (loaded) {
      return;
    }
    loaded = true;
    list.textContent = "";  // the placeholders go; the cards take exactly their place
    STORIES.forEach(function (story) {
      var card = document.createElement("figure");
      card.className = "card story";
      card.setAttribute("data-testid", "story");
      var quote = document.createElement("blockquote");
      quote.textContent = "\u201C" + story.quote + "\u201D";
      var cite = document.createElement("figcaption");
      cite.innerHTML = "<cite></cite>";
      cite.firstChild.textContent = story.who;
      card.appendChild(quote);
      card.appendChild(cite);
      list.appendChild(card);
    });
    status.textContent = STORIES.length + " customer stories";
  }

  var observer = new IntersectionObserver(function (entries) {
    if (entries.some(function (entry) { return entry.isIntersecting; })) {
      observer.disconnect();
      load();
    }
  });
  observer.observe(section);
})();
