// A region that htmx replaces whole is a new element to a screen reader, which
// then often says nothing about it, even with aria-live on it. So the page keeps
// one live region that is never replaced (#announcer, in base.html), and a
// swapped part that has news to tell names it in data-announce ("12 passages
// found."); errors inside a part are role="alert" and are announced by themselves.
(function () {
  "use strict";

  document.addEventListener("htmx:afterSettle", function (event) {
    const swapped = event.target;
    const announcer = document.getElementById("announcer");
    if (!announcer || !(swapped instanceof Element) || !document.contains(swapped)) return;
    const news = swapped.matches("[data-announce]") ? swapped : swapped.querySelector("[data-announce]");
    if (!news || !news.dataset.announce) return;
    // Emptied first, so the same sentence twice in a row (the same search typed
    // again) is still a change the screen reader reads out.
    announcer.textContent = "";
    window.setTimeout(function () {
      announcer.textContent = news.dataset.announce;
    }, 100);
  });
})();
