// loop-a.html and loop-b.html: one page of two views, each view with its own outline, and a tab
// for each. Discover's loop test: the "Overview" tab on loop-b.html leads back to the outline of
// loop-a.html, a page already crawled.
(function () {
  var headings = {overview: 'Shelf overview', details: 'Shelf details'};
  document.body.insertAdjacentHTML('afterbegin',
    '<header><nav aria-label="Main">' +
    '<a href="/discover/loop-a.html">Overview page</a> <a href="/discover/loop-b.html">Details page</a>' +
    '</nav></header><main><h1></h1><div role="tablist">' +
    '<button type="button" role="tab" data-view="overview" data-testid="view-overview" aria-controls="panel">Overview</button>' +
    '<button type="button" role="tab" data-view="details" data-testid="view-details" aria-controls="panel">Details</button>' +
    '</div><section id="panel">Three shelves, twelve books.</section></main>');
  function show(view) {
    document.querySelector('h1').textContent = headings[view];
    document.querySelectorAll('[role=tab]').forEach(function (tab) {
      tab.setAttribute('aria-selected', String(tab.dataset.view === view));
    });
  }
  document.querySelectorAll('[role=tab]').forEach(function (tab) {
    tab.addEventListener('click', function () { show(tab.dataset.view); });
  });
  show(document.body.dataset.view);
})();
