// Draws a Rolit board as SVG: balls with their letter (for colour-blind players),
// coordinates, the last move, cells to fix, rolls still to make and hinted squares.
"use strict";
const RolitBoard = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const LETTER_COLOUR = { R: "red", Y: "yellow", G: "green", B: "blue", E: "grey" };
  const FILL = { red: "#d7263d", yellow: "#f6c90e", green: "#1b9e4b", blue: "#1f6fd1", grey: "#8d8d8d" };
  const TEXT = { red: "#fff", yellow: "#222", green: "#fff", blue: "#fff", grey: "#fff" };

  function el(name, attrs, parent) {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }
  function squareName(c, r) { return String.fromCharCode(97 + c) + (r + 1); }

  // rows: board text lines ("..RY..", "?" unknown); marks: {fix:[], roll:[], hint:[], last}
  function draw(svg, rows, marks, onClick) {
    const n = rows.length;
    const cell = 60, pad = 26;
    const size = n * cell + pad * 2;
    svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
    svg.replaceChildren();
    el("rect", { x: 0, y: 0, width: size, height: size, rx: 18, class: "frame" }, svg);
    const fix = new Set(marks.fix || []), roll = new Set(marks.roll || []);
    const hint = marks.hint || [];
    for (let r = 0; r < n; r++) {
      el("text", { x: pad / 2, y: pad + r * cell + cell / 2 + 6, class: "coord" }, svg).textContent = r + 1;
      for (let c = 0; c < n; c++) {
        const name = squareName(c, r);
        const x = pad + c * cell, y = pad + r * cell;
        const g = el("g", { class: "sq", "data-square": name, tabindex: 0 }, svg);
        el("rect", { x: x + 1, y: y + 1, width: cell - 2, height: cell - 2, rx: 8, class: "cup" }, g);
        const ch = rows[r][c];
        const colour = LETTER_COLOUR[ch];
        if (colour) {
          el("circle", { cx: x + cell / 2, cy: y + cell / 2, r: cell * 0.4, fill: FILL[colour], class: "ball" }, g);
          const t = el("text", { x: x + cell / 2, y: y + cell / 2 + 9, class: "letter", fill: TEXT[colour] }, g);
          t.textContent = ch;
          g.setAttribute("data-colour", colour);
        } else if (ch === "?") {
          el("text", { x: x + cell / 2, y: y + cell / 2 + 9, class: "unknown" }, g).textContent = "?";
        }
        if (marks.last === name) el("circle", { cx: x + cell - 10, cy: y + 10, r: 5, class: "last" }, g);
        if (roll.has(name)) el("rect", { x: x + 3, y: y + 3, width: cell - 6, height: cell - 6, rx: 10, class: "roll" }, g);
        if (fix.has(name)) {
          g.classList.add("to-fix");
          el("rect", { x: x + 3, y: y + 3, width: cell - 6, height: cell - 6, rx: 10, class: "fix" }, g);
        }
        const h = hint.indexOf(name);
        if (h >= 0) {
          g.classList.add(h === 0 ? "hint-best" : "hint-other");
          el("circle", { cx: x + cell / 2, cy: y + cell / 2, r: cell * 0.42, class: h === 0 ? "hint1" : "hint2" }, g);
          el("text", { x: x + cell / 2, y: y + cell / 2 + 8, class: "hintnum" }, g).textContent = String(h + 1);
        }
        if (onClick) {
          g.addEventListener("click", () => onClick(name));
          g.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") onClick(name); });
        }
      }
    }
    for (let c = 0; c < n; c++) {
      el("text", { x: pad + c * cell + cell / 2, y: size - 7, class: "coord" }, svg).textContent = String.fromCharCode(97 + c);
    }
  }
  return { draw, FILL, LETTER_COLOUR };
})();
