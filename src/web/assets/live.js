// The live table of `/`: follows /events (Server-Sent Events) and redraws the rows
// and the races (host, standings) on each snapshot; counts the idle seconds and the
// races' running time itself between snapshots.
"use strict";
(function () {
  const root = document.getElementById("live");
  const status = document.getElementById("status");
  const body = document.querySelector("#sessions tbody");
  const racesBox = document.getElementById("races");
  const admin = root.dataset.admin === "1";
  const all = root.dataset.all === "1";
  let snapshot = null;
  let received = 0;
  let previous = new Map();

  // As `who` says it: 42s, 17m, 3h05m.
  function idle(seconds) {
    if (seconds < 60) return seconds + "s";
    if (seconds < 3600) return Math.floor(seconds / 60) + "m";
    const minutes = Math.floor((seconds % 3600) / 60);
    return Math.floor(seconds / 3600) + "h" + String(minutes).padStart(2, "0") + "m";
  }

  function cell(row, text) {
    const td = document.createElement("td");
    td.textContent = text;
    row.appendChild(td);
    return td;
  }

  function draw() {
    if (!snapshot) return;
    const elapsed = Math.floor((Date.now() - received) / 1000);
    const now = snapshot.now + elapsed;
    const seen = new Map();
    body.replaceChildren();
    for (const session of snapshot.rows) {
      const tr = document.createElement("tr");
      tr.dataset.name = session.name;
      const nameCell = cell(tr, "");
      if (admin && session.playing) {
        const link = document.createElement("a");
        link.href = "/watch/" + encodeURIComponent(session.name);
        link.textContent = session.name;
        link.title = "Watch " + session.name + "'s board";
        nameCell.appendChild(link);
      } else {
        nameCell.textContent = session.name;
      }
      // A program playing (SPEC section 12): marked as `who` marks it.
      if (session.bot) nameCell.append(" [bot]");
      cell(tr, session.place);
      cell(tr, session.game);
      cell(tr, session.level);
      cell(tr, session.progress).className = "progress";
      cell(tr, idle(Math.max(0, now - session.last_active))).className = "idle";
      cell(tr, String(session.watchers));
      const key = [session.place, session.progress, session.watchers].join("|");
      if (previous.has(session.name) && previous.get(session.name) !== key) {
        tr.className = "changed";
      }
      seen.set(session.name, key);
      body.appendChild(tr);
    }
    previous = seen;
    drawRaces(now);
    const shown = snapshot.rows.length;
    const players = snapshot.total === 1 ? "1 player online" : snapshot.total + " players online";
    if (shown < snapshot.total) {
      status.textContent = players + " (" + shown + " shown: players in games first, then the most active). ";
      const more = document.createElement("a");
      more.href = "/?all";
      more.textContent = "Show all " + snapshot.total;
      status.appendChild(more);
    } else {
      status.textContent = players + ".";
    }
  }

  // As the standings say it: 42s, 1m05s, 1h02m.
  function clock(seconds) {
    if (seconds < 60) return seconds + "s";
    if (seconds < 3600) {
      return Math.floor(seconds / 60) + "m" + String(seconds % 60).padStart(2, "0") + "s";
    }
    return Math.floor(seconds / 3600) + "h" + String(Math.floor((seconds % 3600) / 60)).padStart(2, "0") + "m";
  }

  function raceState(race, now) {
    if (race.started === null) return "waiting for " + race.host + " to start it";
    return "running for " + clock(Math.max(0, now - race.started));
  }

  // Each race: its game, its host, where it stands, and its standings.
  function drawRaces(now) {
    const races = snapshot.races || [];
    if (races.length === 0) {
      const none = document.createElement("p");
      none.className = "muted";
      none.textContent = "No races are open.";
      racesBox.replaceChildren(none);
      return;
    }
    const boxes = races.map(function (race) {
      const box = document.createElement("div");
      box.className = "race";
      box.dataset.race = String(race.id);
      const heading = document.createElement("h3");
      heading.textContent = "Race " + race.id + ": " + race.label;
      const line = document.createElement("p");
      const host = document.createElement("span");
      host.className = "host";
      host.textContent = race.host;
      const state = document.createElement("span");
      state.className = "race-state";
      state.textContent = raceState(race, now);
      const racers = race.racers === 1 ? "1 racer" : race.racers + " racers";
      line.append("Host: ", host, "; " + racers + "; ", state,
        race.elsewhere ? " (on another instance)" : "", ".");
      box.append(heading, line);
      if (race.standings.length > 0) {
        const standings = document.createElement("pre");
        standings.className = "standings";
        standings.textContent = race.standings.join("\n");
        box.appendChild(standings);
      }
      return box;
    });
    racesBox.replaceChildren.apply(racesBox, boxes);
  }

  function refreshIdle() {
    if (!snapshot) return;
    const now = snapshot.now + Math.floor((Date.now() - received) / 1000);
    const cells = body.querySelectorAll("td.idle");
    snapshot.rows.forEach(function (session, i) {
      if (cells[i]) cells[i].textContent = idle(Math.max(0, now - session.last_active));
    });
    const states = racesBox.querySelectorAll(".race-state");
    (snapshot.races || []).forEach(function (race, i) {
      if (states[i]) states[i].textContent = raceState(race, now);
    });
  }

  const events = new EventSource(all ? "/events?all" : "/events");
  events.addEventListener("sessions", function (event) {
    snapshot = JSON.parse(event.data);
    received = Date.now();
    draw();
  });
  events.onerror = function () {
    status.textContent = "Connection lost; reconnecting…";
  };
  setInterval(refreshIdle, 1000);
  // A page left for another is kept frozen by the browser (the back-forward cache)
  // with its streams open: close them, so that the server stops sending (and, for a
  // board, the player is no longer counted as watched); coming back reloads.
  window.addEventListener("pagehide", function () { events.close(); });
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) window.location.reload();
  });
})();
