// A button with data-confirm asks before its form is sent, whether htmx sends it
// (htmx's own hx-confirm belongs to the form, which holds every action's button)
// or the browser does (a plain form, such as the corrections desk's).
//
// An htmx form that sends another form along (hx-include, such as the claim's
// edit form) is refused by the server while that form holds unsaved changes.
// Asking first would only lead to that refusal: the page says so instead, and
// nothing is sent, so the changes stay where they are typed.
(function () {
  "use strict";

  function question(submitter) {
    return (submitter && submitter.dataset && submitter.dataset.confirm) || "";
  }

  // As the server compares (Django's changed_data): trimmed, with LF line breaks.
  function comparable(value) {
    return value.replace(/\r\n?/g, "\n").trim();
  }

  function changed(field, form) {
    if (field.type === "hidden" || field.disabled || !field.name) return false;
    // The value the form was opened with, where Django's form carries it (a field
    // with show_hidden_initial): the page's own, or the one a form given back kept
    // (after a refusal or a conflict), whose fields show what was typed.
    const initial = form.elements.namedItem("initial-" + field.name);
    if (field.type === "checkbox") {
      if (initial && "value" in initial) return field.checked !== (initial.value === "True");
      return field.checked !== field.defaultChecked;
    }
    if (field.type === "radio") return field.checked !== field.defaultChecked;
    if (initial && "value" in initial) {
      return comparable(field.value) !== comparable(initial.value);
    }
    if (field.tagName === "SELECT") {
      return Array.from(field.options).some(function (option) {
        return option.selected !== option.defaultSelected;
      });
    }
    return "defaultValue" in field && field.value !== field.defaultValue;
  }

  // The form that ``form`` sends along (hx-include), when it holds unsaved changes.
  function unsavedFormIncludedBy(form) {
    const selector = form.getAttribute("hx-include");
    const included = selector && document.querySelector(selector);
    if (!included || !included.elements) return null;
    const fields = Array.from(included.elements);
    return fields.some(function (field) { return changed(field, included); }) ? included : null;
  }

  function sayUnsaved(form, submitter) {
    let said = form.querySelector("[data-unsaved-warning]");
    if (!said) {
      // Focused, so read out once (a live role as well would have it read twice).
      said = document.createElement("p");
      said.className = "form-errors";
      said.setAttribute("tabindex", "-1");
      said.dataset.unsavedWarning = "";
      form.prepend(said);
    }
    said.textContent = interpolate(
      gettext("Your changes in the claim's form are not saved, so nothing was done: save them (or reload the page to drop them), then press “%(button)s” again."),
      { button: submitter.textContent.trim() },
      true,
    );
    said.focus();
  }

  document.addEventListener("htmx:confirm", function (event) {
    const submitted = event.detail.triggeringEvent;
    const submitter = submitted && submitted.submitter;
    const asked = question(submitter);
    if (!asked) return;
    event.preventDefault();
    const form = event.detail.elt;
    if (form.tagName === "FORM" && unsavedFormIncludedBy(form)) {
      sayUnsaved(form, submitter);
      return;
    }
    // Saved (or put back) since the warning: it no longer holds.
    const stale = form.querySelector("[data-unsaved-warning]");
    if (stale) stale.remove();
    if (window.confirm(asked)) event.detail.issueRequest(true);
  });

  document.addEventListener("submit", function (event) {
    // htmx forms are asked above, when htmx is about to send them.
    if (event.target.closest("[hx-post], [hx-get]")) return;
    const asked = question(event.submitter);
    if (asked && !window.confirm(asked)) event.preventDefault();
  });
})();
