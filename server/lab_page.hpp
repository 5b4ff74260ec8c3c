// The lab dashboard's page, served at /lab (the instructor's grid) and /room (the projector's
// counts): one self-contained document that polls every 3 s. At /lab the instructor's token comes
// from the address's fragment (/lab#TOKEN), which the browser never sends to the server; the page
// sends it as a bearer token to /api/lab. At /room it reads /api/lab/room, which holds no names.
//
// Names, aliases and titles go in through textContent only, never as markup; lab_routes.cpp
// serves it with a CSP that lets only this <style> and <script> run (@NONCE@).
#pragma once

namespace workbook::server {

inline constexpr const char* lab_page_html = R"PAGE(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lab</title>
<link rel="icon" href="data:,">
<style nonce="@NONCE@">
  :root { --bg: #0f1522; --panel: #172033; --line: #2a3552; --fg: #eef2fa; --muted: #97a3bf;
          --pass: #2f9e52; --work: #3a6fd8; --stuck: #e0533d; --none: #232c42; }
  body { margin: 0; background: var(--bg); color: var(--fg); font-family: "DejaVu Sans", system-ui, sans-serif; }
  header { display: flex; justify-content: space-between; align-items: baseline; padding: 0.8rem 1.5rem; }
  h1 { margin: 0; font-size: 1.7rem; }
  #status { color: var(--muted); }
  #status.stale { color: var(--stuck); font-weight: 700; }
  main { padding: 0 1.5rem 1.5rem; }
  table { border-collapse: collapse; }
  th, td { border: 1px solid var(--line); padding: 0.25rem 0.45rem; text-align: center; }
  th { background: var(--panel); font-weight: 600; }
  td.name { text-align: left; white-space: nowrap; }
  td.name small { color: var(--muted); }
  td.cell { min-width: 1.9rem; font-size: 0.8rem; padding: 0.2rem 0.25rem; }
  th.ex { font-size: 0.85rem; padding: 0.2rem 0.25rem; }
  td.passed { background: var(--pass); }
  td.working { background: var(--work); }
  td.stuck { background: var(--stuck); font-weight: 700; }
  td.not-started { background: var(--none); color: var(--muted); }
  .legend span { display: inline-block; padding: 0.1rem 0.5rem; margin-right: 0.4rem; border-radius: 3px; }
  .legend .passed { background: var(--pass); } .legend .working { background: var(--work); }
  .legend .stuck { background: var(--stuck); } .legend .not-started { background: var(--none); }
  .kinds { text-align: left; color: var(--muted); }
  ul.kinds { margin: 0.8rem 0 0; padding-left: 1.2rem; }
  #room td, #room th { font-size: 1.15rem; padding: 0.35rem 0.8rem; }
  #room td.name { max-width: 24rem; overflow: hidden; text-overflow: ellipsis; }
  .bar { display: inline-block; height: 0.9rem; background: var(--pass); vertical-align: middle; }
  #error { color: var(--stuck); padding: 1rem 1.5rem; }
</style>
</head>
<body>
<header><h1 id="title">Lab</h1><span id="status">loading</span></header>
<div id="error" hidden></div>
<main id="main"></main>
<script nonce="@NONCE@">
(function () {
  'use strict';
  const room = location.pathname === '/room';
  const token = room ? '' : decodeURIComponent(location.hash.replace(/^#(token=)?/, ''));
  const main = document.getElementById('main');
  const status = document.getElementById('status');
  const error = document.getElementById('error');
  document.getElementById('title').textContent = room ? 'The room' : 'Lab: students \u00d7 exercises';
  document.title = room ? 'The room' : 'Lab (instructor)';

  function el(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  function kindsText(list, n) {
    return (Array.isArray(list) ? list : []).slice(0, n).map(function (k) {
      return k.label + ' \u00d7' + k.students;
    }).join(', ');
  }
  function legend(stuckMinutes) {
    const p = el('p', 'legend');
    [['passed', 'passed'], ['working', 'working'], ['stuck', 'stuck (over ' + stuckMinutes + ' min)'],
     ['not-started', 'no check yet']].forEach(function (l) { p.appendChild(el('span', l[0], l[1])); });
    return p;
  }

  function renderGrid(d) {
    const table = el('table');
    table.id = 'grid';
    const head = el('tr');
    head.appendChild(el('th', '', 'student'));
    d.exercises.forEach(function (x) { const th = el('th', 'ex', x.id); th.title = x.title; head.appendChild(th); });
    table.appendChild(head);
    d.students.forEach(function (s) {
      const tr = el('tr');
      tr.dataset.student = s.id;
      const name = el('td', 'name', s.name || s.id);
      if (s.alias && s.alias !== s.name) { name.appendChild(document.createTextNode(' ')); name.appendChild(el('small', '', s.alias)); }
      tr.appendChild(name);
      d.exercises.forEach(function (x) {
        const c = s.cells[x.id];
        const state = c ? c.state.replace(' ', '-') : 'not-started';
        const text = !c ? '' : c.state === 'passed' ? '\u2713' : c.state === 'stuck' ? 'stuck ' + c.minutes + 'm' : '\u2026';
        const td = el('td', 'cell ' + state, text);
        td.dataset.exercise = x.id;
        if (c) td.title = c.checks + ' checks, ' + c.fails + ' failed' + (c.last_failure ? ', last: ' + c.last_failure : '') +
                          ', ' + c.hints + ' hints';
        tr.appendChild(td);
      });
      table.appendChild(tr);
    });
    // Per exercise, the most common failures (students who met each kind).
    const kinds = el('ul', 'kinds');
    kinds.id = 'failures';
    d.per_exercise.forEach(function (x) {
      if (!x.failures.length) return;
      const li = el('li', '', x.id + ' ' + x.title + ': ' + kindsText(x.failures, 4));
      li.dataset.exercise = x.id;
      kinds.appendChild(li);
    });
    main.replaceChildren(legend(d.stuck_minutes), table, kinds);
  }

  function renderRoom(d) {
    const table = el('table');
    table.id = 'room';
    const head = el('tr');
    ['exercise', 'passed', 'working', 'stuck', 'most common failures'].forEach(function (h) { head.appendChild(el('th', '', h)); });
    table.appendChild(head);
    d.exercises.forEach(function (x) {
      if (x.passed + x.working + x.stuck === 0) return;
      const tr = el('tr');
      tr.dataset.exercise = x.id;
      tr.appendChild(el('td', 'name', x.id + ' ' + x.title));
      const passed = el('td', '', x.passed + ' ');
      const bar = el('span', 'bar');
      bar.style.width = Math.round(6 * x.passed / Math.max(1, d.students)) + 'rem';
      passed.appendChild(bar);
      tr.appendChild(passed);
      tr.appendChild(el('td', '', x.working));
      tr.appendChild(el('td', x.stuck > 0 ? 'stuck' : '', x.stuck));
      tr.appendChild(el('td', 'kinds', kindsText(x.failures, 3)));
      table.appendChild(tr);
    });
    main.replaceChildren(el('p', '', d.students + ' students have checked an exercise.'), legend(d.stuck_minutes), table);
  }

  function tick() {
    const headers = room ? {} : { 'Authorization': 'Bearer ' + token };
    fetch(room ? '/api/lab/room' : '/api/lab', { headers: headers, cache: 'no-store' })
      .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, body: j }; }); })
      .then(function (r) {
        if (!r.ok) throw new Error(r.body && r.body.error ? r.body.error : 'the server refused');
        error.hidden = true;
        (room ? renderRoom : renderGrid)(r.body);
        status.className = '';
        status.textContent = 'updated ' + r.body.generated_at.replace('T', ' ') + ' UTC';
      })
      .catch(function (e) {
        error.hidden = false;
        error.textContent = String(e.message || e);
        status.className = 'stale';
        status.textContent = 'not updating';
      });
  }
  tick();
  setInterval(tick, 3000);
})();
</script>
</body>
</html>
)PAGE";

}  // namespace workbook::server
