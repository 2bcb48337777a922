// Shared by the table helper and the studio: the API, map file text, the board and the briefing form.
"use strict";

const MG = {
  chapters: {},

  // 10 to the power k as it is printed (10²²), not as it is typed (10^22)
  tenTo(k) {
    return "10" + String(k).replace(/[-\d]/g, (d) => "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"["-0123456789".indexOf(d)]);
  },

  // A count as people read it, the command line's rule (mapgen.terrain.big_count): digits up to ten million, then
  // three significant figures: "11.9 million", "2.98 billion" ... "4.1 trillion", then "1.69 × 10²²". Rounded
  // before the unit is chosen (999.96 million is "1 billion"), and never toPrecision's exponent form ("8.7e+2
  // million") nor a number's own ("1.69e+22").
  bigCount(n) {
    if (n < 1e7) return Math.round(n).toLocaleString("en");
    const r = Number(n.toPrecision(3));
    const k = Math.floor(Math.log10(r));
    const figures = (unit) => String(Number((r / 10 ** unit).toPrecision(3)));
    if (k < 15) {
      const unit = k - (k % 3);
      return `${figures(unit)} ${{6: "million", 9: "billion", 12: "trillion"}[unit]}`;
    }
    return `${figures(k)} × ${MG.tenTo(k)}`;
  },

  // A POST that names a "time_limit" waits at most that long and answerGraceMs more: a server that stopped
  // answering (a laptop gone to sleep, a phone out of the Wi-Fi's range) is then said, as one that cannot be
  // reached is, not "working…" for ever.
  answerGraceMs: 30000,

  // A whole number exactly: a Number while it is one (to 2^53), else its digits as a string (a map's number, a seed
  // past 2^53: seeds run to 2^63 - 1), which can be stored as JSON and written into a map file as they are.
  exactWhole(v) {
    const text = String(v).trim();
    if (!/^[0-9]+$/.test(text)) return Number(text);
    return BigInt(text) <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(text) : text.replace(/^0+(?=[0-9])/, "");
  },

  // A request body as JSON, a BigInt (a seed past 2^53) as its exact digits (JSON.stringify throws on one).
  json(body) {
    const mark = "\u0000bigint:";
    return JSON.stringify(body, (k, v) => (typeof v === "bigint" ? `${mark}${v}` : v))
      .replace(/"\\u0000bigint:([0-9]+)"/g, "$1");
  },

  async api(path, body, signal, method) {
    const init = body === undefined ? (method ? {method} : {}) : {
      method: method || "POST", headers: {"Content-Type": "application/json"}, body: MG.json(body),
    };
    const limit = body && typeof body.time_limit === "number" ? body.time_limit * 1000 + MG.answerGraceMs : null;
    const own = new AbortController();
    let timedOut = false;
    const timer = limit === null ? null : setTimeout(() => { timedOut = true; own.abort(); }, limit);
    if (signal) {
      if (signal.aborted) own.abort(); else signal.addEventListener("abort", () => own.abort(), {once: true});
    }
    init.signal = own.signal;
    try {
      const r = await fetch(path, init);
      const type = r.headers.get("content-type") || "";
      const data = type.includes("json") ? await r.json() : await r.blob();
      const note = r.headers.get("X-Mapgen-Note");  // a picture's note (characters its font cannot draw), URL-encoded
      // a download's file name as the server names it (/api/render's picture, a deduce job's puzzle): never guessed here
      const named = /filename="([^"]+)"/.exec(r.headers.get("Content-Disposition") || "");
      // a 503's Retry-After (whole seconds): when the server may answer again (a full job line, a restart)
      const retryAfter = Number(r.headers.get("Retry-After")) || null;
      return {ok: r.ok, status: r.status, exit: Number(r.headers.get("X-Mapgen-Exit") || 0), data,
        note: note ? decodeURIComponent(note) : null, filename: named ? named[1] : null, retryAfter};
    } catch (e) {
      if (timedOut) {
        return {ok: false, status: 0, exit: 3, data: {error: `no answer within ${Math.round(limit / 1000)} s`}};
      }
      if (e.name === "AbortError") return {ok: false, status: 0, exit: 0, aborted: true, data: {error: "superseded"}};
      return {ok: false, status: 0, exit: 2, data: {error: "the server cannot be reached"}};
    } finally {
      if (timer !== null) clearTimeout(timer);
    }
  },

  // What a failed request says on the page: the server's words, but for a time limit that ran out (504) without its
  // advice to the API's caller ("ask for a larger time_limit", "try a larger --time-limit"), which a page's user
  // cannot follow: ``advice`` instead, what they can do here. A 503 (the server busy or stopping) says when to try
  // again (its Retry-After) where its words do not.
  errorText(r, advice) {
    const said = (r.data && r.data.error) || "the server could not answer";
    if (r.status === 503 && !/try again/.test(said)) {
      return `${said}; try again ${r.retryAfter ? `in ${r.retryAfter} s` : "in a moment"}`;
    }
    if (r.status !== 504 || !advice) return said;
    const bare = said.replace(/\s*\(ask for a larger time_limit\)/, "").replace(/;?\s*try a larger --time-limit.*$/, "");
    return `${bare}: ${advice}`;
  },

  // A GET the page cannot start without (the chapters, the default map), asked until the server answers: a page
  // loaded while the server restarts (a reload mid-game) said nothing and stayed on "…" for ever. ``onWait`` is
  // told what went wrong each time ("The server could not answer (…). Asking again…"), and null once it answered.
  async apiUntilAnswered(path, onWait) {
    for (let tries = 0; ; tries++) {
      const r = await MG.api(path);
      if (r.ok) {
        if (tries && onWait) onWait(null);
        return r.data;
      }
      if (onWait) onWait(`The server could not answer (${(r.data && r.data.error) || "no answer"}). Asking again…`);
      await new Promise((done) => setTimeout(done, 1000 * 2 ** Math.min(tries, 3)));
    }
  },

  async loadChapters(onWait) {
    for (const ch of await MG.apiUntilAnswered("/api/chapters", onWait)) MG.chapters[ch.chapter] = ch;
    return MG.chapters;
  },

  cellNames(ch) {
    const c = MG.chapters[ch];
    const out = [];
    for (const row of c.board.rows) for (const col of c.board.columns) out.push(row + col);
    return out;
  },

  // A map file (TOML) from a briefing and one code per cell ("..": unrevealed).
  mapText(b, cells) {
    const c = MG.chapters[b.chapter];
    const q = (s) => JSON.stringify(s);
    const lines = [`chapter = ${q(b.chapter)}`];
    if (b.number !== null && b.number !== undefined && b.number !== "") lines.push(`number = ${MG.exactWhole(b.number)}`);
    lines.push(`peak = ${q(b.peak || "")}`);
    lines.push(`start = ${q(b.start || "column 7")}`);
    if (b.chapter === "fauna") lines.push(`fort_pattern = """\n${(b.fort_pattern || "").trim()}\n"""`);
    if (b.chapter === "flora" && b.greek_fire) lines.push(`greek_fire = ${q(b.greek_fire)}`);
    const w = c.board.columns.length;
    const rows = [];
    for (let r = 0; r < c.board.rows.length; r++) {
      rows.push(c.board.rows[r] + "  " + cells.slice(r * w, r * w + w).map((x) => x.padEnd(3)).join(" ").trimEnd());
    }
    lines.push(`terrain = """\n   ${c.board.columns.map((x) => String(x).padEnd(3)).join(" ").trimEnd()}\n${rows.join("\n")}\n"""`);
    return lines.join("\n") + "\n";
  },

  download(name, data, type) {
    const blob = data instanceof Blob ? data : new Blob([data], {type: type || "text/plain"});
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  },

  style(chapter, code) {
    const base = code.slice(0, 2);
    return MG.chapters[chapter].styles[base] || {label: base, colour: "#ccc", ink: "#000", symbol: "?"};
  },

  el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v);
    }
    for (const kid of kids) if (kid !== null && kid !== undefined) e.append(kid);
    return e;
  },

  // Draw a board into `root`. `decorate(name, index, button)` adds overlays; `onCell(name, index, ev)` acts.
  // A board drawn before for the same chapter is updated in place: the same buttons, their text, classes and
  // labels written again, so that a tap landing while an answer redraws it is never lost on a button that is
  // gone, and the focused cell keeps its focus.
  drawBoard(root, chapter, cells, decorate, handlers) {
    const c = MG.chapters[chapter];
    const w = c.board.columns.length;
    const names = MG.cellNames(chapter);
    root.mgHandlers = handlers || {};
    let buttons = [...root.querySelectorAll(".cell")];
    if (root.mgChapter !== chapter || buttons.length !== names.length) {
      root.replaceChildren();
      root.mgChapter = chapter;
      root.style.setProperty("--cols", w);
      root.append(MG.el("div", {class: "corner"}));
      for (const col of c.board.columns) root.append(MG.el("div", {class: "label", text: String(col)}));
      buttons = names.map((name, i) => {
        if (i % w === 0) root.append(MG.el("div", {class: "label", text: name[0]}));
        const b = MG.el("button", {class: "cell", type: "button", "data-cell": name});
        b.mgEvents = new Set();
        root.append(b);
        return b;
      });
    }
    names.forEach((name, i) => {
      const code = cells[i];
      const b = buttons[i];
      // what the last drawing put on the button goes: its classes, colours, title and marks
      b.className = "cell";
      b.removeAttribute("style");
      b.removeAttribute("title");
      b.replaceChildren();
      b.setAttribute("aria-label", name);
      if (code === "..") {
        b.classList.add("hidden");
        b.append(MG.el("span", {class: "token"}));
      } else {
        const s = MG.style(chapter, code);
        b.classList.add("shown");
        b.style.background = s.colour;
        b.style.color = s.ink;
        b.append(MG.el("span", {class: "sym", text: s.symbol}),
                 MG.el("span", {class: "code", text: code}));
      }
      b.append(MG.el("span", {class: "name", text: name, "aria-hidden": "true"}));
      b.tabIndex = name === (root.dataset.focus || names[0]) ? 0 : -1;
      if (decorate) decorate(name, i, b);
      // What a screen reader says is one visually hidden line ("A7: Water, in the conflict"); the marks drawn
      // on the cell are hidden from it (and no aria-label, so the name always holds the visible text).
      const said = b.getAttribute("aria-label") || `${name}: ${code === ".." ? "not revealed" : MG.style(chapter, code).label}`;
      b.removeAttribute("aria-label");
      for (const kid of b.children) kid.setAttribute("aria-hidden", "true");
      b.append(MG.el("span", {class: "sr", text: said}));
      // one listener per event and button, calling the handler of the latest drawing
      for (const ev of Object.keys(root.mgHandlers)) {
        if (b.mgEvents.has(ev)) continue;
        b.mgEvents.add(ev);
        b.addEventListener(ev, (e) => { const fn = root.mgHandlers[ev]; if (fn) fn(name, i, e); });
      }
    });
  },

  // The briefing form: chapter, a shipped map's briefing, or typed Peak, start, mini map, Greek Fire.
  briefingForm(root, initial, onApply, options) {
    const opts = options || {};
    const chSel = MG.el("select", {id: "chapter", "aria-label": "chapter"});
    for (const [name, ch] of Object.entries(MG.chapters)) chSel.append(MG.el("option", {value: name, text: ch.title || name}));
    const mapSel = MG.el("select", {id: "shipped", "aria-label": "shipped map"});
    const peak = MG.el("input", {id: "peak", size: 4, autocapitalize: "characters", "aria-label": "Peak"});
    const start = MG.el("input", {id: "start", size: 8, "aria-label": "start"});
    const gf = MG.el("input", {id: "greek_fire", size: 4, "aria-label": "Greek Fire"});
    const fp = MG.el("textarea", {id: "fort_pattern", rows: 3, cols: 12, spellcheck: "false", "aria-label": "mini map"});
    const apply = MG.el("button", {type: "button", class: "primary", id: "apply-briefing", text: opts.applyText || "Use this briefing"});
    const problem = MG.el("p", {id: "briefing-problem", class: "problem", role: "alert", hidden: true});
    const row = (label, input, cls) => MG.el("label", {class: "field " + (cls || "")}, MG.el("span", {text: label}), input);
    root.replaceChildren(
      row("Chapter", chSel),
      row("Briefing of", mapSel),
      row("Peak", peak),
      row("Start", start, "flora-only"),
      row("Greek Fire", gf, "flora-only"),
      row("Mini map", fp, "fauna-only"),
      apply,
      problem,
    );
    const shipped = new Map();
    let shown = initial.from || ""; // the shipped map whose briefing the boxes hold ("": typed in)
    const said = (text) => { problem.textContent = text || ""; problem.hidden = !text; };
    const fillMaps = () => {
      mapSel.replaceChildren(MG.el("option", {value: "", text: "typed in"}));
      for (const m of MG.chapters[chSel.value].maps) mapSel.append(MG.el("option", {value: m, text: m}));
      root.dataset.chapter = chSel.value;
    };
    const set = (b) => {
      chSel.value = b.chapter;
      fillMaps();
      mapSel.value = b.from || "";
      shown = mapSel.value;
      said("");
      peak.value = b.peak || "";
      start.value = b.start || "";
      gf.value = b.greek_fire || "";
      fp.value = b.fort_pattern || "";
    };
    chSel.addEventListener("change", async () => {
      fillMaps();
      const first = MG.chapters[chSel.value].maps[0];
      if (first) { mapSel.value = first; mapSel.dispatchEvent(new Event("change")); }
    });
    mapSel.addEventListener("change", async () => {
      const name = mapSel.value;
      said("");
      if (!name) { shown = ""; return; }
      let m = shipped.get(name);
      if (!m) {
        // an answer that failed (the server unreachable) is said and not kept: it wrote "undefined" in the Peak box,
        // for good, and "Use this briefing" played it
        const r = await MG.api(`/api/maps/${encodeURIComponent(name)}`);
        if (mapSel.value !== name) return; // another chosen meanwhile
        if (!r.ok) {
          mapSel.value = [...mapSel.options].some((o) => o.value === shown) ? shown : "";
          said(`The briefing of ${name} could not be read (${(r.data && r.data.error) || "no answer"}): choose it again.`);
          return;
        }
        m = r.data;
        shipped.set(name, m);
      }
      peak.value = m.peak; start.value = m.start || ""; gf.value = m.greek_fire || ""; fp.value = m.fort_pattern || "";
      shown = name;
    });
    // a cell in any case, as the server reads it ("d7": Flora's Start lost its badge on the board); "column 7" as typed
    const cellCase = (text) => (/^[a-z][0-9]+$/i.test(text) ? text.toUpperCase() : text);
    const read = () => ({
      chapter: chSel.value, from: mapSel.value || null, peak: peak.value.trim().toUpperCase(),
      start: cellCase(start.value.trim()) || null, greek_fire: gf.value.trim().toUpperCase() || null,
      fort_pattern: fp.value.trim() || null, number: null,
    });
    apply.addEventListener("click", () => onApply(read()));
    for (const input of [peak, start, gf, fp]) input.addEventListener("input", () => { mapSel.value = ""; shown = ""; });
    set(initial);
    return {set, read};
  },

  // The briefing in one line, for the summary above the board: every cell the briefing places (Flora's start
  // and Greek Fire too, as their badges on the board).
  // A chapter the server answers under house rules (mapgen serve --rules FILE) says so, with the file.
  briefingSummary(b) {
    const flora = b.chapter === "flora";
    const house = (MG.chapters[b.chapter] || {}).house_rules;
    // a link cut short has no Peak: said, never "Peak null" (the server's answer says what is missing)
    return `Briefing: ${b.chapter}${b.from ? " (" + b.from + ")" : ""}, ${b.peak ? "Peak " + b.peak : "no Peak"}`
      + (flora && b.start ? `, Start ${b.start}` : "") + (flora && b.greek_fire ? `, Greek Fire ${b.greek_fire}` : "")
      + (house ? ` · house rules: ${house.file}` : "");
  },

  // The briefing's cells, badged: the Peak, Flora's start Fort and its Greek Fire ("Fire" on the cell: "Greek
  // Fire" is wider than a cell beside its name, on a desktop too). Returns the words in full, for the cell's label.
  briefingBadge(b, name, button) {
    // [in full, on a cell, on a small phone's cell: at 320 to 380 px "Start" beside "D7" is wider than the cell]
    const words = [];
    if (name === b.peak) words.push(["Peak", "Peak", "Pk"]);
    if (b.chapter === "flora" && name === b.start) words.push(["Start", "Start", "St"]);
    if (b.chapter === "flora" && name === b.greek_fire) words.push(["Greek Fire", "Fire", "GF"]);
    if (!words.length) return "";
    const full = words.map((w) => w[0]).join(", ");
    button.append(MG.el("span", {class: "badge", title: full, "data-short": words.map((w) => w[2]).join(" · "),
      text: words.map((w) => w[1]).join(" · ")}));
    return full;
  },

  // A rule by its title, its id as a label that cannot be read as a cell name ("Fort pattern" + "rule F2").
  rules(chapter) {
    const c = MG.chapters[chapter] || {};
    return [...(c.rules || []), ...(c.profile_rules || [])];
  },

  rule(chapter, id) {
    const info = MG.rules(chapter).find((r) => r.id === id);
    const title = info ? info.title : id;
    const e = MG.el("span", {class: "rule", "data-rule": id, title: info ? `rule ${id}: ${info.text}` : `rule ${id}`},
      MG.el("span", {class: "rule-title", text: title}), " ", MG.el("span", {class: "rule-id", text: `rule ${id}`}));
    return e;
  },

  ruleTitle(chapter, id) {
    const info = MG.rules(chapter).find((r) => r.id === id);
    return info ? `${info.title} (rule ${id})` : `rule ${id}`;
  },

  // A message from the server with its rule ids ("(F2)", "rule C6 Rock", "rules C1 Water–Wood, C8 Field and F2 Fort
  // pattern") shown by title with an id label; cell names in it are left as they are.
  ruleText(chapter, text, ids) {
    const frag = document.createDocumentFragment();
    const rules = MG.rules(chapter);
    const known = (ids && ids.length ? ids : rules.map((r) => r.id)).filter((id) => id);
    if (!known.length) { frag.append(text); return frag; }
    const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const alts = [];
    for (const id of known) {
      const info = rules.find((r) => r.id === id);
      if (info) alts.push(`${esc(id)} ${esc(info.title)}`);
      alts.push(`\\(${esc(id)}\\)`);
    }
    const re = new RegExp(`(?:\\brules? )?(${alts.join("|")})`, "g");
    let last = 0;
    for (const m of text.matchAll(re)) {
      frag.append(text.slice(last, m.index));
      const token = m[1];
      const id = known.find((k) => token === `(${k})` || token.startsWith(k + " "));
      const wrapped = token.startsWith("(");
      if (wrapped) frag.append("(");
      frag.append(MG.rule(chapter, id));
      if (wrapped) frag.append(")");
      last = m.index + m[0].length;
    }
    frag.append(text.slice(last));
    return frag;
  },

  // A confirmation in the page (a modal <dialog>): resolves true when the person agrees.
  confirm(message, okText, cancelText) {
    return new Promise((resolve) => {
      const dlg = MG.el("dialog", {class: "confirm", "aria-labelledby": "confirm-text"});
      const ok = MG.el("button", {type: "button", class: "primary", id: "confirm-ok", text: okText || "OK"});
      const no = MG.el("button", {type: "button", id: "confirm-cancel", text: cancelText || "Cancel"});
      dlg.append(MG.el("p", {id: "confirm-text", text: message}), MG.el("div", {class: "actions"}, ok, no));
      const done = (answer) => { dlg.close(); dlg.remove(); resolve(answer); };
      ok.addEventListener("click", () => done(true));
      no.addEventListener("click", () => done(false));
      dlg.addEventListener("cancel", (e) => { e.preventDefault(); done(false); });
      document.body.append(dlg);
      dlg.showModal();
      no.focus();
    });
  },

  // Copy text to the clipboard; falls back to a selected text box when the Clipboard API is not allowed.
  async copy(text) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch (e) {
      const box = MG.el("textarea", {"aria-hidden": "true", class: "offscreen"});
      box.value = text;
      document.body.append(box);
      box.select();
      let ok = false;
      try { ok = document.execCommand("copy"); } catch (e2) { ok = false; }
      box.remove();
      return ok;
    }
  },

  // One key per terrain for keyboard play: the label's first letter, else the code's second, else any free one.
  terrainKeys(chapter) {
    const out = {};
    const used = new Set(["Z", "Y", "X"]);
    for (const code of MG.chapters[chapter].terrains) {
      const label = MG.style(chapter, code).label.toUpperCase();
      const tries = [label[0], code[1].toUpperCase(), ...label.slice(1)];
      const key = tries.find((k) => /[A-Z]/.test(k) && !used.has(k));
      if (key) { used.add(key); out[code] = key; }
    }
    return out;
  },

  // The numbers a Hill can show in a chapter: 0 to the most of the counted terrain its row and column can hold
  // (the API's hill_max: Fauna's 3 Forts make it 3).
  hillNumbers(chapter) {
    const c = MG.chapters[chapter];
    if (!c || !c.counted) return [];
    const most = Number.isInteger(c.hill_max) ? c.hill_max : 12;
    return Array.from({length: most + 1}, (_, n) => n);
  },

  // The terrain the briefing fixes at a cell (the Peak a Rock, Flora's start a Fort), with its rule.
  briefingTerrain(b, name) {
    for (const f of MG.chapters[b.chapter].briefing_cells || []) {
      if (b[f.field] && b[f.field].toUpperCase() === name) return f;
    }
    return null;
  },

  // Roving focus over a board's cells: arrow keys move, the focused cell alone is in the tab order.
  rovingBoard(root, getFocus, setFocus) {
    root.addEventListener("keydown", (e) => {
      const cell = e.target.closest && e.target.closest(".cell");
      if (!cell || e.ctrlKey || e.metaKey || e.altKey) return;
      const moves = {ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1]};
      if (!moves[e.key]) return;
      e.preventDefault();
      const cells = [...root.querySelectorAll(".cell")];
      const w = Number(getComputedStyle(root).getPropertyValue("--cols")) || 7;
      const i = cells.indexOf(cell);
      const [dr, dc] = moves[e.key];
      const r = Math.min(Math.max(Math.floor(i / w) + dr, 0), Math.floor((cells.length - 1) / w));
      const c = Math.min(Math.max((i % w) + dc, 0), w - 1);
      const next = cells[r * w + c];
      if (next) { setFocus(next.dataset.cell); MG.focusCell(root, next.dataset.cell); }
    });
  },

  focusCell(root, name) {
    for (const b of root.querySelectorAll(".cell")) b.tabIndex = b.dataset.cell === name ? 0 : -1;
    const b = root.querySelector(`.cell[data-cell="${name}"]`);
    if (b) b.focus({preventScroll: false});
  },

  // Whether a key press belongs to a text field (then the page leaves Ctrl+Z and letters to it).
  typing(e) {
    const t = e.target;
    return t && (t.tagName === "TEXTAREA" || t.tagName === "SELECT" || (t.tagName === "INPUT" && t.type !== "button"));
  },

  // Fauna's mini map for the URL: "Ti-..-Vi/Sk-Ft-.." and back.
  packPattern(text) { return (text || "").trim().split("\n").map((r) => r.trim().split(/\s+/).join("-")).join("/"); },
  unpackPattern(s) { return (s || "").split("/").map((r) => r.split("-").join(" ")).join("\n"); },
};
