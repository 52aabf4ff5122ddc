"use strict";
/*
 * The last hour at a glance, in the status page's section #activity: the backlog (open commands), and commands in
 * and finals out per second, from GET /api/activity (a sample every 10 s), with a red marker where the circuit
 * breaker to central opened. Plain SVG: no library, nothing from the network.
 */
(function () {
  const NS = "http://www.w3.org/2000/svg";
  const W = 1200, H = 96, LEFT = 44, RIGHT = 8, TOP = 8, BOTTOM = 16;
  const svg = (tag, attrs, text) => {
    const e = document.createElementNS(NS, tag);
    Object.entries(attrs || {}).forEach(([k, v]) => e.setAttribute(k, v));
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const pad = n => String(n).padStart(2, "0");
  const clock = t => pad(t.getHours()) + ":" + pad(t.getMinutes());
  const round = v => v >= 100 ? Math.round(v) : Math.round(v * 10) / 10;

  /** One chart: its series (name, class, values), on one time axis from `from` to `to`. */
  function chart(id, title, from, to, series, openings) {
    const x = t => LEFT + (t - from) / (to - from) * (W - LEFT - RIGHT);
    const max = Math.max(1, ...series.flatMap(s => s.points.map(p => p.v)));
    const y = v => TOP + (1 - v / max) * (H - TOP - BOTTOM);
    const root = svg("svg", {viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": title, id});
    root.append(svg("text", {x: LEFT + 6, y: TOP + 10, class: "act-title"}, title));
    root.append(svg("line", {x1: LEFT, y1: y(0), x2: W - RIGHT, y2: y(0), class: "act-axis"}),
        svg("line", {x1: LEFT, y1: TOP, x2: LEFT, y2: y(0), class: "act-axis"}),
        svg("text", {x: LEFT - 4, y: TOP + 8, class: "act-label", "text-anchor": "end"}, String(round(max))),
        svg("text", {x: LEFT - 4, y: y(0), class: "act-label", "text-anchor": "end"}, "0"));
    for (let m = 0; m <= 60; m += 15) {
      const t = new Date(from + m * 60000);
      root.append(svg("text", {x: x(t.getTime()), y: H - 4, class: "act-label", "text-anchor": m === 0 ? "start" : m === 60 ? "end" : "middle"},
          m === 60 ? "now" : clock(t)));
    }
    openings.forEach(t => {
      const line = svg("line", {x1: x(t), y1: TOP, x2: x(t), y2: y(0), class: "act-breaker"});
      line.dataset.breaker = new Date(t).toISOString();
      line.append(svg("title", {}, "circuit breaker opened " + new Date(t).toLocaleTimeString()));
      root.append(line);
    });
    series.forEach(s => {
      const line = svg("polyline", {class: "act-line " + s.cls, points: s.points.map(p => x(p.t).toFixed(1) + "," + y(p.v).toFixed(1)).join(" ")});
      line.dataset.series = s.name;
      line.dataset.points = s.points.length;
      root.append(line);
      const last = s.points[s.points.length - 1];
      if (last) root.append(svg("circle", {cx: x(last.t).toFixed(1), cy: y(last.v).toFixed(1), r: 2.5, class: "act-dot " + s.cls}));
    });
    return root;
  }

  function render(a) {
    const to = Date.parse(a.now), from = to - a.maxSamples * a.intervalSeconds * 1000;
    const pts = (f) => a.samples.filter(s => f(s) !== null).map(s => ({t: Date.parse(s.at), v: f(s)}));
    const openings = a.breakerOpened.map(Date.parse);
    const last = a.samples[a.samples.length - 1];
    const box = document.getElementById("activity");
    const legend = document.getElementById("activity-legend");
    legend.textContent = last ? "now: backlog " + last.open + ", in " + round(last.inPerSecond || 0) + "/s, finals out "
        + round(last.finalsPerSecond || 0) + "/s" + (openings.length ? "; breaker opened " + openings.length + "× in the hour" : "")
        : "the first sample comes within " + a.intervalSeconds + " s";
    box.replaceChildren(
        chart("activity-backlog", "backlog (open commands)", from, to, [{name: "backlog", cls: "act-backlog", points: pts(s => s.open)}], openings),
        chart("activity-rates", "commands in and finals out per second", from, to,
            [{name: "in", cls: "act-in", points: pts(s => s.inPerSecond)},
             {name: "finals", cls: "act-finals", points: pts(s => s.finalsPerSecond)}], openings));
  }

  async function refreshActivity() {
    try {
      const r = await fetch("/api/activity");
      if (!r.ok) throw new Error("HTTP " + r.status);
      render(await r.json());
    } catch (e) {
      document.getElementById("activity-legend").textContent = "cannot read the last hour (" + e.message + ")";
    }
  }

  refreshActivity();
  setInterval(refreshActivity, 5000);
})();
