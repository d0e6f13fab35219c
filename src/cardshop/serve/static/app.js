// cardshop serve: the page. Lobby, table and replay viewer; it loads nothing from the
// web, and every text from the server goes into the page as text (never as markup).
"use strict";

const main = document.getElementById("main");
const toastBox = document.getElementById("toast");
let current = null; // the open view's cleanup (a socket, a timer)
let generation = 0; // counts routes: a view that finishes loading late draws nothing
const MANY = 12; // a verb with more legal actions than this is chosen from a list

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function put(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined &&
    c !== false));
  return node;
}

function toast(text, bad) {
  toastBox.textContent = text;
  toastBox.className = bad ? "show bad" : "show";
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { toastBox.className = ""; }, 4000);
}

async function api(path, options) {
  const response = await fetch(path, options);
  const type = response.headers.get("content-type") || "";
  const body = type.includes("json") ? await response.json() : await response.text();
  if (!response.ok) throw new Error((body && body.message) || response.statusText);
  return body;
}

function post(path, data) {
  return api(path, {
    method: "POST",
    headers: {"content-type": "application/json"},
    body: JSON.stringify(data),
  });
}

const tokens = {
  key: (table, seat) => `cardshop:${table}:${seat}`,
  get: (table, seat) => localStorage.getItem(tokens.key(table, seat)),
  set: (table, seat, token) => localStorage.setItem(tokens.key(table, seat), token),
};

// ------------------------------------------------------------------- cards

function card(c) {
  const color = c.color ? ` c-${c.color}` : "";
  if (c.back) {
    return el("div", {class: "card back", title: "face down"},
      c.count > 1 ? el("span", {class: "count"}, `×${c.count}`) : null);
  }
  return el("div", {class: `card${color}`, title: c.mark ? `${c.face} (${c.mark})` : c.face},
    el("span", {class: "face"}, c.face),
    c.mark ? el("span", {class: "mark"}, c.mark) : null,
    c.count > 1 ? el("span", {class: "count"}, `×${c.count}`) : null);
}

function zone(z) {
  return el("section", {class: "zone", dataset: {zone: z.title}},
    el("h4", {}, z.title, z.note ? el("span", {class: "note"}, ` ${z.note}`) : null),
    el("div", {class: "cards"},
      z.cards.length ? z.cards.map(card) : el("span", {class: "empty"}, "empty")));
}

function drawView(view, text, seats, me, acting) {
  if (!view) {
    return el("div", {class: "view"},
      text ? el("pre", {class: "render"}, text)
           : el("p", {class: "muted"}, "This family draws no public table; its events follow."));
  }
  const seatInfo = seats || [];
  return el("div", {class: "view"},
    el("h2", {class: "headline"}, view.headline),
    view.prompt ? el("p", {class: "prompt"}, view.prompt) : null,
    el("div", {class: "public"}, view.zones.map(zone)),
    el("div", {class: "seats"}, view.seats.map((s) => {
      const info = seatInfo[s.seat] || {};
      const classes = ["seat"];
      if (s.seat === me) classes.push("mine");
      if ((acting || []).includes(s.seat)) classes.push("acting");
      return el("article", {class: classes.join(" "), dataset: {seat: s.seat}},
        el("h3", {},
          info.connected === false ? el("span", {class: "dot off", title: "away"}) :
            el("span", {class: "dot", title: "here"}),
          `Seat ${s.seat}`, info.name && info.name !== `seat ${s.seat}` ? ` · ${info.name}` : "",
          s.seat === me ? el("span", {class: "you"}, "you") : null,
          info.player && info.player !== "human" ? el("span", {class: "bot"}, "bot") : null),
        el("p", {class: "lines"}, s.lines.join(" · ")),
        el("div", {class: "zones"}, s.zones.map(zone)));
    })));
}

// ------------------------------------------------------------------- lobby

async function lobby() {
  const mine = generation;
  const [variants, tables] = await Promise.all([api("api/variants"), api("api/tables")]);
  if (mine !== generation) return;
  const list = el("div", {id: "tables"});
  const form = createForm(variants.variants);
  put(main,
    el("section", {class: "panel"}, el("h2", {}, "Open a table"), form),
    el("section", {class: "panel"}, el("h2", {}, "Tables"), list));
  const draw = (all) => put(list, ...(all.length ? all.slice().reverse().map(tableRow)
    : [el("p", {class: "muted"}, "No tables yet.")]));
  draw(tables.tables);
  const timer = setInterval(async () => {
    try { draw((await api("api/tables")).tables); } catch (e) { /* the next try */ }
  }, 3000);
  current = () => clearInterval(timer);
}

function tableRow(t) {
  const seats = t.seats.map((s) => {
    const mine = tokens.get(t.id, s.seat);
    let control = null;
    if (mine) control = el("a", {class: "button", href: `#/t/${t.id}/s/${s.seat}`}, "return");
    else if (!s.claimed && !t.over) {
      control = el("button", {class: "take", dataset: {table: t.id, seat: s.seat},
        onclick: () => takeSeat(t.id, s.seat)}, "take seat");
    }
    return el("li", {}, `seat ${s.seat}: ${s.claimed ? s.name : "free"}`,
      s.player !== "human" ? ` (${s.player})` : "", " ", control);
  });
  const state = t.error ? `stopped: ${t.error}` : t.over ? "over" : `step ${t.step}`;
  return el("div", {class: "table-row", dataset: {table: t.id}},
    el("div", {}, el("strong", {}, t.title), ` · ${t.id} · ${state}`),
    el("ul", {class: "seat-list"}, seats),
    el("a", {class: "button", href: `#/t/${t.id}`}, t.over ? "see the end" : "watch"),
    t.over ? el("a", {class: "button", href: `api/tables/${t.id}/record`, download: ""},
      "download record") : null);
}

async function takeSeat(table, seat, name) {
  try {
    const given = name === undefined ? (document.getElementById("name") || {}).value || "" : name;
    const claim = await post(`api/tables/${table}/claim`, {seat, name: given});
    tokens.set(table, seat, claim.token);
    location.hash = `#/t/${table}/s/${seat}`;
  } catch (e) { toast(e.message, true); }
}

function createForm(variants) {
  const byName = Object.fromEntries(variants.map((v) => [v.name, v]));
  const variant = el("select", {id: "variant"},
    variants.map((v) => el("option", {value: v.name}, `${v.title} (${v.family})`)));
  const players = el("input", {id: "players", type: "number", min: 1, max: 16});
  const seats = el("div", {id: "seat-kinds"});
  const tps = el("input", {id: "tps", type: "number", min: 0.2, max: 50, step: 0.1, value: 1});
  const timer = el("input", {id: "timer", type: "number", min: 0, step: 1, placeholder: "none"});
  const delay = el("input", {id: "delay", type: "number", min: 0, max: 60, step: 0.1,
    value: 0.6});
  const seed = el("input", {id: "seed", type: "number", min: 0, placeholder: "random"});
  const name = el("input", {id: "name", type: "text", maxlength: 40, placeholder: "your name",
    value: localStorage.getItem("cardshop:name") || ""});
  const realTime = el("label", {}, "Ticks per second ", tps);
  const drawSeats = () => {
    const v = byName[variant.value];
    const n = Math.max(v.players.min, Math.min(v.players.max, Number(players.value) || 0));
    players.min = v.players.min; players.max = v.players.max; players.value = n;
    const old = [...seats.querySelectorAll("select")].map((s) => s.value);
    put(seats, ...Array.from({length: n}, (_, i) => el("label", {}, `Seat ${i} `,
      el("select", {class: "kind", dataset: {seat: i}},
        ["human", ...v.bots].map((b) => el("option", {value: b,
          selected: (old[i] || (i === 0 ? "human" : (v.bots.includes("greedy") ? "greedy" :
            "random"))) === b}, b === "human" ? "a person" : `bot: ${b}`))))));
    realTime.hidden = v.dynamics !== "simultaneous";
  };
  variant.addEventListener("change", () => { players.value = ""; drawSeats(); });
  players.addEventListener("change", drawSeats);
  drawSeats();
  const open = async (event) => {
    event.preventDefault();
    const v = byName[variant.value];
    const kinds = [...seats.querySelectorAll("select")].map((s) => s.value);
    localStorage.setItem("cardshop:name", name.value);
    const spec = {variant: v.name, players: kinds.length, seats: kinds,
      ticks_per_second: Number(tps.value) || 1, bot_delay: Number(delay.value) || 0};
    if (Number(timer.value) > 0) spec.move_timer = Number(timer.value);
    if (seed.value !== "") spec.seed = Number(seed.value);
    try {
      const table = await post("api/tables", spec);
      const first = kinds.indexOf("human");
      if (first >= 0) await takeSeat(table.id, first, name.value);
      else location.hash = `#/t/${table.id}`;
    } catch (e) { toast(e.message, true); }
  };
  return el("form", {id: "create", onsubmit: open},
    el("label", {}, "Variant ", variant), el("label", {}, "Players ", players), seats,
    el("div", {class: "row"}, realTime, el("label", {}, "Move timer (s) ", timer),
      el("label", {}, "Bot delay (s) ", delay), el("label", {}, "Seed ", seed),
      el("label", {}, "Name ", name)),
    el("button", {type: "submit", id: "open"}, "Open the table"));
}

// ------------------------------------------------------------------- a table

function tableView(id, seat) {
  const token = seat === null ? null : tokens.get(id, seat);
  if (seat !== null && !token) {
    put(main, el("p", {}, `This browser holds no token for seat ${seat}. `,
      el("a", {href: "#/"}, "Back to the tables")));
    return;
  }
  const head = el("div", {class: "table-head"});
  const board = el("div", {id: "board"});
  const actions = el("div", {id: "actions", class: "panel"});
  const log = el("ul", {id: "events"});
  const side = el("aside", {class: "side"}, el("h3", {}, "Last events"), log);
  put(main, head, el("div", {class: "table-layout"},
    el("div", {}, board, actions), side));
  const url = new URL(`ws/${id}`, location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(url);
  let welcome = null;
  let state = null;
  let drawnLegal = "";
  let closed = false;
  let listing = false; // the flat list of legal actions instead of the part-by-part builder
  let building = null; // the server's last answer for the action being built part by part
  let asked = null; // the parts last asked for (an answer to an older question is dropped)
  let shownBuild = null; // what the builder's buttons show (see drawBuilder)
  socket.onopen = () => socket.send(JSON.stringify({type: "hello", token}));
  socket.onmessage = (frame) => {
    const m = JSON.parse(frame.data);
    if (m.type === "welcome") welcome = m;
    else if (m.type === "state") { state = m; draw(); }
    else if (m.type === "error") toast(m.message, true);
    else if (m.type === "legal") { listing = true; drawActions(m.actions, m.total, m.prefix); }
    else if (m.type === "parts") builtPart(m);
    else if (m.type === "bye") toast(m.message);
  };
  socket.onclose = () => { if (!closed) head.append(el("p", {class: "prompt bad"},
    "Disconnected from the server. Reload the page to come back.")); };
  const send = (m) => socket.send(JSON.stringify(m));
  let deadlineAt = null;
  const countDown = () => {
    const span = document.getElementById("deadline");
    if (!span) return;
    span.textContent = deadlineAt === null ? "" :
      ` · ${Math.max(0, Math.ceil((deadlineAt - Date.now()) / 1000))} s left to move`;
  };
  const ticking = setInterval(countDown, 500);

  function draw() {
    const title = welcome ? welcome.title : id;
    const clock = state.clock ? ` · ${state.clock.ticks_per_second} ticks/s` +
      (state.clock.running ? "" : " (paused)") : "";
    put(head,
      el("h1", {}, title, el("span", {class: "muted"},
        ` · table ${id} · ${seat === null ? "watching" : `seat ${seat}`}`)),
      el("p", {class: "status", id: "status"}, state.status, clock,
        el("span", {id: "deadline"})),
      state.over ? el("div", {class: "result", id: "result"}, resultTable(state),
        el("a", {class: "button", id: "download", href: `api/tables/${id}/record`,
          download: ""}, "Download the record"),
        el("button", {id: "replay-this", onclick: () => replayTable(id, seat)},
          "Step through this game")) : null);
    put(board, drawView(state.view, state.text, state.seats, seat, state.acting));
    deadlineAt = state.deadline === null ? null : Date.now() + 1000 * state.deadline;
    countDown();
    board.dataset.step = state.step;
    board.dataset.over = state.over;
    put(log, ...state.events.slice().reverse().map((e) =>
      el("li", {}, el("span", {class: "muted"}, `${state.clock ? "tick" : "step"} ${e.step}: `),
        e.text)));
    // a build in progress is kept while the seat's legal actions stay the same
    const legal = !state.legal ? "none" : JSON.stringify(state.legal) +
      (state.legal.parts ? `@${state.step}` : "");
    const chosen = document.getElementById("pending");
    if (chosen) chosen.textContent = state.pending ? ` chosen: ${state.pending}` : "";
    if (legal !== drawnLegal) {
      drawnLegal = legal;
      listing = false;
      building = null;
      asked = null;
      if (state.legal) drawMoves();
      else {
        put(actions, el("p", {class: "muted"}, seat === null ? "You are watching." :
          state.over ? "The game is over." : "Waiting for the other seats…"));
      }
    }
  }

  const play = (a) => send({type: "act", action: a, step: state.step});
  const moveHeading = () => el("h3", {},
    state && state.clock ? "Your action for the next tick" : "Your move",
    el("span", {class: "pending", id: "pending"}, state && state.pending ?
      ` chosen: ${state.pending}` : ""));

  function drawMoves() {
    if (state.legal.parts && !listing) drawParts();
    else drawActions(state.legal.actions, state.legal.total, "");
  }

  // The part-by-part builder (a family with a factored action space): the first part's
  // options are the verbs; one that leads to a few actions shows them as buttons, one
  // that leads to many is built a part at a time, each part offering only the options
  // that still lead to a legal action (the server says which), then submitted whole.
  const builder = el("section", {id: "builder", class: "builder", "aria-live": "polite",
    "aria-label": "the action being built"});
  builder.addEventListener("keydown", (e) => {
    if (e.key === "Escape") { e.preventDefault(); resetBuild(); }
  });

  function drawParts() {
    const first = state.legal.parts.next;
    const start = building ? building.chosen[0] : null;
    const groups = first.options.map((o) => el("div", {class: "verb",
      dataset: {verb: o.label}},
      el("span", {class: "verb-name"}, o.label),
      o.actions ? o.actions.map((a) => el("button", {class: "act", dataset: {action: a},
        onclick: () => play(a)}, a === o.label ? a :
        a.startsWith(`${o.label} `) ? a.slice(o.label.length + 1) : a))
        : el("button", {class: "part-start", type: "button",
          dataset: {value: o.value, label: o.label}, "aria-pressed": String(start === o.value),
          onclick: () => ask([o.value])}, `${o.label}: build it part by part…`)));
    const at = first.options.findIndex((o) => o.value === start);
    groups.splice(at < 0 ? groups.length : at + 1, 0, builder); // under the verb being built
    put(actions, moveHeading(), ...groups,
      el("p", {class: "muted"}, el("button", {id: "list-all", class: "quiet", type: "button",
        onclick: () => { listing = true; building = null; asked = null; drawMoves(); }},
      `list all ${state.legal.total} legal actions instead`)));
    drawBuilder(false);
  }

  function ask(chosen) {
    asked = chosen;
    send({type: "parts", chosen, step: state.step});
  }

  function builtPart(m) {
    const current = asked && !listing && state && m.step === state.step &&
      asked.every((v, i) => m.chosen[i] === v);
    if (!current) return;
    const fresh = !building || building.chosen[0] !== m.chosen[0];
    building = m;
    if (fresh) drawParts();
    drawBuilder(true);
  }

  function backBuild() {
    if (!building) return;
    let i = building.path.length - 1;
    while (i >= 0 && building.path[i].forced) i -= 1;
    if (i <= 0) resetBuild();
    else ask(building.chosen.slice(0, i));
  }

  function resetBuild() {
    building = null;
    asked = null;
    drawParts();
    const again = actions.querySelector(".part-start");
    if (again) again.focus();
  }

  // The builder is rebuilt only when what it shows changes: an answer that repeats the
  // build (the same part asked for again) keeps its buttons, and with them the focus and
  // whatever the pointer is over.
  function drawBuilder(focus) {
    builder.hidden = !building;
    const key = building ?
      JSON.stringify([building.path, building.next, building.action]) : "";
    if (key !== shownBuild) {
      shownBuild = key;
      fillBuilder();
    }
    // a new build or a new part brings the focus to its first choice; one already in
    // the builder stays where it is
    if (focus && building && !builder.contains(document.activeElement)) {
      const target = builder.querySelector(".part-option, #part-submit");
      if (target) target.focus();
    }
  }

  function fillBuilder() {
    if (!building) { put(builder); return; }
    const next = building.next;
    put(builder,
      el("h4", {}, "Your action, part by part"),
      el("ol", {id: "build-summary", class: "build-path"}, building.path.map((p) =>
        el("li", {class: p.forced ? "forced" : null, dataset: {step: p.name},
          title: p.forced ? "the only legal choice here" : null},
          el("span", {class: "part-name"}, `${p.name}: `), el("strong", {}, p.label)))),
      next ? el("fieldset", {class: "part-step", dataset: {step: next.name}},
        el("legend", {}, `Choose ${next.name}`),
        next.options.map((o) => el("button", {class: "part-option", type: "button",
          dataset: {value: o.value, label: o.label},
          onclick: () => ask([...building.chosen, o.value])}, o.label))) : null,
      building.action ? el("p", {class: "build-action", id: "build-action"}, "Ready: ",
        el("strong", {}, building.action)) : null,
      el("div", {class: "row"},
        building.action ? el("button", {id: "part-submit", class: "submit", type: "button",
          onclick: () => play(building.action)}, "Submit") : null,
        el("button", {id: "part-back", class: "quiet", type: "button", onclick: backBuild},
          "◀ Back"),
        el("button", {id: "part-reset", class: "quiet", type: "button", onclick: resetBuild},
          "Start over")));
  }

  function drawActions(list, total, prefix) {
    const groups = new Map();
    for (const a of list) {
      const verb = a.split(" ")[0];
      if (!groups.has(verb)) groups.set(verb, []);
      groups.get(verb).push(a);
    }
    const filter = el("input", {id: "filter", type: "text", value: prefix,
      placeholder: "type an action, or the start of one"});
    const search = () => send({type: "legal", prefix: filter.value});
    filter.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); search(); }
    });
    const chooser = (verb, all) => {
      const pick = el("select", {class: "choose", dataset: {verb}},
        all.map((a) => el("option", {value: a}, a.slice(verb.length + 1))));
      return [pick, el("button", {class: "act", onclick: () => play(pick.value)}, verb)];
    };
    put(actions, moveHeading(),
      ...[...groups].map(([verb, all]) => el("div", {class: "verb", dataset: {verb}},
        el("span", {class: "verb-name"}, verb),
        all.length > MANY ? chooser(verb, all) : all.map((a) => el("button", {class: "act",
          dataset: {action: a}, onclick: () => play(a)}, a === verb ? a : a.slice(verb.length + 1))))),
      total > list.length ? el("p", {class: "muted"},
        `${list.length} of ${total} legal actions shown; narrow them down:`) : null,
      el("div", {class: "row"}, filter, el("button", {onclick: search}, "list"),
        el("button", {onclick: () => play(filter.value)}, "play it")),
      state && state.legal && state.legal.parts ? el("p", {class: "muted"},
        el("button", {id: "build-parts", class: "quiet", type: "button",
          onclick: () => { listing = false; drawMoves(); }}, "build an action part by part")) :
        null);
  }

  current = () => { closed = true; clearInterval(ticking); socket.close(); };
}

function resultTable(state) {
  const r = state.result;
  return el("table", {class: "scores"},
    el("tr", {}, el("th", {}, "seat"), el("th", {}, "score"), el("th", {}, "rank")),
    r.scores.map((score, s) => el("tr", {class: r.winners.includes(s) ? "winner" : ""},
      el("td", {}, `${s}${state.seats[s] ? ` · ${state.seats[s].name}` : ""}`),
      el("td", {}, score), el("td", {}, r.ranks[s]))));
}

async function replayTable(id, seat) {
  try {
    const text = await api(`api/tables/${id}/record`);
    replayView(text, seat);
  } catch (e) { toast(e.message, true); }
}

// ------------------------------------------------------------------- replays

function replayPage() {
  const file = el("input", {type: "file", id: "record-file", accept: ".jsonl,.json,.txt"});
  const paste = el("textarea", {id: "record-text", rows: 6,
    placeholder: "…or paste a record (JSON Lines) here"});
  const load = async () => {
    const text = file.files.length ? await file.files[0].text() : paste.value;
    if (text.trim()) replayView(text, null);
  };
  file.addEventListener("change", load);
  put(main, el("section", {class: "panel"}, el("h2", {}, "Replay a game record"),
    el("p", {}, "A record written by cardshop (play --record, a finished table, the API). ",
      "It is verified step by step before it is shown."),
    file, paste, el("button", {id: "record-load", onclick: load}, "Show it")));
}

async function replayView(text, seat) {
  const mine = generation;
  let data;
  try {
    const query = seat === null || seat === undefined ? "" : `?seat=${seat}`;
    data = await api(`api/replay${query}`, {method: "POST", body: text,
      headers: {"content-type": "application/jsonl"}});
  } catch (e) { toast(e.message, true); return; }
  if (mine !== generation) return;
  const frames = data.frames;
  let at = 0;
  const board = el("div", {id: "replay-board"});
  const info = el("p", {id: "replay-step", class: "status"});
  const what = el("div", {class: "panel"});
  const slider = el("input", {id: "replay-slider", type: "range", min: 0,
    max: frames.length - 1, value: 0});
  const jump = el("input", {id: "replay-jump", type: "number", min: 0, max: frames.length - 1,
    placeholder: "step"});
  const viewAs = el("select", {id: "replay-seat"},
    el("option", {value: ""}, "public view"),
    data.seats.map((name, s) => el("option", {value: s, selected: data.seat === s},
      `as seat ${s} (${name})`)));
  viewAs.addEventListener("change", () => replayView(text,
    viewAs.value === "" ? null : Number(viewAs.value)));
  const show = (i) => {
    at = Math.max(0, Math.min(frames.length - 1, i));
    const f = frames[at];
    slider.value = at;
    info.textContent = `step ${at} of ${frames.length - 1}` +
      (at === frames.length - 1 && data.result ?
        ` · final scores ${data.result.scores.join(", ")}` : "");
    put(board, drawView(f.view, f.text, null, data.seat, []));
    put(what, el("h3", {}, at ? `Step ${at}` : "The deal"),
      f.actions.length ? el("p", {}, f.actions.map(([s, a]) => `seat ${s}: ${a}`).join("; "))
        : null,
      el("ul", {id: "replay-events"}, f.events.map((e) => el("li", {}, e))));
  };
  slider.addEventListener("input", () => show(Number(slider.value)));
  jump.addEventListener("change", () => show(Number(jump.value)));
  const button = (id, label, to) => el("button", {id, onclick: () => show(to())}, label);
  const keys = (e) => {
    if (e.target.tagName === "INPUT" && e.target.type !== "range") return;
    if (e.key === "ArrowRight") show(at + 1);
    else if (e.key === "ArrowLeft") show(at - 1);
  };
  document.addEventListener("keydown", keys);
  put(main,
    el("h1", {}, `Replay: ${data.variant}`, el("span", {class: "muted"},
      ` · ${data.players} players · ${frames.length - 1} steps · verified`)),
    el("div", {class: "controls"},
      button("replay-first", "« start", () => 0),
      button("replay-prev", "◀ back", () => at - 1),
      button("replay-next", "forward ▶", () => at + 1),
      button("replay-last", "end »", () => frames.length - 1),
      slider, el("label", {}, "jump to ", jump), viewAs),
    info, what, board);
  if (current) current();
  current = () => document.removeEventListener("keydown", keys);
  show(0);
}

// ------------------------------------------------------------------- routes

function route() {
  generation += 1;
  if (current) { current(); current = null; }
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  if (parts[0] === "t" && parts[1]) {
    tableView(parts[1], parts[2] === "s" && /^\d+$/.test(parts[3] || "") ? Number(parts[3]) : null);
  } else if (parts[0] === "replay") {
    replayPage();
  } else {
    lobby().catch((e) => { put(main, el("p", {class: "bad"}, e.message)); });
  }
}

window.addEventListener("hashchange", route);
route();
