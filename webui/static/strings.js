// The page's words (translated on the server) and the CSRF token every action sends.
"use strict";
window.T = JSON.parse(document.getElementById("page-strings").textContent);
window.rolitHeaders = (extra) => Object.assign(
  { "X-CSRF-Token": document.querySelector('meta[name="csrf-token"]').content }, extra || {});
