// `/watch/NAME`: the player's frames, as the player sees them, in a terminal-sized
// screen that scrolls like theirs.
"use strict";
(function () {
  const screen = document.getElementById("screen");
  const status = document.getElementById("status");
  const LINES = 60;
  let text = "";

  function show(frame) {
    // The player's own typing ends the prompt's line on their screen; frames do not
    // carry it, so a frame after a prompt starts on a line of its own.
    if (text !== "" && !text.endsWith("\n")) text += "\n";
    text += frame.replace(/\r/g, "");
    const lines = text.split("\n");
    if (lines.length > LINES) text = lines.slice(lines.length - LINES).join("\n");
    screen.textContent = text;
    screen.scrollTop = screen.scrollHeight;
  }

  const events = new EventSource(screen.dataset.events);
  events.addEventListener("frame", function (event) {
    status.textContent = "Live.";
    show(JSON.parse(event.data));
  });
  events.addEventListener("ended", function () {
    status.textContent = "The game is over (or the player is not in a game).";
    events.close();
  });
  events.onerror = function () {
    if (events.readyState === EventSource.CLOSED) {
      status.textContent = "Cannot watch: the player is gone or you are logged out.";
    } else {
      status.textContent = "Connection lost; reconnecting…";
    }
  };
  // A page left for another is kept frozen by the browser (the back-forward cache)
  // with its streams open: close them, so that the server stops sending (and, for a
  // board, the player is no longer counted as watched); coming back reloads.
  window.addEventListener("pagehide", function () { events.close(); });
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) window.location.reload();
  });
})();
