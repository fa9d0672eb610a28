// Drag and drop onto the file picker, and a progress bar while the file
// uploads. The form works without this script; it only adds feedback.
(function () {
  "use strict";

  function describe(file) {
    return interpolate(gettext("Chosen: %(name)s (%(size)s)"), { name: file.name, size: sizeOf(file.size) }, true);
  }

  // As the server writes sizes (Django's filesizeformat, in the page's language), so
  // that both name the limit alike: one decimal, with the language's decimal mark.
  function sizeOf(bytes) {
    if (bytes < 1024) return interpolate(ngettext("%(size)s byte", "%(size)s bytes", bytes), { size: bytes }, true);
    const units = [gettext("%(size)s KB"), gettext("%(size)s MB"), gettext("%(size)s GB")];
    let size = bytes / 1024;
    let unit = 0;
    while (size >= 1024 && unit < units.length - 1) {
      size /= 1024;
      unit += 1;
    }
    return interpolate(units[unit], { size: size.toFixed(1).replace(".", get_format("DECIMAL_SEPARATOR")) }, true);
  }

  // A byte count in full, its thousands grouped as the page's language groups them,
  // in the digits the server writes.
  function grouped(number) {
    return number.toLocaleString(document.documentElement.lang || "en", { numberingSystem: "latn" });
  }

  // The server refuses such a file too, but only once all of it has been sent.
  function tooLarge(input, file) {
    const limit = Number(input.dataset.maxBytes);
    if (!limit || file.size <= limit) return "";
    if (sizeOf(file.size) === sizeOf(limit)) {
      return interpolate(
        gettext("The file is %(size)s bytes, over the limit of %(limit)s bytes (%(rounded)s)."),
        { size: grouped(file.size), limit: grouped(limit), rounded: sizeOf(limit) },
        true,
      );
    }
    return interpolate(
      gettext("The file is %(size)s, over the limit of %(limit)s."),
      { size: sizeOf(file.size), limit: sizeOf(limit) },
      true,
    );
  }

  document.addEventListener("change", function (event) {
    const input = event.target;
    if (!input.matches("[data-dropzone] input[type=file]")) return;
    const zone = input.closest("[data-dropzone]");
    const chosen = zone.querySelector("[data-dropzone-chosen]");
    // What the server said was of the file sent before, not of this one.
    const earlier = Array.from(zone.querySelectorAll("[data-file-refusal]"));
    if (input.files.length && earlier.length) {
      earlier.forEach(function (refusal) { refusal.remove(); });
      zone.classList.remove("field--error");
    }
    const refused = input.files.length ? tooLarge(input, input.files[0]) : "";
    // The browser then refuses to send the form, and says why at the field.
    input.setCustomValidity(refused);
    chosen.classList.toggle("field__error", Boolean(refused));
    chosen.textContent = refused || (input.files.length ? describe(input.files[0]) : "");
    // Assistive technology hears the reason with the field, and that it is invalid.
    if (!chosen.id) chosen.id = input.id + "_chosen";
    const described = (input.getAttribute("aria-describedby") || "").split(" ").filter(function (id) {
      return id && id !== chosen.id && document.getElementById(id);
    });
    if (refused) {
      described.push(chosen.id);
      input.setAttribute("aria-invalid", "true");
    } else if (!zone.classList.contains("field--error")) {
      input.removeAttribute("aria-invalid");
    }
    input.setAttribute("aria-describedby", described.join(" "));
  });

  ["dragenter", "dragover"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      const zone = event.target.closest && event.target.closest("[data-dropzone]");
      if (!zone) return;
      event.preventDefault();
      zone.classList.add("dropzone--over");
    });
  });
  ["dragleave", "drop"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      const zone = event.target.closest && event.target.closest("[data-dropzone]");
      if (!zone) return;
      event.preventDefault();
      zone.classList.remove("dropzone--over");
      if (name === "drop" && event.dataTransfer.files.length) {
        const input = zone.querySelector("input[type=file]");
        input.files = event.dataTransfer.files;
        input.dispatchEvent(new Event("change", { bubbles: true }));
      }
    });
  });

  function progressOf(form) {
    return form && form.matches("[data-upload-form]") ? form.querySelector("[data-upload-progress]") : null;
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    const progress = progressOf(event.detail.elt);
    if (!progress) return;
    progress.hidden = false;
    progress.querySelector("progress").value = 0;
    progress.querySelector("[data-upload-percent]").textContent = "0%";
  });

  document.addEventListener("htmx:xhr:progress", function (event) {
    const progress = progressOf(event.detail.elt);
    if (!progress || !event.detail.lengthComputable) return;
    const percent = Math.round((event.detail.loaded / event.detail.total) * 100);
    progress.querySelector("progress").value = percent;
    progress.querySelector("[data-upload-percent]").textContent = percent + "%";
  });
})();
