// The contest's projector page, served at / by serve.cpp: one self-contained document (no
// external resources) that polls /api/board every 3 s and shows one board per device, in tabs.
//
// Aliases, device names and statuses come from students: the script puts them in the page with
// textContent only, never as markup. serve.cpp replaces every @NONCE@ with the response's CSP
// nonce, so only this <style> and this <script> may run.
//
// Query parameters: ?cycle=N switches to the next device's board every N seconds (unattended
// projector); #device=NAME selects a board. With two boards or more (a zoo: contest/zoo.hpp) an
// "Across devices" tab ranks by the geometric mean of x naive, and the latest submissions show
// their state on each device (a Slurm job's id, a failure's reason).
#pragma once

namespace workbook::contest {

inline constexpr const char* page_html = R"PAGE(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Matmul contest</title>
<link rel="icon" href="data:,">
<style nonce="@NONCE@">
  :root {
    --bg: #0e1320; --panel: #161d2e; --line: #26304a; --fg: #eef2fa; --muted: #93a0bd;
    --gold: #ffd257; --silver: #d5dbe8; --bronze: #e3a06b; --accent: #5cc8ff; --flash: #2f9e52;
  }
  html { font-size: clamp(16px, 1.45vw, 34px); }
  body {
    margin: 0; background: var(--bg); color: var(--fg);
    font-family: "DejaVu Sans", "Noto Sans", system-ui, sans-serif; line-height: 1.25;
  }
  header {
    display: flex; align-items: baseline; justify-content: space-between; gap: 1rem;
    padding: 1rem 2rem 0.6rem;
  }
  h1 { margin: 0; font-size: 2.6rem; letter-spacing: 0.02em; }
  h1 .sub { color: var(--accent); font-weight: 400; }
  #status { color: var(--muted); font-size: 1rem; white-space: nowrap; }
  #status.stale { color: #ff7373; font-weight: 700; }
  nav { display: flex; flex-wrap: wrap; gap: 0.4rem; padding: 0 2rem; }
  nav button {
    font: inherit; font-size: 1.1rem; padding: 0.45rem 1.1rem; cursor: pointer;
    color: var(--muted); background: transparent; border: 2px solid var(--line);
    border-bottom: none; border-radius: 0.6rem 0.6rem 0 0;
    max-width: 30rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap;
  }
  nav button.active { color: var(--fg); background: var(--panel); border-color: var(--accent); }
  main { padding: 0 2rem 1rem; }
  .board { background: var(--panel); border-top: 3px solid var(--accent); }
  .baseline-note { color: var(--muted); font-size: 1rem; padding: 0.5rem 1rem 0; }
  table { width: 100%; border-collapse: collapse; font-size: 1.75rem; table-layout: fixed; }
  col.rank { width: 5.5rem; } col.ratio { width: 13rem; } col.gflops { width: 11rem; } col.speedup { width: 10rem; }
  col.when { width: 9rem; }
  th {
    text-align: left; color: var(--muted); font-size: 1rem; font-weight: 600;
    text-transform: uppercase; letter-spacing: 0.06em; padding: 0.6rem 1rem;
    border-bottom: 2px solid var(--line);
  }
  td { padding: 0.5rem 1rem; border-bottom: 1px solid var(--line); }
  .num { text-align: right; font-variant-numeric: tabular-nums; }
  td.alias { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  td.when { color: var(--muted); font-size: 1.2rem; white-space: nowrap; }
  tr.r1 td.rank, tr.r1 td.alias, tr.r1 td.gflops { color: var(--gold); font-weight: 700; }
  tr.r2 td.rank, tr.r2 td.alias { color: var(--silver); font-weight: 700; }
  tr.r3 td.rank, tr.r3 td.alias { color: var(--bronze); font-weight: 700; }
  tr.baseline td {
    color: var(--muted); font-style: italic; font-weight: 400;
    background: repeating-linear-gradient(135deg, #1b2336 0 12px, #1f283d 12px 24px);
    border-top: 2px dashed #4a5675; border-bottom: 2px dashed #4a5675;
  }
  tr.baseline td.alias::before { content: "\2691  "; font-style: normal; }
  @keyframes flash {
    0% { background-color: var(--flash); color: #fff; }
    100% { background-color: transparent; }
  }
  tr.flash td { animation: flash 2.6s ease-out; }
  tr.flash td.alias::after { content: "  \25B2"; color: #7dff9e; font-style: normal; }
  .empty { padding: 2rem 1rem; color: var(--muted); font-size: 1.6rem; text-align: center; }
  footer {
    display: flex; align-items: baseline; gap: 1rem; padding: 0.4rem 2rem 1rem;
    color: var(--muted); font-size: 1rem;
  }
  footer > span { white-space: nowrap; }
  footer ul { display: flex; flex-wrap: wrap; gap: 0.5rem 1.2rem; list-style: none; margin: 0; padding: 0; }
  footer li { display: inline-flex; align-items: baseline; white-space: nowrap; }
  footer li .who { max-width: 16rem; overflow: hidden; text-overflow: ellipsis; }
  .badge { font-size: 0.8rem; padding: 0.05rem 0.45rem; border-radius: 0.4rem; margin-left: 0.35rem; }
  .badge.queued { background: #3b4766; } .badge.running { background: #1f6fa8; }
  .badge.done { background: #2a7a43; } .badge.rejected { background: #8e2f37; }
  .badge.submitted { background: #6a4fa3; } .badge.failed { background: #b5651d; } .badge.judging { background: #1f6fa8; }
  #clock { font-size: 1.3rem; font-weight: 700; }
  #clock.closed { color: var(--muted); }
  #clock .frozen { color: #8fc7ff; font-size: 1rem; margin-left: 0.8rem; }
  .hardware { color: var(--muted); font-size: 1rem; padding: 0.5rem 1rem 0; }
  td.per { color: var(--muted); font-size: 1.1rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
</style>
</head>
<body>
<header>
  <h1>Matmul contest <span class="sub">leaderboard</span></h1>
  <div id="clock" hidden></div>
  <div id="status">connecting&hellip;</div>
</header>
<nav id="tabs" role="tablist"></nav>
<main id="main"><div class="empty">Loading the board&hellip;</div></main>
<footer><span>Latest submissions:</span><ul id="recent"></ul></footer>
<script nonce="@NONCE@">
'use strict';
(function () {
  const REFRESH_MS = 3000;
  const CROSS = '\u0000cross';  // the cross-device tab's key: no device name holds a NUL
  let boards = [];            // the last /api/board devices
  let cross = [];             // the last /api/board cross_device rows (two boards or more)
  let finals = [];            // the last /api/board final boards (after `contest final`), tabs first
  const FINAL = 'final:';
  let baselineAlias = '';
  let referenceAlias = '';
  let racePassOff = false;    // the judge runs with --no-race-check
  let selected = null;        // device name of the visible board
  let previous = null;        // Map device -> Map alias -> gflops, from the refresh before
  let changed = new Map();    // device -> Set of aliases new or improved at the last refresh
  let refreshes = 0;

  // Every piece of text from the server goes in through textContent.
  function el(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = String(text);
    return e;
  }

  function fmtGflops(x) { return Number(x).toFixed(1); }
  function fmtSpeedup(x) { return x > 0 ? Number(x).toFixed(1) + '\u00d7' : '\u2014'; }
  function fmtWhen(s) {
    const d = new Date(String(s) + 'Z');   // the server's times are UTC without a zone
    if (isNaN(d.getTime())) return String(s);
    const today = new Date();
    if (d.toDateString() === today.toDateString())
      return d.toLocaleTimeString([], {hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false});
    return d.toLocaleDateString([], {month: 'short', day: 'numeric'});
  }

  function readHash() {
    if (location.hash === '#cross') return CROSS;
    const m = /^#device=(.*)$/.exec(location.hash);
    if (!m) return null;
    try { return decodeURIComponent(m[1]); } catch (e) { return null; }
  }

  function select(device) {
    selected = device;
    history.replaceState(null, '', device === CROSS ? '#cross' : '#device=' + encodeURIComponent(device));
    render();
  }

  function tabKeys() {
    const keys = finals.map(function (b) { return FINAL + b.device; }).concat(boards.map(function (b) { return b.device; }));
    if (cross.length > 0) keys.push(CROSS);
    return keys;
  }
  function renderTabs() {
    const nav = document.getElementById('tabs');
    const buttons = tabKeys().map(function (key) {
      const label = key === CROSS ? 'Across devices' : key.indexOf(FINAL) === 0 ? 'Final \u00b7 ' + key.slice(FINAL.length) : key;
      const button = el('button', key === selected ? 'active' : '', label);
      button.type = 'button';
      button.setAttribute('role', 'tab');
      button.setAttribute('aria-selected', key === selected ? 'true' : 'false');
      button.title = label;
      button.dataset.tab = key === CROSS ? 'cross' : key.indexOf(FINAL) === 0 ? 'final' : 'device';
      button.addEventListener('click', function () { select(key); });
      return button;
    });
    nav.replaceChildren.apply(nav, buttons);
  }
  // Every alias on the geometric mean of its x naive over the boards it is on.
  function renderCross() {
    const wrap = el('section', 'board');
    wrap.setAttribute('aria-label', 'Across devices');
    const table = el('table');
    table.id = 'cross';
    const cols = el('colgroup');
    ['rank', 'alias', 'speedup', 'per'].forEach(function (c) { cols.appendChild(el('col', c)); });
    table.appendChild(cols);
    const head = el('thead');
    const hr = el('tr');
    [['#', 'num'], ['Alias', ''], ['\u00d7 naive (geo. mean)', 'num'], ['Per device', '']]
      .forEach(function (h) { hr.appendChild(el('th', h[1], h[0])); });
    head.appendChild(hr);
    table.appendChild(head);
    const body = el('tbody');
    body.id = 'cross-rows';
    let place = 0;  // medals among the students, as on the boards
    cross.forEach(function (r) {
      const instructors = r.alias === baselineAlias || r.alias === referenceAlias;
      if (!instructors) place++;
      const tr = el('tr', instructors ? 'baseline' : (place <= 3 ? 'r' + place : ''));
      tr.appendChild(el('td', 'rank num', r.rank));
      const alias = el('td', 'alias', r.alias);
      alias.title = r.alias;
      tr.appendChild(alias);
      tr.appendChild(el('td', 'speedup num', fmtSpeedup(r.geomean)));
      const per = (Array.isArray(r.speedups) ? r.speedups : []).map(function (x) {
        return x.device + ' ' + fmtSpeedup(x.speedup);
      }).join(' \u00b7 ');
      const td = el('td', 'per', per);
      td.title = per;
      tr.appendChild(td);
      body.appendChild(tr);
    });
    table.appendChild(body);
    wrap.appendChild(table);
    wrap.appendChild(el('div', 'baseline-note',
      'Each entry\u2019s speed-up over the naive kernel on each device it ran on (its record there), and their ' +
      'geometric mean: a fast device does not outweigh a slow one.'));
    return wrap;
  }

  function renderBoard(board) {
    const wrap = el('section', 'board');
    wrap.setAttribute('aria-label', board.device);
    if (board.hardware && board.hardware !== board.device)
      wrap.appendChild(el('div', 'hardware', board.hardware));
    if (board.baseline_gflops > 0)
      wrap.appendChild(el('div', 'baseline-note',
        'Baseline (naive kernel): ' + fmtGflops(board.baseline_gflops) + ' GFLOPS on ' + board.device));
    const table = el('table');
    table.id = 'board';
    const cols = el('colgroup');
    ['rank', 'alias', 'ratio', 'gflops', 'speedup', 'when'].forEach(function (c) { cols.appendChild(el('col', c)); });
    table.appendChild(cols);
    const head = el('thead');
    const hr = el('tr');
    [['#', 'num'], ['Alias', ''], ['\u00d7 reference', 'num'], ['GFLOPS', 'num'], ['\u00d7 baseline', 'num'],
     ['When', 'num']]
      .forEach(function (h) { hr.appendChild(el('th', h[1], h[0])); });
    head.appendChild(hr);
    table.appendChild(head);
    const body = el('tbody');
    body.id = 'rows';
    const fresh = changed.get(board.device) || new Set();
    // Medals among the students (the instructor's rows win none); tied students share one.
    let students = 0, place = 0, placeRank = -1;
    board.rows.forEach(function (r) {
      const isBaseline = r.alias === baselineAlias;
      const classes = [];
      if (isBaseline || r.alias === referenceAlias) classes.push('baseline');
      else {
        students++;
        if (r.rank !== placeRank) { place = students; placeRank = r.rank; }
        if (place <= 3) classes.push('r' + place);
      }
      if (fresh.has(r.alias)) classes.push('flash');
      const tr = el('tr', classes.join(' '));
      tr.dataset.rank = String(r.rank);
      const rank = el('td', 'rank num', (r.tied ? '=' : '') + r.rank);
      if (r.tied) rank.title = 'tied: the spreads of these entries overlap';
      tr.appendChild(rank);
      const alias = el('td', 'alias', r.alias);
      alias.title = r.alias;
      tr.appendChild(alias);
      const ratio = el('td', 'ratio num', r.ratio > 0 ? r.ratio.toFixed(3) + '\u00d7' : '\u2013');
      if (r.ratio > 0) ratio.title = 'spread ' + r.ratio_low.toFixed(3) + ' to ' + r.ratio_high.toFixed(3);
      tr.appendChild(ratio);
      tr.appendChild(el('td', 'gflops num', fmtGflops(r.gflops)));
      tr.appendChild(el('td', 'speedup num', isBaseline ? '1.0\u00d7' : fmtSpeedup(r.speedup)));
      const when = el('td', 'when num', fmtWhen(r.when) + (r.runs > 1 ? ' \u00b7 ' + r.runs + ' runs' : ''));
      if (r.runs > 1) when.title = 'one kernel judged ' + r.runs + ' times: its median run';
      tr.appendChild(when);
      body.appendChild(tr);
    });
    table.appendChild(body);
    wrap.appendChild(table);
    wrap.appendChild(el('div', 'baseline-note',
      'Ranked by speed relative to the reference kernel, timed alternately with each entry on the same ' +
      'inputs; \u201c=\u201d marks entries whose spreads overlap (tied within the machine\u2019s noise).'));
    if (racePassOff)
      wrap.appendChild(el('div', 'baseline-note',
        'Race pass off: entries were not checked under Oclgrind for missing barriers and races.'));
    return wrap;
  }

  function render() {
    const main = document.getElementById('main');
    if (boards.length === 0) {
      document.getElementById('tabs').replaceChildren();
      main.replaceChildren(el('div', 'empty', 'No results yet: the first kernels are being judged.'));
      return;
    }
    if (tabKeys().indexOf(selected) < 0) selected = tabKeys()[0];
    renderTabs();
    if (selected === CROSS) { main.replaceChildren(renderCross()); return; }
    const board = selected.indexOf(FINAL) === 0
      ? finals.find(function (b) { return FINAL + b.device === selected; })
      : boards.find(function (b) { return b.device === selected; });
    main.replaceChildren(board.rows.length > 0 ? renderBoard(board)
                                               : el('div', 'empty', 'No results on ' + board.device + ' yet.'));
  }

  // Rows that are new or faster than at the previous refresh flash once (not on the first load).
  function diff(devices) {
    const now = new Map();
    changed = new Map();
    devices.forEach(function (b) {
      const m = new Map();
      b.rows.forEach(function (r) { m.set(r.alias, r.gflops); });
      now.set(b.device, m);
      if (previous === null) return;
      const before = previous.get(b.device) || new Map();
      const set = new Set();
      b.rows.forEach(function (r) {
        if (!before.has(r.alias) || r.gflops > before.get(r.alias)) set.add(r.alias);
      });
      changed.set(b.device, set);
    });
    previous = now;
  }

  // The contest's window: a countdown to its opening or closing (server times, counted here from
  // the server's own "now", so a wrong clock on the projector's machine does not matter).
  let contest = null, contestAt = 0;
  function span(seconds) {
    seconds = Math.max(0, Math.floor(seconds));
    const h = Math.floor(seconds / 3600), m = Math.floor(seconds % 3600 / 60), s = seconds % 60;
    return (h > 0 ? h + ':' + String(m).padStart(2, '0') : String(m)) + ':' + String(s).padStart(2, '0');
  }
  function renderClock() {
    const c = document.getElementById('clock');
    if (!contest) { c.hidden = true; return; }  // no window and no freeze: nothing to count
    const gone = (Date.now() - contestAt) / 1000;
    let text = '';
    c.className = '';
    if (contest.state === 'closed') { text = 'Contest closed'; c.className = 'closed'; }
    else if (typeof contest.opens_in === 'number' && contest.opens_in - gone > 0) text = 'Opens in ' + span(contest.opens_in - gone);
    else if (typeof contest.closes_in === 'number') text = contest.closes_in - gone > 0 ? 'Closes in ' + span(contest.closes_in - gone) : 'Contest closed';
    else text = 'Open';
    c.replaceChildren(document.createTextNode(text));
    if (contest.frozen && contest.state !== 'closed') c.appendChild(el('span', 'frozen', 'board frozen at ' + fmtWhen(contest.frozen)));
    c.hidden = false;
  }
  setInterval(renderClock, 1000);

  function setStatus(text, stale) {
    const s = document.getElementById('status');
    s.textContent = text;
    s.className = stale ? 'stale' : '';
  }

  async function refreshBoard() {
    const response = await fetch('/api/board', {cache: 'no-store'});
    if (!response.ok) throw new Error('HTTP ' + response.status);
    const data = await response.json();
    boards = Array.isArray(data.devices) ? data.devices : [];
    cross = Array.isArray(data.cross_device) ? data.cross_device : [];
    finals = Array.isArray(data.final) ? data.final : [];
    baselineAlias = typeof data.baseline_alias === 'string' ? data.baseline_alias : '';
    referenceAlias = typeof data.reference_alias === 'string' ? data.reference_alias : '';
    racePassOff = data.race_pass === 'off';
    contest = data.contest && typeof data.contest === 'object' ? data.contest : null;
    contestAt = Date.now();
    renderClock();
    diff(boards);
    render();
    const n = boards.length;
    setStatus('updated ' + new Date().toLocaleTimeString([], {hour12: false}) + ' \u00b7 ' + n + (n === 1 ? ' device' : ' devices'), false);
  }

  async function refreshRecent() {
    const response = await fetch('/api/submissions', {cache: 'no-store'});
    if (!response.ok) return;
    const data = await response.json();
    const items = (Array.isArray(data.submissions) ? data.submissions : []).slice(0, 8).map(function (s) {
      const li = el('li');
      li.title = s.alias + ' (' + s.status + ')';
      li.appendChild(el('span', 'who', s.alias));
      const per = Array.isArray(s.devices) ? s.devices : [];
      if (per.length === 0)
        li.appendChild(el('span', 'badge ' + String(s.status).replace(/[^a-z]/g, ''), s.status));
      per.forEach(function (d) {
        // A zoo: the state on each device, a Slurm job's id, a failure's reason on hover.
        const text = d.device + ': ' + d.state + (d.job_id ? ' (job ' + d.job_id + ')' : '');
        const badge = el('span', 'badge ' + String(d.state).replace(/[^a-z]/g, ''), text);
        badge.dataset.device = String(d.device);
        badge.dataset.state = String(d.state);
        if (d.reason) badge.title = String(d.reason);
        li.appendChild(badge);
      });
      return li;
    });
    const ul = document.getElementById('recent');
    ul.replaceChildren.apply(ul, items);
  }

  async function tick() {
    try {
      await refreshBoard();
      if (refreshes++ % 2 === 0) await refreshRecent();
    } catch (e) {
      setStatus('connection lost \u2014 retrying', true);
    }
    setTimeout(tick, REFRESH_MS);
  }

  selected = readHash();
  const cycle = Number(new URLSearchParams(location.search).get('cycle'));
  if (cycle > 0) {
    setInterval(function () {
      const keys = tabKeys();
      if (keys.length < 2) return;
      select(keys[(keys.indexOf(selected) + 1) % keys.length]);
    }, cycle * 1000);
  }
  tick();
})();
</script>
</body>
</html>
)PAGE";

}  // namespace workbook::contest
