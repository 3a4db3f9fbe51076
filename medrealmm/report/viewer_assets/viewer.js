// MedRealMM case viewer: a static page over data/*.js (written by `medrealmm view`). Every piece of
// case text goes into the page through textContent (el() below), never as HTML.
"use strict";
const MR = {
  data: {}, waiting: {},
  receive(name, payload) {
    this.data[name] = payload;
    (this.waiting[name] || []).forEach((f) => f(payload));
    delete this.waiting[name];
    if (name === "index") route();
  },
  load(name, src) {
    if (this.data[name]) return Promise.resolve(this.data[name]);
    return new Promise((resolve, reject) => {
      (this.waiting[name] = this.waiting[name] || []).push(resolve);
      if (this.waiting[name].length > 1) return;
      const s = document.createElement("script");
      s.src = src;
      s.onerror = () => reject(new Error("cannot load " + src));
      document.body.appendChild(s);
    });
  },
};
const PAGE = 100;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "on") for (const [ev, f] of Object.entries(v)) node.addEventListener(ev, f);
    else if (k === "cls") node.className = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}
const fmt = (x, d = 3) => (x === null || x === undefined ? "–" : Number(x).toFixed(d));
const app = () => document.getElementById("app");
function show(...nodes) { const a = app(); a.replaceChildren(...nodes); window.scrollTo(0, 0); }
function crumbs(...parts) { document.getElementById("crumbs").replaceChildren(...parts.map((p) => el("span", {}, " / ", p))); }
function runLabel(r) { return `${r.model} · ${r.mode} · judge ${r.judge}` + (r.selection !== "full" ? ` · ${r.selection}` : ""); }

function parseHash() {
  const [path, query] = (location.hash.slice(1) || "/").split("?");
  return { parts: path.split("/").filter(Boolean), q: new URLSearchParams(query || "") };
}
function route() {
  const idx = MR.data.index;
  if (!idx) return;
  const { parts, q } = parseHash();
  try {
    if (parts[0] === "find") return find(q);
    if (parts[0] === "run") return runView(+parts[1], q);
    if (parts[0] === "case") return caseView(+parts[1], +parts[2], parts[3] === undefined ? null : +parts[3]);
    return board();
  } catch (e) { show(el("p", { cls: "flag" }, "cannot show this page: " + e.message)); }
}
window.addEventListener("hashchange", route);

// A report's "cases →" link: the run by model, mode and judge, the row's values as filters.
function find(q) {
  const idx = MR.data.index;
  const i = idx.runs.findIndex((r) => r.model === q.get("model") && r.mode === q.get("mode") &&
    (!q.get("judge") || r.judge === q.get("judge")));
  if (i < 0) return show(el("p", { cls: "flag" }, `no run of ${q.get("model")} (${q.get("mode")}) judged by ${q.get("judge")} in this viewer`));
  const keep = new URLSearchParams();
  for (const f of FILTERS) if (q.get(f)) keep.set(f, q.get(f));
  location.replace(`#/run/${i}?${keep}`);
}

// --- leaderboard ------------------------------------------------------------------------------------
function board() {
  const idx = MR.data.index;
  crumbs();
  const order = idx.runs.map((r, i) => [r, i]).sort((a, b) =>
    a[0].judge.localeCompare(b[0].judge) || a[0].mode.localeCompare(b[0].mode) || (b[0].score ?? -1) - (a[0].score ?? -1));
  const rows = order.map(([r, i]) => el("tr", { cls: "row", "data-testid": "run-row", on: { click: () => (location.hash = `#/run/${i}`) } },
    el("td", {}, el("a", { href: `#/run/${i}` }, r.model)), el("td", {}, r.mode), el("td", {}, r.judge),
    el("td", {}, r.selection), el("td", { cls: "num" }, fmt(r.score)),
    el("td", { cls: "num" }, `[${fmt(r.ci_low)}, ${fmt(r.ci_high)}]`), el("td", { cls: "num" }, r.n_scored ?? "–"),
    el("td", { cls: "num" }, r.n_excluded ?? "–"), el("td", {}, r.run_id || r.name)));
  show(el("h1", {}, idx.title || "MedRealMM cases"),
    el("p", {}, `${idx.cases.length} cases, ${idx.runs.length} model × mode × judge runs. Open a run to read its cases.`),
    el("table", { "data-testid": "leaderboard" },
      el("thead", {}, el("tr", {}, ["model", "mode", "judge", "cases", "score", "95% CI", "scored", "excluded", "run"].map((h) => el("th", {}, h)))),
      el("tbody", {}, rows)));
}

// --- a run's cases ----------------------------------------------------------------------------------
const FILTERS = ["department", "specialty", "intent", "stage", "n_images"];
function runView(i, q) {
  const idx = MR.data.index, run = idx.runs[i];
  if (!run) throw new Error("no such run");
  crumbs(runLabel(run));
  const scores = idx.scores[i];
  let rows = idx.cases.map((c, k) => ({ c, k, s: scores[k] })).filter((x) => x.s);
  for (const f of FILTERS) if (q.get(f)) rows = rows.filter((x) => String(x.c[f] ?? "") === q.get(f));
  const lo = q.get("min"), hi = q.get("max");
  if (lo) rows = rows.filter((x) => x.s[0] !== null && x.s[0] >= +lo);
  if (hi) rows = rows.filter((x) => x.s[0] !== null && x.s[0] <= +hi);
  if (q.get("unscored") === "1") rows = rows.filter((x) => x.s[6] > 0 || x.s[0] === null);
  const sort = q.get("sort") || "id";
  const key = { id: (x) => x.c.id, score: (x) => x.s[0] ?? -1, "-score": (x) => -(x.s[0] ?? -1), department: (x) => x.c.department || "" }[sort] || ((x) => x.c.id);
  rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const page = Math.max(0, +(q.get("page") || 0)), pages = Math.max(1, Math.ceil(rows.length / PAGE));
  const set = (k, v) => { const n = new URLSearchParams(q); if (v === "" || v === null) n.delete(k); else n.set(k, v); if (k !== "page") n.delete("page"); location.hash = `#/run/${i}?${n}`; };
  const options = (f) => [...new Set(idx.cases.filter((c, k) => scores[k]).map((c) => String(c[f] ?? "")))].sort();
  const select = (f) => el("label", {}, f, el("select", { name: f, "data-testid": `filter-${f}`, on: { change: (e) => set(f, e.target.value) } },
    el("option", { value: "" }, "all"), options(f).map((v) => el("option", { value: v, selected: q.get(f) === v }, v))));
  const filters = el("div", { cls: "filters" }, FILTERS.map(select),
    el("label", {}, "score ≥", el("input", { type: "number", step: "0.05", min: 0, max: 1, value: lo || "", "data-testid": "filter-min", on: { change: (e) => set("min", e.target.value) } })),
    el("label", {}, "score ≤", el("input", { type: "number", step: "0.05", min: 0, max: 1, value: hi || "", "data-testid": "filter-max", on: { change: (e) => set("max", e.target.value) } })),
    el("label", {}, "unscored only", el("input", { type: "checkbox", checked: q.get("unscored") === "1", "data-testid": "filter-unscored", on: { change: (e) => set("unscored", e.target.checked ? "1" : "") } })),
    el("label", {}, "sort", el("select", { "data-testid": "sort", on: { change: (e) => set("sort", e.target.value) } },
      [["id", "case id"], ["score", "score ↑"], ["-score", "score ↓"], ["department", "department"]].map(([v, t]) => el("option", { value: v, selected: sort === v }, t)))));
  const body = rows.slice(page * PAGE, (page + 1) * PAGE).map((x) => el("tr", { cls: "row", "data-testid": "case-row",
      on: { click: () => (location.hash = `#/case/${x.k}/${i}`) } },
    el("td", {}, el("a", { href: `#/case/${x.k}/${i}` }, x.c.id)), el("td", {}, x.c.department ?? ""), el("td", {}, x.c.specialty ?? ""),
    el("td", {}, x.c.intent ?? ""), el("td", {}, x.c.stage ?? ""), el("td", { cls: "num" }, x.c.n_images ?? ""),
    el("td", { cls: "num" }, fmt(x.s[0])), el("td", {}, x.s[1]), el("td", { cls: "num" }, `${x.s[2]}/${x.s[3]}`),
    el("td", { cls: "num" }, `${x.s[4]}/${x.s[5]}`), el("td", { cls: "num" }, x.s[6])));
  const pager = el("div", { cls: "pager" }, el("button", { disabled: page === 0, on: { click: () => set("page", page - 1) } }, "‹ previous"),
    ` page ${page + 1} of ${pages} `, el("button", { disabled: page + 1 >= pages, "data-testid": "next-page", on: { click: () => set("page", page + 1) } }, "next ›"));
  show(el("h1", {}, runLabel(run)), el("p", {}, `score ${fmt(run.score)} [${fmt(run.ci_low)}, ${fmt(run.ci_high)}]; `,
      el("span", { "data-testid": "n-cases" }, `${rows.length}`), " cases match"), filters, pager,
    el("table", { "data-testid": "cases" }, el("thead", {}, el("tr", {}, ["case", "department", "specialty", "intent", "stage", "images",
      "score", "status", "positive met", "negative triggered", "unscored"].map((h) => el("th", {}, h)))), el("tbody", {}, body)));
}

// --- a case ----------------------------------------------------------------------------------------
function verdictCell(v, weight) {
  if (!v) return el("td", {}, "–");
  if (v[0] === null) return el("td", { cls: "unscored" }, "unscored");
  const neg = weight < 0;
  return el("td", { cls: v[0] ? (neg ? "trig" : "met") : "notmet" }, v[0] ? (neg ? "triggered" : "met") : (neg ? "not triggered" : "not met"));
}
async function caseView(k, i, j) {
  const idx = MR.data.index, c = idx.cases[k], run = idx.runs[i];
  if (!c || !run) throw new Error("no such case or run");
  crumbs(el("a", { href: `#/run/${i}` }, runLabel(run)), c.id);
  show(el("p", {}, "Loading case…"));
  const chunk = await MR.load(`chunk:${c.chunk}`, `data/cases/${c.chunk}.js`);
  const d = chunk[c.id] || { turns: [], rubric: [], runs: {} };
  const A = d.runs[String(i)] || {}, B = j === null ? null : d.runs[String(j)] || {};
  const others = idx.runs.map((r, n) => [r, n]).filter(([r, n]) => n !== i && idx.scores[n][k]);
  const compare = el("label", {}, "compare with ", el("select", { "data-testid": "compare", on: { change: (e) => (location.hash = e.target.value === "" ? `#/case/${k}/${i}` : `#/case/${k}/${i}/${e.target.value}`) } },
    el("option", { value: "" }, "—"), others.map(([r, n]) => el("option", { value: n, selected: j === n },
      (r.model === run.model && r.mode === run.mode ? "[other judge] " : "") + runLabel(r)))));
  const dialogue = d.turns.map((t) => el("div", { cls: `turn ${t.role}`, "data-testid": "turn" },
    el("span", { cls: "who" }, t.role === "patient" ? "患者 patient" : "医生 doctor"), t.text,
    el("div", {}, (t.images || []).map((src) => el("img", { cls: "thumb", src, alt: "patient image", "data-testid": "thumb",
      on: { click: () => { document.getElementById("modal-img").src = src; document.getElementById("modal").hidden = false; } } })))));
  const replyBox = (label, r) => el("div", { cls: "col" }, el("h3", {}, label),
    r.truncated ? el("p", { cls: "flag" }, `truncated (${r.truncated}): not judged`) : null,
    r.error ? el("p", { cls: "flag" }, `no reply: ${r.error}`) : null,
    el("div", { cls: "reply", "data-testid": "reply" }, r.reply ?? "–"),
    r.reasoning ? el("details", {}, el("summary", {}, "reasoning"), el("div", { cls: "reply" }, r.reasoning)) : null);
  const sc = (n) => idx.scores[n][k];
  const line = (n) => { const s = sc(n); return s ? `score ${fmt(s[0])} (${s[1]}); positive met ${s[2]}/${s[3]}, negative triggered ${s[4]}/${s[5]}, unscored ${s[6]}` : "not scored"; };
  let disagree = 0, vsPhys = 0;
  const P = d.physicians || null;   // physicians' majority verdict per criterion (report.physicians.csv)
  const physFor = (r) => (p) => !p || !p[3] || ((!p[3].model || p[3].model === r.model) && (!p[3].mode || p[3].mode === r.mode));
  const crit = d.rubric.map((cr, n) => {
    const va = (A.verdicts || {})[cr.id], vb = B ? (B.verdicts || {})[cr.id] : null;
    const differs = B && va && vb && va[0] !== null && vb[0] !== null && va[0] !== vb[0];
    if (differs) disagree++;
    const p = P ? P[cr.id] : null, pShown = p && physFor(run)(p) ? p : null;
    const pDiffers = pShown && va && va[0] !== null && pShown[0] !== null && va[0] !== pShown[0];
    if (pDiffers) vsPhys++;
    return el("tr", { cls: (cr.weight < 0 ? "neg " : "") + (differs || pDiffers ? "disagree" : ""), "data-testid": "criterion" },
      el("td", { cls: "num" }, n + 1), el("td", { cls: "num w" }, cr.weight), el("td", {}, cr.text),
      verdictCell(va, cr.weight), el("td", {}, va && va[2] ? va[2] : ""),
      B ? verdictCell(vb, cr.weight) : null, B ? el("td", {}, vb && vb[2] ? vb[2] : "") : null,
      P ? (pShown ? verdictCell([pShown[0]], cr.weight) : el("td", {}, "–")) : null,
      P ? el("td", { cls: "num" }, pShown ? `${pShown[1]}/${pShown[2]}` : "") : null);
  });
  show(el("h1", {}, c.id),
    el("p", {}, [c.department, c.specialty && `(${c.specialty})`, c.intent, c.stage, `${c.n_images ?? "?"} images`, `${c.n_turns ?? "?"} turns`].filter(Boolean).join(" · ")),
    compare,
    el("div", { cls: "cols" },
      el("div", { cls: "col" }, el("h2", {}, "Dialogue"), dialogue.length ? dialogue : el("p", {}, "(the dataset was not available when the viewer was built)")),
      el("div", { cls: "col" }, el("h2", {}, "Replies"), el("p", { "data-testid": "score-a" }, `${runLabel(run)}: ${line(i)}`),
        B ? el("p", { "data-testid": "score-b" }, `${runLabel(idx.runs[j])}: ${line(j)}`) : null,
        el("div", { cls: "cols" }, replyBox(run.model, A), B ? replyBox(idx.runs[j].model, B) : null,
          el("div", { cls: "col" }, el("h3", {}, "physician's real reply (y_orig)"), el("div", { cls: "yorig", "data-testid": "yorig" }, d.y_orig ?? "–"))))),
    el("h2", {}, "Rubric"), B ? el("p", { "data-testid": "disagreements" }, `${disagree} criteria judged differently`) : null,
    P ? el("p", { "data-testid": "physician-disagreements" }, `${vsPhys} criteria where the judge and the physicians' majority disagree`) : null,
    el("table", { "data-testid": "rubric" }, el("thead", {}, el("tr", {}, ["#", "weight", "criterion", `verdict (${run.model})`, "judge's rationale",
      ...(B ? [`verdict (${idx.runs[j].model})`, "judge's rationale"] : []),
      ...(P ? ["physicians (majority)", "met / physicians"] : [])].map((h) => el("th", {}, h)))), el("tbody", {}, crit)));
}
document.getElementById("modal").addEventListener("click", (e) => { e.currentTarget.hidden = true; });
