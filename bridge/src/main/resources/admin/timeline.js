"use strict";
/*
 * One command's timeline (docs/desk.md, "A command's timeline"), in the status page's section #timeline-section:
 * received, stored, each attempt and what ended it, parked or expired, final, receipt published, the device's PUBACK.
 * From GET /api/outbox/{deviceId}/{commandId} (its "timeline"); "download JSON" saves GET …/timeline, the file for a
 * support ticket. A command is shown from the form, or from a "timeline" link of the page's tables
 * (window.showTimeline). While the command is open, the timeline is read again every 5 s.
 */
(function () {
  const OPEN = new Set(["pending", "inflight", "parked"]);
  const $ = id => document.getElementById(id);
  const el = (tag, props, ...children) => {
    const e = Object.assign(document.createElement(tag), props || {});
    children.forEach(c => e.append(c));
    return e;
  };
  let shown = null;   // {deviceId, commandId}
  let timer = null;

  // a bridge whose admin.host is not loopback answers reads only with its admin.token: the page's own (status.html)
  const headers = () => {
    const t = sessionStorage.getItem("adminToken");
    return t ? {"Authorization": "Bearer " + t} : {};
  };
  const path = c => "/api/outbox/" + encodeURIComponent(c.deviceId) + "/" + encodeURIComponent(c.commandId);
  const pad = (n, w) => String(n).padStart(w || 2, "0");
  /** Local date and time to the millisecond: the entries of one command are often milliseconds apart. */
  function stamp(iso) {
    const d = new Date(iso);
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + pad(d.getHours()) + ":"
        + pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + "." + pad(d.getMilliseconds(), 3);
  }
  function after(ms) {
    if (ms < 1000) return "+" + ms + " ms";
    if (ms < 120000) return "+" + (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + " s";
    if (ms < 7200000) return "+" + Math.round(ms / 60000) + " min";
    return "+" + (ms / 3600000).toFixed(1) + " h";
  }
  const took = ms => ms === undefined ? "" : ms < 1000 ? ms + " ms" : (ms / 1000).toFixed(1) + " s";
  const http = s => s === undefined ? "" : s === 0 ? "none" : String(s);

  function say(text, bad) {
    const r = $("timeline-result");
    r.textContent = text;
    r.className = bad ? "timeline-bad" : "muted";
  }

  function render(c) {
    const start = new Date(c.receivedAt).getTime();
    $("timeline-entries").replaceChildren(...c.timeline.map(e => {
      const what = el("td", {textContent: e.what + (e.times ? " ×" + e.times : ""), className: "timeline-what"});
      const detail = e.detail + (e.lastAt ? " (last " + stamp(e.lastAt) + ")" : "");
      const tr = el("tr", {}, el("td", {textContent: stamp(e.at), className: "timeline-at"}),
          el("td", {textContent: after(new Date(e.at).getTime() - start), className: "muted timeline-after"}), what,
          el("td", {textContent: detail, className: "timeline-detail"}),
          el("td", {textContent: e.requestId || "", className: "timeline-request"}),
          el("td", {textContent: http(e.httpStatus), className: "timeline-http"}),
          el("td", {textContent: took(e.tookMs), className: "timeline-took"}));
      tr.dataset.what = e.what;
      tr.className = "timeline-" + e.what;
      return tr;
    }));
    $("timeline-table").hidden = false;
    const link = $("timeline-download");
    link.href = path(c) + "/timeline";
    link.hidden = false;
    say(c.commandId + " of " + c.deviceId + " — " + c.state + ", " + c.attempts + " attempt" + (c.attempts === 1 ? "" : "s")
        + ", " + c.timeline.length + " entries", false);
  }

  async function load() {
    if (!shown) return;
    clearTimeout(timer);
    try {
      const r = await fetch(path(shown), {headers: headers()});
      const body = await r.json().catch(() => ({}));
      if (!r.ok) throw new Error(body.message || "HTTP " + r.status);
      render(body);
      if (OPEN.has(body.state)) timer = setTimeout(load, 5000);
    } catch (e) {
      $("timeline-table").hidden = true;
      $("timeline-download").hidden = true;
      say("no timeline: " + e.message, true);
    }
  }

  /** Shows one command's timeline and scrolls to it: the page's tables call this from their "timeline" links. */
  window.showTimeline = (deviceId, commandId) => {
    $("timeline-device").value = deviceId;
    $("timeline-command").value = commandId;
    shown = {deviceId, commandId};
    say("loading…", false);
    load();
    $("timeline-section").scrollIntoView({block: "start"});
  };

  /** A link that shows a command's timeline, for a table cell. */
  window.timelineLink = (deviceId, commandId) => {
    const b = el("button", {type: "button", textContent: "timeline", className: "desk-link"});
    b.dataset.timeline = commandId;
    b.addEventListener("click", () => window.showTimeline(deviceId, commandId));
    return b;
  };

  /** Saves the JSON file with the token if the page has one (a plain link could not send it), named as the bridge names it. */
  async function download(e) {
    e.preventDefault();
    if (!shown) return;
    try {
      const r = await fetch(path(shown) + "/timeline", {headers: headers()});
      if (!r.ok) throw new Error("HTTP " + r.status);
      const name = (/filename="([^"]+)"/.exec(r.headers.get("Content-Disposition") || "") || [])[1] || "timeline.json";
      const url = URL.createObjectURL(await r.blob());
      const a = el("a", {href: url, download: name});
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (err) {
      say("download failed: " + err.message, true);
    }
  }

  $("timeline-form").addEventListener("submit", e => {
    e.preventDefault();
    const deviceId = $("timeline-device").value.trim();
    const commandId = $("timeline-command").value.trim();
    if (!deviceId || !commandId) { say("enter a device and a command id", true); return; }
    window.showTimeline(deviceId, commandId);
  });
  $("timeline-download").addEventListener("click", download);
})();
