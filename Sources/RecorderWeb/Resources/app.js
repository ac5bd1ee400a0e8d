"use strict";
const csrf = (document.querySelector('meta[name="csrf-token"]') || {}).content || "";
const wsURL = (path) => (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
async function post(path) {
  const r = await fetch(path, { method: "POST", headers: { "X-CSRF-Token": csrf }, credentials: "same-origin" });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.error || ("HTTP " + r.status));
  return body;
}
document.addEventListener("click", async (e) => {
  const b = e.target.closest("button.cancel-run");
  if (!b) return;
  b.disabled = true;
  try { await post("/api/runs/" + encodeURIComponent(b.dataset.run) + "/cancel"); location.reload(); }
  catch (err) { b.textContent = "Cannot cancel: " + err.message; }
});

// Devices: a live plot per device, the last 10 s, a panel per sensor type.
const colors = ["#d1495b", "#2e86ab", "#3b9c4a", "#8e6bbf"];
function livePlot(canvas) {
  const section = canvas.closest("section");
  const statusLine = section.querySelector('[data-role="live-status"]');
  const stateBadge = section.querySelector('[data-role="state"]');
  const errorLine = section.querySelector('[data-role="error"]');
  const order = (canvas.dataset.types || "").split(",").filter(Boolean);
  const toggles = [...section.querySelectorAll('[data-role="types"] button')];
  let series = new Map();
  let markers = [];
  let socket = null, switching = false;
  let latest = -Infinity, drawn = 0, pending = false, received = 0;
  function draw() {
    pending = false;
    const ctx = canvas.getContext("2d");
    const types = order.filter((t) => series.has(t)).concat([...series.keys()].filter((t) => !order.includes(t)));
    const panelHeight = 90;
    if (canvas.height !== Math.max(1, types.length) * panelHeight) canvas.height = Math.max(1, types.length) * panelHeight;
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const t1 = latest, t0 = latest - 10;
    const x = (t) => ((t - t0) / 10) * canvas.width;
    let points = 0;
    types.forEach((type, i) => {
      const rows = series.get(type).filter((r) => r[0] >= t0);
      series.set(type, rows);
      const top = i * panelHeight + 14, h = panelHeight - 20;
      let lo = Infinity, hi = -Infinity;
      for (const r of rows) for (let k = 1; k < r.length; k++) if (r[k] !== null) { lo = Math.min(lo, r[k]); hi = Math.max(hi, r[k]); }
      if (!(hi > lo)) { lo -= 1; hi += 1; }
      const y = (v) => top + h - ((v - lo) / (hi - lo)) * h;
      ctx.fillStyle = "#5b6775"; ctx.font = "12px system-ui, sans-serif";
      ctx.fillText(type + "  " + lo.toPrecision(3) + " … " + hi.toPrecision(3), 4, top - 2);
      const axes = rows.length ? rows[0].length - 1 : 0;
      for (let k = 1; k <= axes; k++) {
        ctx.strokeStyle = colors[(k - 1) % colors.length]; ctx.lineWidth = 1.2; ctx.beginPath();
        let started = false;
        for (const r of rows) { if (r[k] === null) continue; const px = x(r[0]), py = y(r[k]); if (started) ctx.lineTo(px, py); else { ctx.moveTo(px, py); started = true; } points++; }
        ctx.stroke();
      }
    });
    for (const m of markers) if (m.t >= t0) {
      ctx.strokeStyle = m.kind === "gap" ? "#b3261e" : "#0b6bcb"; ctx.beginPath(); ctx.moveTo(x(m.t), 0); ctx.lineTo(x(m.t), canvas.height); ctx.stroke();
    }
    drawn += points;
    canvas.dataset.drawn = String(drawn);
    canvas.dataset.series = types.join(",");
    canvas.dataset.lastT = String(t1);
    canvas.dataset.received = String(received);
  }
  function chosen() { return toggles.filter((b) => b.getAttribute("aria-pressed") === "true").map((b) => b.dataset.type); }
  for (const b of toggles) b.addEventListener("click", () => {
    b.setAttribute("aria-pressed", b.getAttribute("aria-pressed") === "true" ? "false" : "true");
    series = new Map(); markers = []; latest = -Infinity;
    if (socket) { switching = true; socket.close(); } else connect();
  });
  function connect() {
    const types = chosen();
    socket = new WebSocket(wsURL("/ws/live/" + encodeURIComponent(canvas.dataset.device) + (types.length ? "?types=" + types.join(",") : "")));
    socket.onopen = () => { statusLine.textContent = "live"; statusLine.classList.remove("error"); };
    socket.onmessage = (event) => {
      const m = JSON.parse(event.data);
      if (m.type === "data") {
        for (const p of m.points) {
          const [name, t, ...values] = p;
          if (name === "gap" || name === "step") { markers.push({ kind: name, t }); continue; }
          if (!series.has(name)) series.set(name, []);
          series.get(name).push([t, ...values]);
          received++;
          if (t > latest) latest = t;
        }
        if (!pending) { pending = true; requestAnimationFrame(draw); }
      } else if (m.type === "state") {
        stateBadge.textContent = m.state; stateBadge.className = "state state-" + m.state;
        errorLine.hidden = !m.error; errorLine.textContent = m.error || "";
      } else if (m.type === "error") {
        statusLine.textContent = m.message; statusLine.classList.add("error");
      }
    };
    socket.onclose = () => {
      socket = null;
      if (switching) { switching = false; connect(); return; }
      if (!statusLine.classList.contains("error")) statusLine.textContent = "disconnected; trying again…";
      setTimeout(() => { if (!socket) connect(); }, 3000);
    };
  }
  connect();
}
document.querySelectorAll("canvas.live").forEach(livePlot);

// A task's screens: instruction, countdown, active step, question, conclusion.
const screen = document.getElementById("task-screen");
if (screen) {
  const $ = (id) => document.getElementById(id);
  let socket = null, finished = false, total = 0;
  const show = (el, on) => { el.hidden = !on; };
  const send = (m) => socket && socket.readyState === 1 && socket.send(JSON.stringify(m));
  function outcome(html, bad) { const o = $("outcome"); o.innerHTML = html; o.className = bad ? "error" : ""; show(o, true); }
  function failed(text) { const o = $("outcome"); o.textContent = text; o.className = "error"; show(o, true); }
  function ask(q, problem) {
    const box = $("question"); box.innerHTML = ""; show(box, true);
    show($("problem"), !!problem); $("problem").textContent = problem || "";
    const answer = (text) => { send({ type: "answer", text }); box.querySelectorAll("button,input").forEach((el) => (el.disabled = true)); };
    const addButton = (label, text, cls) => { const b = document.createElement("button"); b.textContent = label; b.className = cls || ""; b.onclick = () => answer(text); box.appendChild(b); return b; };
    if (q.answerType === "boolean") {
      const row = document.createElement("div"); row.className = "choices"; box.appendChild(row);
      [["Yes", "yes"], ["No", "no"]].forEach(([l, t]) => { const b = document.createElement("button"); b.textContent = l; b.onclick = () => answer(t); row.appendChild(b); });
    } else if (q.answerType === "choice") {
      const row = document.createElement("div"); row.className = "choices"; box.appendChild(row);
      (q.choices || []).forEach((c, i) => { const b = document.createElement("button"); b.textContent = c.text; b.dataset.choice = String(i + 1); b.onclick = () => answer(String(i + 1)); row.appendChild(b); });
    } else {
      const input = document.createElement("input"); input.id = "answer";
      if (q.answerType === "date") input.type = "date";
      else if (q.answerType === "string") input.type = "text";
      else { input.type = "number"; input.step = q.answerType === "decimal" ? "any" : "1"; if (q.min !== undefined) input.min = q.min; if (q.max !== undefined) input.max = q.max; }
      const form = document.createElement("form");
      form.onsubmit = (e) => { e.preventDefault(); answer(input.value); };
      form.appendChild(input);
      if (q.unit) form.appendChild(document.createTextNode(" " + q.unit + " "));
      if (q.min !== undefined && q.max !== undefined) form.appendChild(document.createTextNode(" (" + q.min + " to " + q.max + ") "));
      const ok = document.createElement("button"); ok.type = "submit"; ok.textContent = "OK"; ok.className = "primary"; ok.id = "answer-ok"; form.appendChild(ok);
      box.appendChild(form); input.focus();
    }
    if (q.optional) addButton("Skip", "", "skip").id = "skip";
  }
  function handle(m) {
    switch (m.type) {
      case "started":
        total = m.steps; show($("cancel"), true);
        if (m.errors && m.errors.length) { $("notices").textContent = "Not recording: " + m.errors.join("; "); show($("notices"), true); }
        break;
      case "step":
        $("progress").textContent = "Step " + (m.index + 1) + " of " + m.count;
        $("step-title").textContent = m.title; $("step-text").textContent = m.text || "";
        show($("timer"), !!m.duration); $("timer").textContent = m.duration ? Math.ceil(m.duration) : "";
        show($("next"), false); show($("question"), false); show($("problem"), false);
        screen.dataset.step = m.identifier; screen.dataset.last = m.index + 1 === m.count ? "1" : "0";
        break;
      case "countdown": show($("timer"), true); $("timer").textContent = m.seconds; break;
      case "wait": $("next").textContent = screen.dataset.last === "1" ? "Done" : "Next"; show($("next"), true); break;
      case "ask": ask(m.question, m.problem); break;
      case "finished": for (const s of m.summaries) { const li = document.createElement("li"); li.textContent = s; $("summaries").appendChild(li); } break;
      case "final": { const li = document.createElement("li"); li.textContent = m.summary; li.className = "final"; $("summaries").appendChild(li); break; }
      case "done":
        finished = true; show($("cancel"), false); show($("next"), false); show($("timer"), false);
        screen.dataset.run = m.taskRunUUID;
        outcome('Saved (' + m.status + '). <a id="run-link" href="/runs/' + encodeURIComponent(m.taskRunUUID) + '">See the run</a>');
        break;
      case "cancelled": finished = true; show($("cancel"), false); failed(m.message); break;
      case "error": finished = true; show($("cancel"), false); failed(m.message); break;
    }
  }
  $("start").onclick = async () => {
    $("start").disabled = true; show($("outcome"), false);
    try {
      const query = new URLSearchParams();
      for (const [id, key] of [["body-height", "bodyHeight"], ["sensor-height", "sensorHeight"]]) {
        const field = $(id);
        if (field && field.value.trim() !== "") query.set(key, field.value.trim());
      }
      const q = query.toString();
      const { session } = await post("/api/tasks/" + encodeURIComponent(screen.dataset.task) + "/sessions" + (q ? "?" + q : ""));
      socket = new WebSocket(wsURL("/ws/sessions/" + session));
      socket.onmessage = (e) => handle(JSON.parse(e.data));
      socket.onclose = () => { if (!finished) outcome("The connection to recorderd was lost. The run is left as it was: cancel it from Tasks, or it ends as abandoned.", true); };
      show($("start"), false);
      if ($("participant")) $("participant").disabled = true;
    } catch (err) { $("start").disabled = false; failed("Cannot start: " + String(err.message)); }
  };
  $("next").onclick = () => { show($("next"), false); send({ type: "next" }); };
  $("cancel").onclick = () => { if (confirm("Cancel this task? The files recorded so far are kept.")) send({ type: "cancel" }); };
}
