// zettelgraph: the few lines of JavaScript the pages use. Everything works without it.
(function () {
  "use strict";

  // Forms marked data-working start something slow (an LLM call): on submit, ask for
  // confirmation if data-confirm says so, then disable every button of the page's working
  // forms and show the "working…" note, so a decision is not sent twice.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-working")) return;
    if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
      return;
    }
    // After the browser has built the form data (disabled fields are left out of it).
    window.setTimeout(function () {
      document.querySelectorAll("form[data-working] button").forEach(function (button) {
        button.disabled = true;
      });
      var submitter = event.submitter || form.querySelector("button[type=submit]");
      if (submitter) {
        submitter.dataset.label = submitter.textContent;
        submitter.textContent = "Working…";
      }
      document.querySelectorAll(".working-note").forEach(function (note) {
        note.hidden = false;
      });
      document.body.classList.add("is-working");
    }, 0);
  });

  // Coming back with the Back button restores a page from the cache as it was left.
  window.addEventListener("pageshow", function (event) {
    if (!event.persisted) return;
    document.querySelectorAll("form[data-working] button").forEach(function (button) {
      button.disabled = false;
      if (button.dataset.label) button.textContent = button.dataset.label;
    });
    document.querySelectorAll(".working-note").forEach(function (note) {
      note.hidden = true;
    });
    document.body.classList.remove("is-working");
  });

  // A checkbox data-check-all="NAME" (hidden without JavaScript) ticks every checkbox named
  // NAME on the page: the Cards page's "Select all shown".
  document.querySelectorAll("[data-check-all]").forEach(function (all) {
    var label = all.closest("label");
    if (label) label.hidden = false;
    all.addEventListener("change", function () {
      document.querySelectorAll('input[type=checkbox][name="' + all.dataset.checkAll + '"]')
        .forEach(function (box) {
          box.checked = all.checked;
        });
    });
  });

  // The Study page's keys: space (or enter) shows the answer, then 1-4 rate the card.
  document.addEventListener("keydown", function (event) {
    var card = document.querySelector("[data-study]");
    if (!card || event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target instanceof HTMLElement && target.closest("input, textarea, select, button, summary, a")) {
      return;
    }
    var reveal = card.querySelector("details.reveal");
    if (!reveal) return;
    if (!reveal.open && (event.key === " " || event.key === "Enter")) {
      event.preventDefault();
      reveal.open = true;
      return;
    }
    var button = reveal.open && card.querySelector('button[data-key="' + event.key + '"]');
    if (button) {
      event.preventDefault();
      button.click();
    }
  });

  // A <select data-autosubmit> submits its form when changed (the graph's depth).
  document.addEventListener("change", function (event) {
    var field = event.target;
    if (field instanceof HTMLSelectElement && field.hasAttribute("data-autosubmit") && field.form) {
      field.form.submit();
    }
  });
})();
