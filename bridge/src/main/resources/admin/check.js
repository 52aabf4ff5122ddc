"use strict";
/*
 * The commissioning check from the status page (section #check): POST /api/check-central with the admin token (asked
 * for once, kept in this tab's sessionStorage under the desk's key, never in a URL), then each step as a row: pass,
 * fail or skip, what was found, and the fix for a failed one (docs/install.md, "Before devices go live").
 */
(function () {
  const TOKEN_KEY = "edgeBridgeAdminToken";
  const $ = id => document.getElementById(id);
  let busy = false;

  function say(text, bad) {
    $("check-result").textContent = text;
    $("check-result").className = bad ? "check-bad" : "muted";
  }

  function row(step) {
    const tr = document.createElement("tr");
    tr.dataset.step = step.step;
    const status = Object.assign(document.createElement("td"), {textContent: step.status.toUpperCase(),
        className: "check-" + step.status});
    const detail = Object.assign(document.createElement("td"), {className: "check-detail"});
    detail.append(step.detail);
    if (step.fix) {
      detail.append(document.createElement("br"), Object.assign(document.createElement("b"), {textContent: "fix: "}), step.fix);
    }
    tr.append(status, Object.assign(document.createElement("td"), {textContent: step.step}), detail);
    return tr;
  }

  async function check() {
    if (busy) return;
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token === null) {
      $("check-token-form").hidden = false;
      $("check-token").focus();
      say("enter the admin token (admin.token) to check central");
      return;
    }
    busy = true;
    $("check-run").disabled = true;
    say("checking central… (each step waits at most ingest.timeout, 10 s at most)");
    try {
      const r = await fetch("/api/check-central", {method: "POST", headers: {"Authorization": "Bearer " + token}});
      const answer = await r.json().catch(() => ({}));
      if (r.status === 401 || r.status === 403) {
        sessionStorage.removeItem(TOKEN_KEY);
        $("check-token-form").hidden = false;
        throw new Error(answer.message || "the token was refused");
      }
      if (!r.ok) throw new Error(answer.message || ("HTTP " + r.status));
      $("check-steps").replaceChildren(...answer.steps.map(row));
      const failed = answer.steps.filter(s => s.status === "fail").length;
      say(failed === 0 ? "every step passed (" + new Date(answer.at).toLocaleString() + ")"
          : failed + " of " + answer.steps.length + " steps failed", failed > 0);
    } catch (e) {
      say("the check could not run: " + (e && e.message ? e.message : e), true);
    } finally {
      busy = false;
      $("check-run").disabled = false;
    }
  }

  (function init() { // deferred: the page is parsed
    $("check-run").addEventListener("click", check);
    $("check-token-form").addEventListener("submit", e => {
      e.preventDefault();
      sessionStorage.setItem(TOKEN_KEY, $("check-token").value);
      $("check-token").value = "";
      $("check-token-form").hidden = true;
      check();
    });
  })();
})();
