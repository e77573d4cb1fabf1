// The table view: follows the game by Server-Sent Events and sends the family's actions.
"use strict";
(() => {
  const T = window.T;
  const $ = (id) => document.getElementById(id);
  const fmt = (s, f) => s.replace(/\{(\w+)\}/g, (_, k) => (k in f ? f[k] : `{${k}}`));
  let state = null, fixMode = false, lastFlagId = null, audio = null;
  window.rolitLatency = [];        // seconds from "board settled" to "flag on this page", per flag
  window.rolitStates = 0;
  const loadedAt = Date.now() / 1000;

  // --- actions ---------------------------------------------------------------------
  async function post(url, body) {
    const r = await fetch(url, { method: "POST", headers: window.rolitHeaders({ "Content-Type": "application/json" }), body: JSON.stringify(body || {}) });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) { showError(data.error || r.statusText); throw new Error(data.error || r.statusText); }
    if (data && data.version !== undefined) render(data);
    return data;
  }
  async function loadRecord(file) {
    const r = await fetch("/api/record", { method: "POST", headers: window.rolitHeaders({ "Content-Type": "text/plain" }), body: await file.text() });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) showError(data.error || r.statusText); else render(data);
  }
  function showError(message) {
    const s = $("status");
    s.textContent = message; s.className = "status error";
    clearTimeout(showError.t);
    showError.t = setTimeout(() => state && render(state), 4000);
  }
  function confirmDialog(text) {
    return new Promise((resolve) => {
      const d = $("confirm-dialog");
      $("confirm-text").textContent = text;
      d.onclose = () => resolve(d.returnValue === "ok");
      d.returnValue = ""; d.showModal();
    });
  }

  $("hint-btn").onclick = () => { if (state && state.turn) post("/api/hint", { colour: state.turn.colour }).catch(() => {}); else post("/api/hint", {}).catch(() => {}); };
  $("undo-btn").onclick = async () => { if (await confirmDialog(T.confirm_undo)) post("/api/undo", { confirm: true }).catch(() => {}); };
  $("record-file").onchange = (e) => { const f = e.target.files[0]; e.target.value = ""; if (f) loadRecord(f).catch(() => showError(T.connection_lost)); };
  $("fix-btn").onclick = () => { fixMode = !fixMode; $("fix-btn").setAttribute("aria-pressed", fixMode); if (state) render(state); };
  $("new-btn").onclick = openNewGame;

  function onSquare(name) {
    if (!state) return;
    if (fixMode) return openFix(name);
    if (state.mode === "manual") post("/api/click", { square: name }).catch(() => {});
  }
  function openFix(name) {
    $("fix-title").textContent = fmt(T.fix_title, { square: name });
    const box = $("fix-choices"); box.replaceChildren();
    for (const c of [...state.variant.colours, "empty"]) {
      const b = document.createElement("button");
      b.value = c; b.className = "choice " + c; b.dataset.testid = "fix-" + c;
      b.textContent = c === "empty" ? "· " + T.empty : c[0].toUpperCase() === "G" && c === "grey" ? "E " + T.grey : c[0].toUpperCase() + " " + T[c];
      b.onclick = (e) => { e.preventDefault(); $("fix-dialog").close(); fixMode = false; $("fix-btn").setAttribute("aria-pressed", false); post("/api/correct", { square: name, cell: c }).catch(() => {}); };
      box.appendChild(b);
    }
    $("fix-dialog").showModal();
  }

  // --- new game dialog -----------------------------------------------------------------
  const form = $("new-form");
  function colourChoices() {
    const v = form.variant.value, p = form.players.value;
    const colours = v === "junior" ? ["red", "yellow", "green", "grey"] : ["red", "yellow", "green", "blue"];
    if (v === "quick4" || p === "2") return [colours[0], colours[2]];
    if (p === "solo") return v === "junior" ? ["red", "grey"] : ["red", "green"];
    if (p === "pairs") return colours;
    if (p === "3") return colours.slice(0, 3);
    return colours;
  }
  // Two colours each: one person plays red and green, the other yellow and blue (grey).
  function pairsOf(cs) { return [[cs[0], cs[2]], [cs[1], cs[3]]]; }
  function fillSeats() {
    const seats = $("seats"); seats.querySelectorAll(".seat").forEach((n) => n.remove());
    const cs = colourChoices();
    if (form.players.value === "pairs" && form.variant.value !== "quick4") {
      pairsOf(cs).forEach((pair, i) => {
        const row = document.createElement("div"); row.className = "seat";
        row.innerHTML = pair.map((c) => `<span class="dot ${c}">${c === "grey" ? "E" : c[0].toUpperCase()}</span>`).join("") +
          `<input name="name-pair-${i}" placeholder="${fmt(T.player_n, { n: i + 1 })}" maxlength="40" data-testid="pair-${i}">`;
        seats.appendChild(row);
      });
      form.first.innerHTML = `<option value="">${T.turn_first_ball}</option>` + cs.map((c) => `<option value="${c}">${T[c]}</option>`).join("");
      return;
    }
    for (const c of cs) {
      const row = document.createElement("div"); row.className = "seat";
      row.innerHTML = `<span class="dot ${c}">${c === "grey" ? "E" : c[0].toUpperCase()}</span>` +
        `<input name="name-${c}" placeholder="${T[c]}" maxlength="40" aria-label="${T[c]}">` +
        `<select name="computer-${c}" aria-label="computer"><option value="">person</option><option value="easy">computer: easy</option><option value="medium">computer: medium</option><option value="hard">computer: hard</option></select>`;
      seats.appendChild(row);
    }
    form.first.innerHTML = `<option value="">${T.turn_first_ball}</option>` + cs.map((c) => `<option value="${c}">${T[c]}</option>`).join("");
  }
  form.variant.onchange = fillSeats; form.players.onchange = fillSeats;
  function openNewGame() {
    if (state) { form.variant.value = state.settings.variant; form.hints.value = state.settings.hints; }
    fillSeats(); $("new-error").textContent = ""; $("new-dialog").showModal();
  }
  $("new-cancel").onclick = () => $("new-dialog").close();
  form.onsubmit = async (e) => {
    e.preventDefault();
    const body = { variant: form.variant.value, hints: form.hints.value, hint_limit: Number(form.hint_limit.value || 0),
      timer: Number(form.timer.value || 0), match: form.match.checked, names: {}, computer: {} };
    const pairs = form.players.value === "pairs" && form.variant.value !== "quick4";
    if (form.players.value === "solo") body.solo = true;
    else body.players = pairs ? 4 : Number(form.players.value);
    if (body.variant === "quick4") body.players = 2;
    if (form.first.value) body.first = form.first.value;
    if (pairs) {
      pairsOf(colourChoices()).forEach((pair, i) => {
        const n = form["name-pair-" + i].value.trim() || fmt(T.player_n, { n: i + 1 });
        for (const c of pair) body.names[c] = n;
      });
    } else for (const c of colourChoices()) {
      const n = form["name-" + c].value.trim(); if (n) body.names[c] = n;
      const k = form["computer-" + c].value; if (k) body.computer[c] = k;
    }
    try { await post("/api/new-game", body); $("new-dialog").close(); } catch (err) { $("new-error").textContent = err.message; }
  };

  // --- sound and speech ---------------------------------------------------------------
  function beep() {
    if (!$("sound-toggle").checked) return;
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      const o = audio.createOscillator(), g = audio.createGain();
      o.type = "triangle"; o.frequency.value = 660; o.connect(g); g.connect(audio.destination);
      g.gain.setValueAtTime(0.25, audio.currentTime); g.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.35);
      o.frequency.setValueAtTime(880, audio.currentTime + 0.12);
      o.start(); o.stop(audio.currentTime + 0.36);
    } catch (e) { /* no audio on this device */ }
  }
  function speak(text) {
    if (!$("speak-toggle").checked || !("speechSynthesis" in window)) return;
    speechSynthesis.cancel();
    const u = new SpeechSynthesisUtterance(text); u.lang = document.documentElement.lang || "en"; speechSynthesis.speak(u);
  }
  $("speak-toggle").checked = localStorage.getItem("rolit-speak") === "1";
  $("speak-toggle").onchange = (e) => localStorage.setItem("rolit-speak", e.target.checked ? "1" : "0");

  // --- drawing -------------------------------------------------------------------------
  function ball(colour, letter, cls) {
    return `<span class="dot ${colour} ${cls || ""}">${letter}</span>`;
  }
  const LETTER = { red: "R", yellow: "Y", green: "G", blue: "B", grey: "E" };

  function render(s) {
    state = s; window.rolitStates++;
    // Flag banner, with sound, speech and the settle-to-page latency.
    const banner = $("banner");
    if (s.flag) {
      banner.textContent = s.flag.message; banner.className = "banner flag " + s.flag.type;
      banner.dataset.type = s.flag.type;
      if (s.flag.id !== lastFlagId) {
        lastFlagId = s.flag.id; beep(); speak(s.flag.message);
        if (s.flag.settled_at && s.flag.settled_at >= loadedAt) window.rolitLatency.push(Date.now() / 1000 - s.flag.settled_at);
      }
    } else if (s.game_over) {
      banner.textContent = s.game_over.message; banner.className = "banner win"; banner.dataset.type = "game_over";
    } else {
      banner.className = "banner hidden"; banner.dataset.type = ""; banner.textContent = "";
    }
    const status = $("status");
    if (s.vision.message && s.mode === "camera") { status.textContent = s.vision.message; status.className = "status " + s.vision.status; }
    else status.className = "status hidden";
    status.dataset.status = s.vision.status;

    // Whose turn, the computer's instruction, the timer.
    const turn = $("turn");
    if (s.game_over) turn.innerHTML = `<span class="big">${T.game_over}</span>`;
    else if (!s.turn) turn.innerHTML = `<span class="big">${T.turn_first_ball}</span>`;
    else turn.innerHTML = ball(s.turn.colour, LETTER[s.turn.colour], "large") + `<span class="big">${escapeHtml(s.turn.message.replace(/\.$/, ""))}</span><span id="timer" class="timer"></span>`;
    turn.dataset.colour = s.turn ? s.turn.colour : "";
    const comp = $("computer");
    if (s.computer) { comp.className = "card computer"; comp.innerHTML = `<h2>${escapeHtml(s.computer.level)}</h2><p>${escapeHtml(s.computer.message)}</p>` +
      (s.mode === "manual" && s.computer.square ? `<button class="tool primary" id="play-computer">${T.play_it}</button>` : "");
      const pc = $("play-computer"); if (pc) pc.onclick = () => post("/api/click", { square: s.computer.square }).catch(() => {});
    } else comp.className = "card computer hidden";

    // The board.
    const hintSquares = s.hint ? s.hint.moves.map((m) => m.square) : [];
    const roll = s.pending ? s.pending.to_roll : [];
    RolitBoard.draw($("board"), s.board, { fix: s.to_fix, roll, hint: hintSquares, last: s.last_move }, onSquare);
    $("board").classList.toggle("fixing", fixMode);
    const help = [];
    if (fixMode) help.push(T.fix_mode_on);
    else if (s.mode === "manual") help.push(T.manual_help);
    if (s.pending) help.push(fmt(T.still_to_roll, { squares: s.pending.to_roll.join(", ") }));
    $("help").textContent = help.join(" ");

    // Hint panel.
    const hint = $("hint");
    if (s.hint && s.hint.moves.length) {
      hint.className = "card hint";
      const who = s.players.find((p) => p.colour === s.hint.colour);
      hint.innerHTML = `<h2>${escapeHtml(fmt(T.hint_for, { who: who ? who.name : s.hint.colour }))}</h2><ol>` +
        s.hint.moves.map((m) => `<li><b>${m.square}</b> ${escapeHtml(m.reason)}</li>`).join("") +
        `</ol><small>${s.hint.source === "engine" ? T.hint_engine : T.hint_greedy}</small>`;
    } else hint.className = "card hint hidden";
    $("hint-btn").disabled = s.settings.hints === "off" || !s.turn || !!s.game_over;

    // Scores and match.
    $("scores").innerHTML = s.players.map((p) =>
      `<li class="${s.turn && s.turn.colour === p.colour ? "to-move" : ""}" data-colour="${p.colour}">${ball(p.colour, p.letter)}` +
      `<span class="name">${escapeHtml(p.name)}${p.computer ? " (computer)" : ""}</span><span class="count">${p.balls}</span>` +
      (p.hints_left !== null && p.hints_left !== undefined ? `<small>(${p.hints_left})</small>` : "") + `</li>`).join("") +
      // A person playing two colours: their balls count together.
      (Object.keys(s.scores).length < s.players.length
        ? Object.entries(s.scores).map(([who, n]) => `<li class="total" data-testid="total"><span class="name">${escapeHtml(who)}</span><span class="count">${n}</span></li>`).join("")
        : "");
    const m = $("match");
    if (s.match && s.match.standings.length && (s.match.round > 1 || s.game_over)) {
      m.innerHTML = `<h3>${fmt(T.round, { n: s.match.round })}</h3>` + s.match.standings.map((x) => `<div>${escapeHtml(x.player)}: ${x.points} ${T.points} (${x.mini_points})</div>`).join("");
    } else m.innerHTML = "";

    // Moves (newest first), the camera, game over.
    $("moves").innerHTML = s.moves.length ? s.moves.slice().reverse().map((mv) =>
      `<li>${mv.number}. ${ball(mv.colour, mv.letter, "small")} <b>${mv.square}</b>${mv.flipped.length ? " ↻ " + mv.flipped.join(" ") : ""}</li>`).join("")
      : `<li class="empty">${T.no_moves}</li>`;
    $("camera-card").classList.toggle("hidden", s.mode === "manual");
    $("fps").textContent = s.vision.fps ? `${s.vision.fps} fps` : "";
    const over = $("over");
    if (s.game_over) {
      over.className = "over";
      over.innerHTML = `<div><h2>${escapeHtml(s.game_over.message)}</h2><button class="tool primary" id="rematch" data-testid="rematch">${T.rematch}</button></div>`;
      $("rematch").onclick = () => post("/api/rematch", {}).catch(() => {});
    } else over.className = "over hidden";
    tickTimer();
  }
  function escapeHtml(t) { return String(t).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]); }

  function tickTimer() {
    const t = $("timer");
    if (!t || !state || !state.timer || state.game_over) return;
    const left = Math.ceil(state.timer.seconds - (Date.now() / 1000 - state.timer.started));
    t.textContent = left > 0 ? fmt(T.seconds_left, { n: left }) : T.time_up;
    t.classList.toggle("up", left <= 0);
    if (left === 0 && tickTimer.beeped !== state.timer.started) { tickTimer.beeped = state.timer.started; beep(); }
  }
  setInterval(tickTimer, 500);

  // --- live connection ---------------------------------------------------------------------
  function connect() {
    const es = new EventSource("/stream/state");
    es.addEventListener("state", (e) => render(JSON.parse(e.data)));
    es.onerror = () => { const s = $("status"); s.textContent = T.connection_lost; s.className = "status camera_lost"; };
    document.body.dataset.connected = "1";
  }
  $("video").src = "/stream/video.mjpg";
  connect();
})();
