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

  // The review page's keys, the terminal triage's: on the focused item (the one the page
  // opened at, or the first), k keep, d drop, u undo, e edit, m merge or move quotes, n next,
  // b back. Each decision is an ordinary form post, so the page works without them.
  var items = Array.prototype.slice.call(document.querySelectorAll("[data-item]"));
  if (items.length) {
    document.querySelectorAll(".js-only").forEach(function (hint) { hint.hidden = false; });
    var opened = window.location.hash && document.getElementById(window.location.hash.slice(1));
    var current = opened && opened.hasAttribute("data-item") ? opened : items[0];
    if (opened === current) current.focus({ preventScroll: true });
    document.addEventListener("focusin", function (event) {
      var item = event.target instanceof Element && event.target.closest("[data-item]");
      if (item) current = item;
    });
    var move = function (step) {
      var index = Math.min(items.length - 1, Math.max(0, items.indexOf(current) + step));
      current = items[index];
      current.focus();
      current.scrollIntoView({ block: "start" });
    };
    document.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      var target = event.target;
      if (target instanceof HTMLElement && target.closest("input, textarea, select")) return;
      var key = event.key.toLowerCase();
      if (key === "n" || key === "j") { event.preventDefault(); move(1); return; }
      if (key === "b" || key === "p") { event.preventDefault(); move(-1); return; }
      var button = current.querySelector('button[data-key="' + key + '"]');
      if (button) { event.preventDefault(); button.click(); return; }
      var more = current.querySelector('details[data-key="' + key + '"]');
      if (more) {
        event.preventDefault();
        more.open = true;
        var field = more.querySelector("input:not([type=hidden]), textarea, select");
        if (field) field.focus();
      }
    });
  }

  // A <select data-autosubmit> submits its form when changed (the graph's depth).
  document.addEventListener("change", function (event) {
    var field = event.target;
    if (field instanceof HTMLSelectElement && field.hasAttribute("data-autosubmit") && field.form) {
      field.form.submit();
    }
  });
})();
