"use strict";
/*
 * The desk for parked commands (docs/desk.md), in the status page's section #desk: groups by code and device, each
 * command with its reason, attempts, age and, on request, its payload; requeue or reject a selection or all of one code.
 * Below, the oldest pending commands, each of which can be parked (set aside: parked_by_admin) to be decided on above.
 * The admin token is asked for once, on the first action, and kept in this tab's sessionStorage (never in a URL).
 */
(function () {
  const TOKEN_KEY = "edgeBridgeAdminToken";
  const MAX_PER_REQUEST = 500;
  const PENDING_SHOWN = 20;
  const el = (tag, props, ...children) => {
    const e = Object.assign(document.createElement(tag), props || {});
    children.forEach(c => e.append(c));
    return e;
  };
  const selected = new Set();      // "deviceId\u0000commandId"
  const payloads = new Map();      // key -> text shown under the command
  let pending = null;              // the action that waits for the token
  let busy = false;
  const keyOf = c => c.deviceId + "\u0000" + c.commandId;
  const fromKey = k => { const [deviceId, commandId] = k.split("\u0000"); return {deviceId, commandId}; };

  function ageText(ms) {
    const s = Math.round(ms / 1000);
    if (s < 120) return s + " s";
    if (s < 7200) return Math.round(s / 60) + " min";
    if (s < 172800) return Math.round(s / 3600) + " h";
    return Math.round(s / 86400) + " d";
  }

  function say(text, bad) {
    const r = document.getElementById("desk-result");
    r.textContent = text;
    r.className = bad ? "desk-bad" : "";
  }

  function token() {
    return sessionStorage.getItem(TOKEN_KEY);
  }

  function askToken(action) {
    pending = action;
    document.getElementById("desk-token-form").hidden = false;
    document.getElementById("desk-token").focus();
    say("enter the admin token (admin.token) to " + action.what);
  }

  function showTokenState() {
    const kept = token() !== null;
    document.getElementById("desk-token-kept").hidden = !kept;
    if (kept) document.getElementById("desk-token-form").hidden = true;
  }

  async function post(path, body) {
    const r = await fetch(path, {method: "POST", headers: {"Authorization": "Bearer " + token(),
        "Content-Type": "application/json"}, body: JSON.stringify(body)});
    const answer = await r.json().catch(() => ({}));
    if (r.status === 401 || r.status === 403) {
      sessionStorage.removeItem(TOKEN_KEY);
      showTokenState();
      throw Object.assign(new Error(answer.message || "the token was refused"), {unauthorized: true});
    }
    if (!r.ok) throw new Error((answer.message || ("HTTP " + r.status)));
    return answer;
  }

  /** Runs one action once the token is known: its perform() posts and returns what to say. */
  async function run(action) {
    if (busy) return;
    if (token() === null) { askToken(action); return; }
    if (action.confirm && !window.confirm(action.confirm)) return;
    busy = true;
    try {
      say(await action.perform());
    } catch (e) {
      if (e.unauthorized) askToken(action);
      say(action.name + " failed: " + e.message, true);
    } finally {
      busy = false;
      refreshDesk();
    }
  }

  /** A decision on parked commands: the bodies to post, one after another; "more" repeats a selection by code. */
  function decide(decision, bodies, what) {
    run({name: decision, what, confirm: decision === "reject" ? "Reject " + what + "? The devices get a final "
        + "'rejected' receipt; central never sees these commands." : null, perform: async () => {
      let changed = 0, notParked = 0;
      for (const body of bodies) {
        let rounds = 0, answer;
        do {
          answer = await post("/api/parked/" + decision, body);
          changed += answer.changed;
          notParked += (answer.notParked || []).length;
          (answer.commands || []).forEach(c => selected.delete(keyOf(c)));
        } while (answer.more && body.code && ++rounds < 100);
      }
      return (decision === "requeue" ? "requeued " : "rejected ") + changed
          + (notParked > 0 ? " (" + notParked + " no longer parked)" : "");
    }});
  }

  function bySelection(decision) {
    const keys = [...selected].map(fromKey);
    if (keys.length === 0) { say("select commands first", true); return; }
    const bodies = [];
    for (let i = 0; i < keys.length; i += MAX_PER_REQUEST) bodies.push({commands: keys.slice(i, i + MAX_PER_REQUEST)});
    decide(decision, bodies, keys.length + " selected command" + (keys.length > 1 ? "s" : ""));
  }

  /** The command's timeline link (timeline.js), or nothing while that script is not loaded yet. */
  const timeline = c => window.timelineLink ? window.timelineLink(c.deviceId, c.commandId) : "";

  const commandPath = c => "/api/outbox/" + encodeURIComponent(c.deviceId) + "/" + encodeURIComponent(c.commandId);

  /** Sets a pending command aside: parked as parked_by_admin, then on the desk above (docs/desk.md). */
  function park(c) {
    run({name: "park", what: "park " + c.commandId + " of " + c.deviceId, perform: async () => {
      const answer = await post(commandPath(c) + "/park", {});
      return "parked " + c.commandId + " of " + c.deviceId + " (" + answer.code + "): requeue or reject it above";
    }});
  }

  async function showPayload(c) {
    const k = keyOf(c);
    if (payloads.has(k)) { payloads.delete(k); refreshDesk(); return; }
    const r = await fetch(commandPath(c) + "/payload");
    payloads.set(k, r.ok ? await r.text() : "payload unavailable (HTTP " + r.status + ")");
    refreshDesk();
  }

  function commandRow(c) {
    const k = keyOf(c);
    const box = el("input", {type: "checkbox", checked: selected.has(k)});
    box.dataset.select = c.commandId;
    box.addEventListener("change", () => box.checked ? selected.add(k) : selected.delete(k));
    const show = el("button", {type: "button", textContent: payloads.has(k) ? "hide" : "payload", className: "desk-link"});
    show.dataset.payload = c.commandId;
    show.addEventListener("click", () => showPayload(c));
    const tr = el("tr", {}, el("td", {}, box), el("td", {textContent: c.commandId}), el("td", {textContent: c.sequence}),
        el("td", {textContent: c.reason || "–", className: "desk-reason"}),
        el("td", {textContent: c.attempts + " (" + c.retryLaters + " retry later)"}), el("td", {textContent: ageText(c.ageMs)}),
        el("td", {}, show, " ", timeline(c)));
    tr.dataset.parked = c.commandId;
    const rows = [tr];
    if (payloads.has(k)) {
      const pre = el("pre", {textContent: payloads.get(k), className: "desk-payload"});
      pre.dataset.payloadOf = c.commandId;
      rows.push(el("tr", {}, el("td", {colSpan: 7}, pre)));
    }
    return rows;
  }

  function render(d) {
    const list = document.getElementById("desk-groups");
    document.getElementById("desk-total").textContent = d.total === 0 ? "none" : d.total + " parked"
        + (d.more ? " (the oldest " + d.items.length + " listed)" : "")
        + (d.moreGroups ? "; only the first " + d.groups.length + " groups shown" : "");
    const codes = new Map();
    d.groups.forEach(g => {
      if (!codes.has(g.code)) codes.set(g.code, []);
      codes.get(g.code).push(g);
    });
    const present = new Set(d.items.map(keyOf));
    [...selected].forEach(k => { if (!present.has(k)) selected.delete(k); });
    list.replaceChildren(...[...codes.entries()].map(([code, groups]) => {
      const n = groups.reduce((a, g) => a + g.commands, 0);
      const requeueAll = el("button", {type: "button", textContent: "Requeue all " + n});
      requeueAll.dataset.requeueCode = code;
      requeueAll.addEventListener("click", () => decide("requeue", [{code}], "all " + n + " of " + code));
      const rejectAll = el("button", {type: "button", textContent: "Reject all " + n});
      rejectAll.dataset.rejectCode = code;
      rejectAll.addEventListener("click", () => decide("reject", [{code}], "all " + n + " of " + code));
      const block = el("div", {className: "desk-code"}, el("h3", {}, el("span", {textContent: code}), " ", requeueAll, " ", rejectAll));
      block.dataset.code = code;
      groups.forEach(g => {
        const items = d.items.filter(c => c.code === code && c.deviceId === g.deviceId);
        const table = el("table", {}, el("thead", {}, el("tr", {}, ...["", "command", "seq", "reason", "attempts", "age", ""]
            .map(h => el("th", {textContent: h})))), el("tbody", {}, ...items.flatMap(commandRow)));
        const head = el("div", {className: "desk-device", textContent: g.deviceId + " — " + g.commands + " parked, oldest "
            + ageText(g.oldestAgeMs)});
        const group = el("div", {}, head, table);
        group.dataset.group = code + "/" + g.deviceId;
        block.append(group);
      });
      return block;
    }));
  }

  /** The oldest pending commands (of one device, if one is typed), each with a button to park it. */
  function renderPending(items) {
    const since = iso => ageText(Date.now() - new Date(iso).getTime());
    document.getElementById("desk-pending").replaceChildren(...items.map(c => {
      const button = el("button", {type: "button", textContent: "Park"});
      button.dataset.park = c.commandId;
      button.addEventListener("click", () => park(c));
      const tr = el("tr", {}, el("td", {textContent: c.deviceId}), el("td", {textContent: c.commandId}),
          el("td", {textContent: c.sequence}), el("td", {textContent: c.attempts}),
          el("td", {textContent: c.lastError || "–", className: "desk-reason"}), el("td", {textContent: since(c.receivedAt)}),
          el("td", {}, button, " ", timeline(c)));
      tr.dataset.pending = c.commandId;
      tr.dataset.device = c.deviceId;
      return tr;
    }));
    document.getElementById("desk-pending-none").hidden = items.length > 0;
  }

  async function refreshPending() {
    const device = document.getElementById("desk-pending-device").value.trim();
    try {
      const r = await fetch("/api/outbox?state=pending&limit=" + PENDING_SHOWN
          + (device ? "&device=" + encodeURIComponent(device) : ""));
      if (!r.ok) throw new Error("HTTP " + r.status);
      renderPending((await r.json()).items);
    } catch (e) {
      document.getElementById("desk-pending-none").hidden = false;
      document.getElementById("desk-pending-none").textContent = "cannot read the pending commands (" + e.message + ")";
    }
  }

  async function refreshDesk() {
    refreshPending();
    try {
      const r = await fetch("/api/parked?limit=1000");
      if (!r.ok) throw new Error("HTTP " + r.status);
      render(await r.json());
    } catch (e) {
      document.getElementById("desk-total").textContent = "cannot read the parked commands (" + e.message + ")";
    }
  }

  function init() {
    document.getElementById("desk-requeue").addEventListener("click", () => bySelection("requeue"));
    document.getElementById("desk-reject").addEventListener("click", () => bySelection("reject"));
    document.getElementById("desk-pending-device").addEventListener("change", refreshPending);
    document.getElementById("desk-forget").addEventListener("click", () => {
      sessionStorage.removeItem(TOKEN_KEY); showTokenState(); say("token forgotten");
    });
    document.getElementById("desk-token-form").addEventListener("submit", e => {
      e.preventDefault();
      const input = document.getElementById("desk-token");
      if (input.value === "") return;
      sessionStorage.setItem(TOKEN_KEY, input.value);
      input.value = "";
      showTokenState();
      const action = pending;
      pending = null;
      if (action) run(action);
    });
    showTokenState();
    refreshDesk();
    setInterval(() => { if (!busy) refreshDesk(); }, 5000);
  }

  init();
})();
