// The studio: paint a map, see broken rules live, repair, fill, generate, deduce, playtest, download.
//
// Nothing is lost: the map lives in the address (#ch=…&peak=…&c=<cells>) and in local storage, every edit
// (a paint stroke, Repair, Fill, Generate, Blank, a briefing, a file) can be undone and redone (buttons,
// Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y), what throws work away asks first, and leaving with unsaved edits warns. A map
// opened from a file (or a shipped one, or generated) keeps what the board does not show: downloaded unedited, it
// is the file as it was; edited, it keeps its name and [generator] table (marked edited) and drops its [grade].
"use strict";

const SAVE_KEY = "mapgen.studio.last";
const PROFILE_KEY = "mapgen.studio.profile"; // the profile being written in the Generate box
const SAVED_MAPS = 8; // the newest maps kept in storage, each with its undo history and the file it came from
const HISTORY_CAP = 200;
const GAMES_DEFAULT = 200, GAMES_MAX = 5000; // a playtest when the Games field is empty; the most /api/playtest takes

const S = {briefing: null, cells: [], brush: "Wa", hill: null, painting: false, violations: [], changed: new Set(),
           reveal: new Set(), seq: 0, job: null, form: null, number: null, undo: [], redo: [], dirty: false,
           focus: null, stroke: false, file: null, making: null, profileChapter: null, jobMap: null, jobKind: null};
const $ = (id) => document.getElementById(id);

function say(text, bad) {
  const m = $("message");
  m.replaceChildren();
  if (text instanceof Node) m.append(text); else m.textContent = text || "";
  m.classList.toggle("problem", Boolean(bad));
}

// What was said of the last action ("deduce finished.") goes at the next one; the offer to reopen the last
// map stays until taken.
function unsay() { if (!$("restore")) say(""); }

function mapText() { return MG.mapText({...S.briefing, number: S.number}, S.cells); }

function capital(text) { return text ? text[0].toUpperCase() + text.slice(1) : text; }

// The file the map came from (setMap): {text: as it was, base: its mapText(), tail: what follows the terrain once
// it is edited (/api/parse's edited_tail), rf: the fingerprint of the rules its [generator] table names}; null
// for a map painted here.
function fileRecord(m, text) {
  return {text: text || m.text, base: mapText(), tail: m.edited_tail || "", rf: m.rules_fingerprint || null};
}

// The map file to save: the opened file itself while the map is as it was opened, else the map with what the
// file held beside it (its name, [generator] marked edited; no [grade]: it graded the map as it was).
function fileText() {
  const text = mapText(), f = S.file;
  if (!f) return text;
  if (text === f.base) return f.text;
  return f.tail ? `${text}\n${f.tail}` : text;
}

// Undo history in storage: each snapshot names its file record by number, so the file's text is stored once.
function packHistory(list, files) {
  return list.map((s) => {
    if (!s.file) return {...s, file: null};
    let k = files.indexOf(s.file);
    if (k < 0) k = files.push(s.file) - 1;
    return {...s, file: k};
  });
}

// The file record numbered ``k`` in stored ``files`` (packHistory), null for none.
function fileAt(k, files) { return Number.isInteger(k) ? (files || [])[k] || null : null; }

function unpackHistory(list, files) {
  return (list || []).map((s) => ({...s, file: fileAt(s.file, files)}));
}

// -- the map in the address and in local storage ------------------------------------------------------

function hashOf() {
  const b = S.briefing;
  const p = new URLSearchParams();
  p.set("ch", b.chapter);
  if (b.from) p.set("from", b.from);
  if (S.number !== null && S.number !== undefined && S.number !== "") p.set("n", String(S.number));
  p.set("peak", b.peak || "");
  if (b.start) p.set("start", b.start);
  if (b.greek_fire) p.set("gf", b.greek_fire);
  if (b.fort_pattern) p.set("fp", MG.packPattern(b.fort_pattern));
  p.set("c", S.cells.join(""));
  return "#" + p.toString();
}

function readHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  if (p.get("map")) return {name: p.get("map")};
  const ch = p.get("ch");
  // a map link the page cannot open is said (it opened fauna-1 without a word, taken for the map sent)
  if (ch && !MG.chapters[ch]) {
    return {problem: `This link's chapter "${ch}" is not one of ${Object.keys(MG.chapters).join(", ")}.`};
  }
  if (!ch || p.get("c") === null) return null;
  const cells = p.get("c").match(/\.\.|[A-Z][a-z][0-9]*/g) || [];
  const size = MG.cellNames(ch).length;
  if (cells.length !== size) {
    return {problem: `This link's map has ${cells.length} cells, not the ${size} of a ${ch} board (a link cut short?).`};
  }
  const b = {chapter: ch, from: p.get("from"), peak: p.get("peak") || "", start: p.get("start"),
             greek_fire: p.get("gf"), fort_pattern: p.get("fp") ? MG.unpackPattern(p.get("fp")) : null, number: null};
  return {briefing: b, number: p.get("n") === null ? null : MG.exactWhole(p.get("n")), cells};
}

function remember() {
  const hash = hashOf();
  if (location.hash !== hash) history.replaceState(null, "", hash);
  // one entry per map, keyed by its address, moving with it as it is edited: a map in another tab keeps its own
  // (a reload kept its undo history and its file only if no other tab had saved since)
  const files = [];
  const undo = packHistory(S.undo.slice(-HISTORY_CAP), files), redo = packHistory(S.redo.slice(-HISTORY_CAP), files);
  const file = S.file ? packHistory([{file: S.file}], files)[0].file : null;
  const kept = savedMaps().filter((m) => m.hash !== S.savedHash && m.hash !== hash);
  kept.unshift({hash, saved: Date.now(), undo, redo, file, files});
  S.savedHash = hash;
  for (const list of [kept.slice(0, SAVED_MAPS), kept.slice(0, 1)]) { // full: this map alone
    try {
      localStorage.setItem(SAVE_KEY, JSON.stringify(list));
      break;
    } catch (e) { /* private mode or full: the address still keeps the map */ }
  }
  const b = S.briefing;
  const p = new URLSearchParams();
  p.set("ch", b.chapter);
  if (b.from) p.set("from", b.from);
  p.set("peak", b.peak || "");
  if (b.start) p.set("start", b.start);
  if (b.greek_fire) p.set("gf", b.greek_fire);
  if (b.fort_pattern) p.set("fp", MG.packPattern(b.fort_pattern));
  // the rules the map was made under, and the helper checks that its server answers under them: those its file's
  // [generator] table names (unless they are the shipped rules this server answers under, as mapgen's own links
  // leave them out), else a chapter served under house rules: a map made here is made under them
  const info = MG.chapters[b.chapter] || {};
  const own = S.file && S.file.rf;
  if (own && (own !== info.rules_fingerprint || info.house_rules)) p.set("rf", own);
  else if (!own && info.house_rules && info.rules_fingerprint) p.set("rf", info.rules_fingerprint);
  $("open-helper").href = "/helper#" + p.toString();
}

// -- undo and redo --------------------------------------------------------------------------------------

function snapshot() { return {briefing: {...S.briefing}, number: S.number, cells: S.cells.slice(), file: S.file}; }

function push() {
  S.undo.push(snapshot());
  if (S.undo.length > HISTORY_CAP) S.undo.shift();
  S.redo = [];
  S.dirty = true;
}

function restore(s) {
  const chapterChanged = s.briefing.chapter !== S.briefing.chapter;
  S.briefing = {...s.briefing};
  S.number = s.number;
  S.cells = s.cells.slice();
  S.file = s.file || null;
  S.changed = new Set();
  S.reveal = new Set();
  S.form.set(S.briefing);
  if (chapterChanged) brushes(); else summary();
  S.dirty = true;
  check();
}

function undo() {
  if (!S.undo.length) { say("Nothing to undo."); return; }
  S.redo.push(snapshot());
  restore(S.undo.pop());
  say("Undone.");
}

function redo() {
  if (!S.redo.length) { say("Nothing to redo."); return; }
  S.undo.push(snapshot());
  restore(S.redo.pop());
  say("Redone.");
}

// -- the map ----------------------------------------------------------------------------------------------

// ``text``: the file's own text (a file opened), else the server's (/api/parse's text: a shipped map's file).
function setMap(m, from, text) {
  S.briefing = {chapter: m.chapter, from: from || null, peak: m.peak, start: m.start, greek_fire: m.greek_fire,
                fort_pattern: m.fort_pattern, number: null};
  S.number = m.number;
  S.cells = m.cells.slice();
  S.file = fileRecord(m, text);
  S.changed = new Set();
  S.reveal = new Set();
  S.form.set(S.briefing);
  brushes();
  check();
}

function summary() {
  const b = S.briefing;
  $("briefing-summary").textContent = MG.briefingSummary(b);
}

function brushes() {
  const ch = S.briefing.chapter;
  showProfileOf(ch);
  const box = $("brushes");
  box.replaceChildren();
  const codes = [...MG.chapters[ch].terrains, ".."];
  S.keys = MG.terrainKeys(ch);
  if (!codes.includes(S.brush)) S.brush = codes[0];
  for (const code of codes) {
    const s = code === ".." ? {label: "Erase", colour: "#d8d2c4", ink: "#222", symbol: "○"} : MG.style(ch, code);
    const key = code === ".." ? "Del" : S.keys[code];
    const b = MG.el("button", {type: "button", class: "brush" + (code === S.brush ? " on" : ""), "data-code": code,
      "aria-pressed": String(code === S.brush), title: `${s.label}${key ? " (" + key + ")" : ""}`},
      MG.el("span", {class: "sym", text: s.symbol, "aria-hidden": "true"}), MG.el("span", {class: "blabel", text: s.label}));
    b.style.background = s.colour;
    b.style.color = s.ink;
    b.addEventListener("click", () => { S.brush = code; brushes(); });
    box.append(b);
  }
  // the Hill brush paints a number too (0 to what the chapter allows), or none
  const numbers = MG.hillNumbers(ch);
  if (S.brush === "Hi" && numbers.length) {
    if (S.hill !== null && !numbers.includes(S.hill)) S.hill = null;
    const row = MG.el("div", {class: "hill-brush", role: "group", "aria-label": "Hill number to paint"},
      MG.el("span", {class: "blabel", text: "Hill number:"}));
    for (const n of [null, ...numbers]) {
      const on = S.hill === n;
      row.append(MG.el("button", {type: "button", class: "number" + (on ? " on" : ""), "data-number": n === null ? "" : String(n),
        "aria-pressed": String(on), text: n === null ? "none" : String(n), onclick: () => { S.hill = n; brushes(); }}));
    }
    box.append(row);
  }
  summary();
}

// What the brush paints: its terrain, a Hill with the number picked for it.
function brushCode() { return S.brush === "Hi" && S.hill !== null ? `Hi${S.hill}` : S.brush; }

function draw() {
  const byCell = {};
  for (const v of S.violations) for (const c of v.cells) (byCell[c] = byCell[c] || []).push(v.rule);
  const ch = S.briefing.chapter;
  const board = $("board");
  if (!S.focus) S.focus = MG.cellNames(ch)[0];
  board.dataset.focus = S.focus;
  const hadFocus = board.contains(document.activeElement);
  MG.drawBoard(board, ch, S.cells, (name, i, b) => {
    const code = S.cells[i];
    let label = code === ".." ? `${name}: blank` : `${name}: ${MG.style(ch, code).label}`;
    if (byCell[name]) {
      const ids = [...new Set(byCell[name])];
      const words = ids.map((id) => MG.ruleTitle(ch, id)).join(", ");
      b.classList.add("broken");
      // a mark, not the rule id: ids such as F2 or C7 read as cell names; the list beside names the rules
      b.append(MG.el("span", {class: "rules", text: "!", "aria-hidden": "true"}));
      b.title = `${name} breaks ${words}`;
      label += `, breaks ${words}`;
    }
    if (S.changed.has(name)) { b.classList.add("changed"); label += ", just changed"; }
    if (S.reveal.has(name)) { b.classList.add("reveal"); label += ", in the reveal set"; }
    const badge = MG.briefingBadge(S.briefing, name, b);
    if (badge) label += `, ${badge}`;
    b.setAttribute("aria-label", label);
  }, {
    pointerdown: (name, i, e) => {
      e.preventDefault();
      S.painting = true;
      S.stroke = false;
      S.focus = name;
      paint(i);
    },
    pointerenter: (name, i) => { if (S.painting) paint(i); },
  });
  if (hadFocus) MG.focusCell(board, S.focus);
}

function paint(i, code) {
  const brush = code === undefined ? brushCode() : code;
  if (S.cells[i] === brush) return;
  if (!S.stroke) { push(); S.stroke = S.painting; unsay(); } // one undo step per stroke
  S.cells[i] = brush;
  S.changed.delete(MG.cellNames(S.briefing.chapter)[i]);
  S.reveal = new Set();
  check();
}

async function check(failures) {
  if (!failures) { remember(); draw(); staleResult(); }
  const seq = failures ? S.seq : ++S.seq;
  const blank = S.cells.filter((c) => c === "..").length;
  const list = $("violations");
  if (blank) {
    document.body.classList.remove("busy"); // an answer still on its way is for an older map: it is dropped
    S.violations = [];
    $("verdict").textContent = `${blank} blank cell${blank === 1 ? "" : "s"}: paint them or press Fill the rest`;
    $("verdict").className = "big";
    $("repair").classList.remove("primary");
    list.replaceChildren();
    draw();
    return;
  }
  document.body.classList.add("busy"); // until the newest map's verdict is shown (the board is redrawn then)
  const r = await MG.api("/api/validate", {map: mapText()});
  if (seq !== S.seq) return;
  document.body.classList.remove("busy");
  if (!r.ok && (r.status === 0 || r.status >= 500)) {
    // no answer (the server stopped, restarted, a laptop asleep): said, and asked again until it answers or the
    // map changes (the verdict stood at "the server cannot be reached" until the next edit)
    document.body.classList.add("busy");
    S.violations = [];
    $("verdict").textContent = `The server could not answer (${r.data.error}): asking again…`;
    $("verdict").className = "big problem";
    list.replaceChildren();
    draw();
    const n = (failures || 0) + 1;
    setTimeout(() => { if (seq === S.seq) check(n); }, Math.min(10000, 1000 * 2 ** Math.min(n - 1, 4)));
    return;
  }
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
  // rules counted as rules, violations as violations: one rule may be broken in several places
  const n = report.violations.length, rules = new Set(report.violations.map((v) => v.rule)).size;
  $("verdict").textContent = report.valid ? "Valid: every rule holds"
    : `${rules} broken rule${rules === 1 ? "" : "s"}` + (n > rules ? `: ${n} violations` : "");
  $("verdict").className = "big " + (report.valid ? "good" : "problem");
  $("repair").classList.toggle("primary", !report.valid); // the eye drawn to Repair only where it has a rule to mend
  const ch = S.briefing.chapter;
  const named = (text, cell) => new RegExp(`\\b${cell}\\b`).test(text);
  list.replaceChildren(...report.violations.map((v) => {
    const unnamed = v.cells.filter((c) => !named(v.message, c)); // the message names most cells itself
    return MG.el("li", {class: "violation", "data-rule": v.rule}, MG.rule(ch, v.rule), ": " + v.message
      + (unnamed.length ? ` (${unnamed.join(", ")})` : ""));
  }));
  draw();
}

function violationsText(ch, list) {
  const frag = document.createDocumentFragment();
  list.forEach((v, k) => {
    if (k) frag.append("; ");
    frag.append(MG.rule(ch, v.rule), `: ${v.message}`);
  });
  return frag;
}

// What a repair did, counted as the outlines show it: every changed cell is outlined and listed, by kind.
function repairWords(out) {
  const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  const terrain = out.changes.filter((c) => c.from !== ".." && c.from.slice(0, 2) !== c.to.slice(0, 2)).length;
  const blank = out.changes.filter((c) => c.from === "..").length;
  const filledIn = out.changes.filter((c) => /^[A-Z][a-z]$/.test(c.from) && c.from === c.to.slice(0, 2)).length;
  const setRight = out.changes.length - terrain - blank - filledIn;
  const parts = [];
  if (terrain || !out.changes.length) {
    parts.push(plural(terrain, "cell", "cells") + " changed" + (out.optimal ? " (the fewest possible)" : ""));
  }
  if (filledIn) parts.push(plural(filledIn, "Hill number", "Hill numbers") + " filled in");
  if (setRight) parts.push(plural(setRight, "Hill number", "Hill numbers") + " set right");
  if (blank) parts.push(plural(blank, "blank cell", "blank cells") + " filled");
  const all = out.changes.length;
  return parts.join(", ") + (all ? `: ${all === 1 ? "the cell is" : `the ${all} cells are`} outlined and listed` : "");
}

// Generate, Fill the rest and Repair each replace the map with the server's answer: the newest one asked for wins,
// and an answer to one asked before it is dropped (a slow profile's Generate landed after the quicker one the
// designer pressed next, and replaced its map). The signal aborts the superseded request.
function supersede() {
  if (S.making) S.making.abort();
  S.making = new AbortController();
  return S.making.signal;
}

// The Seed field as /api/generate takes it: exact. A seed past 2^53 (seeds run to 2^63 - 1) is sent as a BigInt
// (MG.api writes its digits): a JavaScript number would round it and make another seed's map. Empty: 0. A value the
// API refuses (-5, 1.5, past 2^63 - 1) is said in the form's words, as the Games field's range is, and gives null:
// nothing is asked or sent (Generate asked to replace the map, then said the API's "field 'seed' must be between").
const SEED_MAX = 2n ** 63n - 1n;
function seedValue() {
  const field = $("seed"), raw = field.value.trim();
  if (field.validity.badInput || !/^[0-9]*$/.test(raw) || (raw && BigInt(raw) > SEED_MAX)) {
    say(`Seed: a whole number from 0 to ${SEED_MAX}`, true);
    field.focus();
    return null;
  }
  const n = BigInt(raw || 0);
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

async function repair(within) {
  const signal = supersede();
  say(within ? "Repairing within the profile…" : "Repairing…");
  const body = {map: mapText(), time_limit: 10, within_profile: Boolean(within)};
  if ($("profile").value.trim()) body.profile = $("profile").value;
  const r = await MG.api("/api/repair", body, signal);
  if (r.aborted) return;
  if (!r.ok) {
    const said = MG.errorText(r, "mend a few cells by hand and press Repair again, or run mapgen repair with a "
      + "larger --time-limit on the command line.");
    say(r.data.rules && r.data.rules.length ? MG.ruleText(S.briefing.chapter, said, r.data.rules) : said, true);
    return;
  }
  const out = r.data;
  const m = (await MG.api("/api/parse", {map: out.text})).data;
  if (signal.aborted) return;
  const ch = S.briefing.chapter;
  if (m.cells.join() !== S.cells.join()) push();
  S.cells = m.cells.slice();
  S.changed = new Set(out.changes.map((c) => c.cell));
  $("changes").replaceChildren(...out.changes.map((c) => {
    const li = MG.el("li", {"data-cell": c.cell}, MG.el("b", {text: c.cell}), ` ${c.from} → ${c.to}`);
    if (c.rules.length) {
      li.append(" (mends ");
      c.rules.forEach((id, k) => { if (k) li.append(", "); li.append(MG.rule(ch, id)); });
      li.append(`: ${c.message})`);
    } else {
      li.append(` (${c.message})`); // a blank cell filled, a Hill number filled in: nothing was broken there
    }
    return li;
  }));
  const msg = document.createDocumentFragment();
  msg.append(out.distance === 0 && !out.changes.length ? "Nothing to repair: the map keeps every rule."
    : `Repaired: ${repairWords(out)}` + (within ? ", keeping the profile too." : "."));
  const which = out.profile === "default" ? "the chapter's default profile" : "your profile";
  if (out.profile_violations.length) {
    msg.append(MG.el("br"), `Repair keeps the chapter's rules, not the profile: this map breaks ${which} (`,
      violationsText(ch, out.profile_violations), "), which Fill the rest and Generate keep. ");
    msg.append(MG.el("button", {type: "button", id: "repair-profile", text: "Repair within the profile",
      onclick: () => repair(true)}));
  } else if (out.profile_note) {
    msg.append(MG.el("br"), `${out.profile_note[0].toUpperCase()}${out.profile_note.slice(1)} (the repair did not need it).`);
  } else if (!within) {
    msg.append(` It keeps ${which} too.`);
  }
  say(msg);
  check();
}

async function fill() {
  if (!S.cells.includes("..")) { say("Nothing to fill: every cell is painted (Erase some to have them filled)."); return; }
  const seed = seedValue();
  if (seed === null) return;
  const signal = supersede();
  say("Filling the blank cells…");
  const body = {from: mapText(), seed, time_limit: 20};
  if ($("profile").value.trim()) body.profile = $("profile").value;
  const r = await MG.api("/api/generate", body, signal);
  if (r.aborted) return;
  if (!r.ok) {
    const said = MG.errorText(r, "try another seed, paint fewer cells, or loosen the profile.");
    say(r.data.rules && r.data.rules.length ? MG.ruleText(S.briefing.chapter, said, r.data.rules) : said, true);
    markCells(r.data.cells || []);
    return;
  }
  const m = (await MG.api("/api/parse", {map: r.data[0].text})).data;
  if (signal.aborted) return;
  const before = S.cells.slice();
  push();
  S.cells = m.cells.slice();
  S.file = fileRecord(m); // a filled sketch is a made map: this fill's [generator] record, no [grade]
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
  const seed = seedValue();
  if (seed === null) return;
  const body = {chapter: b.chapter, seed, time_limit: 20};
  if ($("profile").value.trim()) body.profile = $("profile").value;
  // the map this Generate would make is the one shown, as made (a seed makes one map): say so, not "replace it?"
  const made = MG.json({chapter: b.chapter, seed, profile: body.profile || ""});
  if (S.file && S.file.made === made && mapText() === S.file.base) {
    say(`This is seed ${seed}'s map already: a seed always makes the same map. Change the seed for another.`);
    return;
  }
  if (S.dirty && !(await MG.confirm("Generate a new map? It replaces this one (Undo brings it back).", "Generate", "Keep this map"))) return;
  const signal = supersede();
  say(`Generating a ${b.chapter} map…`);
  const r = await MG.api("/api/generate", body, signal);
  if (r.aborted) return;
  if (!r.ok) { say(MG.errorText(r, "try another seed, or loosen the profile."), true); return; }
  const m = (await MG.api("/api/parse", {map: r.data[0].text})).data;
  if (signal.aborted) return;
  m.number = MG.exactWhole(seed); // the answer's JSON number is rounded past 2^53
  $("changes").replaceChildren();
  push();
  setMap(m, null);
  S.file.made = made; // what made it: the same Generate again says so (kept with the map: check() saves it)
  say(`Generated ${b.chapter} map, seed ${seed}, in ${(r.data[0].seconds * 1000).toFixed(0)} ms.`);
}

// The profile being written is kept in this browser as the map is, one per chapter: a reload or a later visit finds
// the chapter's own, shown open (Generate, Fill the rest and Repair use it: never a hidden one), and a map of another
// chapter brings that chapter's (a Vameter profile left in the box made a Fauna map's Repair fail).
function storedProfiles() {
  try {
    const all = JSON.parse(localStorage.getItem(PROFILE_KEY) || "{}");
    return all && typeof all === "object" ? all : {};
  } catch (e) { return {}; } // private mode, or not ours
}

function keepProfile() {
  if (!S.profileChapter) return;
  const all = storedProfiles();
  all[S.profileChapter] = $("profile").value;
  try { localStorage.setItem(PROFILE_KEY, JSON.stringify(all)); } catch (e) { /* private mode or full */ }
}

// Called whenever the board is drawn for a chapter (brushes): the box holds that chapter's profile.
function showProfileOf(chapter) {
  if (chapter === S.profileChapter) return;
  S.profileChapter = chapter;
  const text = storedProfiles()[chapter] || "";
  $("profile").value = text;
  if (text.trim()) $("profile").closest("details").open = true;
}

// A profile in the box, asking first before it replaces another one written there; false when the person keeps theirs.
async function setProfile(text, what) {
  const mine = $("profile").value;
  if (mine.trim() && mine !== text && !(await MG.confirm(`Replace your profile with ${what || "this file"}? `
    + "Yours is not kept.", "Replace it", "Keep mine"))) return false;
  $("profile").value = text;
  $("profile").closest("details").open = true;
  keepProfile();
  return true;
}

async function defaultProfile() {
  await setProfile(MG.chapters[S.form.read().chapter].profile || "", "the chapter's default");
}

// A profile file (mapgen/profiles/CHAPTER.toml's keys, no terrain) rather than a map file.
function looksLikeProfile(text) {
  return !/^\s*terrain\s*=/m.test(text)
    && /^\s*(\[(counts|fort_pattern|quality)\]|(reachable|peak|greek_fire)\s*=)/m.test(text);
}

async function blankMap() {
  const n = S.cells.filter((c) => c !== "..").length;
  if (!n) return;
  if (!(await MG.confirm(`Blank the map? It clears all ${n} painted cells (Undo brings them back).`, "Blank it", "Keep them"))) return;
  push();
  S.cells = S.cells.map(() => "..");
  S.file = null; // nothing of the old map's file describes a blank one (Undo brings both back)
  S.changed = new Set();
  check();
}

// -- deduce and playtest ------------------------------------------------------------------------------

async function startJob(kind) {
  if (S.job) { say("A job is running: cancel it first.", true); return; }
  unsay();
  // a deduce of the map file as it would be saved (its name, [generator] table): its puzzle is the file `mapgen deduce
  // MAP --puzzle` writes for that file
  const body = {map: kind === "deduce" ? fileText() : mapText()};
  let games = "";
  if (kind === "playtest") {
    // an empty field plays the default, and says so; a value the API refuses is said in the form's words
    const field = $("games"), raw = field.value.trim();
    body.games = raw === "" && !field.validity.badInput ? GAMES_DEFAULT : Number(raw);
    if (field.validity.badInput || !Number.isInteger(body.games) || body.games < 1 || body.games > GAMES_MAX) {
      say(`Games: a whole number from 1 to ${GAMES_MAX} (empty: ${GAMES_DEFAULT})`, true);
      field.focus();
      return;
    }
    games = raw === "" ? `${body.games} games, the default` : `${body.games} games`;
    body.bot = $("bot").value;
  }
  const r = await MG.api(`/api/${kind}`, body);
  // not started: a full job line (503) or a server stopping says so, and when to try again
  if (!r.ok) { say(`${capital(kind)} not started: ${MG.errorText(r)}`, true); return; }
  S.job = r.data.id;
  S.jobMap = body.map;
  S.jobKind = kind;
  $("job").hidden = false;
  $("job-title").textContent = kind === "playtest" ? `Playtest: ${games} (${body.bot})` : "Deduce: reveal set and reveal profile";
  $("job-result").replaceChildren();
  poll(kind);
}

// A job's progress, asked every 400 ms. A question the server does not answer (stopped, restarted, a laptop gone to
// sleep) is said and asked again, less often each time, until it answers or Cancel is pressed; a server that no longer
// knows the job (restarted: jobs do not outlive it) ends it with those words.
async function poll(kind, failures) {
  const id = S.job;
  if (!id) return;
  const r = await MG.api(`/api/jobs/${id}`);
  if (S.job !== id) return;
  if (!r.ok) {
    if (r.status === 0 || r.status >= 500) {
      const n = (failures || 0) + 1;
      say(`${capital(kind)}: the server could not answer (${r.data.error}); asking again…`, true);
      $("job-title").dataset.status = "unanswered";
      setTimeout(() => poll(kind, n), Math.min(10000, 1000 * 2 ** Math.min(n - 1, 4)));
      return;
    }
    S.job = null;
    $("job").hidden = true;
    say(r.status === 404 ? `${capital(kind)}: the server no longer knows this job (it was restarted): start it again.`
      : `${capital(kind)}: ${r.data.error}`, true);
    return;
  }
  if (failures) say(""); // answered again: "asking again…" goes
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
  const ch = S.briefing.chapter;
  const lines = [];
  if (kind === "playtest") {
    // the job's words are mapgen playtest's own (report_words): the interval from the counts, rounded once, and the
    // loss causes in words ("a Crew Member not saved 79"), never the JSON's keys or its 4-digit figures rounded again
    lines.push(`Wins ${j.words.wins}`);
    lines.push(`Mean score ${res.mean_score}; mean days ${res.mean_days}`);
    const ws = res.win_scores; // the spread of the won games' scores: nearly every win is Master Explorer
    if (ws && ws.games) lines.push(`Scores of the wins: ${ws.min} to ${ws.max}, quartiles ${ws.q1} / ${ws.median} / ${ws.q3}`);
    if (j.words.losses) lines.push(`Losses: ${j.words.losses}`);
    if (res.sealed) { // neither won nor lost by the rulebook: counted apart, so the lines add up to the games
      const by = Object.entries(res.sealed_by || {}).map(([k, v]) => `${k} ${v}`).join(", ");
      lines.push(`Sealed: ${res.sealed} (no Path could be explored for a whole round, not a rulebook loss${by ? ": " + by : ""})`);
    }
  } else {
    S.reveal = new Set(res.reveal_set);
    lines.push(`Minimal reveal set: ${res.reveal_count} cells (outlined): ${res.reveal_set.join(" ")}`);
    if (j.puzzle) lines.push(puzzleButton(j.puzzle, S.jobMap));
    if (res.depends_on) { // absent only when the time limit ran out before the rules were tried
      const deps = MG.el("p", {id: "depends-on"}, "Uniqueness depends on: ");
      if (!res.depends_on.length) deps.append("no rule");
      res.depends_on.forEach((id, k) => { if (k) deps.append(", "); deps.append(MG.rule(ch, id)); });
      lines.push(deps);
    }
    const prof = res.profile;
    if (prof && prof.unique_at) {
      const size = MG.cellNames(ch).length;
      const steps = prof.steps ? prof.steps.length : size;
      const p = MG.el("p", {id: "unique-at"}, `Unique after step ${prof.unique_at} of the reveal profile. `);
      p.append(MG.el("span", {class: "note", text:
        "The reveal profile plays the map as a careful player would: from the start, one Path at a time, "
        + "a forced Path whenever one can be explored, else a guess at the Path with the fewest possible terrains, "
        + `counting after each step the maps that still fit. At step ${prof.unique_at} of ${steps} only one map fits`
        + (prof.unique_at >= size ? ": only once every cell is revealed, so deduction alone never pins down the whole map"
          : `: the other ${size - prof.unique_at} cells follow from the rules`)
        + (prof.all_targets_known_at ? `; every ${MG.style(ch, prof.target || MG.chapters[ch].counted).label} is known at step ${prof.all_targets_known_at}.` : ".")}));
      lines.push(p);
    }
    const g = res.grade;
    if (g) {
      lines.push(`Deduction grade: ${g.tier} (${g.guesses} guesses before every target is known, largest reason ` +
        `${g.largest_reason} rules and cells, ${Math.round(g.deduced_share * 100)}% of those steps deduced)`
        + (g.calibrated_on ? `; the tier is cut at the quartiles of maps generated under shipped ${g.calibrated_on}'s `
          + `rules, not the house rules of ${res.rules || "the server"}` : ""));
    }
    draw();
  }
  // time ran out after part of the work (a deduce's reveal set found, `mapgen deduce` exits 3 alike; a playtest's
  // games played before the job's limit): what did not come, in the job's words, after what was found
  const missing = j.words && j.words.missing;
  if (missing) {
    lines.push(MG.el("p", {id: `${kind}-missing`, class: "problem",
      text: `${capital(missing)}.` + (kind === "deduce" ? " What was found is shown." : "")}));
  }
  box.replaceChildren(...lines.map((t) => (t instanceof Node ? t : MG.el("p", {text: t}))));
  const chart = MG.el("div", {class: "chart-box", id: `${kind}-chart`});
  if (kind === "playtest" || (res.profile && res.profile.steps)) box.append(chart);
  drawChart(chart, kind, res, j.words);
  if (j.plot) {
    const src = j.plot + "?t=" + Date.now();
    const img = MG.el("img", {src, alt: `${kind} chart (opens full size)`, class: "plot"});
    const open = MG.el("button", {type: "button", class: "plot-open", "aria-label": `Open the full ${kind} chart at full size`}, img);
    open.addEventListener("click", () => openChart(src, kind));
    box.append(MG.el("p", {class: "note", text: "The full chart (click it to open it at full size):"}), open);
  }
  say(missing ? `${kind} finished in part: see what did not come in time.` : `${kind} finished.`);
  staleResult(); // the map edited while the job ran: its result is for the map as it was
}

// A job's result under the board is for the map it was asked about: once the map differs (painted over, another map
// opened, or edited while the job ran) it says so above the result, which stays; Undo back to that map takes the word away.
function staleResult() {
  const box = $("job-result");
  const stale = S.jobMap !== null && box.childElementCount > 0 && fileText() !== S.jobMap;
  const word = $("result-stale");
  if (stale && !word) {
    const kind = S.jobKind === "playtest" ? "Playtest" : "Deduce";
    box.prepend(MG.el("p", {id: "result-stale", class: "problem",
      text: `These results are for the map as it was before your edits: run ${kind} again for this one.`}));
  } else if (!stale && word) word.remove();
}

// The puzzle a deduce found (the map with only its reveal set revealed): the file `mapgen deduce MAP --puzzle` writes,
// made and named by the server. A map edited since it was deduced has another puzzle: said, not downloaded.
function puzzleButton(url, deduced) {
  const p = MG.el("p", {class: "puzzle"});
  const button = MG.el("button", {type: "button", id: "dl-puzzle", "aria-describedby": "dl-puzzle-note"}, "Download puzzle");
  button.addEventListener("click", async () => {
    if (fileText() !== deduced) { say("The map changed since it was deduced: Deduce again for its puzzle.", true); return; }
    const r = await MG.api(url);
    if (!r.ok) { say(`Puzzle: ${r.data.error}`, true); return; }
    MG.download(r.filename, r.data);
    // numbered by the seed that makes its answer (a generated map's number is its seed): deduce --puzzle's note
    say(`Downloaded the puzzle, ${r.filename}.${r.note ? ` Note: ${r.note}.` : ""}`);
  });
  p.append(button, " ", MG.el("span", {class: "note", id: "dl-puzzle-note",
    text: "the map with only the reveal set revealed, for a player to solve (as mapgen deduce MAP --puzzle FILE writes it)"}));
  return p;
}

// -- charts drawn for the space they have (SVG at the box's own pixel width, text at a readable size) ----

const SVGNS = "http://www.w3.org/2000/svg";

function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// The reveal profile: maps that still fit after each step (log scale), guesses marked, the step where the map
// is unique and where every target is known.
function profileChart(box, prof) {
  const steps = prof.steps || [];
  const W = Math.max(280, box.clientWidth || 600), H = Math.min(320, Math.max(220, Math.round(W * 0.45)));
  const narrow = W < 520;
  const m = {l: 52, r: 14, t: narrow ? 44 : 28, b: 40};
  const svg = svgEl("svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img", class: "chart-svg",
    "aria-label": `Maps that fit after each of ${steps.length} reveals` + (prof.unique_at ? `; unique after step ${prof.unique_at}` : "")});
  const top = Math.max(1, ...steps.map((s) => Math.log10(Math.max(1, s.count || 1))));
  const x = (k) => m.l + (W - m.l - m.r) * (steps.length <= 1 ? 0 : (k - 1) / (steps.length - 1));
  const y = (c) => H - m.b - (H - m.t - m.b) * (Math.log10(Math.max(1, c || 1)) / Math.ceil(top));
  svg.append(svgEl("text", {x: narrow ? 0 : m.l, y: 16, class: "chart-title"},
    narrow ? "Maps that fit after each reveal (log)" : "Maps that still fit after each reveal (log scale)"));
  for (let e = 0; e <= Math.ceil(top); e += Math.max(1, Math.ceil(Math.ceil(top) / 5))) {
    const yy = y(10 ** e);
    svg.append(svgEl("line", {x1: m.l, x2: W - m.r, y1: yy, y2: yy, class: "grid"}));
    svg.append(svgEl("text", {x: m.l - 6, y: yy + 4, "text-anchor": "end"}, e === 0 ? "1" : e <= 3 ? String(10 ** e) : MG.tenTo(e)));
  }
  const every = Math.max(1, Math.ceil(steps.length / Math.max(2, Math.floor((W - m.l) / 48))));
  for (let k = 1; k <= steps.length; k += every) {
    svg.append(svgEl("text", {x: x(k), y: H - m.b + 16, "text-anchor": "middle"}, String(k)));
  }
  svg.append(svgEl("text", {x: (m.l + W - m.r) / 2, y: H - 6, "text-anchor": "middle"}, "step (Paths revealed)"));
  [[prof.unique_at, "unique", "mark-unique"], [prof.all_targets_known_at, "targets known", "mark-target"]]
    .forEach(([at, label, cls], k) => {
      if (!at) return;
      svg.append(svgEl("line", {x1: x(at), x2: x(at), y1: m.t, y2: H - m.b, class: cls}));
      const left = x(at) - m.l > 8 * (label.length + 4); // room for the label left of its line, else right of it
      svg.append(svgEl("text", {x: left ? x(at) - 4 : x(at) + 4, y: m.t + 12 + 16 * k, "text-anchor": left ? "end" : "start",
        class: cls}, `${label}: ${at}`));
    });
  svg.append(svgEl("polyline", {points: steps.map((s) => `${x(s.step)},${y(s.count)}`).join(" "), class: "series"}));
  for (const s of steps) {
    const dot = svgEl("circle", {cx: x(s.step), cy: y(s.count), r: 3.5, class: s.reason === "guess" ? "guess" : "forced"});
    // exact in full; else the range deduce prints, its high end in words (a JS number past 1e21 prints "1.2e+22")
    const maps = s.exact || !s.estimate ? s.count.toLocaleString("en")
      : `${s.estimate.low.toLocaleString("en")} to ${MG.bigCount(s.estimate.high)}`;
    dot.append(svgEl("title", {}, `step ${s.step}: ${s.cell} ${s.terrain} (${s.reason}), ${maps} maps`));
    svg.append(dot);
  }
  svg.append(svgEl("text", {x: W - m.r, y: narrow ? 34 : 16, "text-anchor": "end", class: "legend"}, "● forced  ○ guess"));
  box.replaceChildren(svg);
}

// A playtest's outcomes: wins and each cause of loss (in the job's words, mapgen playtest's), as shares of the games.
function playtestChart(box, res, words) {
  const rows = [["wins", res.wins], ...Object.entries(res.losses).map(([k, v]) => [words.causes[k] || k, v])];
  if (res.sealed) rows.push(["sealed", res.sealed]);
  const W = Math.max(280, box.clientWidth || 600), bar = 24, m = {l: Math.min(170, W * 0.38), r: 70, t: 28};
  const H = m.t + rows.length * (bar + 8) + 8;
  const svg = svgEl("svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img", class: "chart-svg",
    "aria-label": rows.map(([k, v]) => `${k} ${v} of ${res.games}`).join(", ")});
  svg.append(svgEl("text", {x: 0, y: 16, class: "chart-title"}, `Outcomes of ${res.games} games (${res.bot || "bot"})`));
  rows.forEach(([label, n], k) => {
    const yy = m.t + k * (bar + 8);
    const w = (W - m.l - m.r) * (res.games ? n / res.games : 0);
    svg.append(svgEl("text", {x: m.l - 8, y: yy + bar * 0.7, "text-anchor": "end"}, label));
    svg.append(svgEl("rect", {x: m.l, y: yy, width: Math.max(1, w), height: bar, class: k === 0 ? "win" : "loss"}));
    svg.append(svgEl("text", {x: m.l + w + 6, y: yy + bar * 0.7}, `${n} (${Math.round((100 * n) / Math.max(1, res.games))}%)`));
  });
  box.replaceChildren(svg);
}

function drawChart(box, kind, res, words) {
  const draw = () => (kind === "playtest" ? playtestChart(box, res, words) : res.profile && profileChart(box, res.profile));
  draw();
  if (window.ResizeObserver) {
    let last = box.clientWidth;
    new ResizeObserver(() => { if (box.clientWidth !== last) { last = box.clientWidth; draw(); } }).observe(box);
  }
}

function openChart(src, kind) {
  const dlg = MG.el("dialog", {class: "chart", "aria-label": `${kind} chart, full size`});
  const close = MG.el("button", {type: "button", id: "chart-close", text: "Close"});
  dlg.append(MG.el("div", {class: "actions"}, MG.el("b", {text: `${kind} chart`}), close),
    // the scrolled box takes keyboard focus, so that the arrow keys scroll a chart larger than the screen
    MG.el("div", {class: "chart-scroll", tabindex: "0", role: "region", "aria-label": `${kind} chart, scrolled with the arrow keys`},
      MG.el("img", {src, alt: `${kind} chart, full size`})));
  close.addEventListener("click", () => { dlg.close(); dlg.remove(); });
  dlg.addEventListener("close", () => dlg.remove());
  document.body.append(dlg);
  dlg.showModal();
  close.focus();
}

// Letter where the browser's first language is of a country that prints on it (the US, Canada, Mexico, the
// Philippines, Chile, Colombia, Venezuela and Central America), A4 elsewhere: the sheet's paper until the user picks
function letterPaper(languages) {
  const region = String(languages[0] || "").split("-")[1] || "";
  return ["US", "CA", "MX", "PH", "CL", "CO", "VE", "GT", "CR", "PA", "DO", "PR", "SV", "NI", "HN"].includes(
    region.toUpperCase());
}

// The map file's name, after the map: CHAPTER-NUMBER as the shipped files (fauna-1) and `mapgen generate --out`
// (CHAPTER-SEED) name theirs, so several maps never save as "fauna-map (1).toml"; CHAPTER-map for a map without one.
// The server names the other downloads (pictures, the puzzle) alike (service.download_stem); the map file alone is
// saved without asking it, and tests/test_web_browser.py checks that the two agree.
function downloadStem() {
  const n = String(S.number ?? "").trim();
  return `${S.briefing.chapter}-${/^[0-9]+$/.test(n) ? n : "map"}`;
}

async function download(format) {
  if (format === "map") {
    MG.download(`${downloadStem()}.toml`, fileText(), "application/toml");
    S.dirty = false;
    return;
  }
  say(`Drawing ${format.toUpperCase()}…`);
  const body = {map: mapText(), format};
  if (format === "sheet") body.paper = $("dl-paper").value;  // /api/render takes paper for a sheet only
  // on a phone's narrow screen (style.css's 700px) a picture with the briefing under the board, its words readable
  if (format !== "sheet" && window.matchMedia("(max-width: 700px)").matches) body.layout = "tall";
  const r = await MG.api("/api/render", body);
  if (!r.ok) { say(r.data.error, true); return; }
  MG.download(r.filename, r.data);  // named by the server (service.download_stem), as the puzzle is
  say(`Downloaded the ${format === "sheet" ? "PDF sheet" : format.toUpperCase()}.${r.note ? ` Note: ${r.note}.` : ""}`);
}

// Keyboard: Ctrl+Z undoes, Ctrl+Shift+Z or Ctrl+Y redoes (text boxes keep their own); on the board the arrow
// keys move, a terrain's letter paints it (and picks that brush), Delete erases.
function onKey(e) {
  if (MG.typing(e) || document.querySelector("dialog[open]")) return;
  const key = e.key.length === 1 ? e.key.toUpperCase() : e.key;
  if ((e.ctrlKey || e.metaKey) && !e.altKey) {
    if (key === "Z" && !e.shiftKey) { e.preventDefault(); undo(); }
    else if ((key === "Z" && e.shiftKey) || key === "Y") { e.preventDefault(); redo(); }
    return;
  }
  const onBoard = e.target.closest && e.target.closest("#board .cell");
  if (!onBoard || e.altKey) return;
  const i = MG.cellNames(S.briefing.chapter).indexOf(onBoard.dataset.cell);
  const code = Object.keys(S.keys || {}).find((c) => S.keys[c] === key);
  const number = /^[0-9]$/.test(e.key) && S.cells[i].startsWith("Hi") && MG.hillNumbers(S.briefing.chapter).includes(Number(e.key));
  if (number) { // a digit on a Hill: its number
    e.preventDefault();
    S.focus = onBoard.dataset.cell;
    S.stroke = false;
    paint(i, `Hi${e.key}`);
  } else if (code || e.key === "Delete" || e.key === "Backspace") {
    e.preventDefault();
    S.focus = onBoard.dataset.cell;
    S.stroke = false;
    if (code && code !== S.brush) { S.brush = code; brushes(); }
    paint(i, code === "Hi" ? brushCode() : code || "..");
  } else if (e.key === "Enter" || e.key === " ") {
    e.preventDefault();
    S.focus = onBoard.dataset.cell;
    S.stroke = false;
    paint(i);
  }
}

async function openShipped(name) {
  const r = await MG.api(`/api/maps/${encodeURIComponent(name)}`);
  if (!r.ok) { say(r.data.error, true); return false; }
  push();
  setMap(r.data, name);
  S.dirty = false;
  return true;
}

// The maps kept in storage, the newest first (one map alone, as it was stored before).
function savedMaps() {
  try {
    const saved = JSON.parse(localStorage.getItem(SAVE_KEY) || "[]");
    return (Array.isArray(saved) ? saved : [saved]).filter((m) => m && typeof m.hash === "string");
  } catch (e) { return []; /* unreadable: start afresh */ }
}

function lastSaved() { return savedMaps()[0] || null; }

function restoreOffer(saved, problem) {
  // Opened without a map in the address (or with one it cannot open: ``problem`` says so first): offer the last map
  // worked on in this browser.
  if (problem) say(problem, true);
  if (!saved || !saved.hash || saved.hash === hashOf()) return;
  const when = new Date(saved.saved).toLocaleString("en-GB");
  const b = MG.el("button", {type: "button", id: "restore", text: `Reopen your last map (${when})`});
  b.addEventListener("click", () => {
    push();
    history.replaceState(null, "", saved.hash);
    const h = readHash();
    if (h && !h.name) {
      if (saved.undo) S.undo = unpackHistory(saved.undo, saved.files || []);
      S.redo = unpackHistory(saved.redo, saved.files || []);
      S.briefing = h.briefing; S.number = h.number; S.cells = h.cells;
      S.file = fileAt(saved.file, saved.files);
      S.form.set(S.briefing);
      brushes();
      check();
    }
    b.remove();
  });
  if (problem) $("message").append(" ", b); else say(b);
}

async function main() {
  const waiting = (text) => { if (text) $("verdict").textContent = text; }; // the next check writes the verdict
  await MG.loadChapters(waiting);
  const h = readHash();
  let m = null, from = null, problem = h && h.problem;
  if (h && h.name) {
    const r = await MG.api(`/api/maps/${encodeURIComponent(h.name)}`);
    if (r.ok) { m = r.data; from = h.name; } else problem = `${capital(MG.errorText(r))}.`;
  }
  if (!m && !(h && h.briefing)) { m = await MG.apiUntilAnswered("/api/maps/fauna-1", waiting); from = "fauna-1"; }
  const initial = h && h.briefing ? h.briefing : {chapter: m.chapter, from};
  S.form = MG.briefingForm($("briefing"), initial, async (b) => {
    // A new briefing: a shipped map opens as it is; a typed briefing keeps the cells if the board fits.
    if (b.from) {
      if (S.dirty && !(await MG.confirm(`Open ${b.from}? It replaces this map (Undo brings it back).`, "Open it", "Keep this map"))) return;
      await openShipped(b.from);
    } else {
      const same = b.chapter === S.briefing.chapter;
      if (!same && S.cells.some((c) => c !== "..")
          && !(await MG.confirm(`Start a blank ${b.chapter} map? It replaces this one (Undo brings it back).`, "Start it", "Keep this map"))) return;
      push();
      S.briefing = b;
      if (!same) { S.cells = MG.cellNames(b.chapter).map(() => ".."); S.file = null; brushes(); } else summary();
      check();
    }
    $("setup").open = false;
  }, {applyText: "Open"});
  if (h && h.briefing) {
    S.briefing = h.briefing; S.number = h.number; S.cells = h.cells;
    S.form.set(S.briefing);
    const saved = savedMaps().find((m) => m.hash === location.hash);
    S.savedHash = location.hash;
    if (saved) { // this map's history, and the file it came from
      const files = saved.files || [];
      S.undo = unpackHistory(saved.undo, files);
      S.redo = unpackHistory(saved.redo, files);
      S.file = fileAt(saved.file, files);
    }
    brushes();
    check();
  } else {
    const saved = lastSaved(); // read before this map is remembered in its place
    setMap(m, from);
    restoreOffer(saved, problem ? `${problem} Showing ${from} instead.` : null);
  }
  window.addEventListener("hashchange", async () => { // a link to another shipped map: /studio#map=flora-2
    if (location.hash === hashOf()) return;
    const wanted = readHash();
    if (!wanted) return;
    if (wanted.problem) { say(`${wanted.problem} This map stays.`, true); return; }
    if (wanted.name) { await openShipped(wanted.name); return; }
    push();
    S.briefing = wanted.briefing; S.number = wanted.number; S.cells = wanted.cells;
    S.file = null; // a map from a link: no file of its own
    S.form.set(S.briefing);
    brushes();
    check();
  });
  window.addEventListener("beforeunload", (e) => {
    if (!S.dirty) return;
    e.preventDefault();
    e.returnValue = ""; // the browser asks "Leave site? Changes you made may not be saved."
  });
  // a job ends with the page that started it: after a reload or a closed tab no page can see or cancel it, and it
  // held one of the server's job workers for up to its time limit (keepalive: the request outlives the page)
  window.addEventListener("pagehide", () => {
    if (S.job) fetch(`/api/jobs/${S.job}`, {method: "DELETE", keepalive: true}).catch(() => {});
  });
  document.addEventListener("pointerup", () => { S.painting = false; S.stroke = false; });
  $("board").addEventListener("pointerleave", () => { S.painting = false; });
  MG.rovingBoard($("board"), () => S.focus, (name) => { S.focus = name; });
  $("board").addEventListener("focusin", (e) => { const c = e.target.closest(".cell"); if (c) S.focus = c.dataset.cell; });
  document.addEventListener("keydown", onKey);
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("repair").addEventListener("click", () => repair(false));
  $("fill").addEventListener("click", fill);
  $("blank").addEventListener("click", blankMap);
  $("generate").addEventListener("click", generate);
  $("default-profile").addEventListener("click", defaultProfile);
  $("profile").addEventListener("input", keepProfile);
  $("deduce").addEventListener("click", () => startJob("deduce"));
  $("playtest").addEventListener("click", () => startJob("playtest"));
  $("job-cancel").addEventListener("click", async () => {
    if (!S.job) return;
    const id = S.job;
    S.job = null;
    $("job").hidden = true;
    const r = await MG.api(`/api/jobs/${id}`, undefined, undefined, "DELETE");
    // a server that cannot be reached cannot be told; one restarted since has no such job left to run
    say(r.ok || r.status === 404 ? "Cancelled." : `Stopped waiting; the server could not be told to cancel (${r.data.error}).`,
      !(r.ok || r.status === 404));
  });
  $("dl-map").addEventListener("click", () => download("map"));
  $("dl-png").addEventListener("click", () => download("png"));
  $("dl-svg").addEventListener("click", () => download("svg"));
  $("dl-sheet").addEventListener("click", () => download("sheet"));
  $("dl-paper").value = letterPaper(navigator.languages || [navigator.language]) ? "letter" : "a4";
  $("open").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    const text = await file.text();
    e.target.value = ""; // the same file picked again is read again
    const r = await MG.api("/api/parse", {map: text});
    if (!r.ok && looksLikeProfile(text)) { // the page's only file picker: a profile goes to Generate's box
      if (!(await setProfile(text))) return;
      say(`Opened ${file.name} as the profile that Generate and Fill the rest keep.`);
      return;
    }
    if (!r.ok) { say(r.data.error, true); return; }
    if (S.dirty && !(await MG.confirm(`Open ${file.name}? It replaces this map (Undo brings it back).`, "Open it", "Keep this map"))) return;
    push();
    setMap(r.data, null, text);
    S.dirty = false;
    $("setup").open = false;
    say(`Opened ${file.name}.`);
  });
}

main();
