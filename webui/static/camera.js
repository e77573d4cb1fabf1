// This device's camera: getUserMedia frames, sent as JPEG to /api/frame a few times a second.
"use strict";
(() => {
  const T = window.T, $ = (id) => document.getElementById(id);
  const fmt = (s, f) => s.replace(/\{(\w+)\}/g, (_, k) => f[k]);
  const FPS = 5;
  let stream = null, timer = null, busy = false;
  async function start() {
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment", width: { ideal: 1280 }, height: { ideal: 720 } }, audio: false });
    } catch (e) { $("camera-status").textContent = fmt(T.camera_denied, { message: e.message }); return; }
    $("preview").srcObject = stream; $("start").disabled = true; $("stop").disabled = false;
    $("camera-status").textContent = fmt(T.camera_sending, { fps: FPS });
    timer = setInterval(send, 1000 / FPS);
  }
  function send() {
    const v = $("preview"); if (busy || !v.videoWidth) return;
    const c = $("grab"); const scale = Math.min(1, 960 / v.videoWidth);
    c.width = Math.round(v.videoWidth * scale); c.height = Math.round(v.videoHeight * scale);
    c.getContext("2d").drawImage(v, 0, 0, c.width, c.height);
    busy = true;
    c.toBlob(async (blob) => {
      try {
        const r = await fetch("/api/frame", { method: "POST", headers: window.rolitHeaders({ "Content-Type": "image/jpeg" }), body: blob });
        if (!r.ok) $("camera-status").textContent = (await r.json()).error;
      } catch (e) { $("camera-status").textContent = T.connection_lost; }
      busy = false;
    }, "image/jpeg", 0.8);
  }
  function stop() {
    clearInterval(timer); if (stream) stream.getTracks().forEach((t) => t.stop());
    $("start").disabled = false; $("stop").disabled = true; $("camera-status").textContent = "";
  }
  $("start").onclick = start; $("stop").onclick = stop;
})();
