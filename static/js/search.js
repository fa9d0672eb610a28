// Back and Forward between searches restore htmx's snapshot of the page, taken
// from its markup, where the search box still holds what the page was first
// served with (often nothing), not the words typed since. Put back the words
// the restored results are for: the address says them.
(function () {
  "use strict";

  document.addEventListener("htmx:historyRestore", function () {
    const box = document.getElementById("search-query");
    if (box) {
      box.value = new URLSearchParams(window.location.search).get("q") || "";
    }
  });
})();
