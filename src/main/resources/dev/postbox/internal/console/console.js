// The Postbox console's only script (served from the jar; the Content-Security-Policy allows no
// other). An action button POSTs its data-* values to api/<action> with the action token in a
// header, which no other site can send; the token lives in this tab's sessionStorage only.
"use strict";
(function () {
  const status = document.getElementById("status");
  const token = document.getElementById("token");
  const said = sessionStorage.getItem("postbox-said");
  if (said) {
    const { text, ok } = JSON.parse(said);
    sessionStorage.removeItem("postbox-said");
    say(text, ok);
  }
  if (token) {
    token.value = sessionStorage.getItem("postbox-token") || "";
    token.addEventListener("input", () => sessionStorage.setItem("postbox-token", token.value));
  }

  function say(text, ok) {
    status.textContent = text;
    status.className = ok ? "ok" : "failed";
  }

  document.addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-action]");
    if (!button) {
      return;
    }
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(button.dataset)) {
      if (name !== "action" && name !== "input") {
        body.set(name, value);
      }
    }
    if (button.dataset.input) {
      body.set("name", document.getElementById(button.dataset.input).value.trim());
    }
    button.disabled = true;
    try {
      const headers = {}; // none when nothing was typed, so the console says the token is missing
      if (token && token.value) {
        headers["X-Postbox-Token"] = token.value;
      }
      const response = await fetch("api/" + button.dataset.action, {
        method: "POST",
        headers: headers,
        body: body,
        credentials: "omit",
      });
      const result = await response.json();
      const text = result.message || result.error;
      if (response.ok) { // show the page as the action left it, and what was done
        sessionStorage.setItem("postbox-said", JSON.stringify({ text: text, ok: true }));
        location.reload();
      } else {
        say(text, false);
      }
    } catch (e) {
      say("the request failed: " + e, false);
    } finally {
      button.disabled = false;
    }
  });
})();
