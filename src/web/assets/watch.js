// `/watch/NAME`: the player's frames, as the player sees them, in a terminal-sized
// screen that scrolls like theirs.
"use strict";
(function () {
  const screen = document.getElementById("screen");
  const status = document.getElementById("status");
  const LINES = 60;
  // The screens before the latest, then the latest (`#current`): the box keeps a
  // fixed height and scrolls to the latest, so the board the player sees now stays
  // in view however long the game.
  const earlier = document.createTextNode("");
  const current = document.createElement("span");
  current.id = "current";
  screen.replaceChildren(earlier, current);
  let text = "";

  function show(frame) {
    // The player's own typing ends the prompt's line on their screen; frames do not
    // carry it, so a frame after a prompt starts on a line of its own.
    text += current.textContent;
    if (text !== "" && !text.endsWith("\n")) text += "\n";
    const lines = text.split("\n");
    if (lines.length > LINES) text = lines.slice(lines.length - LINES).join("\n");
    earlier.data = text;
    current.textContent = frame.replace(/\r/g, "");
    keepInView(screen, current);
  }

  // The latest screen at the bottom of the box; its top, if it is taller than the box.
  function keepInView(box, latest) {
    box.scrollTop = latest.offsetHeight > box.clientHeight ? latest.offsetTop : box.scrollHeight;
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
