// Shared by the table helper and the studio: the API, map file text, the board and the briefing form.
"use strict";

const MG = {
  chapters: {},

  async api(path, body, signal) {
    const init = body === undefined ? {} : {
      method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
    };
    if (signal) init.signal = signal;
    let r;
    try {
      r = await fetch(path, init);
    } catch (e) {
      if (e.name === "AbortError") return {ok: false, status: 0, exit: 0, aborted: true, data: {error: "superseded"}};
      return {ok: false, status: 0, exit: 2, data: {error: "the server cannot be reached"}};
    }
    const type = r.headers.get("content-type") || "";
    const data = type.includes("json") ? await r.json() : await r.blob();
    return {ok: r.ok, status: r.status, exit: Number(r.headers.get("X-Mapgen-Exit") || 0), data};
  },

  async loadChapters() {
    const r = await MG.api("/api/chapters");
    for (const ch of r.data) MG.chapters[ch.chapter] = ch;
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
    if (b.number !== null && b.number !== undefined && b.number !== "") lines.push(`number = ${Number(b.number)}`);
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
  drawBoard(root, chapter, cells, decorate, handlers) {
    const c = MG.chapters[chapter];
    const w = c.board.columns.length;
    root.replaceChildren();
    root.style.setProperty("--cols", w);
    root.append(MG.el("div", {class: "corner"}));
    for (const col of c.board.columns) root.append(MG.el("div", {class: "label", text: String(col)}));
    const names = MG.cellNames(chapter);
    names.forEach((name, i) => {
      if (i % w === 0) root.append(MG.el("div", {class: "label", text: name[0]}));
      const code = cells[i];
      const b = MG.el("button", {class: "cell", type: "button", "data-cell": name, "aria-label": name});
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
      b.append(MG.el("span", {class: "name", text: name}));
      if (decorate) decorate(name, i, b);
      for (const [ev, fn] of Object.entries(handlers || {})) b.addEventListener(ev, (e) => fn(name, i, e));
      root.append(b);
    });
  },

  // The briefing form: chapter, a shipped map's briefing, or typed Peak, start, mini map, Greek Fire.
  briefingForm(root, initial, onApply, options) {
    const opts = options || {};
    const chSel = MG.el("select", {id: "chapter", "aria-label": "chapter"});
    for (const name of Object.keys(MG.chapters)) chSel.append(MG.el("option", {value: name, text: name}));
    const mapSel = MG.el("select", {id: "shipped", "aria-label": "shipped map"});
    const peak = MG.el("input", {id: "peak", size: 4, autocapitalize: "characters", "aria-label": "Peak"});
    const start = MG.el("input", {id: "start", size: 8, "aria-label": "start"});
    const gf = MG.el("input", {id: "greek_fire", size: 4, "aria-label": "Greek Fire"});
    const fp = MG.el("textarea", {id: "fort_pattern", rows: 3, cols: 12, spellcheck: "false", "aria-label": "mini map"});
    const apply = MG.el("button", {type: "button", class: "primary", id: "apply-briefing", text: opts.applyText || "Use this briefing"});
    const row = (label, input, cls) => MG.el("label", {class: "field " + (cls || "")}, MG.el("span", {text: label}), input);
    root.replaceChildren(
      row("Chapter", chSel),
      row("Briefing of", mapSel),
      row("Peak", peak),
      row("Start", start, "flora-only"),
      row("Greek Fire", gf, "flora-only"),
      row("Mini map", fp, "fauna-only"),
      apply,
    );
    const shipped = new Map();
    const fillMaps = () => {
      mapSel.replaceChildren(MG.el("option", {value: "", text: "typed in"}));
      for (const m of MG.chapters[chSel.value].maps) mapSel.append(MG.el("option", {value: m, text: m}));
      root.dataset.chapter = chSel.value;
    };
    const set = (b) => {
      chSel.value = b.chapter;
      fillMaps();
      mapSel.value = b.from || "";
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
      if (!mapSel.value) return;
      let m = shipped.get(mapSel.value);
      if (!m) { m = (await MG.api(`/api/maps/${mapSel.value}`)).data; shipped.set(mapSel.value, m); }
      peak.value = m.peak; start.value = m.start || ""; gf.value = m.greek_fire || ""; fp.value = m.fort_pattern || "";
    });
    const read = () => ({
      chapter: chSel.value, from: mapSel.value || null, peak: peak.value.trim().toUpperCase(),
      start: start.value.trim() || null, greek_fire: gf.value.trim().toUpperCase() || null,
      fort_pattern: fp.value.trim() || null, number: null,
    });
    apply.addEventListener("click", () => onApply(read()));
    for (const input of [peak, start, gf, fp]) input.addEventListener("input", () => { mapSel.value = ""; });
    set(initial);
    return {set, read};
  },

  // The briefing's cells, badged: the Peak, Flora's start Fort and its Greek Fire.
  briefingBadge(b, name, button) {
    const words = [];
    if (name === b.peak) words.push("Peak");
    if (b.chapter === "flora" && name === b.start) words.push("Start");
    if (b.chapter === "flora" && name === b.greek_fire) words.push("Greek Fire");
    if (words.length) button.append(MG.el("span", {class: "badge", text: words.join(" · ")}));
  },

  // Fauna's mini map for the URL: "Ti-..-Vi/Sk-Ft-.." and back.
  packPattern(text) { return (text || "").trim().split("\n").map((r) => r.trim().split(/\s+/).join("-")).join("/"); },
  unpackPattern(s) { return (s || "").split("/").map((r) => r.split("-").join(" ")).join("\n"); },
};
