// Calibration: the live frame with the found corners (drag to correct), colour calibration, a preview.
"use strict";
(() => {
  const T = window.T, $ = (id) => document.getElementById(id);
  const NS = "http://www.w3.org/2000/svg";
  let corners = null, size = null, dragging = -1, edited = false;
  async function post(url, body) {
    const r = await fetch(url, { method: "POST", headers: window.rolitHeaders({ "Content-Type": "application/json" }), body: JSON.stringify(body) });
    const d = await r.json().catch(() => ({})); $("calib-status").textContent = d.error || d.message || ""; return d;
  }
  function draw() {
    const svg = $("corners"); svg.replaceChildren();
    if (!corners || !size) return;
    svg.setAttribute("viewBox", `0 0 ${size[0]} ${size[1]}`);
    const poly = document.createElementNS(NS, "polygon");
    poly.setAttribute("points", corners.map((p) => p.join(",")).join(" ")); poly.setAttribute("class", "grid-line"); svg.appendChild(poly);
    corners.forEach((p, i) => {
      const c = document.createElementNS(NS, "circle");
      c.setAttribute("cx", p[0]); c.setAttribute("cy", p[1]); c.setAttribute("r", Math.max(size[0], size[1]) / 80); c.setAttribute("class", "handle");
      c.addEventListener("pointerdown", (e) => { dragging = i; edited = true; svg.setPointerCapture(e.pointerId); });
      svg.appendChild(c);
    });
  }
  $("corners").addEventListener("pointermove", (e) => {
    if (dragging < 0) return;
    const r = $("corners").getBoundingClientRect();
    corners[dragging] = [(e.clientX - r.left) / r.width * size[0], (e.clientY - r.top) / r.height * size[1]]; draw();
  });
  $("corners").addEventListener("pointerup", () => { dragging = -1; });
  // Where to start dragging when no board is found: a square in the middle of the picture.
  function guess() {
    if (!size) return null;
    const [w, h] = size, half = Math.min(w, h) * 0.3;
    return [[w / 2 - half, h / 2 - half], [w / 2 + half, h / 2 - half], [w / 2 + half, h / 2 + half], [w / 2 - half, h / 2 + half]];
  }
  async function refresh() {
    $("frame").src = "/stream/frame.jpg?t=" + Date.now();
    const d = await (await fetch("/api/calibration")).json();
    size = d.size;
    if (!edited) corners = d.corners || guess();
    $("corners").classList.toggle("guessed", !d.corners && !edited);
    draw();
    // No board found: the outline is only a guess to drag, and the page says so (until a board is found).
    const status = $("calib-status");
    if (!d.corners && size && !status.textContent) status.textContent = T.no_board_drag;
    else if (d.corners && status.textContent === T.no_board_drag) status.textContent = "";
    if (d.board) RolitBoard.draw($("preview"), d.board, {}, null);
    if (d.profile_error && !$("calib-status").textContent) $("calib-status").textContent = T.profile_damaged.replace("{reason}", d.profile_error);
  }
  $("save-corners").onclick = () => { if (corners) post("/api/calibration/corners", { corners }); };
  $("auto-corners").onclick = () => { edited = false; post("/api/calibration/corners", { corners: null }); };
  // An orientation chosen by hand, for when the start position's colours cannot tell it.
  $("calibrate").onclick = () => post("/api/calibration/colours", $("turn").value === "" ? {} : { turn: Number($("turn").value) });
  refresh(); setInterval(refresh, 1000);
})();
