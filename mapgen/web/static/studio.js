// The studio: paint a map, see broken rules live, repair, fill, generate, deduce, playtest, download.
"use strict";

const S = {briefing: null, cells: [], brush: "Wa", painting: false, violations: [], changed: new Set(),
           reveal: new Set(), seq: 0, job: null, form: null, number: null};
const $ = (id) => document.getElementById(id);

function say(text, bad) {
  const m = $("message");
  m.textContent = text || "";
  m.classList.toggle("problem", Boolean(bad));
}

function mapText() { return MG.mapText({...S.briefing, number: S.number}, S.cells); }

function setMap(m, from) {
  S.briefing = {chapter: m.chapter, from: from || null, peak: m.peak, start: m.start, greek_fire: m.greek_fire,
                fort_pattern: m.fort_pattern, number: null};
  S.number = m.number;
  S.cells = m.cells.slice();
  S.changed = new Set();
  S.reveal = new Set();
  S.form.set(S.briefing);
  brushes();
  check();
}

function brushes() {
  const ch = S.briefing.chapter;
  const box = $("brushes");
  box.replaceChildren();
  const codes = [...MG.chapters[ch].terrains, ".."];
  if (!codes.includes(S.brush)) S.brush = codes[0];
  for (const code of codes) {
    const s = code === ".." ? {label: "Erase", colour: "#d8d2c4", ink: "#222", symbol: "○"} : MG.style(ch, code);
    const b = MG.el("button", {type: "button", class: "brush" + (code === S.brush ? " on" : ""), "data-code": code,
      "aria-pressed": String(code === S.brush), title: s.label},
      MG.el("span", {class: "sym", text: s.symbol}), MG.el("span", {class: "blabel", text: s.label}));
    b.style.background = s.colour;
    b.style.color = s.ink;
    b.addEventListener("click", () => { S.brush = code; brushes(); });
    box.append(b);
  }
  $("briefing-summary").textContent = `Briefing: ${ch}${S.briefing.from ? " (" + S.briefing.from + ")" : ""}, Peak ${S.briefing.peak}`;
}

function draw() {
  const byCell = {};
  for (const v of S.violations) for (const c of v.cells) (byCell[c] = byCell[c] || []).push(v.rule);
  MG.drawBoard($("board"), S.briefing.chapter, S.cells, (name, i, b) => {
    if (byCell[name]) {
      b.classList.add("broken");
      b.append(MG.el("span", {class: "rules", text: [...new Set(byCell[name])].join(" ")}));
      b.setAttribute("aria-label", `${name}: breaks ${[...new Set(byCell[name])].join(", ")}`);
    }
    if (S.changed.has(name)) b.classList.add("changed");
    if (S.reveal.has(name)) b.classList.add("reveal");
    MG.briefingBadge(S.briefing, name, b);
  }, {
    pointerdown: (name, i, e) => { e.preventDefault(); S.painting = true; paint(i); },
    pointerenter: (name, i) => { if (S.painting) paint(i); },
  });
}

function paint(i) {
  if (S.cells[i] === S.brush) return;
  S.cells[i] = S.brush;
  S.changed.delete(MG.cellNames(S.briefing.chapter)[i]);
  S.reveal = new Set();
  draw();
  check();
}

async function check() {
  draw();
  const seq = ++S.seq;
  const blank = S.cells.filter((c) => c === "..").length;
  const list = $("violations");
  if (blank) {
    document.body.classList.remove("busy"); // an answer still on its way is for an older map: it is dropped
    S.violations = [];
    $("verdict").textContent = `${blank} blank cell${blank === 1 ? "" : "s"}: paint them or press Fill the rest`;
    $("verdict").className = "big";
    list.replaceChildren();
    draw();
    return;
  }
  document.body.classList.add("busy"); // until the newest map's verdict is shown (the board is redrawn then)
  const r = await MG.api("/api/validate", {map: mapText()});
  if (seq !== S.seq) return;
  document.body.classList.remove("busy");
  if (!r.ok) {
    S.violations = [];
    $("verdict").textContent = r.data.error;
    $("verdict").className = "big problem";
    list.replaceChildren();
    draw();
    return;
  }
  const report = r.data[0];
  S.violations = report.violations;
  $("verdict").textContent = report.valid ? "Valid: every rule holds"
    : `${report.violations.length} broken rule${report.violations.length === 1 ? "" : "s"}`;
  $("verdict").className = "big " + (report.valid ? "good" : "problem");
  list.replaceChildren(...report.violations.map((v) =>
    MG.el("li", {class: "violation", "data-rule": v.rule}, MG.el("b", {text: v.rule}), " " + v.message)));
  draw();
}

async function repair() {
  say("Repairing…");
  const r = await MG.api("/api/repair", {map: mapText(), time_limit: 10});
  if (!r.ok) { say(r.data.error, true); return; }
  const out = r.data;
  const m = (await MG.api("/api/parse", {map: out.text})).data;
  S.cells = m.cells.slice();
  S.changed = new Set(out.changes.map((c) => c.cell));
  $("changes").replaceChildren(...out.changes.map((c) =>
    MG.el("li", {}, MG.el("b", {text: c.cell}), ` ${c.from} → ${c.to}` + (c.rules.length ? ` (mends ${c.rules.join(", ")}: ${c.message})` : ""))));
  say(out.distance === 0 && !out.changes.length ? "Nothing to repair: the map keeps every rule."
    : `Repaired: ${out.distance} cell${out.distance === 1 ? "" : "s"} changed${out.optimal ? " (the fewest possible)" : ""}.`);
  check();
}

async function fill() {
  say("Filling the blank cells…");
  const body = {from: mapText(), seed: Number($("seed").value || 0), time_limit: 20};
  if ($("profile").value.trim()) body.profile = $("profile").value;
  const r = await MG.api("/api/generate", body);
  if (!r.ok) { say(r.data.error, true); markCells(r.data.cells || []); return; }
  const m = (await MG.api("/api/parse", {map: r.data[0].text})).data;
  const before = S.cells.slice();
  S.cells = m.cells.slice();
  S.changed = new Set(MG.cellNames(S.briefing.chapter).filter((n, i) => before[i] === ".."));
  $("changes").replaceChildren();
  say("Filled: your cells are kept; the new ones are outlined.");
  check();
}

function markCells(cells) {
  S.changed = new Set(cells);
  draw();
}

async function generate() {
  const b = S.form.read();
  say(`Generating a ${b.chapter} map…`);
  const body = {chapter: b.chapter, seed: Number($("seed").value || 0), time_limit: 20};
  if ($("profile").value.trim()) body.profile = $("profile").value;
  const r = await MG.api("/api/generate", body);
  if (!r.ok) { say(r.data.error, true); return; }
  const m = (await MG.api("/api/parse", {map: r.data[0].text})).data;
  $("changes").replaceChildren();
  setMap(m, null);
  say(`Generated ${b.chapter} map, seed ${r.data[0].seed}, in ${(r.data[0].seconds * 1000).toFixed(0)} ms.`);
}

async function startJob(kind) {
  if (S.job) { say("A job is running: cancel it first.", true); return; }
  const body = {map: mapText()};
  if (kind === "playtest") { body.games = Number($("games").value || 200); body.bot = $("bot").value; }
  const r = await MG.api(`/api/${kind}`, body);
  if (!r.ok) { say(r.data.error, true); return; }
  S.job = r.data.id;
  $("job").hidden = false;
  $("job-title").textContent = kind === "playtest" ? `Playtest: ${body.games} games (${body.bot})` : "Deduce: reveal set and reveal profile";
  $("job-result").replaceChildren();
  poll(kind);
}

async function poll(kind) {
  const id = S.job;
  if (!id) return;
  const r = await MG.api(`/api/jobs/${id}`);
  if (S.job !== id) return;
  const j = r.data;
  const bar = $("job-progress");
  if (j.progress.total) { bar.max = j.progress.total; bar.value = j.progress.done; } else bar.removeAttribute("value");
  $("job-title").dataset.status = j.status;
  if (j.status === "queued" || j.status === "running") { setTimeout(() => poll(kind), 400); return; }
  S.job = null;
  $("job").hidden = true;
  if (j.status !== "done") { say(`${kind}: ${j.status}${j.error ? ": " + j.error : ""}`, j.status !== "cancelled"); return; }
  showResult(kind, j);
}

function showResult(kind, j) {
  const res = j.result;
  const box = $("job-result");
  const lines = [];
  if (kind === "playtest") {
    const pct = (x) => `${(x * 100).toFixed(1)}%`;
    lines.push(`Wins ${res.wins}/${res.games} = ${pct(res.win_rate)} (95% interval ${pct(res.win_rate_ci[0])} to ${pct(res.win_rate_ci[1])})`);
    lines.push(`Mean score ${res.mean_score}; mean days ${res.mean_days}`);
    const losses = Object.entries(res.losses).map(([k, v]) => `${k.replace(/_/g, " ")} ${v}`).join(", ");
    if (losses) lines.push(`Losses: ${losses}`);
  } else {
    S.reveal = new Set(res.reveal_set);
    lines.push(`Minimal reveal set: ${res.reveal_count} cells (outlined): ${res.reveal_set.join(" ")}`);
    lines.push(`Uniqueness depends on: ${res.depends_on.join(", ") || "none"}`);
    if (res.profile && res.profile.unique_at) lines.push(`The map is unique after step ${res.profile.unique_at} of the reveal profile`);
    const g = res.grade;
    if (g) {
      lines.push(`Deduction grade: ${g.tier} (${g.guesses} guesses before every target is known, largest reason ` +
        `${g.largest_reason} rules and cells, ${Math.round(g.deduced_share * 100)}% of those steps deduced)`);
    }
    draw();
  }
  box.replaceChildren(...lines.map((t) => MG.el("p", {text: t})));
  if (j.plot) box.append(MG.el("img", {src: j.plot + "?t=" + Date.now(), alt: `${kind} chart`, class: "plot"}));
  say(`${kind} finished.`);
}

async function download(format) {
  if (format === "map") { MG.download(`${S.briefing.chapter}-map.toml`, mapText(), "application/toml"); return; }
  say(`Drawing ${format.toUpperCase()}…`);
  const r = await MG.api("/api/render", {map: mapText(), format});
  if (!r.ok) { say(r.data.error, true); return; }
  const ext = format === "sheet" ? "pdf" : format;
  MG.download(`${S.briefing.chapter}-map${format === "sheet" ? "-sheet" : ""}.${ext}`, r.data);
  say(`Downloaded the ${format === "sheet" ? "PDF sheet" : format.toUpperCase()}.`);
}

async function main() {
  await MG.loadChapters();
  const name = new URLSearchParams(location.hash.slice(1)).get("map") || "fauna-1";
  let m = (await MG.api(`/api/maps/${encodeURIComponent(name)}`));
  if (!m.ok) m = await MG.api("/api/maps/fauna-1");
  S.form = MG.briefingForm($("briefing"), {chapter: m.data.chapter, from: name}, async (b) => {
    // A new briefing: a shipped map opens as it is; a typed briefing keeps the cells if the board fits.
    if (b.from) {
      setMap((await MG.api(`/api/maps/${b.from}`)).data, b.from);
    } else {
      const same = b.chapter === S.briefing.chapter;
      S.briefing = b;
      if (!same) S.cells = MG.cellNames(b.chapter).map(() => "..");
      brushes();
      check();
    }
    $("setup").open = false;
  }, {applyText: "Open"});
  setMap(m.data, name);
  window.addEventListener("hashchange", async () => { // a link to another shipped map: /studio#map=flora-2
    const wanted = new URLSearchParams(location.hash.slice(1)).get("map");
    if (!wanted) return;
    const r = await MG.api(`/api/maps/${encodeURIComponent(wanted)}`);
    if (r.ok) setMap(r.data, wanted); else say(r.data.error, true);
  });
  document.addEventListener("pointerup", () => { S.painting = false; });
  $("board").addEventListener("pointerleave", () => { S.painting = false; });
  $("repair").addEventListener("click", repair);
  $("fill").addEventListener("click", fill);
  $("blank").addEventListener("click", () => { S.cells = S.cells.map(() => ".."); S.changed = new Set(); check(); });
  $("generate").addEventListener("click", generate);
  $("default-profile").addEventListener("click", () => {
    $("profile").value = MG.chapters[S.form.read().chapter].profile || "";
  });
  $("deduce").addEventListener("click", () => startJob("deduce"));
  $("playtest").addEventListener("click", () => startJob("playtest"));
  $("job-cancel").addEventListener("click", async () => {
    if (S.job) { const id = S.job; S.job = null; await fetch(`/api/jobs/${id}`, {method: "DELETE"}); $("job").hidden = true; say("Cancelled."); }
  });
  $("dl-map").addEventListener("click", () => download("map"));
  $("dl-png").addEventListener("click", () => download("png"));
  $("dl-svg").addEventListener("click", () => download("svg"));
  $("dl-sheet").addEventListener("click", () => download("sheet"));
  $("open").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    const r = await MG.api("/api/parse", {map: await file.text()});
    if (!r.ok) { say(r.data.error, true); return; }
    setMap(r.data, null);
    $("setup").open = false;
    say(`Opened ${file.name}.`);
  });
}

main();
