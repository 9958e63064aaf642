// The host page of one MCP App opened by mcpdeck. It relays: every
// message the app's view posts is POSTed to mcpdeck, which decides and
// answers; what mcpdeck has for the view arrives on one streamed
// response. The page itself only resizes the iframe, asks the operator
// about links and says when mcpdeck is gone.
(() => {
  'use strict';
  const meta = (n) => document.querySelector('meta[name="' + n + '"]').content;
  const $ = (id) => document.getElementById(id);
  const id = meta('mcpdeck-app');
  const base = '/app/' + encodeURIComponent(id);
  const stored = 'mcpdeck-app-' + id;
  const stage = $('stage');
  let key = meta('mcpdeck-key');
  if (key) {
    // The link is spent; a reload of this tab goes on with the key.
    try { sessionStorage.setItem(stored, key); } catch (e) { /* private mode: no reload */ }
    history.replaceState(null, '', base + '/');
  } else {
    try { key = sessionStorage.getItem(stored) || ''; } catch (e) { key = ''; }
  }
  let frame = null;
  let gone = false;
  const links = [];

  function status(text, error) {
    const s = $('status');
    s.textContent = text;
    s.classList.toggle('error', !!error);
  }
  function notice(text) {
    const n = $('notice');
    n.textContent = text;
    n.hidden = false;
  }
  if (!key) {
    status('no key for this app', true);
    notice('This page has no key for the app: open it again from mcpdeck for a new link.');
    return;
  }
  const headers = { 'X-Mcpdeck-Key': key, 'Content-Type': 'application/json' };
  const post = (path, body) => fetch(base + path, { method: 'POST', headers, body: JSON.stringify(body), cache: 'no-store' });

  function toView(msg) {
    if (frame && frame.contentWindow) frame.contentWindow.postMessage(msg, '*');
  }
  function act(answer) {
    if (answer.reply) toView(answer.reply);
    const p = answer.page;
    if (!p) return;
    if (p.link) { links.push(p.link); showLink(); }
    if (p.teardown) notice('The app asked to be closed: close this tab when you are done with it.');
    if (p.closed) disconnected(p.closed);
  }
  function disconnected(text) {
    if (gone) return;
    gone = true;
    status('disconnected', true);
    notice(text);
    if (frame) { frame.remove(); frame = null; }
    $('link').hidden = true;
  }
  function resize(p) {
    if (!frame) return;
    if (typeof p.height === 'number' && p.height > 0) frame.style.height = Math.ceil(Math.min(p.height, 100000)) + 'px';
    if (typeof p.width === 'number' && p.width > 0) frame.style.width = Math.ceil(Math.min(p.width, stage.clientWidth)) + 'px';
  }

  function showLink() {
    const l = links[0];
    if (!l) { $('link').hidden = true; return; }
    $('link-url').textContent = l.url;
    $('link').hidden = false;
  }
  async function answerLink(open) {
    const l = links.shift();
    showLink();
    if (!l) return;
    if (open) window.open(l.url, '_blank', 'noopener,noreferrer');
    try {
      const r = await post('/link', { id: l.id, open });
      if (r.ok) act(await r.json());
    } catch (e) { disconnected('mcpdeck is not reachable: ' + e.message); }
  }
  $('link-open').addEventListener('click', () => answerLink(true));
  $('link-dismiss').addEventListener('click', () => answerLink(false));

  window.addEventListener('message', async (ev) => {
    if (!frame || ev.source !== frame.contentWindow) return;
    const msg = ev.data;
    if (!msg || typeof msg !== 'object' || msg.jsonrpc !== '2.0') return;
    if (msg.method === 'ui/notifications/size-changed') resize(msg.params || {});
    try {
      const r = await post('/bridge', msg);
      if (!r.ok) { status('mcpdeck refused a message: ' + (await r.text()).trim(), true); return; }
      act(await r.json());
    } catch (e) { disconnected('mcpdeck is not reachable: ' + e.message); }
  });

  async function listen() {
    try {
      const r = await fetch(base + '/events', { headers: { 'X-Mcpdeck-Key': key }, cache: 'no-store' });
      if (!r.ok) { disconnected((await r.text()).trim()); return; }
      const reader = r.body.getReader();
      const dec = new TextDecoder();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) act(JSON.parse(line));
        }
      }
    } catch (e) { /* the connection ended: said below */ }
    disconnected('mcpdeck is gone: this app is disconnected. Open it again from mcpdeck.');
  }

  async function start() {
    const info = {
      theme: matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light',
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      width: stage.clientWidth,
      height: window.innerHeight,
      touch: navigator.maxTouchPoints > 0,
    };
    let s;
    try {
      const r = await post('/start', info);
      if (!r.ok) { status('refused', true); notice((await r.text()).trim()); return; }
      s = await r.json();
    } catch (e) { disconnected('mcpdeck is not reachable: ' + e.message); return; }
    listen();
    $('about-uri').textContent = s.resourceUri;
    $('about-policy').textContent = s.policy;
    $('about-permissions').textContent = s.permissions.length ? s.permissions.join(', ') : 'none asked for';
    frame = document.createElement('iframe');
    frame.id = 'view';
    frame.title = 'MCP App of tool ' + s.tool;
    frame.setAttribute('sandbox', 'allow-scripts');
    frame.setAttribute('referrerpolicy', 'no-referrer');
    if (s.allow) frame.setAttribute('allow', s.allow);
    if (s.prefersBorder) frame.classList.add('border');
    frame.src = s.view;
    stage.appendChild(frame);
    status('running');
  }
  start();
})();
