// `/recordings/ID`: a small asciicast v2 player. Fetches the .cast file, then shows
// its outputs at their own pace (times the speed chosen, pauses longer than the
// server's replay keeps cut short), with pause, speed and restart.
"use strict";
(function () {
  const root = document.getElementById("player");
  const screen = document.getElementById("screen");
  const playButton = document.getElementById("play");
  const speedSelect = document.getElementById("speed");
  const restartButton = document.getElementById("restart");
  const position = document.getElementById("position");
  const maxPause = Number(root.dataset.maxPause || 5);
  const LINES = 60;
  // What was shown before the latest output, then the latest (`#current`): the box
  // keeps a fixed height and scrolls to the latest, so the board now stays in view.
  const earlier = document.createTextNode("");
  const current = document.createElement("span");
  current.id = "current";
  screen.replaceChildren(earlier, current);
  let events = [];
  let next = 0;
  let text = "";
  let timer = null;
  let playing = true;

  function show(output) {
    // Our casts are plain text with CRLF; drop any escape sequence all the same.
    text += current.textContent;
    const lines = text.split("\n");
    if (lines.length > LINES) text = lines.slice(lines.length - LINES).join("\n");
    earlier.data = text;
    current.textContent = output.replace(/\r/g, "").replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
    // The latest at the bottom of the box; its top, if it is taller than the box.
    screen.scrollTop = current.offsetHeight > screen.clientHeight ? current.offsetTop : screen.scrollHeight;
  }

  function label() {
    position.textContent = next + " / " + events.length;
    root.dataset.position = String(next);
    root.dataset.state = next >= events.length ? "ended" : playing ? "playing" : "paused";
  }

  function step() {
    timer = null;
    if (!playing || next >= events.length) {
      if (next >= events.length) playButton.textContent = "Play again";
      label();
      return;
    }
    show(events[next][2]);
    next += 1;
    label();
    if (next < events.length) {
      const pause = Math.min(events[next][0] - events[next - 1][0], maxPause);
      timer = setTimeout(step, (Math.max(0, pause) * 1000) / Number(speedSelect.value));
    } else {
      playButton.textContent = "Play again";
      label();
    }
  }

  function restart() {
    if (timer) clearTimeout(timer);
    text = "";
    earlier.data = "";
    current.textContent = "";
    next = 0;
    playing = true;
    playButton.textContent = "Pause";
    step();
  }

  playButton.addEventListener("click", function () {
    if (next >= events.length) { restart(); return; }
    playing = !playing;
    playButton.textContent = playing ? "Pause" : "Play";
    if (playing && !timer) step();
    if (!playing && timer) { clearTimeout(timer); timer = null; }
    label();
  });
  restartButton.addEventListener("click", restart);

  fetch(root.dataset.cast)
    .then(function (response) {
      if (!response.ok) throw new Error("the recording cannot be played (" + response.status + ")");
      return response.text();
    })
    .then(function (cast) {
      const lines = cast.split("\n").filter(function (line) { return line.trim() !== ""; });
      events = lines.slice(1).map(function (line) { return JSON.parse(line); })
        .filter(function (event) { return event[1] === "o"; });
      restart();
    })
    .catch(function (error) {
      screen.textContent = "Sorry: " + error.message;
    });
})();
