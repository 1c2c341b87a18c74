/* The feed: a skeleton until the first page of posts arrives by fetch (JSON from the server), shown
 * `?delay=` ms after load (800 by default, as a slow API would); then more pages of 20, 400 ms
 * each, either when the end of the list scrolls into view (infinite scroll) or, with
 * `?mode=pages`, from a Load more button. */
(function () {
  "use strict";
  var params = new URLSearchParams(window.location.search);
  var firstDelay = Number(params.get("delay") || 800);
  var paged = params.get("mode") === "pages";
  var next = "/lab/data/feed-1.json";
  var shown = 0;
  var loading = false;
  var feed = document.querySelector("[data-testid=feed]");
  var spinner = document.querySelector("[data-testid=feed-spinner]");
  var more = document.querySelector("[data-testid=load-more]");
  var observer = null;

  function wait(ms) {
    return new Promise(function (resolve) { window.setTimeout(resolve, ms); });
  }

  function open(post) {
    var detail = document.querySelector("[data-testid=post-detail]");
    detail.hidden = false;
    detail.innerHTML = "";
    var title = document.createElement("h2");
    title.setAttribute("data-testid", "post-title");
    title.textContent = post.title;
    var by = document.createElement("p");
    by.textContent = "By " + post.author + ". " + post.summary;
    detail.appendChild(title);
    detail.appendChild(by);
    Lab.track("select_content", { content_type: "post", item_id: post.id });
  }

  function render(data) {
    data.items.forEach(function (post) {
      var item = document.createElement("button");
      item.type = "button";
      item.className = "item";
      item.setAttribute("data-testid", "post");
      item.setAttribute("data-track", "post");
      var title = document.createElement("strong");
      title.setAttribute("data-testid", "post-name");
      title.textContent = post.title;
      item.appendChild(title);
      item.appendChild(document.createTextNode(" · " + post.author));
      item.addEventListener("click", function () { open(post); });
      feed.appendChild(item);
    });
    shown += data.items.length;
    next = data.next;
    document.querySelector("[data-testid=feed-status]").textContent = "Showing " + shown + " of " + data.total + " posts";
    if (!next) {
      more.hidden = true;
      document.querySelector("[data-testid=feed-end]").hidden = false;
      if (observer) {
        observer.disconnect();
      }
    }
  }

  function load(delay) {
    if (loading || !next) {
      return Promise.resolve();
    }
    loading = true;
    var url = next;
    if (shown) {
      spinner.hidden = false;
      more.disabled = true;
    }
    return Promise.all([fetch(url).then(function (r) { return r.json(); }), wait(delay)]).then(function (got) {
      render(got[0]);
      Lab.track("feed_page", { page: got[0].page });
    }).finally(function () {
      loading = false;
      spinner.hidden = true;
      more.disabled = false;
    });
  }

  load(firstDelay).then(function () {
    document.querySelector("[data-testid=feed-skeleton]").remove();
    if (paged) {
      more.hidden = !next;
      more.addEventListener("click", function () { load(400); });
    } else {
      observer = new IntersectionObserver(function (entries) {
        if (entries.some(function (entry) { return entry.isIntersecting; })) {
          load(400);
        }
      });
      observer.observe(document.querySelector("[data-testid=feed-sentinel]"));
    }
  });
})();
