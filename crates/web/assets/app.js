// 2048lab's page: three modes over the server's API (docs/web.md). Every
// rule of the game lives in the server; the page draws, keeps the history
// and asks.

const MOVES = ["up", "right", "down", "left"];
const KEYS = {
  ArrowUp: "up", ArrowRight: "right", ArrowDown: "down", ArrowLeft: "left",
  w: "up", d: "right", s: "down", a: "left",
};
const $ = (id) => document.getElementById(id);

// ?seed=N makes every spawn reproducible: the n-th request sends N + n.
const pageSeed = new URLSearchParams(location.search).get("seed");
let requests = 0;
function seeded(params) {
  if (pageSeed !== null) params.seed = String(BigInt(pageSeed) + BigInt(requests++));
  return params;
}

async function api(path, params = {}, body = undefined) {
  const url = `/api/${path}?${new URLSearchParams(params)}`;
  const response = await fetch(url, body === undefined ? {} : { method: "POST", body });
  if (!response.ok) throw new Error(await response.text());
  return response.json();
}

function say(text) { $("status").textContent = text; }

async function attempt(work) {
  try {
    await work();
  } catch (error) {
    say(error.message);
  }
}

// ---- the board -----------------------------------------------------------

const cells = [];
for (let cell = 0; cell < 16; cell++) {
  const div = document.createElement("div");
  div.className = "cell";
  div.dataset.cell = cell;
  $("board").append(div);
  cells.push(div);
}

const exponentOf = (char) => parseInt(char, 36);
const charOf = (exponent) => exponent.toString(36);

// Draws a board's text; with `walls`, an `f` is a table's large tile.
function draw(text, walls = false) {
  [...text].forEach((char, cell) => {
    const exponent = exponentOf(char);
    const div = cells[cell];
    div.className = "cell";
    div.textContent = "";
    if (exponent === 0) return;
    if (walls && exponent === 15) {
      div.classList.add("wall");
      div.textContent = "large";
      return;
    }
    const value = 2 ** exponent;
    div.classList.add(`t${exponent}`);
    div.classList.toggle("small", value >= 1024 && value < 16384);
    div.classList.toggle("tiny", value >= 16384);
    div.textContent = value;
  });
  $("board").dataset.board = text;
}

const largest = (text) => Math.max(...[...text].map(exponentOf));

// ---- hints ---------------------------------------------------------------

const advisor = () => $("advisor").value;

// Shows four moves' values, the best highlighted; rates as percentages.
function showValues(values, best, asRates, source, played = null) {
  $("hints").classList.remove("hidden");
  $("hint-source").textContent = source;
  for (const row of $("hint-table").rows) {
    const value = values[MOVES.indexOf(row.dataset.move)];
    row.dataset.value = value === null ? "" : String(value);
    row.cells[1].textContent = value === null ? "–"
      : asRates ? `${(100 * value).toFixed(2)}%` : value.toFixed(1);
    row.classList.toggle("best", row.dataset.move === best);
    row.classList.toggle("played", row.dataset.move === played);
  }
}

function hideValues() { $("hints").classList.add("hidden"); }

async function analyze(board) {
  return api("analyze", { board, advisor: advisor() });
}

// ---- play ----------------------------------------------------------------

const play = {
  board: "", score: 0, moves: 0, record: "", history: [],
  hints: false, editing: false, watching: false,
};

function startPlay(board) {
  Object.assign(play, { board, score: 0, moves: 0, history: [] });
  // A record's starting places: every tile, cell by cell.
  play.record = [...board].map((char, cell) => char === "0" ? "" : cell.toString(16) + char).join("");
  showPlay();
}

function showPlay() {
  draw(play.board);
  $("score").textContent = play.score;
  $("largest").textContent = 2 ** largest(play.board);
  $("moves").textContent = play.moves;
  $("board-text").value = play.board;
  say("");
  if (play.hints) attempt(refreshHints); else hideValues();
}

async function refreshHints() {
  const board = play.board;
  const advice = await analyze(board);
  if (board !== play.board || !play.hints) return;
  showValues(advice.values, advice.best, advice.rates, advice.source);
  if (advice.over) say("Game over");
}

async function newGame() { startPlay((await api("new", seeded({}))).board); }

async function move(direction) {
  const before = play.board;
  const step = await api("step", seeded({ board: before, move: direction }));
  if (play.board !== before) return;
  play.history.push({ board: before, score: play.score, moves: play.moves, record: play.record });
  play.board = step.board;
  play.score += step.reward;
  play.moves += 1;
  play.record += `#${direction[0].toUpperCase()}${step.spawn.cell.toString(16)}${charOf(Math.log2(step.spawn.tile))}`;
  showPlay();
  if (step.over) say(`Game over: ${play.score} points`);
}

function tryMove(direction) {
  attempt(async () => {
    try {
      await move(direction);
    } catch (error) {
      if (!error.message.includes("changes nothing")) throw error;
    }
  });
}

function undo() {
  const last = play.history.pop();
  if (!last) return;
  Object.assign(play, last);
  showPlay();
}

function saveGame() {
  const max = 2 ** largest(play.board);
  download(`game-${Date.now()}.txt`, "text/plain",
    `# 2048lab game record (docs/records.md)\nsource=page score=${play.score} moves=${play.moves} max=${max} ${play.record}\n`);
}

function download(name, type, text) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type }));
  link.download = name;
  link.click();
  URL.revokeObjectURL(link.href);
}

function setBoard(text) {
  attempt(async () => {
    // The server checks the board: analyze answers 400 with the reason.
    await api("analyze", { board: text, advisor: advisor() });
    startPlay(text.toLowerCase());
  });
}

function editCell(cell, change) {
  const exponents = [...play.board].map(exponentOf);
  exponents[cell] = Math.min(17, Math.max(0, exponents[cell] + change));
  startPlay(exponents.map(charOf).join(""));
}

// Watch: the advisor plays, as fast as the speed says.
async function watchStep() {
  const board = play.board;
  const advice = await analyze(board);
  if (board !== play.board) return false;
  if (advice.best === null) {
    say(`Game over: ${play.score} points`);
    return false;
  }
  $("last-source").textContent = `${advice.best} (${advice.source})`;
  await move(advice.best);
  return true;
}

function speed() {
  const value = Number($("speed").value);
  return value > 60 ? Infinity : value;
}

async function watch() {
  play.watching = !play.watching;
  $("watch").textContent = play.watching ? "Pause" : "Play";
  $("watch").classList.toggle("on", play.watching);
  while (play.watching) {
    const started = performance.now();
    let going = false;
    await attempt(async () => { going = await watchStep(); });
    if (!going) break;
    const wait = 1000 / speed() - (performance.now() - started);
    if (wait > 0) await new Promise((done) => setTimeout(done, wait));
  }
  play.watching = false;
  $("watch").textContent = "Play";
  $("watch").classList.remove("on");
}

// ---- practise ------------------------------------------------------------

const practice = {
  table: "", board: "", position: null, showRates: false, demo: false,
  moves: 0, matched: 0, lost: 0, mistakes: [],
};

function startPractice(position) {
  Object.assign(practice, { position, board: position.board, moves: 0, matched: 0, lost: 0, mistakes: [] });
  $("practise-last").textContent = "Your move.";
  showPractice();
}

function showPractice() {
  const position = practice.position;
  draw(position.board, true);
  $("practise-text").value = position.board;
  $("practise-moves").textContent = practice.moves;
  $("match-rate").textContent = practice.moves === 0 ? "–"
    : `${(100 * practice.matched / practice.moves).toFixed(1)}%`;
  $("rate-lost").textContent = `${(100 * practice.lost).toFixed(2)}%`;
  if (practice.showRates) showValues(position.rates, position.best, true, `table ${position.table}`);
  else hideValues();
  say(position.state === "won" ? "Success: the target is made."
    : position.state === "lost" ? "Failure: no move keeps the formation." : "");
  showMistakes();
}

function showMistakes() {
  const list = $("mistakes");
  list.replaceChildren(...practice.mistakes.slice(0, 10).map((mistake) => {
    const item = document.createElement("li");
    item.innerHTML = `<code></code> you ${mistake.played}, best ${mistake.best}: −${(100 * mistake.loss).toFixed(2)}%`;
    item.firstChild.textContent = mistake.board;
    item.title = "Practise this position again";
    item.onclick = () => attempt(async () =>
      startPractice(await api("practice/start", { table: mistake.table, board: mistake.board })));
    return item;
  }));
}

// Plays `direction`; a demo move (the table's best, played for you) is
// shown but not scored.
async function practiseMove(direction, demo = false) {
  const position = practice.position;
  if (position === null || position.state !== "playing") return;
  let step;
  try {
    step = await api("practice/step", seeded({ table: position.table, board: position.board, move: direction }));
  } catch (error) {
    if (error.message.includes("is not a move")) {
      say(`${direction} is not allowed: it changes nothing or leaves the formation`);
      return;
    }
    throw error;
  }
  if (position !== practice.position) return;
  const loss = Math.max(0, step.best_rate - step.rate);
  if (demo) {
    $("practise-last").textContent = `Demo: ${direction} (${(100 * step.rate).toFixed(2)}%)`;
    practice.position = step.next;
    showPractice();
    return;
  }
  practice.moves += 1;
  practice.lost += loss;
  if (loss < 1e-9) {
    practice.matched += 1;
  } else {
    practice.mistakes.push({ table: position.table, board: position.board, played: direction, best: position.best, loss });
    practice.mistakes.sort((a, b) => b.loss - a.loss);
  }
  $("practise-last").textContent = loss < 1e-9
    ? `${direction}: best move (${(100 * step.rate).toFixed(2)}%)`
    : `${direction}: ${(100 * step.rate).toFixed(2)}%, best ${position.best} ${(100 * step.best_rate).toFixed(2)}% (−${(100 * loss).toFixed(2)}%)`;
  practice.position = step.next;
  showPractice();
}

// The demo: the table's best moves, two a second, until the game ends.
async function demo() {
  practice.demo = !practice.demo;
  $("practise-demo").classList.toggle("on", practice.demo);
  while (practice.demo && practice.position?.state === "playing" && mode === "practise") {
    await attempt(() => practiseMove(practice.position.best, true));
    await new Promise((done) => setTimeout(done, 500));
  }
  practice.demo = false;
  $("practise-demo").classList.remove("on");
}

function saveMistakes() {
  const summary = {
    table: practice.position?.table, moves: practice.moves, matched: practice.matched,
    rate_lost: practice.lost, mistakes: practice.mistakes,
  };
  download(`mistakes-${Date.now()}.json`, "application/json", JSON.stringify(summary, null, 1));
}

async function openMistakes(file) {
  const saved = JSON.parse(await file.text());
  if (!Array.isArray(saved.mistakes)) throw new Error(`${file.name}: not a saved list of mistakes`);
  practice.mistakes = saved.mistakes;
  showMistakes();
  say(`${saved.mistakes.length} mistakes from ${file.name}: click one to practise it`);
}

// ---- replays -------------------------------------------------------------

const replay = { game: null, at: 0 };

function openReplay(answer, name) {
  replay.game = answer.replay;
  replay.at = 0;
  const tags = answer.replay.tags.map(([key, value]) => `${key}=${value}`).join(" ");
  $("replay-info").textContent = `${name}, game ${answer.game} (the file holds games 0 to ${answer.games - 1}): ${answer.replay.score} points ${tags}`;
  $("position").max = answer.replay.boards.length - 1;
  showReplay();
}

function showReplay() {
  const game = replay.game;
  if (game === null) return;
  const board = game.boards[replay.at];
  draw(board);
  $("position").value = replay.at;
  $("position-text").textContent = `${replay.at} of ${game.boards.length - 1}`;
  $("replay-score").textContent = game.scores[replay.at];
  const played = game.moves[replay.at] ?? null;
  $("played").textContent = played ?? "(end)";
  say("");
  const at = replay.at;
  attempt(async () => {
    const advice = await analyze(board);
    if (at === replay.at && replay.game === game) showValues(advice.values, advice.best, advice.rates, advice.source, played);
  });
}

function seek(at) {
  if (replay.game === null) return;
  replay.at = Math.max(0, Math.min(replay.game.boards.length - 1, at));
  showReplay();
}

// ---- modes, keys and controls --------------------------------------------

let mode = "play";

function switchTo(next) {
  mode = next;
  for (const button of $("tabs").children) button.classList.toggle("active", button.dataset.tab === next);
  for (const section of document.querySelectorAll(".mode")) section.classList.toggle("hidden", section.id !== next);
  if (play.watching) watch();
  if (next === "play") showPlay();
  if (next === "practise") {
    if (practice.position) showPractice(); else { draw("0".repeat(16)); hideValues(); say("Pick a table and a position."); }
  }
  if (next === "replay") {
    if (replay.game) showReplay(); else { draw("0".repeat(16)); hideValues(); say("Open a recorded game."); }
  }
}

document.addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  let handled = true;
  if (mode === "play") {
    if (KEYS[key]) tryMove(KEYS[key]);
    else if (key === "h") toggleHints();
    else if (key === "z" || key === "Backspace") undo();
    else if (key === "n") attempt(newGame);
    else if (key === " ") watch();
    else if (key === ".") attempt(watchStep);
    else if (key === "e") toggleEditing();
    else handled = false;
  } else if (mode === "practise") {
    if (KEYS[key]) attempt(() => practiseMove(KEYS[key]));
    else if (key === "h") toggleRates();
    else if (key === "b" && practice.position?.best) attempt(() => practiseMove(practice.position.best, true));
    else handled = false;
  } else {
    if (key === "ArrowLeft" || key === "a") seek(replay.at - 1);
    else if (key === "ArrowRight" || key === "d") seek(replay.at + 1);
    else if (key === "Home") seek(0);
    else if (key === "End") seek(Infinity);
    else handled = false;
  }
  if (handled) event.preventDefault();
});

// Swipes move as the arrow keys do.
let touch = null;
$("board").addEventListener("touchstart", (event) => { touch = event.touches[0]; }, { passive: true });
$("board").addEventListener("touchend", (event) => {
  if (touch === null) return;
  const end = event.changedTouches[0];
  const dx = end.clientX - touch.clientX, dy = end.clientY - touch.clientY;
  touch = null;
  if (Math.max(Math.abs(dx), Math.abs(dy)) < 30) return;
  const direction = Math.abs(dx) > Math.abs(dy) ? (dx > 0 ? "right" : "left") : (dy > 0 ? "down" : "up");
  if (mode === "play") tryMove(direction);
  else if (mode === "practise") attempt(() => practiseMove(direction));
});

$("board").addEventListener("click", (event) => {
  if (mode === "play" && play.editing && event.target.dataset.cell) editCell(Number(event.target.dataset.cell), 1);
});
$("board").addEventListener("contextmenu", (event) => {
  if (mode !== "play" || !play.editing || !event.target.dataset.cell) return;
  event.preventDefault();
  editCell(Number(event.target.dataset.cell), -1);
});

function toggleHints() {
  play.hints = !play.hints;
  $("hint").classList.toggle("on", play.hints);
  showPlay();
}

function toggleRates() {
  practice.showRates = !practice.showRates;
  $("practise-rates").classList.toggle("on", practice.showRates);
  if (practice.position) showPractice();
}

function toggleEditing() {
  play.editing = !play.editing;
  $("edit").classList.toggle("on", play.editing);
  $("board").classList.toggle("editing", play.editing);
}

function showSpeed() {
  const value = speed();
  $("speed-text").textContent = value === Infinity ? "as fast as it can" : `${value} moves/s`;
}

for (const button of $("tabs").children) button.onclick = () => switchTo(button.dataset.tab);
$("new").onclick = () => attempt(newGame);
$("undo").onclick = undo;
$("hint").onclick = toggleHints;
$("save-game").onclick = saveGame;
$("watch").onclick = watch;
$("watch-step").onclick = () => attempt(watchStep);
$("speed").oninput = showSpeed;
$("set-board").onclick = () => setBoard($("board-text").value.trim());
$("edit").onclick = toggleEditing;
$("advisor").onchange = () => { if (mode === "play") showPlay(); else if (mode === "replay") showReplay(); };
$("practise-random").onclick = () => attempt(async () =>
  startPractice(await api("practice/start", seeded({ table: $("table").value }))));
$("practise-set").onclick = () => attempt(async () =>
  startPractice(await api("practice/start", { table: $("table").value, board: $("practise-text").value.trim() })));
$("practise-rates").onclick = toggleRates;
$("practise-best").onclick = () => { if (practice.position?.best) attempt(() => practiseMove(practice.position.best, true)); };
$("practise-demo").onclick = demo;
$("save-mistakes").onclick = saveMistakes;
$("open-mistakes").onchange = (event) => attempt(() => openMistakes(event.target.files[0]));
$("open-record").onclick = () => attempt(async () => {
  const file = $("record-file").value;
  openReplay(await api("replay", { file, game: $("record-game").value || "0" }), file);
});
$("upload-record").onchange = (event) => attempt(async () => {
  const file = event.target.files[0];
  openReplay(await api("replay", { game: $("record-game").value || "0" }, await file.text()), file.name);
});
$("first").onclick = () => seek(0);
$("back").onclick = () => seek(replay.at - 1);
$("forward").onclick = () => seek(replay.at + 1);
$("last").onclick = () => seek(Infinity);
$("position").oninput = () => seek(Number($("position").value));

function fill(select, names, none) {
  select.replaceChildren(...names.map((name) => new Option(name, name)));
  if (names.length === 0) select.replaceChildren(new Option(none, ""));
}

async function start() {
  const info = await api("info");
  fill($("advisor"), info.advisors, "none");
  fill($("table"), info.tables.map((table) => table.name), "no tables: start play with --tables");
  fill($("record-file"), info.records.map((file) => file.name), "no files: start play with --records");
  showSpeed();
  await newGame();
  document.body.dataset.ready = "true";
}

attempt(start);
