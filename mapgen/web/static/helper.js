// The table helper: tap revealed Paths, see forced cells, the count, a heat map, the target and a hint.
//
// Contract with the API's count (POST /api/table, and /api/solve's JSON alike):
//   - "method": "d-dnnf"  the count and the heat map come from the briefing's compiled circuit: the page shows
//                          "N maps fit (exact)" and every Path's chance as an exact percentage;
//   - "compiling": {"seconds": N, "of": "briefing" or "reveals"}  the circuit for this briefing (or, from the
//                          chapter's rung, for the board as revealed) is being built: the page shows "compiling the
//                          briefing… N s" ("the board as revealed") (with what it already knows: forced cells) and asks
//                          again after POLL_MS until the answer carries no "compiling" (at most POLL_CAP times,
//                          then the page says it stopped asking and offers "Ask again"; "sampling" alike);
//   - otherwise "exact": true is an exact count; "exact": false with an "estimate" from a counter ("method" not
//     "bounds"): "about N maps fit (estimated; 95%: LO to HI)"; with only proven bounds: "more maps fit than were
//     counted in time (proven: at least N, at most M)"; "count": null (a quick answer): "counting…";
//     "heat_exact": false leaves "?" on the Paths that may hold the terrain;
//   - "heat_method": "sampler" (a quick answer's heat map estimated from the briefing's pool of sampler draws):
//                          each Path shows "~24%" with "±4" (1.96 "heat_error", in points: a 95% interval; the
//                          range it holds, "0–19%", "≤39%" or "≥61%", where it reaches past 0% or 100%), the
//                          note says "estimated", and "sampler": {"converged": false} shows "not converged";
//                          later answers of the same state whose heat map is no better (the full count's) keep it;
//   - "sampling": {"seconds": N}  a sampler run for this state goes on or waits (N: since the state was first
//                          asked, never going back): the page says "Estimating the chance… N s" and asks
//                          again (a quick answer) after POLL_MS until the estimate or an exact heat map comes;
//   - "conflict": {"rules", "cells", "message"}: no map fits; the page names the rules by title and marks the cells;
//   - until a changed board's first answer comes, the count says "working…", the target line "Fort: being worked
//     out…" and the shading note "Working out the chance of …" (no chance is shown); the forced cells that still hold
//     stay (stillHolds);
//   - the full count's 504 (its time limit ran out): the quick answer stands (forced cells, chances), the count line
//     says "too many maps fit to count them in time", and the count is not asked again; a 504 carries what was found
//     before the time ran out ("forced", "target", "heat" where known, an exact "count" when only the heat map's
//     enumeration ran out; "missing" and "timed_out" as `mapgen solve --json`'s): a quick answer's is shown as an
//     answer still counting and the full count is asked, a full count's exact count is shown;
//   - a failed request (another 5xx, or no answer at all) is shown as it is and asked again after RETRY_MS, doubling, up
//     to RETRY_CAP times; then the page says so, and the next reveal (or "Ask again") asks afresh.
// A link's "rf" (the fingerprint of the house rules its map was made under: mapgen pack's QR codes, links.py) goes
// with every question as "rules_fingerprint"; a server answering that chapter under other rules refuses it (409,
// "rules_mismatch"), and the page says so at the top, above the board, until the server serves those rules or the
// player chooses to answer under the server's rules (which drops "rf" from the link). No answer is shown meanwhile.
// Contract with POST /api/hint: "odds_method": "none" (no circuit, no almost-uniform sample in time) gives no
// percentages: the page names the Paths where the target may be (its "chance" is null), then the best guess, whose
// "method": "none" means the Path with the most possible terrains ("possible"), its "shares" empty. When the odds ran
// out of time ("missing" holds "odds", a list of keys as `mapgen hint --json`'s; "missing_text" the server's
// sentence), "may_hold" and "must_hold" (exact) name the Paths that can hold the target and those that must: said in
// the hint's text as the CLI prints it and outlined on the board.
// The hint's odds are the board's: while the board shades the chapter's target for the board as it stands, the page
// sends those chances as "odds" ({terrain, heat, heat_error, heat_exact}, the table's keys) and the hint ranks by them
// ("odds_from": "board"), said "estimated, as shaded on the board" with the Paths' own "~35% ±5", or exact; where the
// board has no chance yet ("?"), the hint names the Paths that may hold the target ("missing": ["odds"]) and waits
// with it, never odds of its own that the board would contradict.
"use strict";

const POLL_MS = 1000;
const POLL_CAP = 600;
const RETRY_MS = 1000;
const RETRY_CAP = 4;
const BOARD_WAIT_MS = 15000; // how long a hint asked before the board's answer waits for it (its odds are the board's)
const HISTORY_KEY = "mapgen.helper.history";
const HISTORY_CAP = 200;
const HISTORY_GAMES = 12;

const H = {
  rf: null, briefing: null, cells: [], undo: [], redo: [], view: null, hint: null, hinted: [], seq: 0, picking: null,
  form: null, focus: null, keys: {}, pollCap: POLL_CAP, heatChosen: false,
};
const $ = (id) => document.getElementById(id);

function readHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  if (!p.get("ch")) return null;
  return {
    briefing: {
      chapter: p.get("ch"), from: p.get("from"), peak: p.get("peak"), start: p.get("start"),
      greek_fire: p.get("gf"), fort_pattern: p.get("fp") ? MG.unpackPattern(p.get("fp")) : null, number: null,
    },
    revealed: (p.get("r") || "").split(",").filter(Boolean),
    // no "heat" in the link: the chapter's target (null here); "heat=none": no heat map, as chosen
    heat: !p.has("heat") ? null : p.get("heat") === "none" ? "" : p.get("heat"),
    rf: p.get("rf") || null,
  };
}

function hashOf(b, cells, heat) {
  const p = new URLSearchParams();
  p.set("ch", b.chapter);
  if (b.from) p.set("from", b.from);
  p.set("peak", b.peak);
  if (b.start) p.set("start", b.start);
  if (b.greek_fire) p.set("gf", b.greek_fire);
  if (b.fort_pattern) p.set("fp", MG.packPattern(b.fort_pattern));
  const names = MG.cellNames(b.chapter);
  const r = names.map((n, i) => (cells[i] === ".." ? null : n + cells[i])).filter(Boolean);
  if (r.length) p.set("r", r.join(","));
  if (heat) p.set("heat", heat);
  else if (defaultHeat(b.chapter)) p.set("heat", "none"); // chosen: the chapter's target is shaded without a word
  if (H.rf) p.set("rf", H.rf);
  return "#" + p.toString();
}

// The heat map a game starts with: the chance of the chapter's target (Fort, Flora creature, Fezron Camp,
// Maldonado: the terrain its Hills count and the hint ranks), so the odds show from the first reveal without a
// choice; Training has none. "(none)" in the list is kept as chosen ("heat=none" in the link).
function defaultHeat(chapter) {
  return MG.chapters[chapter].counted || "";
}

function writeHash() {
  const hash = hashOf(H.briefing, H.cells, $("heat").value);
  if (location.hash !== hash) history.replaceState(null, "", hash);
  saveHistory();
}

// The undo and redo stacks live in local storage, one entry per game keyed by the address it stands at (its
// briefing, reveals and heat map): a reload keeps them, and a game in another tab keeps its own. The newest
// HISTORY_GAMES games are kept; a game's entry moves with it to its new address.
function readGames() {
  try {
    const saved = JSON.parse(localStorage.getItem(HISTORY_KEY) || "[]");
    if (Array.isArray(saved)) return saved.filter((g) => g && Array.isArray(g.undo) && Array.isArray(g.redo));
    return saved && Array.isArray(saved.undo) && Array.isArray(saved.redo) ? [saved] : []; // one game, stored so before
  } catch (e) { return []; /* unreadable: start afresh */ }
}

function saveHistory() {
  const games = readGames().filter((g) => g.hash !== H.savedHash && g.hash !== location.hash);
  games.unshift({hash: location.hash, undo: H.undo.slice(-HISTORY_CAP), redo: H.redo.slice(-HISTORY_CAP)});
  H.savedHash = location.hash;
  for (const kept of [games.slice(0, HISTORY_GAMES), games.slice(0, 1)]) { // full: this game alone
    try {
      localStorage.setItem(HISTORY_KEY, JSON.stringify(kept));
      return;
    } catch (e) { /* private mode or full: the history stays in this tab only */ }
  }
}

function loadHistory() {
  const saved = readGames().find((g) => g.hash === location.hash);
  if (saved) {
    H.undo = saved.undo;
    H.redo = saved.redo;
  }
  H.savedHash = location.hash;
}

function snapshot() { return {briefing: {...H.briefing}, cells: H.cells.slice()}; }

function push() {
  H.undo.push(snapshot());
  if (H.undo.length > HISTORY_CAP) H.undo.shift();
  H.redo = [];
}

function restore(s) {
  const briefingChanged = JSON.stringify(s.briefing) !== JSON.stringify(H.briefing);
  if (briefingChanged) {
    H.form.set(s.briefing);
    setBriefing(s.briefing, [], {keepHistory: true});
  }
  H.cells = s.cells.slice();
  update();
}

function undo() {
  if (!H.undo.length) { say("Nothing to undo."); return; }
  H.redo.push(snapshot());
  restore(H.undo.pop());
  say("Undone.");
}

function redo() {
  if (!H.redo.length) { say("Nothing to redo."); return; }
  H.undo.push(snapshot());
  restore(H.redo.pop());
  say("Redone.");
}

// The rules the link's map was made under (H.rf), checked against those the server answers its chapter under
// (/api/chapters' "rules_fingerprint", or a refusal's "rules_mismatch" when the server changed since the page
// loaded): on a mismatch a message at the top that stays, and a way to answer under the server's rules instead.
function checkRules(mismatch) {
  const box = $("rules-warning");
  const ch = H.briefing.chapter;
  const info = MG.chapters[ch] || {};
  const served = mismatch ? mismatch.served : info.rules_fingerprint;
  const file = mismatch ? mismatch.rules : (info.house_rules || {}).file;
  if (!H.rf || H.rf === served) { box.hidden = true; box.replaceChildren(); return; }
  const now = file ? `the house rules of ${file} (fingerprint ${served})` : `the shipped ${ch} rules`;
  box.replaceChildren(
    `This map was made under house rules (fingerprint ${H.rf}): this server answers ${ch} under ${now}. `
      + "Start it with mapgen serve --rules FILE, FILE the house-rule file the map was made under (its [generator] "
      + "table names it), and reload. No answers are shown until then: they would follow other rules than the map's. ",
    MG.el("button", {type: "button", id: "use-served-rules", text: "Answer under this server's rules anyway",
      onclick: () => { H.rf = null; checkRules(); update(); say(`Answering under ${now}.`); }}));
  box.hidden = false;
}

function say(text) { $("said").textContent = text || ""; }

function revealedCount() { return H.cells.filter((c) => c !== "..").length; }

function setBriefing(b, revealed, options) {
  const opts = options || {};
  // another briefing: the last answer (its forced cells, its "compiling… N s" still counting) was about the old one
  if (!H.briefing || !sameBriefing(b, H.briefing)) H.view = null;
  H.briefing = b;
  const names = MG.cellNames(b.chapter);
  H.cells = names.map(() => "..");
  const dropped = [], unknown = [];
  for (const item of revealed || []) {
    const m = /^([A-Z][0-9]+)(.+)$/i.exec(item);
    const i = m ? names.indexOf(m[1].toUpperCase()) : -1;
    // the terrain in any case ("a7wa" drew "?" and "wa" though the server read Water); one the chapter has not
    // ("A7Zz") is left out and said, not sent (the server's "unknown terrain code" stopped the whole game)
    const code = m ? m[2][0].toUpperCase() + m[2].slice(1).toLowerCase() : "";
    if (i < 0) dropped.push(item);
    else if (MG.chapters[b.chapter].terrains.includes(code.slice(0, 2)) && /^(?:[A-Z][a-z]|Hi[0-9]+)$/.test(code)) {
      H.cells[i] = code;
    } else unknown.push(item);
  }
  if (!opts.keepHistory) { H.undo = []; H.redo = []; }
  H.keys = MG.terrainKeys(b.chapter);
  if (!names.includes(H.focus)) H.focus = names[0];
  const heat = $("heat");
  const keep = heat.value;
  heat.replaceChildren(MG.el("option", {value: "", text: "(none)"}));
  for (const code of MG.chapters[b.chapter].terrains) {
    heat.append(MG.el("option", {value: code, text: MG.style(b.chapter, code).label}));
  }
  // a terrain chosen and in this chapter stays; "(none)" chosen stays; else (a new game, another chapter whose
  // terrains lack the one shaded) the chapter's target
  heat.value = MG.chapters[b.chapter].terrains.includes(keep) ? keep
    : keep === "" && H.heatChosen ? "" : defaultHeat(b.chapter);
  $("briefing-summary").textContent = MG.briefingSummary(b);
  if (!opts.keepHistory) update();
  // (a link's heat map that is no terrain of its chapter, "heat=Zz": said by sayLinkProblems)
  return {dropped, unknown, heat: keep && heat.value !== keep ? keep : null};
}

// What a link held that the page could not use, said rather than dropped in silence (a link cut short or edited).
function sayLinkProblems(chapter, {dropped, unknown, heat}) {
  const problems = [];
  if (chapter) {
    problems.push(`This link's chapter "${chapter}" is not one of ${Object.keys(MG.chapters).join(", ")}: `
      + "showing fauna-1's briefing instead.");
  }
  if (dropped.length) {
    problems.push(`This link's reveal${dropped.length === 1 ? "" : "s"} ${dropped.join(", ")} name${dropped.length === 1 ? "s" : ""} `
      + "no cell of the board (like A7Wa): left out.");
  }
  if (unknown.length) {
    problems.push(`This link's reveal${unknown.length === 1 ? "" : "s"} ${unknown.join(", ")} name${unknown.length === 1 ? "s" : ""} `
      + `no terrain of ${H.briefing.chapter} (like A7Wa): left out.`);
  }
  if (heat && !chapter) {
    const shaded = $("heat").value;
    problems.push(`This link's heat map "${heat}" is no terrain of ${H.briefing.chapter}: `
      + (shaded ? `shading ${MG.style(H.briefing.chapter, shaded).label} instead.` : "no terrain is shaded."));
  }
  if (problems.length) say(problems.join(" "));
}

function sameBriefing(a, b) {
  const norm = (x) => [x.chapter, (x.peak || "").toUpperCase(), x.start || "", (x.greek_fire || "").toUpperCase(),
    (x.fort_pattern || "").trim().split(/\s+/).join(" ")].join("|");
  return norm(a) === norm(b);
}

async function applyBriefing(nb) {
  if (sameBriefing(nb, H.briefing)) {
    H.briefing = {...H.briefing, from: nb.from};
    $("setup").open = false;
    const n = revealedCount();
    say(n ? `The same briefing: your ${n} reveal${n === 1 ? " is" : "s are"} kept.` : "The same briefing: nothing to change.");
    writeHash();
    return;
  }
  const n = revealedCount();
  if (n && !(await MG.confirm(`Use this briefing? It starts a new game: your ${n} reveal${n === 1 ? "" : "s"} `
    + "go (Undo brings them back).", "Use it", "Keep playing"))) {
    H.form.set(H.briefing);
    return;
  }
  push();
  $("setup").open = false;
  if (nb.chapter !== H.briefing.chapter) H.rf = null; // a fingerprint names one chapter's rules
  setBriefing(nb, [], {keepHistory: true});
  checkRules();
  update();
  say(n ? "New briefing. Undo (Ctrl+Z) brings the last game back." : "New briefing.");
}

function mapText() { return MG.mapText(H.briefing, H.cells); }

// A sampler estimate of the chance p and its 95% interval, as shown on a Path ({main, under, said}), or null for an
// exact share (or a known 0 or 1). An interval that reaches past 0% or 100% is shown as what it holds, never as a ±
// that reads as a chance below 0 ("~0% ±39"): "≤39%" where no draw had the terrain (as render draws it and solve
// says "up to 39%"), "≥61%" where every draw had it, "0–19%" under any other estimate; within them, "±4" under it.
function estimate(v, name, p, of = "") {
  const se = v.heat_method === "sampler" && v.heat_error ? v.heat_error[name] : undefined;
  if (se === undefined || se === null || se <= 0) return null;
  const half = 1.96 * se;
  const lo = Math.max(0, Math.round(100 * (p - half))), hi = Math.min(100, Math.round(100 * (p + half)));
  if (p <= 0) return {main: `≤${hi}%`, under: "", said: `up to ${hi}% chance${of}, estimated`};
  if (p >= 1) return {main: `≥${lo}%`, under: "", said: `at least ${lo}% chance${of}, estimated`};
  if (p - half < 0 || p + half > 1) {
    return {main: `~${pctText(p)}`, under: `${lo}–${hi}%`, said: `${pctText(p)} chance${of}, estimated ${lo} to ${hi}%`};
  }
  const pm = Math.round(100 * half) < 1 ? "<1" : String(Math.round(100 * half));
  return {main: `~${pctText(p)}`, under: `±${pm}`, said: `${pctText(p)} chance${of}, estimated ±${pm}%`};
}

// The estimate's words under the board: how many draws, and "not converged" when the chains disagree.
function estimateText(v, label) {
  const s = v.sampler || {};
  const drawn = s.own ? `${s.samples} sampler draws of this state`
    : `the ${s.agreeing} of ${s.samples} sampler draws of an earlier state that fit this one`;
  return `Shading: the chance of ${label} on each Path, estimated (±: a 95% interval; where it reaches past 0% or 100%, the range it holds) from ${drawn}.`;
}

function pctText(p) {
  if (p <= 0) return "0%";
  if (p >= 1) return "100%";
  if (p < 0.005) return "<1%";
  if (p > 0.995) return ">99%";
  return `${Math.round(p * 100)}%`;
}

function draw() {
  const v = H.view || {};
  const forced = v.forced || {};
  const heat = v.heat || null;
  const hint = H.hint;
  const board = $("board");
  board.dataset.focus = H.focus || "";
  const hadFocus = board.contains(document.activeElement);
  MG.drawBoard(board, H.briefing.chapter, H.cells, (name, i, b) => {
    const code = H.cells[i];
    let label = code === ".." ? `${name}: not revealed` : `${name}: ${MG.style(H.briefing.chapter, code).label}`;
    if (code === ".." && forced[name]) {
      const s = MG.style(H.briefing.chapter, forced[name]);
      // a forced Hill's number where every completion gives it the same one (the server's hill_numbers)
      const n = (v.hill_numbers || {})[name];
      b.classList.add("forced");
      const mark = MG.el("span", {class: n === undefined ? "forced-mark" : "forced-mark numbered",
        text: `${s.symbol} ${forced[name]}${n === undefined ? "" : n}`});
      mark.style.background = s.colour;
      mark.style.color = s.ink;
      b.append(mark);
      label = `${name}: forced ${s.label}${n === undefined ? "" : ` showing ${n}`}`;
    }
    if (code === ".." && !forced[name] && heat && heat[name] !== undefined) {
      const p = heat[name];
      b.classList.add("heat");
      if (p === null) { // may hold it; the chance is not known yet
        b.classList.add("maybe");
        b.append(MG.el("span", {class: "pct", text: "?"}));
      } else {
        b.style.setProperty("--heat", (p > 0 ? 0.15 + 0.85 * p : 0).toFixed(3)); // any chance at all shows
        // the terrain named ("27% chance of Fort"): a screen reader's user hears the Paths, not the "Chance of" menu
        const of = $("heat").value ? ` of ${MG.style(H.briefing.chapter, $("heat").value).label}` : "";
        const est = estimate(v, name, p, of);
        const pct = MG.el("span", {class: "pct", text: est === null ? pctText(p) : est.main});
        if (est !== null) {
          b.classList.add("estimated");
          if (est.under) pct.append(MG.el("small", {text: est.under}));
        }
        b.append(pct);
        label += est === null ? `, ${pctText(p)} chance${of}` : `, ${est.said}`;
      }
    }
    const badge = MG.briefingBadge(H.briefing, name, b);
    if (badge) label += `, ${badge}`;
    if (hint && hint.cell === name) { b.classList.add("hinted"); label += ", the hint"; }
    if (hint && (hint.cells || []).includes(name)) { b.classList.add("cited"); label += ", cited by the hint"; }
    // the odds did not come in time: the Paths that can hold the target (exact), and those that must
    if (hint && (hint.may || []).includes(name)) { b.classList.add("may-hold"); label += `, may hold a ${hint.target}`; }
    if (hint && (hint.must || []).includes(name)) { b.classList.add("must-hold"); label += `, must hold a ${hint.target}`; }
    const conflict = v.conflict ? v.conflict.cells : [];
    if (conflict.includes(name)) { b.classList.add("conflict"); label += ", in the conflict"; }
    b.setAttribute("aria-label", label);
  }, {click: (name, i) => { H.focus = name; openPalette(name, i); }});
  if (hadFocus || H.refocus) { H.refocus = false; MG.focusCell(board, H.focus); }
}

// A conflict in the page's words: the server's message is the CLI's ("no completion: rule C6 Rock conflicts with
// the revealed cells B3 (Ro)"), which after "No map fits" would say it twice, and names the cells' terrains by
// code where the page names them ("B3 (Rock)", "G7 (Hill 0)").
function noMapFits(ch, conflict) {
  const styles = MG.chapters[ch].styles || {};
  const text = conflict.message.replace(/^no completion(?: found)?:? ?/, "")
    .replace(/\b([A-Z][0-9]+) \(([A-Z][a-z])([0-9]*)\)/g, (all, cell, code, n) => (
      styles[code] ? `${cell} (${styles[code].label}${n ? " " + n : ""})` : all));
  return text.startsWith("(") ? ["No map fits ", MG.ruleText(ch, text, conflict.rules)]
    : ["No map fits: ", MG.ruleText(ch, text, conflict.rules)];
}

function clearStatus() {
  for (const id of ["forced-line", "target", "heat-note"]) $(id).replaceChildren();
}

// The seconds of a wait ("compiling", "sampling"): the server's count when its answer came, plus the time since on
// this page, so the number keeps going up between answers (a full count can take 10 s and more to come back).
function waited(w) {
  return Math.round((w.seconds || 0) + (w.at ? (performance.now() - w.at) / 1000 : 0));
}

// While an answer says "compiling" or "sampling", its seconds go up once a second on the page.
function tick() {
  const v = H.view;
  if (v && (v.compiling || v.sampling) && document.body.classList.contains("busy")) status();
}

// Write ``text`` into element ``id`` only if it differs: the status is a live region, read aloud on each change.
function put(id, text) {
  if ($(id).textContent !== text) $(id).textContent = text;
}

// The count line is in a live region, read aloud on each change: a wait's seconds, going up once a second, are shown
// but hidden from a screen reader (it read "compiling the briefing… 1 s", "… 2 s", … for minutes, over any other word).
function putCount(text, seconds) {
  const c = $("count");
  const shown = c.querySelector(".seconds");
  if (c.firstChild && c.firstChild.nodeValue === text && Boolean(shown) === (seconds !== null)) {
    if (shown) shown.textContent = ` ${seconds} s`;
    return;
  }
  c.replaceChildren(text);
  if (seconds !== null) c.append(MG.el("span", {class: "seconds", "aria-hidden": "true", text: ` ${seconds} s`}));
}

// What a "compiling" answer waits for: the briefing (Fauna's first reveals), or from the chapter's rung (Maldonado's
// 12th reveal, Vameter's 16th, Flora's 24th) the board as revealed, which the page called "the briefing" mid-game.
function compiled(v) { return v.compiling && v.compiling.of === "reveals" ? "the board as revealed" : "the briefing"; }

function countText(v) {
  const n = v.count === null || v.count === undefined ? "?" : v.count.toLocaleString("en");
  if (v.compiling) return `compiling ${compiled(v)}…`; // and its seconds (status)
  if ((v.count === null || v.count === undefined) && v.count_timeout) return "too many maps fit to count them in time";
  if ((v.count === null || v.count === undefined) && v.gaveUp !== undefined) return "no count yet";
  if (v.count === null || v.count === undefined) return "counting…";
  if (v.unique) return "1 map fits: fully deduced (exact)";
  if (v.exact || v.method === "d-dnnf") return `${n} map${v.count === 1 ? "" : "s"} fit (exact)`;
  const e = v.estimate;
  if (e && e.method !== "bounds" && e.low !== undefined && e.high !== undefined) {
    // a counter's estimate: its value and the interval that holds with its stated confidence
    const pct = Math.round(100 * (e.confidence || 0.95));
    const [value, low, high] = [e.value, e.low, e.high].map(MG.bigCount);
    return `about ${value} maps fit (estimated; ${pct}%: ${low} to ${high})`;
  }
  // no estimate in time: the proven bounds, never a partial listing's size as if it were the count
  const hi = e && e.proven_high ? `, at most ${MG.bigCount(e.proven_high)}` : "";
  return `more maps fit than were counted in time (proven: at least ${MG.bigCount(v.count)}${hi})`;
}

// The cells the briefing fixes (the Peak's Rock) are forced for every map: named apart, so that the count
// is the hint's ("Hint 1 of N forced cells"), which never hints them.
function forcedLine(v) {
  const fixed = Object.keys(v.forced || {}).map((name) => MG.briefingTerrain(H.briefing, name)).filter(Boolean);
  const forcedCount = Object.keys(v.forced || {}).length - fixed.length;
  const also = fixed.map((f) => (f.field === "peak" ? "the Peak" : `the ${f.field}`)).join(" and ");
  const marked = forcedCount + fixed.length; // "marked on their tokens" was said of no token, and of one
  return `${forcedCount} forced cell${forcedCount === 1 ? "" : "s"}${also ? ", and " + also : ""}`
    + (marked === 0 ? "" : marked === 1 ? " (marked on its token)" : " (marked on their tokens)");
}

function status() {
  const v = H.view;
  const problem = $("problem");
  problem.hidden = true;
  problem.replaceChildren();
  if (!v) return;
  const ch = H.briefing.chapter;
  if (v.pending) { // the board changed and its answer is on its way: nothing of the last state's is said of this one
    putCount("working…", null);
    put("forced-line", v.forced ? forcedLine(v) : ""); // the forced cells that still hold stay
    const counted = MG.chapters[ch].counted; // the target the page asks of (the server's: the counted terrain)
    put("target", counted ? `${MG.style(ch, counted).label}: being worked out…` : "");
    put("heat-note", $("heat").value ? `Working out the chance of ${MG.style(ch, $("heat").value).label}…` : "");
    return;
  }
  if (v.error) {
    clearStatus();
    problem.hidden = false;
    $("count").textContent = "no answer";
    if (v.retry === undefined) { problem.textContent = v.error; return; }
    problem.append(`The server could not answer (${v.error}). `);
    if (v.retry) { problem.append("Asking again…"); return; }
    problem.append("The next reveal asks again, or ",
      MG.el("button", {type: "button", id: "ask-again", text: "Ask again", onclick: () => update()}), " now.");
    return;
  }
  if (v.conflict) {
    clearStatus();
    problem.hidden = false;
    problem.append(...noMapFits(ch, v.conflict));
    if (v.conflict.cells.length) problem.append(` (marked on the board: ${v.conflict.cells.join(", ")})`);
    $("count").textContent = "0 maps fit";
    return;
  }
  putCount(countText(v), v.compiling ? waited(v.compiling) : null);
  if (v.gaveUp !== undefined) {
    problem.hidden = false;
    problem.append(`Still no full answer after ${v.gaveUp} s, and the page stopped asking. The next reveal asks `
      + "again, or ", MG.el("button", {type: "button", id: "ask-again", text: "Ask again", onclick: () => update()}), " now.");
  }
  put("forced-line", forcedLine(v));
  const t = v.target;
  if (t) {
    const label = MG.style(ch, t.terrain).label;
    put("target", t.deduced === null
      ? `${label}: known at ${t.known.join(", ") || "no cell yet"}; the rest not worked out yet`
      : t.deduced ? `${label} deduced at ${t.cells.join(", ") || "no cell"}`
      : `${label}: known at ${t.known.join(", ") || "no cell yet"}; ${t.undecided.length} Paths may still hold one`);
  } else {
    put("target", "");
  }
  const note = $("heat-note");
  note.replaceChildren();
  if ($("heat").value) {
    const label = MG.style(ch, $("heat").value).label;
    const exactHeat = v.heat && (v.heat_exact || v.method === "d-dnnf");
    note.textContent = exactHeat ? `Shading: the chance of ${label} on each Path (exact)`
      : v.heat && v.heat_method === "sampler" ? estimateText(v, label)
      : v.sampling ? `Estimating the chance of ${label}… ${waited(v.sampling)} s`
      : v.compiling ? `The chance of ${label} follows once ${compiled(v)} is compiled.`
      : v.heat ? `Too many maps fit to give the chance of ${label} yet: "?" marks the Paths that may hold one, 0% those that cannot.`
      : v.count_mode === "quick" ? `Working out the chance of ${label}…` : `The chance of ${label} could not be worked out in time.`;
    if (!exactHeat && v.heat && v.heat_method === "sampler" && v.sampler && !v.sampler.converged) {
      const r = v.sampler.rhat === null || v.sampler.rhat === undefined ? "infinite" : v.sampler.rhat.toFixed(2);
      note.append(" ", MG.el("strong", {class: "not-converged", id: "not-converged",
        text: `Not converged: the sampler's chains disagree (R-hat ${r}), so these chances may be far off.`}));
    }
  }
}

// The last answer as far as it holds for the board as it now stands, until the answer for it comes: its chances
// were worked out for that answer's reveals and terrain alone (kept, a Wood revealed at C7 left the last state's
// chance of Wood on the rest of row C, which rule C4 makes 0%), and its forced cells hold for every further reveal
// (not after an undo, a corrected reveal or a cleared one).
function stillHolds(view) {
  if (!view || !H.viewOf) return view;
  const {cells, heat} = H.viewOf;
  const kept = cells.length === H.cells.length && cells.every((c, i) => c === ".." || c === H.cells[i]);
  if (kept && heat === $("heat").value && cells.every((c, i) => c === H.cells[i])) return view;
  // a forced Hill's number, the same in every completion, stays the same in every completion of a later state too
  return kept && !view.error && !view.conflict ? {forced: view.forced, hill_numbers: view.hill_numbers} : null;
}

async function update() {
  writeHash();
  say(""); // what was said of the last action ("New briefing.") is not said of this one
  H.hint = null;
  H.hinted = [];
  $("hint").textContent = "Hint";
  $("hint-text").hidden = true;
  // (H.viewOf stays the reveals its forced cells were worked out for); the count, the target and the chances' note
  // say they are being worked out until the answer comes, never the last state's (status)
  H.view = {...stillHolds(H.view), pending: true};
  draw();
  status();
  const asked = {cells: H.cells.slice(), heat: $("heat").value};
  const seq = ++H.seq;
  if (H.abort) H.abort.abort(); // the answer to the previous tap is no longer wanted
  H.abort = new AbortController();
  const signal = H.abort.signal;
  document.body.classList.add("busy");
  const body = {map: mapText(), time_limit: 3, count: "quick"};
  if ($("heat").value) body.heat = $("heat").value;
  if (H.rf) body.rules_fingerprint = H.rf;
  // First a quick answer (forced cells, a count of up to a few hundred maps), then the exact count; while the
  // briefing's circuit compiles ("compiling"), ask again every POLL_MS.
  const modes = ["quick", "full"];
  let polls = 0;
  let failures = 0;
  let estimate = null; // a quick answer's estimated heat map ("heat_method": "sampler") or "sampling"
  for (let k = 0; k < modes.length; k++) {
    const mode = modes[k];
    body.count = mode;
    body.time_limit = mode === "full" ? 10 : 3;
    if (k > 0) {
      await new Promise((done) => setTimeout(done, k === 1 ? 250 : POLL_MS)); // another tap may follow at once
      if (seq !== H.seq) return;
    }
    const r = await MG.api("/api/table", body, signal);
    if (seq !== H.seq) return; // a newer tap is on its way
    if (!r.ok && r.data && r.data.rules_mismatch) checkRules(r.data.rules_mismatch);
    for (const wait of ["compiling", "sampling"]) { // stamped, so that the page counts on; never going back
      const w = r.ok ? r.data[wait] : null;
      if (!w) continue;
      const shown = k > 0 && H.view && H.view[wait] ? waited(H.view[wait]) : 0;
      Object.assign(w, {seconds: Math.max(w.seconds || 0, shown), at: performance.now()});
    }
    const error = (r.data && r.data.error) || "the server could not answer";
    // a 504 that carries what was found before its time ran out (the forced cells, the target: exact; "missing"
    // names what did not come, as `mapgen solve --json`): shown as an answer without a count
    const found = !r.ok && r.status === 504 && r.data && r.data.forced ? {...r.data} : null;
    if (found) delete found.error;
    // the full count ran out of its time (a 504: too many maps to count on this machine now): the quick answer's
    // forced cells and chances stand (with the count when the 504 kept it exact), and asking again would only run
    // out again; a quick answer's 504 with what was found goes on to the full count
    const outOfTime = !r.ok && r.status === 504
      && (found !== null || (mode === "full" && H.view && !H.view.error && !H.view.conflict));
    // a server error or no answer at all may pass (a worker that died, a cache being written): ask again
    const failed = !outOfTime && !r.ok && (r.status >= 500 || r.status === 0);
    const kept = found && found.exact ? {count: found.count, exact: true, unique: found.unique, method: found.method} : {};
    let v = r.ok ? r.data : outOfTime ? (mode === "quick" ? found
      : {...(H.view && !H.view.error && !H.view.conflict ? H.view : found), ...kept, count_timeout: error})
      : (r.exit === 1 && r.data.conflict ? r.data : failed ? {error, retry: failures < RETRY_CAP} : {error});
    if (!r.ok && r.data && r.data.rules_mismatch) v = {error: "No answer: the server answers under other rules than this map's (see the message at the top)."};
    if (r.ok && mode === "quick") {
      estimate = v.heat_method === "sampler" || v.sampling ? v : null;
      if (k > 1 && H.view && !H.view.error) v = withEstimate(H.view, v); // a poll for the estimate: only its heat
    } else if (r.ok && estimate) {
      v = withEstimate(v, estimate); // the full count's heat map is no better than the estimate unless exact
    }
    H.view = v;
    H.viewOf = asked;
    draw();
    status();
    if (failed && failures < RETRY_CAP) {
      await new Promise((done) => setTimeout(done, RETRY_MS * 2 ** failures++));
      if (seq !== H.seq) return;
      modes.splice(k + 1, 0, mode);
      continue;
    }
    if (H.view.compiling && polls++ < H.pollCap) { modes.push(H.view.sampling ? "quick" : "full"); continue; }
    if (k === modes.length - 1 && H.view.sampling && polls++ < H.pollCap) { modes.push("quick"); continue; }
    const heatDone = !body.heat || (H.view.heat && (H.view.heat_exact || H.view.method === "d-dnnf"));
    if ((!r.ok && !outOfTime) || H.view.conflict || H.view.error
        || ((H.view.exact || H.view.method === "d-dnnf") && heatDone)) break;
  }
  const wait = H.view && (H.view.compiling || H.view.sampling);
  if (wait) { // the polls ran out: said, never a wait whose seconds stopped as if the page still asked
    H.view = {...H.view, gaveUp: waited(wait)};
    delete H.view.compiling;
    delete H.view.sampling;
    status();
  }
  document.body.classList.remove("busy");
}

// ``view`` with the heat map of ``est`` (an estimate, or "sampling") unless ``view``'s own heat map is exact.
function withEstimate(view, est) {
  if (view.heat && (view.heat_exact || view.method === "d-dnnf")) return view;
  const out = {...view, heat: est.heat || view.heat, heat_method: est.heat_method, heat_error: est.heat_error,
    sampler: est.sampler};
  if (est.sampling) out.sampling = est.sampling; else delete out.sampling;
  return out;
}

// Why a cell the briefing fixes shows one terrain, naming the rule (the palette's note, and the words said when
// another terrain's key is pressed there).
function fixedWords(name, fixed) {
  const ch = H.briefing.chapter;
  const what = fixed.field === "peak" ? "the Peak" : `the ${fixed.field}`;
  return [`${name} is ${what}: the briefing makes it a ${MG.style(ch, fixed.terrain).label} (`,
    MG.rule(ch, fixed.rule), "), so that is all it can show."];
}

function openPalette(name, i) {
  H.picking = i;
  const ch = H.briefing.chapter;
  $("palette-title").textContent = `Revealed at ${name}`;
  const box = $("terrains");
  box.replaceChildren();
  const fixed = MG.briefingTerrain(H.briefing, name);
  const note = $("palette-note");
  note.replaceChildren();
  note.hidden = !fixed;
  const codes = fixed ? [fixed.terrain] : MG.chapters[ch].terrains;
  if (fixed) note.append(...fixedWords(name, fixed));
  for (const code of codes) {
    const s = MG.style(ch, code);
    const key = H.keys[code];
    const b = MG.el("button", {type: "button", class: "terrain", "data-code": code, "aria-keyshortcuts": key || null},
      MG.el("span", {class: "sym", text: s.symbol, "aria-hidden": "true"}), MG.el("span", {text: s.label}),
      key ? MG.el("span", {class: "key", text: key, "aria-hidden": "true"}) : null);
    b.style.background = s.colour;
    b.style.color = s.ink;
    b.addEventListener("click", () => pick(code));
    box.append(b);
  }
  $("hill-numbers").hidden = true;
  $("palette").hidden = false;
  behindPalette(true);
  const current = box.querySelector(`button[data-code="${H.cells[i].slice(0, 2)}"]`);
  (current || box.querySelector("button")).focus();
}

function pick(code) {
  const counted = MG.chapters[H.briefing.chapter].counted;
  if (code === "Hi" && counted) {
    const box = $("hill-numbers");
    const numbers = MG.hillNumbers(H.briefing.chapter);
    const typed = numbers.filter((n) => n <= 9);
    box.replaceChildren(MG.el("p", {text: `The Hill's number (${MG.style(H.briefing.chapter, counted).label}s in its row and `
      + `column, at most ${numbers[numbers.length - 1]}; type ${typed[0]}–${typed[typed.length - 1]}):`}));
    const choices = ["no number", ...numbers];
    for (const n of choices) {
      box.append(MG.el("button", {type: "button", class: "number", "data-number": String(n), text: String(n),
        onclick: () => choose(n === "no number" ? "Hi" : "Hi" + n)}));
    }
    box.hidden = false;
    box.querySelector('button[data-number="0"]').focus();
    return;
  }
  choose(code);
}

function choose(code) {
  if (H.picking === null) return;
  if (H.cells[H.picking] !== code) {
    push();
    H.cells[H.picking] = code;
  }
  closePalette();
  update();
}

// The page behind the open palette (a modal sheet) is inert: Tab does not reach it (it went on to the header, the
// briefing and the board under the sheet; Tab now goes round the palette) and a screen reader reads the palette alone.
function behindPalette(inert) {
  for (const e of document.body.children) if (e.id !== "palette" && e.tagName !== "SCRIPT") e.inert = inert;
}

function closePalette() {
  const was = !$("palette").hidden;
  $("palette").hidden = true;
  behindPalette(false);
  H.picking = null;
  if (was) { H.refocus = true; MG.focusCell($("board"), H.focus); }
}

// The server's messages are the CLI's ("no cell is forced: you must guess"): a sentence on the page.
function capitalised(text) { return text ? text[0].toUpperCase() + text.slice(1) : text; }

// When the hint's odds did not come in time, what is exact of them, worded as `mapgen hint` prints it: "Exact (the
// odds did not come in time): of the Paths you may explore next, a Flora creature may be at B6, B7, C5" (the Paths that
// must hold it first; no full stop). Only the Paths next to explored ones are named: the board shades the rest.
function mayHold(ch, d) {
  const label = MG.style(ch, d.target).label;
  const must = d.must_hold || [];
  const may = d.may_hold || [];
  const why = d.odds_from === "board" ? "the board is still working out the chances" : "the odds did not come in time";
  return `. Exact (${why}): ` + (must.length ? `a ${label} must be at ${must.join(", ")}; ` : "")
    + (may.length ? `of the Paths you may explore next, a ${label} may be at ${may.join(", ")}`
      : `no ${must.length ? "other " : ""}Path you may explore next can hold a ${label}`);
}

// Which Paths a best guess was chosen among: those the player can explore next, else (none can) every one.
function among(guess) {
  return guess.explorable === false ? "among the unrevealed Paths" : "among the Paths you can explore next";
}

// The chances of the hint's target (the chapter's counted terrain) the board shows for the board as it stands, as
// /api/hint's "odds" (the table's "heat", "heat_error", "heat_exact"): the hint ranks by them, so its odds are the
// shaded ones, never others; null when the board shades another terrain or none, its answer is not this state's, or it
// shows "?" and has stopped asking.
function boardOdds() {
  const v = H.view;
  const target = MG.chapters[H.briefing.chapter].counted;
  if (!target || $("heat").value !== target || !v || v.pending || v.error || v.conflict || !H.viewOf) return null;
  if (H.viewOf.heat !== target || !H.viewOf.cells.every((c, i) => c === H.cells[i])) return null;
  // "?" left on a board that stopped asking (its answers ran out of time): no chance is coming to wait for
  const unknown = Object.values(v.heat || {}).some((p) => p === null);
  const working = Boolean(v.sampling || v.compiling) || document.body.classList.contains("busy");
  if (!v.heat || (unknown && !working)) return null;
  const heat = {};
  for (const [name, p] of Object.entries(v.heat || {})) heat[name] = p === undefined ? null : p;
  const exact = Boolean(v.heat && (v.heat_exact || v.method === "d-dnnf"));
  const out = {terrain: target, heat, heat_exact: exact};
  if (!exact && v.heat_method === "sampler" && v.heat_error) out.heat_error = v.heat_error;
  return out;
}

// A hint's chance of its target at a Path as the board shows it ("~35% ±5", "≤3%", "35%"), from the hint's "odds".
function oddsText(d, o) {
  if (d.odds_from !== "board") return `${o.cell} ${pctText(o.chance)}`;
  const est = d.odds_exact ? null : estimate({heat_method: "sampler", heat_error: {[o.cell]: o.error}}, o.cell, o.chance);
  if (est === null) return `${o.cell} ${pctText(o.chance)}`;
  return `${o.cell} ${est.main}${est.under ? (est.under.startsWith("±") ? " " + est.under : ` (${est.under})`) : ""}`;
}

async function hint() {
  const box = $("hint-text");
  box.hidden = false;
  box.textContent = "Looking for the easiest deduction…";
  box.scrollIntoView({block: "nearest"});
  const seq = H.seq;
  // the board shades the target but its answer for this board is on its way: the hint waits for it (at most
  // BOARD_WAIT_MS), so that it ranks by the chances the board is about to show, never by others
  const counted = MG.chapters[H.briefing.chapter].counted;
  for (let waited = 0; counted && $("heat").value === counted && H.view && H.view.pending && waited < BOARD_WAIT_MS;
    waited += 100) {
    await new Promise((done) => setTimeout(done, 100));
    if (seq !== H.seq) return;
  }
  const body = {map: mapText(), time_limit: 10, exclude: H.hinted};
  if (H.rf) body.rules_fingerprint = H.rf;
  const odds = boardOdds();
  if (odds) body.odds = odds;
  const r = await MG.api("/api/hint", body);
  if (seq !== H.seq) return;
  const ch = H.briefing.chapter;
  if (!r.ok && r.data && r.data.rules_mismatch) checkRules(r.data.rules_mismatch);
  if (!r.ok && !(r.data && r.data.conflict)) {
    box.textContent = MG.errorText(r, "press Hint to ask again, or reveal another Path.");
    return;
  }
  const d = r.data;
  box.replaceChildren();
  if (d.conflict) {
    box.append(...noMapFits(ch, d.conflict));
    box.scrollIntoView({block: "nearest"});
    return;
  }
  const ex = d.explanation || null;
  H.hint = ex ? {cell: ex.cell, cells: ex.cells, rules: ex.rules} : null;
  if (ex) {
    H.hinted.push(ex.cell);
    box.append(MG.ruleText(ch, ex.text, ex.rules));
    const cited = (ex.cells || []).length ? "; the cells it follows from are ringed in blue" : "";
    box.append(MG.el("span", {class: "note", text: `${ex.cell} is outlined in yellow${cited}.`}));
    // forced_cells counts the Peak too (solve's forced cells), which no hint names: every player knows it
    const hintable = Math.max(1, (d.forced_cells || 1) - (d.from_briefing || []).length);
    const more = hintable > H.hinted.length;
    if (more) box.append(MG.el("span", {class: "note", text: `Hint ${H.hinted.length} of ${hintable} forced cells: Next hint gives another.`}));
    $("hint").textContent = more ? "Next hint" : "Hint";
  } else {
    box.append(capitalised(d.message || ""));
    const holds = d.may_hold || d.must_hold ? mayHold(ch, d) : null;  // the odds did not come: what is exact of them
    if (holds) box.append(holds + (d.guess ? "" : "."));  // a guess that came follows: ". Best guess: …"
    if (d.best && d.best.length && d.odds_method === "none") {
      // no fair odds in time (no circuit, no almost-uniform sample): where the target may be, never a number
      const label = MG.style(ch, d.target).label;
      box.append(`. No fair odds of ${label} in time; it may be at ${d.best.join(", ")}.`);
      H.hint = {cell: d.best[0], cells: []};
    }
    if (d.best && d.best.length && d.odds_method !== "none") {
      const label = MG.style(ch, d.target).label;
      const odds = (d.odds || []).filter((o) => d.best.includes(o.cell)).map((o) => oddsText(d, o));
      // the board's odds: said as the board shades them, estimated (with its ± as on the Paths) or exact
      const how = d.odds_from === "board" ? (d.odds_exact ? " (exact, as shaded on the board)"
        : " (estimated, as shaded on the board)") : d.odds_exact ? "" : " (from almost-uniform samples)";
      // among the Paths next to the explored ones, as the best guess says it: a Path farther off may be shaded higher
      box.append(`. Best odds of ${label} among the Paths you can explore next${how}: ${odds.join(", ") || d.best.join(", ")}.`);
      H.hint = {cell: d.best[0], cells: []};
    } else if (d.guess && d.guess.method === "none") {  // (after "no fair odds" above, when a target was asked)
      const can = (d.guess.possible || []).map((code) => MG.style(ch, code).label).join(", ");
      box.append(`. Best guess: reveal ${d.guess.cell}, the Path with the most possible terrains ${among(d.guess)} `
        + `(${can}; no fair odds in time): its reveal tells you the most.`);
      H.hint = {cell: d.guess.cell, cells: []};
    } else if (d.guess) {
      const shares = Object.entries(d.guess.shares).slice(0, 3)
        .map(([code, p]) => `${MG.style(ch, code).label} ${pctText(p)}`).join(", ");
      box.append(`. Best guess: reveal ${d.guess.cell}, the Path whose terrain is least certain ${among(d.guess)} `
        + `(${shares}${d.guess.exact ? "" : ", from almost-uniform samples"}): its reveal tells you the most.`);
      H.hint = {cell: d.guess.cell, cells: []};
    }
    if (holds) {  // marked on the board, beside the guess's outline when one came
      const target = MG.style(ch, d.target).label;
      H.hint = {...(H.hint || {cell: null, cells: []}), may: d.may_hold || [], must: d.must_hold || [], target};
      box.append(MG.el("span", {class: "note", text: `The Paths you may explore next that may hold a ${target} are outlined in dashed green`
        + `${(d.must_hold || []).length ? ", those that must in solid green" : ""}.`}));
    }
    if (d.missing && d.missing.length) {  // a list of keys (the CLI's); the sentence is the server's
      box.append(MG.el("span", {class: "note", text: `Missing: ${d.missing_text || d.missing.join(", ")}`
        + `${d.missing.every((k) => k === "explanation") ? "" : "; ask again"}.`}));
    }
    $("hint").textContent = "Hint";
  }
  draw();
  box.scrollIntoView({block: "nearest"});
}

// Keyboard play: arrows move over the board, a terrain's letter reveals it at the focused cell, Delete or "."
// hides it again, Enter opens the palette; Ctrl+Z undoes, Ctrl+Shift+Z or Ctrl+Y redoes.
function onKey(e) {
  if (MG.typing(e) || document.querySelector("dialog[open]")) return;
  const key = e.key.length === 1 ? e.key.toUpperCase() : e.key;
  if ((e.ctrlKey || e.metaKey) && !e.altKey) {
    if (key === "Z" && !e.shiftKey) { e.preventDefault(); undo(); return; }
    if ((key === "Z" && e.shiftKey) || key === "Y") { e.preventDefault(); redo(); return; }
    return;
  }
  if (e.altKey) return;
  const paletteOpen = !$("palette").hidden;
  if (e.key === "Escape") { closePalette(); return; }
  if (paletteOpen && !$("hill-numbers").hidden && /^[0-9]$/.test(e.key)) {
    e.preventDefault();
    const numbers = MG.hillNumbers(H.briefing.chapter);
    // a number past the chapter's most (9 on Flora) did nothing, and said nothing
    if (numbers.includes(Number(e.key))) choose("Hi" + e.key);
    else say(`A Hill shows ${numbers[0]} to ${numbers[numbers.length - 1]} here: ${e.key} is past it.`);
    return;
  }
  const onBoard = e.target.closest && e.target.closest("#board .cell");
  if (!paletteOpen && !onBoard) return;
  const code = Object.keys(H.keys).find((c) => H.keys[c] === key);
  if (code) {
    e.preventDefault();
    const names = MG.cellNames(H.briefing.chapter);
    if (!paletteOpen) H.picking = names.indexOf(H.focus);
    const fixed = MG.briefingTerrain(H.briefing, names[H.picking]);
    if (fixed && fixed.terrain !== code) {
      $("said").replaceChildren(...fixedWords(names[H.picking], fixed));
      if (!paletteOpen) H.picking = null;
      return;
    }
    if (code === "Hi" && !paletteOpen) { openPalette(H.focus, H.picking); }
    pick(code);
  } else if (/^[A-Z]$/.test(key)) { // a typo: said, never a silence that reads as a reveal on its way
    e.preventDefault();
    const ch = H.briefing.chapter;
    say(`${key} is no terrain's key: `
      + Object.entries(H.keys).map(([c, k]) => `${k} ${MG.style(ch, c).label}`).join(", ") + ".");
  } else if (!paletteOpen && (e.key === "Delete" || e.key === "Backspace" || e.key === ".")) {
    e.preventDefault();
    H.picking = MG.cellNames(H.briefing.chapter).indexOf(H.focus);
    choose("..");
  }
}

async function copyLink() {
  const ok = await MG.copy(location.href);
  say(ok ? "Link copied: it opens this game as it stands." : `Copy this link: ${location.href}`);
}

// Before the page can ask anything (the chapters, the default map): the server's silence said in the status.
function waiting(text) {
  $("problem").hidden = !text;
  $("problem").textContent = text || "";
  if (text) $("count").textContent = "no answer";
}

async function main() {
  await MG.loadChapters(waiting);
  const fromHash = readHash();
  let b, revealed = [], unknownChapter = null;
  if (fromHash && MG.chapters[fromHash.briefing.chapter]) {
    b = fromHash.briefing;
    revealed = fromHash.revealed;
    H.rf = fromHash.rf;
    const h = fromHash.heat === null ? defaultHeat(b.chapter) : fromHash.heat;
    H.heatChosen = fromHash.heat === "";
    $("heat").replaceChildren(MG.el("option", {value: h, text: h}));
    $("heat").value = h;
  } else {
    if (fromHash) unknownChapter = fromHash.briefing.chapter;
    const m = await MG.apiUntilAnswered("/api/maps/fauna-1", waiting);
    b = {chapter: "fauna", from: "fauna-1", peak: m.peak, start: m.start, greek_fire: m.greek_fire,
         fort_pattern: m.fort_pattern, number: null};
    $("setup").open = true;
  }
  H.form = MG.briefingForm($("briefing"), b, applyBriefing);
  const left = setBriefing(b, revealed, {keepHistory: true});
  checkRules();
  loadHistory();
  update();
  sayLinkProblems(unknownChapter, left); // after update(), which clears what was said
  window.addEventListener("hashchange", () => { // a shared link opened in this tab
    if (location.hash === hashOf(H.briefing, H.cells, $("heat").value)) return;
    const h = readHash();
    if (h && MG.chapters[h.briefing.chapter]) {
      push();
      H.rf = h.rf;
      H.form.set(h.briefing);
      const heat = h.heat === null ? defaultHeat(h.briefing.chapter) : h.heat;
      H.heatChosen = h.heat === "";
      $("heat").append(MG.el("option", {value: heat, text: heat})); // kept by setBriefing if a terrain
      $("heat").value = heat;
      const left = setBriefing(h.briefing, h.revealed, {keepHistory: true});
      checkRules();
      update();
      sayLinkProblems(null, left);
    } else if (h) { // said, as on a page load; the game on the board stays, and its address with it
      writeHash();
      say(`This link's chapter "${h.briefing.chapter}" is not one of ${Object.keys(MG.chapters).join(", ")}: `
        + "this game stays.");
    }
  });
  MG.rovingBoard($("board"), () => H.focus, (name) => { H.focus = name; });
  $("board").addEventListener("focusin", (e) => { const c = e.target.closest(".cell"); if (c) H.focus = c.dataset.cell; });
  $("hint").addEventListener("click", hint);
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("copy-link").addEventListener("click", copyLink);
  $("print").addEventListener("click", () => window.print());
  $("reset").addEventListener("click", async () => {
    const n = revealedCount();
    if (!n) { say("Nothing to clear: no Path is revealed."); return; }
    if (!(await MG.confirm(`Clear all ${n} reveals? Undo brings them back.`, "Clear all", "Keep them"))) return;
    push();
    H.cells = H.cells.map(() => "..");
    update();
  });
  $("unreveal").addEventListener("click", () => choose(".."));
  $("cancel").addEventListener("click", closePalette);
  $("palette").addEventListener("click", (e) => { if (e.target.id === "palette") closePalette(); });
  $("palette").addEventListener("keydown", (e) => { // Tab goes round the palette's buttons, never out of it
    if (e.key !== "Tab") return;
    const buttons = [...$("palette").querySelectorAll("button")].filter((b) => b.getClientRects().length);
    const at = buttons.indexOf(document.activeElement);
    const next = e.shiftKey ? (at <= 0 ? buttons.length - 1 : null) : (at === buttons.length - 1 || at < 0 ? 0 : null);
    if (next !== null) { e.preventDefault(); buttons[next].focus(); }
  });
  document.addEventListener("keydown", onKey);
  setInterval(tick, 1000);
  $("heat").addEventListener("change", () => { H.heatChosen = $("heat").value === ""; update(); });
  $("export").addEventListener("click", () => MG.download(`${H.briefing.chapter}-state.toml`, mapText(), "application/toml"));
}

main();
