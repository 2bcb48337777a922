// The table helper: tap revealed Paths, see forced cells, the count, a heat map, the target and a hint.
"use strict";

const H = {briefing: null, cells: [], undo: [], view: null, hint: null, seq: 0, picking: null, form: null};
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
    heat: p.get("heat") || "",
  };
}

function writeHash() {
  const b = H.briefing;
  const p = new URLSearchParams();
  p.set("ch", b.chapter);
  if (b.from) p.set("from", b.from);
  p.set("peak", b.peak);
  if (b.start) p.set("start", b.start);
  if (b.greek_fire) p.set("gf", b.greek_fire);
  if (b.fort_pattern) p.set("fp", MG.packPattern(b.fort_pattern));
  const names = MG.cellNames(b.chapter);
  const r = names.map((n, i) => (H.cells[i] === ".." ? null : n + H.cells[i])).filter(Boolean);
  if (r.length) p.set("r", r.join(","));
  if ($("heat").value) p.set("heat", $("heat").value);
  history.replaceState(null, "", "#" + p.toString());
}

function setBriefing(b, revealed) {
  H.briefing = b;
  const names = MG.cellNames(b.chapter);
  H.cells = names.map(() => "..");
  for (const item of revealed || []) {
    const m = /^([A-G][1-7])(.+)$/i.exec(item);
    const i = m ? names.indexOf(m[1].toUpperCase()) : -1;
    if (i >= 0) H.cells[i] = m[2];
  }
  H.undo = [];
  const heat = $("heat");
  const keep = heat.value;
  heat.replaceChildren(MG.el("option", {value: "", text: "(none)"}));
  for (const code of MG.chapters[b.chapter].terrains) {
    heat.append(MG.el("option", {value: code, text: MG.style(b.chapter, code).label}));
  }
  heat.value = MG.chapters[b.chapter].terrains.includes(keep) ? keep : "";
  $("briefing-summary").textContent = `Briefing: ${b.chapter}${b.from ? " (" + b.from + ")" : ""}, Peak ${b.peak}`;
  update();
}

function mapText() { return MG.mapText(H.briefing, H.cells); }

function draw() {
  const v = H.view || {};
  const forced = v.forced || {};
  const heat = v.heat || null;
  const hint = H.hint;
  MG.drawBoard($("board"), H.briefing.chapter, H.cells, (name, i, b) => {
    if (H.cells[i] === ".." && forced[name]) {
      const s = MG.style(H.briefing.chapter, forced[name]);
      b.classList.add("forced");
      const mark = MG.el("span", {class: "forced-mark", text: s.symbol + " " + forced[name]});
      mark.style.background = s.colour;
      mark.style.color = s.ink;
      b.append(mark);
      b.setAttribute("aria-label", `${name}: forced ${s.label}`);
    }
    if (H.cells[i] === ".." && !forced[name] && heat && heat[name] !== undefined) {
      const p = heat[name];
      b.classList.add("heat");
      if (p === null) { // may hold it; the chance is not known yet
        b.classList.add("maybe");
        b.append(MG.el("span", {class: "pct", text: "?"}));
      } else {
        b.style.setProperty("--heat", (p > 0 ? 0.15 + 0.85 * p : 0).toFixed(3)); // any chance at all shows
        b.append(MG.el("span", {class: "pct", text: `${Math.round(p * 100)}%`}));
      }
    }
    MG.briefingBadge(H.briefing, name, b);
    if (hint && hint.cell === name) b.classList.add("hinted");
    if (hint && (hint.cells || []).includes(name)) b.classList.add("cited");
    const conflict = v.conflict ? v.conflict.cells : [];
    if (conflict.includes(name)) b.classList.add("conflict");
  }, {click: (name, i) => openPalette(name, i)});
}

function status() {
  const v = H.view;
  const problem = $("problem");
  problem.hidden = true;
  if (!v) return;
  if (v.error) {
    problem.hidden = false;
    problem.textContent = v.error;
    $("count").textContent = "—";
    return;
  }
  if (v.conflict) {
    problem.hidden = false;
    problem.textContent = "No map fits: " + v.conflict.message;
    $("count").textContent = "0 maps fit";
    $("forced-line").textContent = "";
    $("target").textContent = "";
    return;
  }
  const n = v.count === null ? "?" : v.count.toLocaleString("en");
  const more = v.count_mode === "quick" ? ", counting…" : "";
  $("count").textContent = v.count === null ? "counting…" : v.unique ? "1 map fits: fully deduced (exact)"
    : v.exact ? `${n} maps fit (exact)` : `at least ${n} maps fit (estimate${more})`;
  const forcedCount = Object.keys(v.forced).length;
  $("forced-line").textContent = `${forcedCount} forced cell${forcedCount === 1 ? "" : "s"} (marked on their tokens)`;
  const t = v.target;
  if (t) {
    const label = MG.style(H.briefing.chapter, t.terrain).label;
    $("target").textContent = t.deduced === null
      ? `${label}: known at ${t.known.join(", ") || "no cell yet"}; the rest not worked out yet`
      : t.deduced ? `${label} deduced at ${t.cells.join(", ") || "no cell"}`
      : `${label}: known at ${t.known.join(", ") || "no cell yet"}; ${t.undecided.length} Paths may still hold one`;
  } else {
    $("target").textContent = "";
  }
  const note = $("heat-note");
  if ($("heat").value) {
    const label = MG.style(H.briefing.chapter, $("heat").value).label;
    note.textContent = v.heat && v.heat_exact ? `Shading: the chance of ${label} on each Path (exact)`
      : v.heat ? `Too many maps fit to give the chance of ${label} yet: "?" marks the Paths that may hold one, 0% those that cannot.`
      : v.count_mode === "quick" ? `Working out the chance of ${label}…` : `The chance of ${label} could not be worked out in time.`;
  } else {
    note.textContent = "";
  }
}

async function update() {
  writeHash();
  H.hint = null;
  $("hint-text").hidden = true;
  draw();
  const seq = ++H.seq;
  if (H.abort) H.abort.abort(); // the answer to the previous tap is no longer wanted
  H.abort = new AbortController();
  const signal = H.abort.signal;
  $("count").textContent = "working…";
  document.body.classList.add("busy");
  const body = {map: mapText(), time_limit: 3, count: "quick"};
  if ($("heat").value) body.heat = $("heat").value;
  // First a quick answer (forced cells, a count of up to a few hundred maps), then the exact count.
  for (const mode of ["quick", "full"]) {
    body.count = mode;
    if (mode === "full") {
      body.time_limit = 10;
      await new Promise((done) => setTimeout(done, 250)); // another tap may follow at once: count that one
      if (seq !== H.seq) return;
    }
    const r = await MG.api("/api/table", body, signal);
    if (seq !== H.seq) return; // a newer tap is on its way
    H.view = r.ok ? r.data : {error: r.data.error || "the server could not answer"};
    draw();
    status();
    const heatDone = !body.heat || (H.view.heat && H.view.heat_exact);
    if (!r.ok || H.view.conflict || (H.view.exact && heatDone)) break;
  }
  document.body.classList.remove("busy");
}

function push() { H.undo.push(H.cells.slice()); }

function openPalette(name, i) {
  H.picking = i;
  const ch = H.briefing.chapter;
  $("palette-title").textContent = `Revealed at ${name}`;
  const box = $("terrains");
  box.replaceChildren();
  for (const code of MG.chapters[ch].terrains) {
    const s = MG.style(ch, code);
    const b = MG.el("button", {type: "button", class: "terrain", "data-code": code},
      MG.el("span", {class: "sym", text: s.symbol}), MG.el("span", {text: s.label}));
    b.style.background = s.colour;
    b.style.color = s.ink;
    b.addEventListener("click", () => pick(code));
    box.append(b);
  }
  $("hill-numbers").hidden = true;
  $("palette").hidden = false;
  box.querySelector("button").focus();
}

function pick(code) {
  const counted = MG.chapters[H.briefing.chapter].counted;
  if (code === "Hi" && counted) {
    const box = $("hill-numbers");
    box.replaceChildren(MG.el("p", {text: `The Hill's number (${MG.style(H.briefing.chapter, counted).label}s in its row and column):`}));
    const choices = ["no number", 0, 1, 2, 3, 4, 5, 6];
    for (const n of choices) {
      box.append(MG.el("button", {type: "button", class: "number", "data-number": String(n), text: String(n),
        onclick: () => choose(n === "no number" ? "Hi" : "Hi" + n)}));
    }
    box.hidden = false;
    return;
  }
  choose(code);
}

function choose(code) {
  push();
  H.cells[H.picking] = code;
  closePalette();
  update();
}

function closePalette() { $("palette").hidden = true; H.picking = null; }

async function hint() {
  const box = $("hint-text");
  box.hidden = false;
  box.textContent = "Looking for the easiest deduction…";
  const r = await MG.api("/api/hint", {map: mapText(), time_limit: 5});
  if (!r.ok) { box.textContent = r.data.error || "no hint"; return; }
  // Two shapes: {hint: {cell, cells, ...}, message} and `mapgen hint --json`'s {forced, explanation | message, best}.
  const d = r.data;
  const ex = d.explanation || null;
  H.hint = ex ? {cell: ex.cell, cells: ex.cells, rules: ex.rules} : (d.hint || null);
  box.textContent = ex ? ex.text : (d.message || "");
  if (!H.hint && d.best && d.best.length) {
    const label = MG.style(H.briefing.chapter, d.target).label;
    box.textContent += `. Best odds of ${label}: ${d.best.join(", ")}.`;
  }
  if (H.hint) {
    const cited = (H.hint.cells || []).length ? "; the cells it follows from in blue" : "";
    box.append(MG.el("span", {class: "note", text: ` (${H.hint.cell} is outlined in yellow${cited}.)`}));
  }
  draw();
}

async function main() {
  await MG.loadChapters();
  const fromHash = readHash();
  let b, revealed = [];
  if (fromHash && MG.chapters[fromHash.briefing.chapter]) {
    b = fromHash.briefing;
    revealed = fromHash.revealed;
    $("heat").replaceChildren(MG.el("option", {value: fromHash.heat, text: fromHash.heat}));
    $("heat").value = fromHash.heat;
  } else {
    const m = (await MG.api("/api/maps/fauna-1")).data;
    b = {chapter: "fauna", from: "fauna-1", peak: m.peak, start: m.start, greek_fire: m.greek_fire,
         fort_pattern: m.fort_pattern, number: null};
    $("setup").open = true;
  }
  H.form = MG.briefingForm($("briefing"), b, (nb) => { $("setup").open = false; setBriefing(nb, []); });
  setBriefing(b, revealed);
  window.addEventListener("hashchange", () => { // a shared link opened in this tab
    const h = readHash();
    if (h && MG.chapters[h.briefing.chapter]) {
      H.form.set(h.briefing);
      $("heat").append(MG.el("option", {value: h.heat, text: h.heat})); // kept by setBriefing if a terrain
      $("heat").value = h.heat;
      setBriefing(h.briefing, h.revealed);
    }
  });
  $("hint").addEventListener("click", hint);
  $("undo").addEventListener("click", () => { if (H.undo.length) { H.cells = H.undo.pop(); update(); } });
  $("reset").addEventListener("click", () => { push(); H.cells = H.cells.map(() => ".."); update(); });
  $("unreveal").addEventListener("click", () => choose(".."));
  $("cancel").addEventListener("click", closePalette);
  $("palette").addEventListener("click", (e) => { if (e.target.id === "palette") closePalette(); });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") closePalette(); });
  $("heat").addEventListener("change", update);
  $("export").addEventListener("click", () => MG.download(`${H.briefing.chapter}-state.toml`, mapText(), "application/toml"));
}

main();
