// The lab page: controls for a GPU and a kernel, and what the server's simulation answers.
// Every number shown comes from the server (POST /api/run, /api/sweep); this script only
// formats them and draws bars of the shares the server gives.
"use strict";

const lab = { gpus: [], kernels: [], states: [], topics: [], columns: [] };

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function fmt(x, digits) {
  if (x === null || x === undefined || Number.isNaN(x)) return "-";
  if (Number.isInteger(x) && Math.abs(x) >= 1000) return x.toLocaleString("en-US");
  return Number(x).toPrecision(digits || 4).replace(/\.?0+$/, (m) => (m.startsWith(".") ? "" : m));
}

function percent(share) {
  return share === null || share === undefined ? "-" : (share * 100).toFixed(1) + " %";
}

async function getJSON(path) {
  const r = await fetch(path);
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

async function postJSON(path, request, signal) {
  const r = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(request),
    signal,
  });
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

function svgURL(svg, old) {
  if (old) URL.revokeObjectURL(old);
  return URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
}

class Column {
  constructor(index) {
    this.index = index;
    const t = document.getElementById("column-template").content.cloneNode(true);
    this.root = t.querySelector(".column");
    this.root.id = "column-" + "ab"[index];
    this.root.querySelector(".column-title").textContent = "Setting " + "AB"[index];
    this.q = (sel) => this.root.querySelector(sel);
    this.gpuSelect = this.q(".gpu");
    this.kernelSelect = this.q(".kernel");
    this.pasted = null; // the pasted GPU file in use, or null for the preset
    this.gpuKeys = {}; // key -> value the user moved (only those are sent)
    this.timer = null;
    this.abort = null;
    this.urls = {};
    for (const g of lab.gpus) this.gpuSelect.append(el("option", { value: g.name, text: `${g.name}: ${g.title}` }));
    for (const k of lab.kernels) this.kernelSelect.append(el("option", { value: k.name, text: k.name }));
    this.gpuSelect.value = lab.gpus.some((g) => g.name === "h100") ? "h100" : lab.gpus[0].name;
    this.kernelSelect.value = lab.kernels.some((k) => k.name === "mix") ? "mix" : lab.kernels[0].name;
    this.gpuSelect.addEventListener("change", () => { this.pasted = null; this.gpuKeys = {}; this.buildGpu(); this.schedule(); });
    this.kernelSelect.addEventListener("change", () => { this.buildKernel(); this.schedule(); });
    this.q(".use-yaml").addEventListener("click", () => this.usePasted());
    this.q(".use-preset").addEventListener("click", () => { this.pasted = null; this.gpuKeys = {}; this.buildGpu(); this.schedule(); });
    this.q(".sweep").addEventListener("click", () => this.sweep());
    this.buildGpu();
    this.buildKernel();
  }

  gpu() {
    return this.pastedGpu || lab.gpus.find((g) => g.name === this.gpuSelect.value);
  }

  kernel() {
    return lab.kernels.find((k) => k.name === this.kernelSelect.value);
  }

  // One control: a slider with a number field, a menu, or a text field.
  field(container, id, name, value, spec, meaning, onchange) {
    const row = el("div", { class: "field" });
    const label = el("label", { for: id, text: name });
    row.append(label);
    let input;
    if (spec.choices) {
      input = el("select", { id, name });
      const values = spec.choices.includes(value) ? spec.choices : [value, ...spec.choices];
      for (const c of values) input.append(el("option", { value: c, text: c }));
      input.value = value;
      row.append(input, el("span"));
      input.addEventListener("change", () => onchange(input.value));
    } else if (spec.min !== undefined) {
      input = el("input", { id, name, type: "range", min: spec.min, max: spec.max, step: spec.step || 1, value });
      const number = el("input", { type: "number", min: spec.min, max: spec.max, step: "any", value, "aria-label": name + " (exact value)" });
      row.append(input, number);
      input.addEventListener("input", () => { number.value = input.value; onchange(input.value); });
      number.addEventListener("change", () => { if (number.value !== "") { input.value = number.value; onchange(number.value); } });
    } else {
      input = el("input", { id, name, type: "text", value });
      row.append(input, el("span"));
      input.addEventListener("change", () => onchange(input.value));
    }
    if (meaning) row.append(el("p", { class: "meaning", text: meaning }));
    container.append(row);
    return input;
  }

  buildGpu() {
    const box = this.q(".gpu-keys");
    box.replaceChildren();
    const g = this.gpu();
    for (const k of g.keys) {
      const id = `${this.root.id}-gpu-${k.key.replaceAll(".", "-")}`;
      const value = this.gpuKeys[k.key] !== undefined ? this.gpuKeys[k.key] : k.value;
      const step = Number.isInteger(k.value) ? 1 : 0.01;
      this.field(box, id, k.key, value, { min: k.min, max: Math.max(k.max, value), step }, `${k.meaning} (${k.unit})`,
        (v) => { this.gpuKeys[k.key] = v; this.schedule(); });
    }
    this.buildKernel();
  }

  buildKernel() {
    const k = this.kernel();
    this.q(".kernel-description").textContent = k.description;
    this.q("details.more").hidden = !k.params.some((p) => !p.choices && p.min === undefined);
    const box = this.q(".params"), more = this.q(".more-params");
    box.replaceChildren();
    more.replaceChildren();
    this.params = {};
    const sweepKey = this.q(".sweep-key");
    sweepKey.replaceChildren(el("option", { value: "", text: "(none: one curve)" }));
    for (const p of k.params) {
      this.params[p.name] = p.default;
      let spec = p;
      if (p.name === "warps_per_sm" && p.max !== undefined) spec = { ...p, max: Math.min(p.max, this.gpu().max_warps) };
      const id = `${this.root.id}-param-${p.name}`;
      // parameters with a range or choices first; the others folded away
      const where = p.choices || p.min !== undefined ? box : more;
      this.field(where, id, p.name, p.default, spec, p.meaning, (v) => { this.params[p.name] = v; this.schedule(); });
      if (p.name !== "warps_per_sm") sweepKey.append(el("option", { value: p.name, text: p.name }));
    }
  }

  request() {
    const r = { kernel: this.kernelSelect.value, set: { ...this.params } };
    if (this.pasted !== null) r.gpu_yaml = this.pasted;
    else r.gpu = this.gpuSelect.value;
    Object.assign(r.set, this.gpuKeys);
    return r;
  }

  status(text, error) {
    const s = this.q(".status");
    s.textContent = text;
    s.classList.toggle("error", !!error);
  }

  async usePasted() {
    const text = this.q(".gpu-yaml").value;
    try {
      const g = await postJSON("api/gpu", { gpu_yaml: text });
      this.pasted = text;
      this.pastedGpu = g;
      this.gpuKeys = {};
      this.buildGpu();
      this.schedule();
    } catch (e) {
      this.status(e.message, true);
    }
  }

  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), 150);
  }

  async run() {
    if (this.abort) this.abort.abort(); // the server cancels the run it was doing for us
    this.abort = new AbortController();
    this.status("simulating…");
    this.root.dataset.state = "running";
    try {
      const a = await postJSON("api/run", this.request(), this.abort.signal);
      this.show(a);
      this.status(`simulated in ${fmt(a.seconds, 2)} s`);
      this.root.dataset.state = "done";
    } catch (e) {
      if (e.name === "AbortError") return;
      this.status(e.message, true);
      this.root.dataset.state = "error";
    }
  }

  show(a) {
    const run = a.run, peaks = a.against_peaks;
    this.q(".results").hidden = false;
    const dl = this.q(".numbers");
    dl.replaceChildren();
    const row = (key, label, text, share) => {
      const dd = el("dd", { "data-key": key, text });
      if (share !== undefined && share !== null) {
        const bar = el("span");
        bar.style.width = Math.min(100, share * 100) + "%";
        dd.append(el("span", { class: "meter", title: percent(share) }, bar));
      }
      dl.append(el("dt", { text: label }), dd);
    };
    row("cycles", "cycles", `${fmt(run.cycles)} (${fmt(run.milliseconds, 3)} ms with the launch)`);
    row("warps", "warps per SM", `${run.warps_per_sm} (achieved occupancy ${percent(run.occupancy.achieved)})`);
    row("ipc", "IPC per SM", `${fmt(peaks.ipc.value)} of ${fmt(peaks.ipc.peak)} (${percent(peaks.ipc.share)})`, peaks.ipc.share);
    row("issue_slots", "issue slots used", percent(peaks.issue_slots.value), peaks.issue_slots.value);
    for (const [level, v] of Object.entries(peaks.bytes_per_cycle)) {
      row("bytes_" + level, `${level} bytes/cycle`, `${fmt(v.value)} of ${fmt(v.peak)} (${percent(v.share)})`, v.share);
    }
    row("latency", "mean load latency", `${fmt(run.memory.mean_load_latency_cycles)} cycles`);
    // the warp states: shares of resident warp-cycles, in the server's order and colours
    const bar = this.q(".state-bar"), body = this.q(".states tbody");
    bar.replaceChildren();
    body.replaceChildren();
    const labels = [];
    for (const s of lab.states) {
      const st = run.warp_states[s.name];
      if (!st || s.name === "inactive" || st.warp_cycles === 0) continue;
      const seg = el("span", { title: `${s.name} ${percent(st.share)}` });
      seg.style.width = st.share * 100 + "%";
      seg.style.background = s.colour;
      bar.append(seg);
      labels.push(`${s.name} ${percent(st.share)}`);
      const swatch = el("span", { class: "swatch" });
      swatch.style.background = s.colour;
      body.append(el("tr", { "data-state": s.name },
        el("td", {}, swatch, s.name), el("td", { class: "share", text: percent(st.share) }), el("td", { text: s.summary })));
    }
    bar.setAttribute("aria-label", "warp states: " + labels.join(", "));
    const ul = this.q(".little");
    ul.replaceChildren();
    const lines = { describe: "warps to keep the memory level busy", run: "warps to keep this kernel at its bound" };
    for (const l of a.littles_law) {
      ul.append(el("li", { "data-little": l.name }, el("strong", { text: `${fmt(l.warps, 3)} ${lines[l.name] || l.name}` }),
        el("br"), el("span", { class: "how", text: `= ${l.how}` })));
    }
    if (run.model) {
      ul.append(el("li", { "data-little": "bounds" }, el("strong", { text: `model IPC ${fmt(run.model.ipc)}` }), el("br"),
        el("span", { class: "how", text: `= min(latency bound ${fmt(run.model.latency_bound)}, throughput bound ${fmt(run.model.throughput_bound)}), ${run.model.bound}-bound: Volkov's formula, for comparison` })));
    }
    if (a.littles_law.length === 0 && !run.model) ul.append(el("li", { text: "This kernel is not built like Volkov's mix: the model does not apply." }));
    if (a.picture_svg) {
      this.urls.timeline = svgURL(a.picture_svg, this.urls.timeline);
      this.q(".timeline").src = this.urls.timeline;
    }
  }

  async sweep() {
    const r = this.request();
    r.mark = true;
    const key = this.q(".sweep-key").value;
    const values = this.q(".sweep-values").value.split(",").map((s) => s.trim()).filter((s) => s);
    if (key) {
      if (values.length === 0) { this.status(`give the values of ${key} to sweep, e.g. 2,8,32`, true); return; }
      r.vary = { key, values };
    }
    this.status("sweeping warps…");
    this.root.dataset.sweep = "running";
    try {
      const a = await postJSON("api/sweep", r);
      this.urls.sweep = svgURL(a.plot_svg, this.urls.sweep);
      const fig = this.q(".sweep-figure");
      fig.hidden = false;
      this.q(".results").hidden = false;
      this.q(".sweep-plot").src = this.urls.sweep;
      const c = a.sweep.curves.map((c) => `${c.curve}: max IPC ${fmt(c.max_ipc)}, 90 % of it at ${fmt(c.warps_90_of_max)} warps`).join("; ");
      this.q(".sweep-caption").textContent = `${a.sweep.points.length} runs in ${fmt(a.seconds, 2)} s. ${c}. The dot is this setting.`;
      this.status("");
      this.root.dataset.sweep = "done";
    } catch (e) {
      this.status(e.message, true);
      this.root.dataset.sweep = "error";
    }
  }
}

function layout() {
  const two = document.getElementById("compare").checked;
  document.getElementById("columns").classList.toggle("two", two);
  if (two && lab.columns.length < 2) {
    const c = new Column(1);
    lab.columns.push(c);
    document.getElementById("columns").append(c.root);
    c.schedule();
  }
  if (lab.columns[1]) lab.columns[1].root.hidden = !two;
}

async function start() {
  try {
    const [g, k, x] = await Promise.all([getJSON("api/gpus"), getJSON("api/kernels"), getJSON("api/explain")]);
    lab.gpus = g.gpus;
    lab.kernels = k.kernels;
    lab.states = x.states;
    lab.topics = x.topics;
  } catch (e) {
    document.getElementById("loading").textContent = "The server did not answer: " + e.message;
    return;
  }
  document.getElementById("loading").remove();
  const c = new Column(0);
  lab.columns.push(c);
  document.getElementById("columns").append(c.root);
  c.schedule();
  document.getElementById("compare").addEventListener("change", layout);
  document.getElementById("large").addEventListener("change", (e) => document.body.classList.toggle("large", e.target.checked));
}

start();
